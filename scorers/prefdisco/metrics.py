"""PrefDisco run-level metrics: per-condition breakdowns and normalized alignment.

Every metric here reads the sample metadata (`condition`, `source`, `problem_id`) that the
task puts on each sample. Unscored (NaN) values never reach a metric: Inspect drops them per
score key first. All metrics return NaN (or nothing) for an empty list.
"""

import math
from collections import defaultdict

from inspect_ai.scorer import Metric, SampleScore, grouped, mean, metric, stderr, value_to_float

from heedbench.scorers.prefdisco.alignment import normalized_alignment

CONDITIONS = ("baseline", "discovery", "oracle")


@metric
def condition_mean() -> Metric:
    """Mean per condition, one entry per condition present (the log names them by condition).

    Own names rather than two `grouped(...)`: Inspect keeps only the first metric of a given
    name per score key, so `grouped(mean())` and `grouped(stderr())` cannot sit side by side.
    """
    return grouped(mean(), "condition", all=False)


@metric
def condition_stderr() -> Metric:
    """Standard error of the mean per condition."""
    return grouped(stderr(), "condition", all=False)


def _condition(score: SampleScore) -> str:
    return str((score.sample_metadata or {}).get("condition", ""))


def condition_means(scores: list[SampleScore]) -> dict[str, float]:
    """The mean value per condition over the scores given (conditions with none are absent)."""
    to_float = value_to_float()
    values: dict[str, list[float]] = defaultdict(list)
    for score in scores:
        values[_condition(score)].append(to_float(score.score.value))
    return {condition: sum(v) / len(v) for condition, v in values.items() if v}


@metric(name="normalized_alignment")
def normalized_alignment_metric() -> Metric:
    """100·(D − B)/(O − B) from the condition means; NaN when a condition is missing or O = B."""

    def compute(scores: list[SampleScore]) -> float:
        means = condition_means(scores)
        if any(condition not in means for condition in CONDITIONS):
            return math.nan
        return normalized_alignment(means["baseline"], means["discovery"], means["oracle"])

    return compute


@metric
def discovery_below_baseline() -> Metric:
    """Share of (problem, persona) pairs whose discovery response scored below its baseline."""
    to_float = value_to_float()

    def compute(scores: list[SampleScore]) -> float:
        pairs: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
        for score in scores:
            metadata = score.sample_metadata or {}
            key = (str(metadata.get("source")), str(metadata.get("problem_id")))
            pairs[key][_condition(score)] = to_float(score.score.value)
        both = [p for p in pairs.values() if "baseline" in p and "discovery" in p]
        if not both:
            return math.nan
        return sum(p["discovery"] < p["baseline"] for p in both) / len(both)

    return compute
