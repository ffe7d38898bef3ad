"""Wall time of a `choice` pairwise_score run against a fixed-latency OpenAI-compatible stub.

The stub (benchmarks/stub_server.py) answers every chat completion after `--latency` seconds,
so with `max_connections` requests in flight the ideal wall time is
queries x latency / max_connections. For each `--max-connections` value this reports the
queries made (counted by the stub, and from the log's `queries` metric), wall time, the ideal
time, their ratio, the peak (and time-averaged) number of requests in flight at the stub,
CPU used by this process (eval + client, and the stub's own handler CPU when it runs
in-process), and the SPO mean (chance level, about 0.3-0.5). Results go to
benchmarks/results/choice_latency.json (one record per configuration, replacing an earlier
record of the same configuration).

Usage:
    python -m benchmarks.choice_latency [--latency 0.1] [--max-connections 16 32 64]
        [--n 40] [--limit 23] [--stub-process] [--no-log-realtime]
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from inspect_ai import eval

from benchmarks.stub_server import StubServer, StubStatsSnapshot, start_stub_server
from heedbench.evals.choice import choice
from heedbench.testing import log_metric as metric

RESULTS = Path(__file__).parent / "results" / "choice_latency.json"
SERVICE = "stub"
MODEL = f"openai-api/{SERVICE}/stub-model"
CONTEXTS = 23


class StubHandle:
    """The stub, either in this process (a thread) or in a child process, behind one interface."""

    def __init__(self, latency: float, in_child: bool, responder: str = "choice") -> None:
        self.server: StubServer | None = None
        self.child: subprocess.Popen[str] | None = None
        if in_child:
            command = [sys.executable, "-m", "benchmarks.stub_server",
                       "--latency", str(latency), "--port", "0",
                       "--responder", responder]  # fmt: skip
            self.child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
            assert self.child.stdout is not None
            line = self.child.stdout.readline()  # "stub serving http://127.0.0.1:PORT/v1 ..."
            if not line.startswith("stub serving "):
                self.child.kill()
                raise SystemExit(f"stub server did not start: {line!r}")
            self.base_url = line.split()[2]
        else:
            self.server, self.base_url = start_stub_server(latency, responder=responder)

    def _control(self, method: str, path: str) -> dict[str, Any]:
        root = self.base_url.removesuffix("/v1")
        request = urllib.request.Request(
            root + path, method=method, data=b"" if method == "POST" else None
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            result: dict[str, Any] = json.loads(response.read())
        return result

    def reset(self) -> None:
        """Zero the stub's counters."""
        if self.server is not None:
            self.server.stats.reset()
        else:
            self._control("POST", "/stats/reset")

    def snapshot(self) -> StubStatsSnapshot:
        """The stub's counters."""
        if self.server is not None:
            return self.server.stats.snapshot()
        return StubStatsSnapshot(**self._control("GET", "/stats"))

    def stop(self) -> None:
        """Shut the stub down."""
        if self.server is not None:
            self.server.stop()
        if self.child is not None:
            self.child.terminate()
            self.child.wait(timeout=10)


def process_cpu_seconds() -> float:
    """User + system CPU of this process (all threads) so far."""
    times = os.times()
    return times.user + times.system


def run_once(
    stub: StubHandle, max_connections: int, n: int, limit: int | None, latency: float,
    log_dir: str, log_realtime: bool = True,
) -> dict[str, Any]:  # fmt: skip
    """One eval at one concurrency; fail loudly unless it succeeds."""
    stub.reset()
    cpu_start, start = process_cpu_seconds(), time.perf_counter()
    logs = eval(
        choice(method="pairwise_score", n=n),
        model=MODEL,
        model_args={"stream": False, "max_retries": 0},  # no SDK retries either
        max_connections=max_connections,
        max_retries=0,
        fail_on_error=True,
        log_realtime=log_realtime,
        limit=limit,
        display="none",
        log_dir=log_dir,
    )
    wall = time.perf_counter() - start
    cpu = process_cpu_seconds() - cpu_start
    stats = stub.snapshot()
    log = logs[0]
    if log.status != "success":
        reason = log.error.message if log.error else "no error recorded"
        raise SystemExit(
            f"eval at max_connections={max_connections} ended {log.status!r}: {reason} "
            f"(log: {log.location})"
        )
    samples = log.results.completed_samples if log.results else 0
    log_queries = metric(log, "queries", "mean") * samples
    if round(log_queries) != stats.requests:
        print(f"warning: stub served {stats.requests} requests, log counts {log_queries:.0f}",
              file=sys.stderr)  # fmt: skip
    ideal = stats.requests * latency / max_connections
    in_process_stub = stub.server is not None
    client_cpu = cpu - (stats.handler_cpu_seconds if in_process_stub else 0.0)
    return {
        "max_connections": max_connections,
        "samples": samples,
        "queries_stub": stats.requests,
        "queries_log": round(log_queries),
        "wall_seconds": wall,
        "ideal_seconds": ideal,
        "ratio": wall / ideal if ideal else math.nan,
        "peak_in_flight": stats.peak_in_flight,
        "mean_in_flight": stats.busy_seconds / wall,
        "connections_opened": stats.connections,
        "throughput_rps": stats.requests / wall,
        "process_cpu_seconds": cpu,
        "process_cpu_share": cpu / wall,
        "stub_handler_cpu_seconds": stats.handler_cpu_seconds,
        "eval_client_cpu_ms_per_query": 1000 * client_cpu / stats.requests
        if stats.requests
        else math.nan,
        "spo_mean": metric(log, "spo", "mean"),
        "log_bytes": os.path.getsize(log.location) if os.path.exists(log.location) else None,
    }


def markdown_table(rows: list[dict[str, Any]]) -> str:
    """The results as a markdown table."""
    lines = [
        "| max_conn | queries (stub / log) | wall s | ideal s | wall/ideal | in flight peak (mean) "
        "| req/s | CPU s (share) | eval+client CPU ms/query | SPO mean |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['max_connections']} | {r['queries_stub']:,} / {r['queries_log']:,} "
            f"| {r['wall_seconds']:.1f} | {r['ideal_seconds']:.1f} | {r['ratio']:.2f} "
            f"| {r['peak_in_flight']} ({r['mean_in_flight']:.1f}) | {r['throughput_rps']:.0f} "
            f"| {r['process_cpu_seconds']:.1f} ({r['process_cpu_share']:.0%}) "
            f"| {r['eval_client_cpu_ms_per_query']:.2f} | {r['spo_mean']:.3f} |"
        )
    return "\n".join(lines)


CONFIGURATION = ("latency", "n", "limit", "max_connections", "stub_process", "log_realtime")


def save(record: dict[str, Any], path: Path, keys: tuple[str, ...] = CONFIGURATION) -> None:
    """Add a record to the results file, replacing one of the same configuration (`keys`)."""
    existing: list[dict[str, Any]] = []
    if path.exists():
        existing = json.loads(path.read_text(encoding="utf-8")).get("runs", [])
    kept = [r for r in existing if any(r.get(k) != record[k] for k in keys)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"runs": [*kept, record]}, indent=2) + "\n", encoding="utf-8")


def main() -> None:
    """Run the benchmark for each max-connections value and report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.1, help="stub delay in seconds")
    parser.add_argument("--max-connections", type=int, nargs="+", default=[64])
    parser.add_argument("--n", type=int, default=40, help="objects per context")
    parser.add_argument("--limit", type=int, default=None, help="contexts (default: all 23)")
    parser.add_argument("--log-dir", help="keep Inspect logs here (default: a temp dir)")
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument(
        "--stub-process",
        action="store_true",
        help="run the stub in a child process (keeps its CPU off this process's GIL)",
    )
    parser.add_argument(
        "--no-log-realtime",
        action="store_true",
        help="pass Inspect's --no-log-realtime (no live event buffer for inspect view)",
    )
    args = parser.parse_args()

    stub = StubHandle(args.latency, in_child=args.stub_process)
    os.environ[f"{SERVICE.upper()}_BASE_URL"] = stub.base_url
    os.environ[f"{SERVICE.upper()}_API_KEY"] = "stub"
    contexts = min(args.limit or CONTEXTS, CONTEXTS)
    print(f"stub at {stub.base_url}, latency {args.latency}s, n={args.n}, {contexts} contexts "
          f"({contexts * args.n * (args.n - 1):,} queries per run)", flush=True)  # fmt: skip
    rows: list[dict[str, Any]] = []
    try:
        with tempfile.TemporaryDirectory() as temp_dir:
            for max_connections in args.max_connections:
                row = run_once(stub, max_connections, args.n, args.limit, args.latency,
                               args.log_dir or temp_dir, not args.no_log_realtime)  # fmt: skip
                rows.append(row)
                print(json.dumps(row), flush=True)
    finally:
        stub.stop()
    print()
    print(markdown_table(rows))
    save(
        {
            "latency": args.latency,
            "n": args.n,
            "limit": args.limit,
            "max_connections": args.max_connections,
            "stub_process": args.stub_process,
            "log_realtime": not args.no_log_realtime,
            "contexts": contexts,
            "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
            "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "rows": rows,
        },
        args.output,
    )
    print(f"\nresults: {args.output}")


if __name__ == "__main__":
    main()
