"""Suite overhead: a full `choice` pairwise_score run against a bare loop of `generate` calls.

Both variants make the same number of Inspect `generate` calls (23 contexts x 40 objects =
35,880) with the same prompts on the same zero-latency scripted model, each in its own child
process so wall time and peak memory are measured separately, interleaved in one invocation.

Usage: python -m benchmarks.choice_overhead [--n 40] [--repeat 1] [--no-log-realtime]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from itertools import permutations
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect

from heedbench.evals.choice import choice, choice_dataset
from heedbench.solvers.choice.prompts import TEMPLATES
from heedbench.testing import scripted_model

RESULTS_DIR = Path(__file__).parent / "results"
CONSTANT_REPLY = '{"answer": "none"}'
"""The same instant answer in both variants, so the model's own cost is identical."""


def prompts_for(context: str, objects: list[str]) -> list[list[ChatMessage]]:
    """The T1 messages for every ordered pair, exactly as the suite renders them."""
    template = TEMPLATES["T1"]
    rendered: list[list[ChatMessage]] = []
    for first, second in permutations(objects, 2):
        fields = {"context": context, "object1": first, "object2": second}
        rendered.append(
            [
                ChatMessageSystem(content=template.system.format(**fields)),
                ChatMessageUser(content=template.user.format(**fields)),
            ]
        )
    return rendered


@solver
def bare_generate_loop() -> Solver:
    """Fire the n(n-1) pairwise prompts concurrently and keep nothing."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        prompts = prompts_for(state.metadata["context"], state.metadata["objects"])
        await collect(*(model.generate(messages) for messages in prompts))
        return state

    return solve


@scorer(metrics=[mean()])
def nothing() -> Scorer:
    """A constant scorer so the bare task writes an ordinary log."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=0)

    return score


def run_variant(variant: str, n: int, log_dir: str, log_realtime: bool) -> dict[str, Any]:
    """Run one variant in this process and return its own timing."""
    if variant == "bare":
        task = Task(dataset=choice_dataset(n=n), solver=bare_generate_loop(), scorer=nothing())
    else:
        task = choice(method="pairwise_score", n=n)
    start = time.perf_counter()
    log = eval(
        task,
        model=scripted_model(lambda prompt: CONSTANT_REPLY, name="constant"),
        display="none",
        log_dir=log_dir,
        log_realtime=log_realtime,
    )[0]
    elapsed = time.perf_counter() - start
    if log.status != "success":
        raise SystemExit(f"{variant} run failed: {log.error}")
    calls = sum(usage.input_tokens // 90 for usage in (log.stats.model_usage or {}).values())
    return {"variant": variant, "eval_seconds": elapsed, "generate_calls": calls,
            "log_bytes": os.path.getsize(log.location)}  # fmt: skip


def measure_in_child(variant: str, n: int, log_dir: str, log_realtime: bool) -> dict[str, Any]:
    """Run a variant in a child process; add its wall time and peak RSS."""
    command = [sys.executable, "-m", "benchmarks.choice_overhead", "--child", variant,
               "--n", str(n), "--log-dir", log_dir]  # fmt: skip
    if not log_realtime:
        command.append("--no-log-realtime")
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    assert child.stdout is not None
    output = child.stdout.read()
    if status != 0:
        raise SystemExit(f"{variant} child exited with status {status}")
    result: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    result.update(process_seconds=wall, peak_rss_mb=usage.ru_maxrss / 1024,
                  cpu_seconds=usage.ru_utime + usage.ru_stime)  # fmt: skip
    return result


def main() -> None:
    """Interleave bare and suite runs and report the overhead ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--child", choices=["bare", "suite"])
    parser.add_argument("--log-dir")
    parser.add_argument("--no-log-realtime", action="store_true",
                        help="pass Inspect's --no-log-realtime to both variants")  # fmt: skip
    args = parser.parse_args()
    realtime = not args.no_log_realtime
    if args.child:
        print(json.dumps(run_variant(args.child, args.n, args.log_dir, realtime)))
        return
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as log_dir:
        for _ in range(args.repeat):
            for variant in ("bare", "suite"):
                runs.append(measure_in_child(variant, args.n, log_dir, realtime))
                print(json.dumps(runs[-1]), flush=True)
    best = {v: min(r["eval_seconds"] for r in runs if r["variant"] == v) for v in ("bare", "suite")}
    calls = runs[0]["generate_calls"]
    summary = {
        "n": args.n,
        "log_realtime": realtime,
        "generate_calls": calls,
        "bare_seconds": best["bare"],
        "suite_seconds": best["suite"],
        "ratio": best["suite"] / best["bare"],
        "suite_overhead_ms_per_query": 1000 * (best["suite"] - best["bare"]) / calls,
        "bare_ms_per_query": 1000 * best["bare"] / calls,
        "runs": runs,
    }
    results = RESULTS_DIR / f"choice_overhead{'' if realtime else '_no_realtime'}.json"
    results.parent.mkdir(exist_ok=True)
    results.write_text(json.dumps(summary, indent=2))
    print("\n| variant | eval wall s | peak RSS MB | log MB |\n|---|---|---|---|")
    for run in runs:
        print(f"| {run['variant']} | {run['eval_seconds']:.1f} | {run['peak_rss_mb']:.0f} "
              f"| {run['log_bytes'] / 1e6:.1f} |")  # fmt: skip
    print(f"\ncalls {calls}; suite/bare = {summary['ratio']:.3f}; "
          f"overhead {summary['suite_overhead_ms_per_query']:.3f} ms/query")  # fmt: skip


if __name__ == "__main__":
    main()
