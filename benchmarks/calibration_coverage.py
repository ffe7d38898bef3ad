"""Do the report's calibrated numbers cover the human truth where the raw grader's do not?

Synthetic runs with a known truth, offline, through the real export and report code: two
models (a, b) answer the same `queries`, `per_query` clustered samples each, every sample a
checklist response with human labels and a grader's verdicts (the grader per model: see
`SCENARIOS`, sensitivity / false-positive rate). Per repetition it draws `labels` samples per
model with the export's draw (`verdict_sample.draw`, plain or by verdict), leaves a share of
the drawn labels blank, and estimates with the report's code (`calibration.calibrate`) each
model's Ben-Util and the paired difference a - b; beside them, on the same labels, the raw
grader mean (clustered by query), the labels alone (stratified mean, clustered error) and PPI
(`ppi_mean_ci`, the `[ppi]` extra, for a virtual environment of its own: its top-level `tests`
package shadows ours; without it the PPI column is empty). BENCHMARKS.md explains the table.

Usage: python -m benchmarks.calibration_coverage [--reps 200] [--queries 150] [--per-query 2]
(results: benchmarks/results/calibration_coverage.json; the table goes into BENCHMARKS.md)
"""

import argparse
import json
import math
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np

from heedbench.report.calibration import calibrate
from heedbench.report.graded_units import GradedSample, Unit
from heedbench.report.verdict_sample import Design, LabelSet, draw, drawn_unit
from heedbench.scorers.carryon.pools import clustered_mean

Z95 = 1.959963984540054
RESULTS = Path(__file__).parent / "results" / "calibration_coverage.json"
HEADLINE = "Ben-Util (last response)"
MODELS = ("a", "b")
HUMAN_SCALE = {"a": 1.0, "b": 0.8}
"""Each model's human yes-rate relative to the query's: b fulfils a fifth fewer items."""
SCENARIOS: dict[str, dict[str, tuple[float, float]]] = {
    "fair": {"a": (0.85, 0.08), "b": (0.85, 0.08)},
    "lenient": {"a": (0.90, 0.30), "b": (0.90, 0.30)},
    "lenient-a": {"a": (0.90, 0.30), "b": (0.85, 0.08)},
    "binary": {"a": (0.80, 0.05), "b": (0.80, 0.05)},
}
DRAWS = (("default", False, 0.0), ("default, 30 % blank", False, 0.3),
         ("by verdict", True, 0.0), ("by verdict, 30 % blank", True, 0.3))  # fmt: skip
METHODS = ("raw", "calibrated", "ppi", "labels")
DIFFERENCES = ("raw", "calibrated", "labels")


def population(
    graders: dict[str, tuple[float, float]], rng: np.random.Generator, queries: int, per_query: int
) -> tuple[list[GradedSample], dict[str, float]]:
    """Both models' graded samples and the human label of every unit."""
    samples: list[GradedSample] = []
    truth: dict[str, float] = {}
    rates = rng.beta(2.1, 3.9, queries)
    for model, (sensitivity, false_positive) in graders.items():
        for query, rate in enumerate(rates):
            for epoch in range(1, per_query + 1):
                items = int(rng.integers(4, 11))
                mine = float(np.clip(HUMAN_SCALE[model] * rate + rng.normal(0, 0.05), 0, 1))
                human = (rng.random(items) < mine).astype(float)
                says_yes = np.where(human == 1, sensitivity, false_positive)
                grader = (rng.random(items) < says_yes).astype(float)
                names = [f"item:{model}:q{query:04d}@{epoch}:{i}" for i in range(items)]
                truth.update(zip(names, human.tolist(), strict=True))
                samples.append(
                    GradedSample(
                        kind="item", eval_id=model, log=f"{model}.eval",
                        sample_id=f"q{query:04d}", epoch=epoch, model=model, condition="bc",
                        cluster=f"q{query:04d}", grader="grader",
                        units=tuple(Unit(n, v, 1 / items) for n, v in zip(names, grader.tolist(),
                                                                          strict=True)),
                    )
                )  # fmt: skip
    return samples, truth


@dataclass
class Interval:
    """One method's estimate and 95 % interval in one repetition."""

    value: float
    low: float
    high: float

    @classmethod
    def normal(cls, value: float, stderr: float) -> "Interval":
        """Value ± 1.96 standard errors."""
        return cls(value, value - Z95 * stderr, value + Z95 * stderr)


def human_value(sample: GradedSample, truth: dict[str, float]) -> float:
    """A sample's human Ben-Util."""
    return sum(unit.weight * truth[unit.unit] for unit in sample.units)


def labels_only(
    design: Design, labels: dict[str, float], model: str
) -> tuple[float, dict[str, float]]:
    """The labels alone: the stratified mean Σ N_h ȳ_h / N of the model's labelled units, and
    each query's share of its linearised error (summed by query: a cluster-robust variance)."""
    strata = {s.id: s for s in design.strata.values() if s.model == model}
    total = sum(s.population for s in strata.values())
    members: dict[str, list[tuple[str, float]]] = {}
    for unit, label in labels.items():
        drawn = design.units[unit]
        if drawn.stratum in strata:
            query = drawn.sample.split(":")[2].split("@")[0]
            members.setdefault(drawn.stratum, []).append((query, label))
    mean, contributions = 0.0, dict[str, float]()
    for stratum, found in members.items():
        share = strata[stratum].population / total
        centre = fmean(label for _, label in found)
        mean += share * centre
        for query, label in found:
            part = share * (label - centre) / len(found)
            contributions[query] = contributions.get(query, 0.0) + part
    return mean, contributions


def robust(value: float, contributions: dict[str, float]) -> Interval:
    """Value ± 1.96 cluster-robust standard errors."""
    n = len(contributions)
    return Interval.normal(
        value, math.sqrt(n / (n - 1) * sum(c * c for c in contributions.values()))
    )


def ppi(samples: list[GradedSample], design: Design, labels: dict[str, float], seed: int,
        model: str) -> Interval:  # fmt: skip
    """`ppi_mean_ci` on the drawn units: every sample's verdict, labelled ones weighted N_h/n_h
    (NaN without the library)."""
    try:
        from ppi_py import ppi_mean_ci
    except ImportError:
        return Interval(math.nan, math.nan, math.nan)

    mine = [s for s in samples if s.model == model]
    answered = Counter(design.units[name].stratum for name in labels)
    y, yhat, weights = [], [], []
    for sample in mine:
        unit = drawn_unit(sample, seed)
        if unit.unit in labels:
            stratum = design.strata[design.units[unit.unit].stratum]
            y.append(labels[unit.unit])
            yhat.append(unit.verdict)
            weights.append(stratum.population / answered[stratum.id])
    everyone = np.array([drawn_unit(s, seed).verdict for s in mine])
    low, high = ppi_mean_ci(np.array(y), np.array(yhat), everyone, alpha=0.05, w=np.array(weights))
    low, high = float(np.ravel(low)[0]), float(np.ravel(high)[0])
    return Interval((low + high) / 2, low, high)


def repetition(scenario: str, queries: int, per_query: int, labels: int, by_verdict: bool,
               blank: float, seed: int) -> dict[str, Any]:  # fmt: skip
    """One synthetic run: every method's intervals for both means and the difference."""
    rng = np.random.default_rng(seed)
    samples, truth = population(SCENARIOS[scenario], rng, queries, per_query)
    design, chosen = draw(samples, labels, seed, by_verdict=by_verdict)
    answered = {u.unit: truth[u.unit] for _, u in chosen if rng.random() >= blank}
    stored: dict[str, float | None] = {u.unit: answered.get(u.unit) for _, u in chosen}
    found = calibrate(samples, [LabelSet(Path("sim.json"), design, stored)])
    rows = {r.model: r for r in found.rows if r.headline == HEADLINE}
    out: dict[str, Any] = {"truth": {}, "means": {m: {} for m in METHODS}, "difference": {}}
    by_query: dict[str, dict[str, list[float]]] = {model: {} for model in MODELS}
    for model in MODELS:
        mine = [s for s in samples if s.model == model]
        out["truth"][model] = fmean(human_value(s, truth) for s in mine)
        raw = clustered_mean((s.cluster, s.value()) for s in mine)
        out["means"]["raw"][model] = Interval.normal(raw.value, raw.stderr)
        calibrated = rows[model].calibrated
        if calibrated is None or calibrated.low is None or calibrated.high is None:
            raise RuntimeError(f"no calibrated estimate: {rows[model].note}")
        out["means"]["calibrated"][model] = Interval(calibrated.value, calibrated.low,
                                                     calibrated.high)  # fmt: skip
        out["means"]["labels"][model] = robust(*labels_only(design, answered, model))
        out["means"]["ppi"][model] = ppi(samples, design, answered, seed, model)
        for sample in mine:
            by_query[model].setdefault(sample.cluster, []).append(sample.value())
    gaps = [fmean(by_query["a"][q]) - fmean(by_query["b"][q]) for q in by_query["a"]]
    out["truth"]["a − b"] = out["truth"]["a"] - out["truth"]["b"]
    out["difference"]["raw"] = Interval.normal(fmean(gaps), float(np.std(gaps, ddof=1))
                                               / math.sqrt(len(gaps)))  # fmt: skip
    [difference] = found.differences
    out["difference"]["calibrated"] = Interval(difference.value, difference.low, difference.high)
    (ma, ca), (mb, cb) = (labels_only(design, answered, model) for model in MODELS)
    paired = {q: ca.get(q, 0.0) - cb.get(q, 0.0) for q in {*ca, *cb}}
    out["difference"]["labels"] = robust(ma - mb, paired)
    return out


def summarise(outcomes: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Coverage, mean width and mean error per method, over models for the means."""
    entry: dict[str, Any] = {}
    for method in METHODS:
        pairs = [(o["means"][method][m], o["truth"][m]) for o in outcomes for m in MODELS]
        entry[f"{method}_coverage"] = fmean(
            math.nan if math.isnan(i.low) else float(i.low <= t <= i.high) for i, t in pairs
        )
        entry[f"{method}_width"] = fmean(i.high - i.low for i, _ in pairs)
    for method in DIFFERENCES:
        pairs = [(o["difference"][method], o["truth"]["a − b"]) for o in outcomes]
        entry[f"{method}_diff_coverage"] = fmean(float(i.low <= t <= i.high) for i, t in pairs)
        entry[f"{method}_diff_width"] = fmean(i.high - i.low for i, _ in pairs)
        entry[f"{method}_diff_error"] = fmean(i.value - t for i, t in pairs)
    return entry


def run(reps: int, queries: int, per_query: int, budgets: Sequence[int], seed: int,
        scenarios: Sequence[str]) -> list[dict[str, Any]]:  # fmt: skip
    """Every scenario × draw × label budget over `reps` repetitions."""
    table = []
    for scenario in scenarios:
        for labels in budgets:
            for name, by_verdict, blank in DRAWS:
                started = time.perf_counter()
                outcomes = [
                    repetition(scenario, queries, per_query, labels, by_verdict, blank,
                               seed + 1000 * rep)
                    for rep in range(reps)
                ]  # fmt: skip
                entry = {
                    "scenario": scenario, "draw": name, "labels": labels, "reps": reps,
                    "samples": queries * per_query, "per_query": per_query,
                    "truth_difference": fmean(o["truth"]["a − b"] for o in outcomes),
                    **summarise(outcomes),
                    "seconds": round(time.perf_counter() - started, 1),
                }  # fmt: skip
                table.append(entry)
                print(markdown_row(entry), flush=True)
    return table


def _cell(entry: dict[str, Any], key: str) -> str:
    if math.isnan(entry[f"{key}_coverage"]):
        return "—"
    return f"{entry[f'{key}_coverage']:.2f} ({entry[f'{key}_width']:.3f})"


def markdown_row(entry: dict[str, Any]) -> str:
    """One row of the BENCHMARKS.md table.

    The labels-only columns of by-verdict draws are left out: any mean of those labels leans on
    the grader's verdict classes, and the stratified one misses the noise of each unlabelled
    sample's drawn unit (it covers 0.87-0.90 at 200 of 300 labels), so it is no reference.
    """
    plain = not entry["draw"].startswith("by verdict")
    cells = [entry["scenario"], entry["draw"], str(entry["labels"])]
    cells += [_cell(entry, m) if plain or m != "labels" else "—" for m in METHODS]
    cells += [f"{entry['raw_diff_coverage']:.2f}", _cell(entry, "calibrated_diff"),
              f"{entry['calibrated_diff_error']:+.3f}",
              _cell(entry, "labels_diff") if plain else "—"]  # fmt: skip
    return "| " + " | ".join(cells) + " |"


HEADER = (
    "| grader | draw | labels per model | raw | CJE (the report) | PPI | labels only | "
    "raw a − b | CJE a − b | CJE a − b error | labels only a − b |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|"
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print the table and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--queries", type=int, default=150, help="queries both models answer")
    parser.add_argument("--per-query", type=int, default=2, help="samples per query and model")
    parser.add_argument("--labels", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--scenarios", nargs="+", default=list(SCENARIOS), choices=SCENARIOS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    print(HEADER)
    table = run(args.reps, args.queries, args.per_query, args.labels, args.seed, args.scenarios)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
