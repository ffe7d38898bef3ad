"""PrefDisco run-level metrics: per-condition breakdowns and normalized alignment.

Every metric here reads the sample metadata (`condition`, `source`, `problem_id`) that the
task puts on each sample. They are scorer-level metrics over the whole dict score and return
named values (`prefalign_baseline`, `normalized_alignment`, ...), so the names in the log are
the same however the task was launched (a metric listed under one score key is named after
its registry name, which carries the package prefix or not depending on how heedbench was
imported). Unscored (NaN) values are left out key by key. A metric is reported only for the
conditions a run holds: normalized alignment needs all three, `discovery_below_baseline`
baseline and discovery, and questions are reported for discovery only (the other conditions
never ask); a run without them gets no such metric rather than a NaN.

Normalized alignment is paired, as in `heedbench report`: per source (the paper's unit, one
value per model and task), over the records (problem × persona) scored in all three
conditions, 100·(D − B)/(O − B) from those records' means. Over several sources the run's
figure normalises the source-averaged means, 100·(D̄ − B̄)/(Ō − B̄) with each source weighted
equally (the paper never averages the ratios, and a mean of ratios swings wildly where one
source has O ≈ B). A record missing a condition is left out of B, D and O alike.
"""

import math
from collections import defaultdict
from typing import cast

from inspect_ai.scorer import (
    Metric,
    MetricProtocol,
    SampleScore,
    Value,
    grouped,
    mean,
    metric,
    stderr,
    value_to_float,
)

from heedbench.scorers.prefdisco.alignment import normalized_alignment

CONDITIONS = ("baseline", "discovery", "oracle")
KEYS = ("prefalign", "correct", "questions")
"""The score value's keys, each broken down by condition."""
ASKING = {"questions": ("discovery",)}
"""Keys reported for some conditions only: only discovery asks questions."""


def _condition(score: SampleScore) -> str:
    return str((score.sample_metadata or {}).get("condition", ""))


def _held(scores: list[SampleScore]) -> set[str]:
    """The conditions the run's samples hold."""
    return {_condition(score) for score in scores}


def key_scores(scores: list[SampleScore], key: str) -> list[SampleScore]:
    """The samples' values of one score key as scalar scores, unscored (NaN) ones left out.

    A score whose value is already a number is taken as it is (a single-key score).
    """
    found: list[SampleScore] = []
    for score in scores:
        value = score.score.value
        raw = value.get(key) if isinstance(value, dict) else value
        if isinstance(raw, int | float) and not math.isnan(raw):
            scalar = score.score.model_copy(update={"value": raw})
            found.append(score.model_copy(update={"score": scalar}))
    return found


@metric
def condition_stats() -> Metric:
    """Mean and standard error of each key per condition.

    Named `<key>_<condition>` and `<key>_<condition>_stderr` (`prefalign_baseline`,
    `correct_oracle_stderr`, ...); for `correct` the mean is the accuracy.
    """
    means = grouped(mean(), "condition", all=False)
    errors = grouped(stderr(), "condition", all=False)

    def compute(scores: list[SampleScore]) -> Value:
        stats: dict[str, float] = {}
        for key in KEYS:
            values = key_scores(scores, key)
            if not values:
                continue
            per_condition = _mapping(means, values)
            per_condition_error = _mapping(errors, values)
            for condition in ASKING.get(key, CONDITIONS):
                if condition in per_condition:
                    stats[f"{key}_{condition}"] = per_condition[condition]
                    stats[f"{key}_{condition}_stderr"] = per_condition_error[condition]
        return stats

    return compute


def _mapping(stat: Metric, scores: list[SampleScore]) -> dict[str, float]:
    """A grouped metric's per-group values as floats."""
    result = cast(MetricProtocol, stat)(scores)
    return {str(k): float(v) for k, v in result.items()} if isinstance(result, dict) else {}


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
    """Normalized alignment over all sources and per source (see the module docstring).

    Per source: over the records scored in all three conditions, from their condition means;
    NaN when no record has all three, or O = B. Over all sources: from the means of the
    sources' condition means; NaN when no source has a complete record, or the gap is 0.
    """
    per_source: dict[str, float] = {}
    means: list[tuple[float, ...]] = []
    for source, records in sorted(_records(scores).items()):
        complete = [r for r in records.values() if all(c in r for c in CONDITIONS)]
        if not complete:
            per_source[source] = math.nan
            continue
        means.append(tuple(sum(r[c] for r in complete) / len(complete) for c in CONDITIONS))
        per_source[source] = normalized_alignment(*means[-1])
    if not means:
        return math.nan, per_source
    b, d, o = (sum(m[i] for m in means) / len(means) for i in range(3))
    return normalized_alignment(b, d, o), per_source


@metric(name="normalized_alignment")
def normalized_alignment_metric() -> Metric:
    """Paired normalized alignment of PrefAlign, over all sources and per source.

    Named `normalized_alignment` (over all sources, see the module docstring) and
    `normalized_alignment_<source>`.
    """

    def compute(scores: list[SampleScore]) -> Value:
        if not set(CONDITIONS) <= _held(scores):
            return {}
        overall, per_source = paired_normalized_alignment(key_scores(scores, "prefalign"))
        return {
            "normalized_alignment": overall,
            **{f"normalized_alignment_{source}": v for source, v in per_source.items()},
        }

    return compute


@metric
def discovery_below_baseline() -> Metric:
    """The share of (problem, persona) pairs whose discovery PrefAlign is below baseline.

    Named `discovery_below_baseline`.
    """
    to_float = value_to_float()

    def compute(scores: list[SampleScore]) -> Value:
        if not {"baseline", "discovery"} <= _held(scores):
            return {}
        pairs: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
        for score in key_scores(scores, "prefalign"):
            metadata = score.sample_metadata or {}
            key = (str(metadata.get("source")), str(metadata.get("problem_id")))
            pairs[key][_condition(score)] = to_float(score.score.value)
        both = [p for p in pairs.values() if "baseline" in p and "discovery" in p]
        share = sum(p["discovery"] < p["baseline"] for p in both) / len(both) if both else math.nan
        return {"discovery_below_baseline": share}

    return compute
