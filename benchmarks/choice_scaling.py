"""One `choice` run split over 1, 2 and 4 `inspect eval` processes, reported as one run.

One Inspect process tops out at about 150-175 model calls per second here (its per-call work
is CPU-bound). Against a fast server, more processes go past that ceiling. This runs the same
`choice` run (pairwise_score, `-T n=20`: 23 contexts × 380 queries = 8,740 calls) against
the stub server (`benchmarks/stub_server.py`, in its own process) as P processes, each given
its share of the contexts with `--sample-id` and `--max-connections` total/P, all writing to
one log folder. It records the wall time from the first start to the last exit against the
floor (calls × latency / total connections), checks with `heedbench report`'s loader that
the P shard logs form one run of all 23 contexts, and that its SPO equals the one-process
run's.

Usage: python -m benchmarks.choice_scaling [--latency 0.1] [--connections 64]
       [--processes 1 2 4] [--n 20]   (results: benchmarks/results/choice_scaling.json)
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchmarks.choice_latency import MODEL, SERVICE, StubHandle
from heedbench.evals.choice import choice_dataset
from heedbench.report.load import load_runs

RESULTS = Path(__file__).parent / "results" / "choice_scaling.json"


def shards(ids: list[str], processes: int) -> list[list[str]]:
    """Context ids dealt round-robin into `processes` shards (sizes differ by at most one)."""
    return [ids[start::processes] for start in range(processes)]


def run_sharded(
    ids: list[str], processes: int, connections: int, n: int, base_url: str, log_dir: Path
) -> float:
    """Start one `inspect eval` per shard at once; the wall time until the last one exits."""
    inspect = str(Path(sys.executable).parent / "inspect")
    env = {
        **os.environ,
        f"{SERVICE.upper()}_BASE_URL": base_url,
        f"{SERVICE.upper()}_API_KEY": "stub",
    }
    per_process = max(1, connections // processes)
    start = time.perf_counter()
    children = []
    for shard in shards(ids, processes):
        command = [inspect, "eval", "heedbench/choice", "--model", MODEL, "-T", f"n={n}",
                   "--sample-id", ",".join(shard), "--max-connections", str(per_process),
                   "--no-log-realtime", "--display", "none", "--log-dir", str(log_dir)]  # fmt: skip
        children.append(
            subprocess.Popen(
                command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
            )
        )
    for child in children:
        _, errors = child.communicate()
        if child.returncode != 0:
            raise SystemExit(f"a shard failed: {errors[-2000:]}")
    return time.perf_counter() - start


def reported(log_dir: Path) -> dict[str, Any]:
    """What `heedbench report` makes of the folder: run groups, contexts, SPO."""
    loaded = load_runs([str(log_dir)])
    [coverage] = loaded.coverage.values()
    rows = loaded.samples("choice")
    return {
        "logs": coverage.logs,
        "contexts_scored": coverage.count("scored"),
        "missing": coverage.missing,
        "spo": float(rows["v_spo"].mean()),
    }


def main() -> None:
    """Measure each process count; print and save the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--connections", type=int, default=64, help="in total, over processes")
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--n", type=int, default=20)
    args = parser.parse_args()
    ids = [str(sample.id) for sample in choice_dataset(n=args.n)]
    calls = len(ids) * args.n * (args.n - 1)
    floor = calls * args.latency / args.connections
    stub = StubHandle(args.latency, in_child=True)
    rows = []
    try:
        for processes in args.processes:
            with tempfile.TemporaryDirectory() as folder:
                wall = run_sharded(
                    ids, processes, args.connections, args.n, stub.base_url, Path(folder)
                )
                row = {
                    "processes": processes,
                    "connections_per_process": max(1, args.connections // processes),
                    "calls": calls,
                    "wall_seconds": round(wall, 1),
                    "floor_seconds": round(floor, 1),
                    "wall_over_floor": round(wall / floor, 2),
                    "calls_per_second": round(calls / wall, 1),
                    **reported(Path(folder)),
                }
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        stub.stop()
    spos = {round(row["spo"], 12) for row in rows}
    record = {
        "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "latency": args.latency,
        "connections": args.connections,
        "n": args.n,
        "cores": os.cpu_count(),
        "same_spo_every_split": len(spos) == 1 and not math.isnan(rows[0]["spo"]),
        "rows": rows,
    }
    RESULTS.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
