"""Conversation wall time of `carryon` against a fixed-latency stub, versus its critical path.

One stub server (benchmarks/stub_server.py, `--responder carryon`) plays the evaluated model,
the simulated user and the grader; every call takes `--latency` seconds. A conversation of E
exchanges cannot finish faster than its critical path: E target calls and E − 1 user calls in
sequence, then one round of grader calls (all 2E judgements of the conversation at once), so
(2E − 1 + 1) × latency = 2E × latency. For each `--max-connections` value this runs the
multi-turn conditions on `--queries` queries × `--flows` flows and reports, per conversation,
wall time / critical path (median, p90, max), calls per role counted from the log's model
events, and the run's throughput (conversations per minute). Results go to
benchmarks/results/carryon_latency.json.

Usage:
    python -m benchmarks.carryon_latency [--latency 0.5] [--max-connections 4 16 64]
        [--queries 8] [--flows 5] [--stub-process] [--no-log-realtime]
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.log import EvalSample
from inspect_ai.model import GenerateConfig, Model, get_model

from benchmarks.choice_latency import StubHandle, save
from heedbench.evals.carryon import CarryOnQuery, load_queries
from heedbench.evals.carryon.task import carryon
from heedbench.testing_carryon import write_queries

RESULTS = Path(__file__).parent / "results" / "carryon_latency.json"
SERVICE = "stub"


def stub_model(name: str, connections: int) -> Model:
    """A role model served by the stub, with its own connection limit."""
    return get_model(
        f"openai-api/{SERVICE}/{name}",
        config=GenerateConfig(max_connections=connections, max_retries=0),
        stream=False,
        max_retries=0,
    )


def spread_queries(count: int) -> list[CarryOnQuery]:
    """`count` shipped queries, every fifth, so that all four safety categories appear."""
    return load_queries()[::5][:count]


def role_calls(sample: EvalSample) -> Counter[str]:
    """Model calls made in the sample, by role ("target" for the evaluated model)."""
    return Counter((event.role or "target") for event in sample.events if event.event == "model")


def run_once(
    data: Path, max_connections: int, grader_connections: int, flows: int, latency: float,
    log_dir: str, log_realtime: bool,
) -> dict[str, Any]:  # fmt: skip
    """One eval at one concurrency; fail loudly unless it succeeds."""
    cpu_start, start = time.process_time(), time.perf_counter()
    log = eval(
        # Batched judging, as when the results in BENCHMARKS.md were measured (it was the
        # default then): two grader calls per response, all in the conversation's one round.
        carryon(data=str(data), condition="all", flows_per_query=flows, judge="batched"),
        model=stub_model("target", max_connections),
        model_roles={
            "user": stub_model("user", max_connections),
            "grader": stub_model("grader", grader_connections),
        },
        max_samples=max_connections,
        max_retries=0,
        fail_on_error=True,
        log_realtime=log_realtime,
        display="none",
        log_dir=log_dir,
    )[0]
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    if log.status != "success" or not log.samples:
        raise SystemExit(f"eval ended {log.status!r}: {log.error} (log: {log.location})")
    ratios, calls = [], Counter[str]()
    per_response: list[float] = []
    for sample in log.samples:
        exchanges = sample.metadata["exchanges"]
        counted = role_calls(sample)
        calls.update(counted)
        per_response.append(counted["grader"] / exchanges)
        critical = 2 * exchanges * latency
        ratios.append((sample.total_time or 0.0) / critical)
    ratios.sort()
    conversations = len(log.samples)
    return {
        "max_connections": max_connections,
        "grader_connections": grader_connections,
        "conversations": conversations,
        "calls": dict(calls),
        "grader_calls_per_response_max": max(per_response),
        "ratio_median": statistics.median(ratios),
        "ratio_p90": ratios[int(0.9 * (len(ratios) - 1))],
        "ratio_max": ratios[-1],
        "wall_seconds": wall,
        "conversations_per_minute": 60 * conversations / wall,
        "requests_per_second": sum(calls.values()) / wall,
        "process_cpu_share": cpu / wall,
        "cpu_ms_per_request": 1000 * cpu / sum(calls.values()),
    }


def markdown_table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table."""
    lines = [
        "| max connections | conversations | wall / critical path: median | p90 | max "
        "| conversations/min | requests/s | CPU share | CPU ms / request |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['max_connections']} | {row['conversations']} | {row['ratio_median']:.2f} "
            f"| {row['ratio_p90']:.2f} | {row['ratio_max']:.2f} "
            f"| {row['conversations_per_minute']:.1f} | {row['requests_per_second']:.1f} "
            f"| {row['process_cpu_share']:.2f} | {row['cpu_ms_per_request']:.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    """Run the benchmark for each max-connections value and report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.5, help="stub delay in seconds")
    parser.add_argument("--max-connections", type=int, nargs="+", default=[4, 16, 64])
    parser.add_argument("--grader-factor", type=int, default=4,
                        help="grader connections = this x max connections")  # fmt: skip
    parser.add_argument("--queries", type=int, default=8)
    parser.add_argument("--flows", type=int, default=5, help="flows per query")
    parser.add_argument("--log-dir", help="keep Inspect logs here (default: a temp dir)")
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument("--stub-process", action="store_true",
                        help="run the stub in a child process")  # fmt: skip
    parser.add_argument("--no-log-realtime", action="store_true")
    args = parser.parse_args()

    stub = StubHandle(args.latency, in_child=args.stub_process, responder="carryon")
    os.environ[f"{SERVICE.upper()}_BASE_URL"] = stub.base_url
    os.environ[f"{SERVICE.upper()}_API_KEY"] = "stub"
    rows: list[dict[str, Any]] = []
    try:
        with tempfile.TemporaryDirectory() as temp_dir:
            data = write_queries(Path(temp_dir) / "queries.jsonl", spread_queries(args.queries))
            for connections in args.max_connections:
                row = run_once(data, connections, args.grader_factor * connections, args.flows,
                               args.latency, args.log_dir or temp_dir,
                               not args.no_log_realtime)  # fmt: skip
                rows.append(row)
                print(json.dumps(row), flush=True)
    finally:
        stub.stop()
    print()
    print(markdown_table(rows))
    save(
        {
            "latency": args.latency,
            "queries": args.queries,
            "flows": args.flows,
            "max_connections": args.max_connections,
            "grader_factor": args.grader_factor,
            "stub_process": args.stub_process,
            "log_realtime": not args.no_log_realtime,
            "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
            "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "rows": rows,
        },
        args.output,
        keys=(
            "latency",
            "queries",
            "flows",
            "max_connections",
            "grader_factor",
            "stub_process",
            "log_realtime",
        ),
    )
    print(f"\nresults: {args.output}")


if __name__ == "__main__":
    main()
