"""PrefDisco run-level metrics: per-condition breakdowns and normalized alignment.

They read the sample metadata (`condition`, `source`, `problem_id`) and return named values
(`prefalign_baseline`, `normalized_alignment`, ...), so the log's names do not depend on how
heedbench was imported. Unscored (NaN) values are left out key by key, and a metric whose
conditions the run lacks is left out rather than NaN (questions: discovery only).

Normalized alignment is paired, as in `heedbench report`: per source, over the records
(problem × persona) scored in all three conditions, 100·(D − B)/(O − B) from their means;
over several sources, from the source-averaged means, each source weighted equally (the paper
never averages the ratios, which swing wildly where a source has O ≈ B).
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
    """One score key's values as scalar scores (a number is taken as it is), NaN left out."""
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
    """`<key>_<condition>` and `<key>_<condition>_stderr`: mean and stderr per condition."""
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
    """Normalized alignment over all sources and per source (NaN: no complete record, O = B)."""
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
    """`normalized_alignment` (over all sources) and `normalized_alignment_<source>`."""

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
    """`discovery_below_baseline`: the share of records whose discovery PrefAlign is lower."""

    def compute(scores: list[SampleScore]) -> Value:
        if not {"baseline", "discovery"} <= _held(scores):
            return {}
        records = _records(key_scores(scores, "prefalign")).values()
        both = [p for r in records for p in r.values() if "baseline" in p and "discovery" in p]
        share = sum(p["discovery"] < p["baseline"] for p in both) / len(both) if both else math.nan
        return {"discovery_below_baseline": share}

    return compute
