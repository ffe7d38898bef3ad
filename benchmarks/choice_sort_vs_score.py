"""Queries spent and alignment reached: tie-aware merge sort against Pairwise-Score.

Both designs run on the full shipped data (23 contexts x 40 objects) against the same scripted
noisy model: it answers from the model user's weak order and flips a fixed, deterministic share
of pairwise answers per presentation order.

Usage: python -m benchmarks.choice_sort_vs_score [--noise 0.0 0.1 0.3]
"""

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.log import EvalLog

from heedbench.evals.choice import choice
from heedbench.solvers.choice import ChoiceMethod
from heedbench.testing import choice_oracle, log_metric, scripted_model, user_ranks

RESULTS = Path(__file__).parent / "results" / "choice_sort_vs_score.json"
METHODS: tuple[ChoiceMethod, ...] = ("pairwise_score", "pairwise_scc", "pairwise_sort")


def metrics(log: EvalLog) -> dict[str, float]:
    """Mean of every score key, plus the valid count."""
    assert log.results is not None
    values = {
        score.name: score.metrics["mean"].value
        for score in log.results.scores
        if "mean" in score.metrics
    }
    values["valid_total"] = log_metric(log, "choice_alignment", "valid_contexts")
    return values


def main() -> None:
    """Run each design at each noise level and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--noise", type=float, nargs="+", default=[0.0, 0.1, 0.3])
    args = parser.parse_args()
    ranks = user_ranks()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as log_dir:
        for noise in args.noise:
            for method in METHODS:
                model = scripted_model(choice_oracle(ranks, noise=noise), name="noisy")
                start = time.perf_counter()
                log = eval(
                    choice(method=method),
                    model=model,
                    display="none",
                    log_dir=log_dir,
                    log_realtime=False,  # time is not measured here; skip the live buffer
                )[0]
                if log.status != "success":
                    raise SystemExit(f"{method} failed: {log.error}")
                row = {"noise": noise, "method": method, "seconds": time.perf_counter() - start}
                row.update(metrics(log))
                rows.append(row)
                print(json.dumps(row), flush=True)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(rows, indent=2))
    print("\n| noise | method | queries / context | SPO | K(p) | K(p)/pairs | sets | valid |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['noise']:.1f} | {r['method']} | {r['queries']:.0f} | {r['spo']:.3f} "
              f"| {r['kendall']:.1f} | {r['kendall_norm']:.3f} | {r['indifference_sets']:.1f} "
              f"| {r['valid_total']:.0f}/23 |")  # fmt: skip


if __name__ == "__main__":
    main()
