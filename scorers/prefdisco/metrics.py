"""PrefDisco run-level metrics: per-condition breakdowns and normalized alignment.

Every metric here reads the sample metadata (`condition`, `source`, `problem_id`) that the
task puts on each sample. Unscored (NaN) values never reach a metric: Inspect drops them per
score key first. All metrics return NaN (or nothing) for an empty list.

Normalized alignment is paired, as in `heedbench report`: per source, over the records
(problem × persona) scored in all three conditions, 100·(D − B)/(O − B) from those records'
means; with several sources, the run's figure is the mean over the sources where it is defined
(a source with O = B has no value). A record missing a condition is left out of B, D and O
alike, so the three means always describe the same records.
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


def _records(scores: list[SampleScore]) -> dict[str, dict[str, dict[str, float]]]:
    """Scores as source -> record (problem id) -> condition -> value."""
    to_float = value_to_float()
    found: dict[str, dict[str, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for score in scores:
        metadata = score.sample_metadata or {}
        record = found[str(metadata.get("source"))][str(metadata.get("problem_id"))]
        record[_condition(score)] = to_float(score.score.value)
    return found


def paired_normalized_alignment(scores: list[SampleScore]) -> tuple[float, dict[str, float]]:
    """Normalized alignment over all sources (mean of the sources' values) and per source.

    Per source: over the records scored in all three conditions, from their condition means;
    NaN when no record has all three, or O = B. Over all sources: the mean of the defined
    per-source values, NaN when there is none.
    """
    per_source: dict[str, float] = {}
    for source, records in sorted(_records(scores).items()):
        complete = [r for r in records.values() if all(c in r for c in CONDITIONS)]
        if not complete:
            per_source[source] = math.nan
            continue
        b, d, o = (sum(r[c] for r in complete) / len(complete) for c in CONDITIONS)
        per_source[source] = normalized_alignment(b, d, o)
    defined = [value for value in per_source.values() if not math.isnan(value)]
    overall = sum(defined) / len(defined) if defined else math.nan
    return overall, per_source


@metric(name="normalized_alignment")
def normalized_alignment_metric() -> Metric:
    """Paired normalized alignment, the mean over sources (see the module docstring)."""

    def compute(scores: list[SampleScore]) -> float:
        return paired_normalized_alignment(scores)[0]

    return compute


@metric(name="normalized_alignment_by_source")
def normalized_alignment_by_source() -> Metric:
    """Paired normalized alignment per source (the log names them by source)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return paired_normalized_alignment(scores)[1]

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
