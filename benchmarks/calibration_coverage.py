"""Do judge-calibrated intervals cover the human truth where raw grader intervals do not?

Synthetic runs with a known truth, offline. Each repetition builds one model × condition of
`samples` graded samples (responses) whose units have human labels and grader verdicts drawn
from a known grader, then draws `labels` samples to label with the real export code
(`verdict_sample.draw`), labels their drawn units with the human truth, and estimates with the
real report code (`calibration.calibrate`). The truth is the human headline of the whole
population: the mean over responses of each response's weighted mean of human unit labels.

Scenarios:
- `binary-lenient`: checklist items (4–10 per response, Ben-Util weights 1/n), human yes-rate
  varying by response around 0.35; the grader says yes to a true item with sensitivity 0.90
  and to a false one with false-positive rate 0.30.
- `binary-strict`: the same, sensitivity 0.60 and false-positive rate 0.05.
- `binary-fair`: sensitivity 0.85, false-positive rate 0.08: errors that nearly cancel, so
  the raw mean is close to the truth (the control: what calibration costs when not needed).
- `scale-shift`: harm-like 1–5 ratings (2–6 per conversation, weights 1/T), the grader one
  point above the human (+1, clipped to 5) and off by one more point 20 % of the time.

Per scenario and label budget: coverage of the nominal 95 % interval of the raw grader mean
(mean ± 1.96 se), of the calibrated estimate, and of the human labels alone (mean ± 1.96 se
of the labelled units), with mean widths.

Usage: python -m benchmarks.calibration_coverage [--reps 200] [--samples 600] [--seed 0]
(results: benchmarks/results/calibration_coverage.json; the table goes into BENCHMARKS.md)
"""

import argparse
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean, stdev
from typing import Any

import numpy as np

from heedbench.report.calibration import HEADLINES, calibrate
from heedbench.report.graded_units import GradedSample, Kind, Unit
from heedbench.report.verdict_sample import LabelSet, draw, drawn_unit

Z95 = 1.959963984540054
RESULTS = Path(__file__).parent / "results" / "calibration_coverage.json"


@dataclass(frozen=True)
class Scenario:
    """A synthetic population and grader."""

    name: str
    kind: Kind
    headline: str
    make: Callable[[np.random.Generator, int], list[tuple[list[float], list[float]]]]
    """rng, responses → per response (human labels, grader verdicts) of its units."""


def binary(sensitivity: float, false_positive: float) -> Callable[..., Any]:
    """Checklist items: 4–10 per response, a per-response yes-rate around 0.35."""

    def make(rng: np.random.Generator, n: int) -> list[tuple[list[float], list[float]]]:
        out = []
        for _ in range(n):
            items = int(rng.integers(4, 11))
            rate = float(rng.beta(2.1, 3.9))
            human = (rng.random(items) < rate).astype(float)
            says_yes = np.where(human == 1, sensitivity, false_positive)
            grader = (rng.random(items) < says_yes).astype(float)
            out.append((human.tolist(), grader.tolist()))
        return out

    return make


def shifted(rng: np.random.Generator, n: int) -> list[tuple[list[float], list[float]]]:
    """Harm-like 1–5 ratings, the grader one point high and sometimes one more off."""
    out = []
    for _ in range(n):
        turns = int(rng.integers(2, 7))
        level = float(rng.uniform(1.0, 3.5))
        human = np.clip(np.round(rng.normal(level, 0.8, turns)), 1, 5)
        noise = np.where(rng.random(turns) < 0.2, rng.choice([-1.0, 1.0], turns), 0.0)
        grader = np.clip(human + 1 + noise, 1, 5)
        out.append((human.tolist(), grader.tolist()))
    return out


SCENARIOS = (
    Scenario("binary-lenient", "item", "Ben-Util (last response)", binary(0.90, 0.30)),
    Scenario("binary-strict", "item", "Ben-Util (last response)", binary(0.60, 0.05)),
    Scenario("binary-fair", "item", "Ben-Util (last response)", binary(0.85, 0.08)),
    Scenario("scale-shift", "harm", "harm", shifted),
)


def population(
    scenario: Scenario, rng: np.random.Generator, n: int
) -> tuple[list[GradedSample], dict[str, float], float]:
    """Graded samples, the human label of every unit, and the true headline."""
    samples: list[GradedSample] = []
    truth: dict[str, float] = {}
    values: list[float] = []
    for index, (human, grader) in enumerate(scenario.make(rng, n)):
        weight = 1 / len(human)
        prefix = f"{scenario.kind}:sim:s{index:05d}@1:u"
        names = [f"{prefix}{position:02d}" for position in range(len(human))]
        truth.update(zip(names, human, strict=True))
        units = [Unit(*unit, weight) for unit in zip(names, grader, strict=True)]
        samples.append(
            GradedSample(
                kind=scenario.kind,
                eval_id="sim",
                log="sim.eval",
                sample_id=f"s{index:05d}",
                epoch=1,
                model="model",
                condition="bc",
                cluster=f"q{index:05d}",
                grader="grader",
                units=tuple(units),
            )
        )
        values.append(sum(weight * label for label in human))
    return samples, truth, fmean(values)


@dataclass
class Interval:
    """One method's interval in one repetition."""

    low: float
    high: float

    def covers(self, truth: float) -> bool:
        """Whether the truth lies inside."""
        return self.low <= truth <= self.high

    @property
    def width(self) -> float:
        """High minus low."""
        return self.high - self.low


def normal(values: Sequence[float]) -> Interval:
    """Mean ± 1.96 standard errors."""
    mean, spread = fmean(values), stdev(values) / math.sqrt(len(values))
    return Interval(mean - Z95 * spread, mean + Z95 * spread)


def repetition(scenario: Scenario, samples: int, labels: int, seed: int) -> dict[str, Any]:
    """One synthetic run: the three intervals and the truth."""
    rng = np.random.default_rng(seed)
    graded, truth, true_mean = population(scenario, rng, samples)
    design, chosen = draw(graded, labels, seed)
    labelled = {unit.unit: truth[unit.unit] for _, unit in chosen}
    label_set = LabelSet(Path("sim.json"), design, dict(labelled))
    found = calibrate(graded, [label_set])
    [row] = [r for r in found.rows if r.headline == scenario.headline]
    if row.calibrated is None or row.calibrated.low is None or row.calibrated.high is None:
        raise RuntimeError(f"no calibrated estimate: {row.note}")
    headline = next(h for h in HEADLINES if h.name == scenario.headline)
    raw = normal([s.value(headline.transform) for s in graded])
    human = normal([truth[drawn_unit(s, seed).unit] for s, _ in chosen])
    calibrated = Interval(row.calibrated.low, row.calibrated.high)
    return {
        "truth": true_mean,
        "raw": raw,
        "calibrated": calibrated,
        "human": human,
        "raw_mean": fmean(s.value() for s in graded),
    }


def run(reps: int, samples: int, budgets: Sequence[int], seed: int) -> list[dict[str, Any]]:
    """Every scenario × label budget over `reps` repetitions."""
    table = []
    for scenario in SCENARIOS:
        for labels in budgets:
            started = time.perf_counter()
            outcomes = [
                repetition(scenario, samples, labels, seed + 1000 * rep) for rep in range(reps)
            ]
            entry: dict[str, Any] = {
                "scenario": scenario.name,
                "samples": samples,
                "labels": labels,
                "reps": reps,
                "truth": fmean(o["truth"] for o in outcomes),
                "raw_mean": fmean(o["raw_mean"] for o in outcomes),
                "seconds": round(time.perf_counter() - started, 1),
            }
            for method in ("raw", "calibrated", "human"):
                entry[f"{method}_coverage"] = fmean(
                    float(o[method].covers(o["truth"])) for o in outcomes
                )
                entry[f"{method}_width"] = fmean(o[method].width for o in outcomes)
            table.append(entry)
            print(markdown_row(entry), flush=True)
    return table


def markdown_row(entry: dict[str, Any]) -> str:
    """One row of the BENCHMARKS.md table."""
    return (
        f"| {entry['scenario']} | {entry['labels']} | {entry['truth']:.3f} | "
        f"{entry['raw_mean']:.3f} | {entry['raw_coverage']:.2f} ({entry['raw_width']:.3f}) | "
        f"{entry['calibrated_coverage']:.2f} ({entry['calibrated_width']:.3f}) | "
        f"{entry['human_coverage']:.2f} ({entry['human_width']:.3f}) |"
    )


HEADER = (
    "| scenario | labels | true mean | raw grader mean | raw: coverage (width) | "
    "calibrated: coverage (width) | human labels only: coverage (width) |\n"
    "|---|---|---|---|---|---|---|"
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print the table and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--samples", type=int, default=600, help="responses per run")
    parser.add_argument("--labels", type=int, nargs="+", default=[100, 300])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    print(HEADER)
    table = run(args.reps, args.samples, args.labels, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
