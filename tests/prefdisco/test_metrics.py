"""Run-level metrics on hand-built sample scores."""

import math
from typing import Any, cast

from inspect_ai.scorer import Metric, SampleScore, Score

from heedbench.scorers.prefdisco.metrics import (
    condition_mean,
    condition_means,
    discovery_below_baseline,
    normalized_alignment_metric,
)


def call(metric: Metric, scores: list[SampleScore]) -> Any:
    return cast(Any, metric)(scores)


def scores(rows: list[tuple[str, str, float]]) -> list[SampleScore]:
    return [
        SampleScore(
            score=Score(value=value),
            sample_id=f"{problem}/{condition}",
            sample_metadata={"problem_id": problem, "condition": condition, "source": "math"},
        )
        for problem, condition, value in rows
    ]


ROWS = [
    ("p1", "baseline", 2.0), ("p1", "discovery", 3.0), ("p1", "oracle", 4.0),
    ("p2", "baseline", 3.0), ("p2", "discovery", 2.0), ("p2", "oracle", 5.0),
]  # fmt: skip


def test_condition_means() -> None:
    assert condition_means(scores(ROWS)) == {"baseline": 2.5, "discovery": 2.5, "oracle": 4.5}
    assert call(condition_mean(), scores(ROWS)) == {
        "baseline": 2.5,
        "discovery": 2.5,
        "oracle": 4.5,
    }


def test_normalized_alignment_from_the_condition_means() -> None:
    # B = 2.5, D = 2.5, O = 4.5 -> 0; with p1 only: B 2, D 3, O 4 -> 50.
    assert call(normalized_alignment_metric(), scores(ROWS)) == 0.0
    assert call(normalized_alignment_metric(), scores(ROWS[:3])) == 50.0


def test_normalized_alignment_is_nan_without_a_condition_or_a_gap() -> None:
    assert math.isnan(call(normalized_alignment_metric(), scores(ROWS[:2])))
    flat = [("p", "baseline", 3.0), ("p", "discovery", 4.0), ("p", "oracle", 3.0)]
    assert math.isnan(call(normalized_alignment_metric(), scores(flat)))


def test_share_of_problems_where_discovery_is_below_baseline() -> None:
    assert call(discovery_below_baseline(), scores(ROWS)) == 0.5  # p2 only
    assert math.isnan(call(discovery_below_baseline(), scores([("p", "oracle", 3.0)])))


def test_empty_lists() -> None:
    assert math.isnan(call(normalized_alignment_metric(), []))
    assert math.isnan(call(discovery_below_baseline(), []))
    assert condition_means([]) == {}
