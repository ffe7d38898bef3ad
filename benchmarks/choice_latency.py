"""Wall time of a `choice` pairwise_score run against a fixed-latency OpenAI-compatible stub.

The stub (tests/stub_server.py) answers every chat completion after `--latency` seconds,
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

import math
import os
import sys
from pathlib import Path
from typing import Any

from benchmarks.stub_runs import SERVICE, finish, options, sweep, table, timed_eval
from heedbench.evals.choice import choice
from heedbench.testing import log_metric as metric
from tests.stub_server import StubHandle

__all__ = ["MODEL", "SERVICE", "StubHandle", "main", "run_once"]
"""What `choice_scaling` takes from here too."""

RESULTS = Path(__file__).parent / "results" / "choice_latency.json"
MODEL = f"openai-api/{SERVICE}/stub-model"
CONTEXTS = 23
COLUMNS = [
    ("max_conn", "{max_connections}"),
    ("queries (stub / log)", "{queries_stub:,} / {queries_log:,}"),
    ("wall s", "{wall_seconds:.1f}"),
    ("ideal s", "{ideal_seconds:.1f}"),
    ("wall/ideal", "{ratio:.2f}"),
    ("in flight peak (mean)", "{peak_in_flight} ({mean_in_flight:.1f})"),
    ("req/s", "{throughput_rps:.0f}"),
    ("CPU s (share)", "{process_cpu_seconds:.1f} ({process_cpu_share:.0%})"),
    ("eval+client CPU ms/query", "{eval_client_cpu_ms_per_query:.2f}"),
    ("SPO mean", "{spo_mean:.3f}"),
]


def run_once(
    stub: StubHandle, max_connections: int, n: int, limit: int | None, latency: float,
    log_dir: str, log_realtime: bool = True,
) -> dict[str, Any]:  # fmt: skip
    """One eval at one concurrency; fail loudly unless it succeeds."""
    stub.reset()
    run = timed_eval(
        choice(method="pairwise_score", n=n),
        model=MODEL,
        model_args={"stream": False, "max_retries": 0},  # no SDK retries either
        max_connections=max_connections,
        log_realtime=log_realtime,
        limit=limit,
        log_dir=log_dir,
    )
    stats, log, wall = stub.snapshot(), run.log, run.wall
    samples = log.results.completed_samples if log.results else 0
    log_queries = metric(log, "queries", "mean") * samples
    if round(log_queries) != stats.requests:
        print(f"warning: stub served {stats.requests} requests, log counts {log_queries:.0f}",
              file=sys.stderr)  # fmt: skip
    ideal = stats.requests * latency / max_connections
    in_process_stub = stub.server is not None
    client_cpu = run.cpu - (stats.handler_cpu_seconds if in_process_stub else 0.0)
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
        "process_cpu_seconds": run.cpu,
        "process_cpu_share": run.cpu / wall,
        "stub_handler_cpu_seconds": stats.handler_cpu_seconds,
        "eval_client_cpu_ms_per_query": 1000 * client_cpu / stats.requests
        if stats.requests
        else math.nan,
        "spo_mean": metric(log, "spo", "mean"),
        "log_bytes": os.path.getsize(log.location) if os.path.exists(log.location) else None,
    }


def main() -> None:
    """Run the benchmark for each max-connections value and report."""
    parser = options(__doc__.split("\n\n")[0], latency=0.1, connections=[64], output=RESULTS)
    parser.add_argument("--n", type=int, default=40, help="objects per context")
    parser.add_argument("--limit", type=int, default=None, help="contexts (default: all 23)")
    args = parser.parse_args()
    contexts = min(args.limit or CONTEXTS, CONTEXTS)
    print(f"n={args.n}, {contexts} contexts "
          f"({contexts * args.n * (args.n - 1):,} queries per run)", flush=True)  # fmt: skip
    rows = sweep(args, "choice", lambda stub, connections, log_dir, realtime: run_once(
        stub, connections, args.n, args.limit, args.latency, log_dir, realtime))  # fmt: skip
    finish(args, rows, table(COLUMNS, rows), {"n": args.n, "limit": args.limit},
           {"contexts": contexts})  # fmt: skip


if __name__ == "__main__":
    main()
