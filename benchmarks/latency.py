"""Wall time against the fixed-latency stub server (`tests/stub_server.py`), per concurrency.

`choice`: a `choice` pairwise_score run. With `max_connections` requests in flight the ideal
wall time is queries x latency / max_connections; per `--max-connections` value this reports
the queries made (counted by the stub, and from the log's `queries` metric), wall and ideal
time and their ratio, the peak (and time-averaged) number of requests in flight at the stub,
this process's CPU (eval + client, less the stub's handler CPU when it runs in-process) and
the SPO mean (chance level, about 0.3-0.5).

`carryon`: the stub plays evaluated model, simulated user and grader of the multi-turn
conditions on `--queries` queries x `--flows` flows. A conversation of E exchanges cannot
finish faster than its critical path, E target and E - 1 user calls in sequence and then one
round of grader calls: 2E x latency. Per `--max-connections` value: wall time / critical path
per conversation (median, p90, max), calls per role from the log's model events, and the
throughput.

Both keep one record per configuration in benchmarks/results/<family>_latency.json (replacing
an earlier record of the same configuration).

`scaling`: one `choice` run (pairwise_score, `-T n=20`) split over P `inspect eval` processes
(each given its share of the contexts with `--sample-id` and `--max-connections` total/P, all
writing to one log folder): the wall time from the first start to the last exit against the
floor (calls x latency / total connections), and a check with `heedbench report`'s loader that
the shard logs form one run of every context with the one-process run's SPO
(benchmarks/results/choice_scaling.json).

Usage:
    python -m benchmarks.latency choice [--latency 0.1] [--max-connections 16 32 64]
        [--n 40] [--limit 23] [--stub-process] [--no-log-realtime]
    python -m benchmarks.latency carryon [--latency 0.5] [--max-connections 4 16 64]
        [--queries 8] [--flows 5] [--stub-process] [--no-log-realtime]
    python -m benchmarks.latency scaling [--latency 0.1] [--connections 64]
        [--processes 1 2 4] [--n 20]
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import GenerateConfig, Model, get_model

from heedbench.evals.carryon import CarryOnQuery, load_queries
from heedbench.evals.carryon.task import carryon
from heedbench.evals.choice import choice, choice_dataset
from heedbench.report.load import load_runs
from heedbench.testing import log_metric
from heedbench.testing_carryon import write_queries
from tests.stub_server import StubHandle

RESULTS = Path(__file__).parent / "results"
SERVICE = "stub"
"""Inspect's `openai-api/stub/...` provider, pointed at the stub by STUB_BASE_URL."""
MODEL = f"openai-api/{SERVICE}/stub-model"
COMMON = ("latency", "max_connections", "stub_process", "log_realtime")
"""The options every configuration has."""
CONTEXTS = 23


def timed_eval(task: Task, **eval_options: Any) -> tuple[EvalLog, float, float]:
    """One eval and its wall and CPU time; fail loudly unless it succeeds (no retries)."""
    cpu_start, start = time.process_time(), time.perf_counter()
    log = eval(task, max_retries=0, fail_on_error=True, display="none", **eval_options)[0]
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    if log.status != "success" or not log.samples:
        reason = log.error.message if log.error else "no error recorded"
        raise SystemExit(f"eval ended {log.status!r}: {reason} (log: {log.location})")
    return log, wall, cpu


Run = Callable[[StubHandle, int, str, bool], dict[str, Any]]
"""One eval at one concurrency: (stub, max connections, log dir, live log buffer) -> its row."""


def sweep(args: Any, responder: str, run: Run) -> list[dict[str, Any]]:
    """`run` at each `--max-connections` value against one stub, printing each row."""
    stub = StubHandle(args.latency, in_child=args.stub_process, responder=responder)
    os.environ[f"{SERVICE.upper()}_BASE_URL"] = stub.base_url
    os.environ[f"{SERVICE.upper()}_API_KEY"] = "stub"
    print(f"stub at {stub.base_url}, latency {args.latency}s", flush=True)
    rows: list[dict[str, Any]] = []
    try:
        with tempfile.TemporaryDirectory() as temp_dir:
            for connections in args.max_connections:
                rows.append(run(stub, connections, args.log_dir or temp_dir,
                                not args.no_log_realtime))  # fmt: skip
                print(json.dumps(rows[-1]), flush=True)
    finally:
        stub.stop()
    return rows


def finish(args: Any, rows: list[dict[str, Any]], columns: Sequence[tuple[str, str]],
           configuration: dict[str, Any], extra: dict[str, Any] | None = None) -> None:  # fmt: skip
    """Print the table (one header and row template per column) and keep the record, replacing
    one of the same configuration."""
    lines = ["| " + " | ".join(header for header, _ in columns) + " |",
             "|" + "---:|" * len(columns)]  # fmt: skip
    lines += ["| " + " | ".join(cell.format(**row) for _, cell in columns) + " |" for row in rows]
    print("\n" + "\n".join(lines))
    record = {
        "latency": args.latency, **configuration, "max_connections": args.max_connections,
        "stub_process": args.stub_process, "log_realtime": not args.no_log_realtime,
        **(extra or {}), "cpus": os.cpu_count(), "python": sys.version.split()[0],
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"), "rows": rows,
    }  # fmt: skip
    keys = (*COMMON, *configuration)
    path: Path = args.output or RESULTS / f"{args.family}_latency.json"
    existing = json.loads(path.read_text(encoding="utf-8"))["runs"] if path.exists() else []
    kept = [r for r in existing if any(r.get(k) != record[k] for k in keys)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"runs": [*kept, record]}, indent=2) + "\n", encoding="utf-8")
    print(f"\nresults: {path}")


# -- choice ------------------------------------------------------------------------------------

CHOICE_COLUMNS = [
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


def choice_once(stub: StubHandle, max_connections: int, n: int, limit: int | None,
                latency: float, log_dir: str, log_realtime: bool) -> dict[str, Any]:  # fmt: skip
    """One `choice` eval at one concurrency; fail loudly unless it succeeds."""
    stub.reset()
    log, wall, cpu = timed_eval(
        choice(method="pairwise_score", n=n), model=MODEL,
        model_args={"stream": False, "max_retries": 0},  # no SDK retries either
        max_connections=max_connections, log_realtime=log_realtime, limit=limit,
        log_dir=log_dir,
    )  # fmt: skip
    stats = stub.snapshot()
    samples = log.results.completed_samples if log.results else 0
    log_queries = log_metric(log, "queries", "mean") * samples
    if round(log_queries) != stats.requests:
        print(f"warning: stub served {stats.requests} requests, log counts {log_queries:.0f}",
              file=sys.stderr)  # fmt: skip
    ideal = stats.requests * latency / max_connections
    client_cpu = cpu - (stats.handler_cpu_seconds if stub.server is not None else 0.0)
    return {
        "max_connections": max_connections, "samples": samples,
        "queries_stub": stats.requests, "queries_log": round(log_queries),
        "wall_seconds": wall, "ideal_seconds": ideal,
        "ratio": wall / ideal if ideal else math.nan,
        "peak_in_flight": stats.peak_in_flight, "mean_in_flight": stats.busy_seconds / wall,
        "connections_opened": stats.connections, "throughput_rps": stats.requests / wall,
        "process_cpu_seconds": cpu, "process_cpu_share": cpu / wall,
        "stub_handler_cpu_seconds": stats.handler_cpu_seconds,
        "eval_client_cpu_ms_per_query": 1000 * client_cpu / stats.requests
        if stats.requests else math.nan,
        "spo_mean": log_metric(log, "spo", "mean"),
        "log_bytes": os.path.getsize(log.location) if os.path.exists(log.location) else None,
    }  # fmt: skip


def choice_latency(args: argparse.Namespace) -> None:
    """Sweep the `choice` run over the connection counts."""
    contexts = min(args.limit or CONTEXTS, CONTEXTS)
    print(f"n={args.n}, {contexts} contexts "
          f"({contexts * args.n * (args.n - 1):,} queries per run)", flush=True)  # fmt: skip
    rows = sweep(args, "choice", lambda stub, connections, log_dir, realtime: choice_once(
        stub, connections, args.n, args.limit, args.latency, log_dir, realtime))  # fmt: skip
    finish(args, rows, CHOICE_COLUMNS, {"n": args.n, "limit": args.limit},
           {"contexts": contexts})  # fmt: skip


# -- carryon -----------------------------------------------------------------------------------

CARRYON_COLUMNS = [
    ("max connections", "{max_connections}"),
    ("conversations", "{conversations}"),
    ("wall / critical path: median", "{ratio_median:.2f}"),
    ("p90", "{ratio_p90:.2f}"),
    ("max", "{ratio_max:.2f}"),
    ("conversations/min", "{conversations_per_minute:.1f}"),
    ("requests/s", "{requests_per_second:.1f}"),
    ("CPU share", "{process_cpu_share:.2f}"),
    ("CPU ms / request", "{cpu_ms_per_request:.1f}"),
]


def stub_model(name: str, connections: int) -> Model:
    """A role model served by the stub, with its own connection limit."""
    return get_model(f"openai-api/{SERVICE}/{name}", stream=False, max_retries=0,
                     config=GenerateConfig(max_connections=connections, max_retries=0))  # fmt: skip


def spread_queries(count: int) -> list[CarryOnQuery]:
    """`count` shipped queries, every fifth, so that all four safety categories appear."""
    return load_queries()[::5][:count]


def role_calls(sample: EvalSample) -> Counter[str]:
    """Model calls made in the sample, by role ("target" for the evaluated model)."""
    return Counter((event.role or "target") for event in sample.events if event.event == "model")


def carryon_once(data: Path, max_connections: int, grader_connections: int, flows: int,
                 latency: float, log_dir: str, log_realtime: bool) -> dict[str, Any]:  # fmt: skip
    """One `carryon` eval at one concurrency; fail loudly unless it succeeds."""
    log, wall, cpu = timed_eval(
        # Batched judging, as when the results in BENCHMARKS.md were measured (it was the
        # default then): two grader calls per response, all in the conversation's one round.
        carryon(data=str(data), condition="all", flows_per_query=flows, judge="batched"),
        model=stub_model("target", max_connections),
        model_roles={"user": stub_model("user", max_connections),
                     "grader": stub_model("grader", grader_connections)},
        max_samples=max_connections, log_realtime=log_realtime, log_dir=log_dir,
    )  # fmt: skip
    samples = log.samples or []
    ratios, calls, per_response = [], Counter[str](), []
    for sample in samples:
        exchanges, counted = sample.metadata["exchanges"], role_calls(sample)
        calls.update(counted)
        per_response.append(counted["grader"] / exchanges)
        ratios.append((sample.total_time or 0.0) / (2 * exchanges * latency))
    ratios.sort()
    return {
        "max_connections": max_connections, "grader_connections": grader_connections,
        "conversations": len(samples), "calls": dict(calls),
        "grader_calls_per_response_max": max(per_response),
        "ratio_median": statistics.median(ratios),
        "ratio_p90": ratios[int(0.9 * (len(ratios) - 1))], "ratio_max": ratios[-1],
        "wall_seconds": wall, "conversations_per_minute": 60 * len(samples) / wall,
        "requests_per_second": sum(calls.values()) / wall, "process_cpu_share": cpu / wall,
        "cpu_ms_per_request": 1000 * cpu / sum(calls.values()),
    }  # fmt: skip


def carryon_latency(args: argparse.Namespace) -> None:
    """Sweep the multi-turn `carryon` run over the connection counts."""
    with tempfile.TemporaryDirectory() as temp_dir:
        data = write_queries(Path(temp_dir) / "queries.jsonl", spread_queries(args.queries))
        rows = sweep(args, "carryon", lambda _, connections, log_dir, realtime: carryon_once(
            data, connections, args.grader_factor * connections, args.flows, args.latency,
            log_dir, realtime))  # fmt: skip
    configuration = {"queries": args.queries, "flows": args.flows,
                     "grader_factor": args.grader_factor}  # fmt: skip
    finish(args, rows, CARRYON_COLUMNS, configuration)


# -- scaling -----------------------------------------------------------------------------------


def run_sharded(ids: list[str], processes: int, connections: int, n: int, base_url: str,
                log_dir: Path) -> float:  # fmt: skip
    """Start one `inspect eval` per shard at once; the wall time until the last one exits."""
    inspect = str(Path(sys.executable).parent / "inspect")
    env = {**os.environ, f"{SERVICE.upper()}_BASE_URL": base_url,
           f"{SERVICE.upper()}_API_KEY": "stub"}  # fmt: skip
    per_process = max(1, connections // processes)
    start = time.perf_counter()
    children = [
        subprocess.Popen(
            [inspect, "eval", "heedbench/choice", "--model", MODEL, "-T", f"n={n}",
             "--sample-id", ",".join(ids[first::processes]),  # dealt round-robin
             "--max-connections", str(per_process), "--no-log-realtime", "--display", "none",
             "--log-dir", str(log_dir)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        for first in range(processes)
    ]  # fmt: skip
    for child in children:
        _, errors = child.communicate()
        if child.returncode != 0:
            raise SystemExit(f"a shard failed: {errors[-2000:]}")
    return time.perf_counter() - start


def reported(log_dir: Path) -> dict[str, Any]:
    """What `heedbench report` makes of the folder: run groups, contexts, SPO."""
    loaded = load_runs([str(log_dir)])
    [coverage] = loaded.coverage.values()
    return {"logs": coverage.logs, "contexts_scored": coverage.count("scored"),
            "missing": coverage.missing,
            "spo": float(loaded.samples("choice")["v_spo"].mean())}  # fmt: skip


def choice_scaling(args: argparse.Namespace) -> None:
    """Measure each process count; print and save the rows."""
    ids = [str(sample.id) for sample in choice_dataset(n=args.n)]
    calls = len(ids) * args.n * (args.n - 1)
    floor = calls * args.latency / args.connections
    stub = StubHandle(args.latency, in_child=True)
    rows = []
    try:
        for processes in args.processes:
            with tempfile.TemporaryDirectory() as folder:
                wall = run_sharded(ids, processes, args.connections, args.n, stub.base_url,
                                   Path(folder))  # fmt: skip
                rows.append({
                    "processes": processes,
                    "connections_per_process": max(1, args.connections // processes),
                    "calls": calls, "wall_seconds": round(wall, 1),
                    "floor_seconds": round(floor, 1), "wall_over_floor": round(wall / floor, 2),
                    "calls_per_second": round(calls / wall, 1), **reported(Path(folder)),
                })  # fmt: skip
            print(json.dumps(rows[-1]), flush=True)
    finally:
        stub.stop()
    spos = {round(row["spo"], 12) for row in rows}
    record = {
        "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "latency": args.latency, "connections": args.connections, "n": args.n,
        "cores": os.cpu_count(),
        "same_spo_every_split": len(spos) == 1 and not math.isnan(rows[0]["spo"]), "rows": rows,
    }  # fmt: skip
    (RESULTS / "choice_scaling.json").write_text(json.dumps(record, indent=2) + "\n")


def main() -> None:
    """Run one benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    families = parser.add_subparsers(dest="family", required=True)
    sweeps = argparse.ArgumentParser(add_help=False)
    sweeps.add_argument("--log-dir", help="keep Inspect logs here (default: a temp dir)")
    sweeps.add_argument("--output", type=Path,
                        help="default: benchmarks/results/<family>_latency.json")  # fmt: skip
    sweeps.add_argument("--stub-process", action="store_true", help="run the stub in a child "
                        "process (keeps its CPU off this process's GIL)")  # fmt: skip
    sweeps.add_argument("--no-log-realtime", action="store_true", help="pass Inspect's "
                        "--no-log-realtime (no live event buffer for inspect view)")  # fmt: skip
    c = families.add_parser("choice", parents=[sweeps], help="a choice run per concurrency")
    c.add_argument("--latency", type=float, default=0.1, help="stub delay in seconds")
    c.add_argument("--max-connections", type=int, nargs="+", default=[64])
    c.add_argument("--n", type=int, default=40, help="objects per context")
    c.add_argument("--limit", type=int, default=None, help="contexts (default: all 23)")
    r = families.add_parser("carryon", parents=[sweeps], help="carryon conversations")
    r.add_argument("--latency", type=float, default=0.5, help="stub delay in seconds")
    r.add_argument("--max-connections", type=int, nargs="+", default=[4, 16, 64])
    r.add_argument("--grader-factor", type=int, default=4,
                   help="grader connections = this x max connections")  # fmt: skip
    r.add_argument("--queries", type=int, default=8)
    r.add_argument("--flows", type=int, default=5, help="flows per query")
    s = families.add_parser("scaling", help="one choice run over 1, 2 and 4 processes")
    s.add_argument("--latency", type=float, default=0.1)
    s.add_argument("--connections", type=int, default=64, help="in total, over processes")
    s.add_argument("--processes", type=int, nargs="+", default=[1, 2, 4])
    s.add_argument("--n", type=int, default=20)
    args = parser.parse_args()
    {"choice": choice_latency, "carryon": carryon_latency, "scaling": choice_scaling}[args.family](
        args
    )


if __name__ == "__main__":
    main()
