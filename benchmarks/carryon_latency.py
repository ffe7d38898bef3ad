"""Conversation wall time of `carryon` against a fixed-latency stub, versus its critical path.

One stub server (tests/stub_server.py, `--responder carryon`) plays the evaluated model,
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

import statistics
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalSample
from inspect_ai.model import GenerateConfig, Model, get_model

from benchmarks.stub_runs import SERVICE, finish, options, sweep, table, timed_eval
from heedbench.evals.carryon import CarryOnQuery, load_queries
from heedbench.evals.carryon.task import carryon
from heedbench.testing_carryon import write_queries

RESULTS = Path(__file__).parent / "results" / "carryon_latency.json"
COLUMNS = [
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
    run = timed_eval(
        # Batched judging, as when the results in BENCHMARKS.md were measured (it was the
        # default then): two grader calls per response, all in the conversation's one round.
        carryon(data=str(data), condition="all", flows_per_query=flows, judge="batched"),
        model=stub_model("target", max_connections),
        model_roles={
            "user": stub_model("user", max_connections),
            "grader": stub_model("grader", grader_connections),
        },
        max_samples=max_connections,
        log_realtime=log_realtime,
        log_dir=log_dir,
    )
    samples = run.log.samples or []
    ratios, calls = [], Counter[str]()
    per_response: list[float] = []
    for sample in samples:
        exchanges = sample.metadata["exchanges"]
        counted = role_calls(sample)
        calls.update(counted)
        per_response.append(counted["grader"] / exchanges)
        critical = 2 * exchanges * latency
        ratios.append((sample.total_time or 0.0) / critical)
    ratios.sort()
    return {
        "max_connections": max_connections,
        "grader_connections": grader_connections,
        "conversations": len(samples),
        "calls": dict(calls),
        "grader_calls_per_response_max": max(per_response),
        "ratio_median": statistics.median(ratios),
        "ratio_p90": ratios[int(0.9 * (len(ratios) - 1))],
        "ratio_max": ratios[-1],
        "wall_seconds": run.wall,
        "conversations_per_minute": 60 * len(samples) / run.wall,
        "requests_per_second": sum(calls.values()) / run.wall,
        "process_cpu_share": run.cpu / run.wall,
        "cpu_ms_per_request": 1000 * run.cpu / sum(calls.values()),
    }


def main() -> None:
    """Run the benchmark for each max-connections value and report."""
    parser = options(__doc__.split("\n\n")[0], 0.5, connections=[4, 16, 64], output=RESULTS)
    parser.add_argument("--grader-factor", type=int, default=4,
                        help="grader connections = this x max connections")  # fmt: skip
    parser.add_argument("--queries", type=int, default=8)
    parser.add_argument("--flows", type=int, default=5, help="flows per query")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp_dir:
        data = write_queries(Path(temp_dir) / "queries.jsonl", spread_queries(args.queries))
        rows = sweep(args, "carryon", lambda _, connections, log_dir, realtime: run_once(
            data, connections, args.grader_factor * connections, args.flows, args.latency,
            log_dir, realtime))  # fmt: skip
    configuration = {"queries": args.queries, "flows": args.flows,
                     "grader_factor": args.grader_factor}  # fmt: skip
    finish(args, rows, table(COLUMNS, rows), configuration)


if __name__ == "__main__":
    main()
