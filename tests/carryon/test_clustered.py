"""Query-clustered means and standard errors, on hand-worked numbers."""

import math
from typing import Any, cast

import pytest
from inspect_ai.scorer import Metric, SampleScore, Score, stderr

from heedbench.scorers.carryon.metrics import by_condition
from heedbench.scorers.carryon.pools import (
    clustered_difference,
    clustered_mean,
)


def test_clustering_widens_the_error_when_a_query_moves_together() -> None:
    # q1 gives 1, 1 and q2 gives 0, 0: mean 0.5. Cluster totals of (x - 0.5): +1, -1.
    # Clustered: sqrt(2 / 1 * (1 + 1)) / 4 = 0.5. As four independent values it would be
    # sd sqrt(1/3) / sqrt(4) = 0.289.
    estimate = clustered_mean([("q1", 1.0), ("q1", 1.0), ("q2", 0.0), ("q2", 0.0)])
    assert (estimate.value, estimate.n, estimate.clusters) == (0.5, 4, 2)
    assert estimate.stderr == pytest.approx(0.5)


def test_clustering_narrows_the_error_when_queries_agree() -> None:
    # Each query gives 1 and 0: totals 0 and 0, so the mean does not move between queries.
    estimate = clustered_mean([("q1", 1.0), ("q1", 0.0), ("q2", 1.0), ("q2", 0.0)])
    assert estimate.value == 0.5 and estimate.stderr == 0.0


def test_one_value_per_cluster_is_the_usual_standard_error() -> None:
    values = [0.2, 0.4, 0.9, 0.5]
    estimate = clustered_mean([(i, v) for i, v in enumerate(values)])
    mean = sum(values) / 4
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 3)
    assert estimate.stderr == pytest.approx(sd / 2)


def test_nan_and_none_are_left_out_and_one_cluster_has_no_error() -> None:
    estimate = clustered_mean([("q1", 1.0), ("q1", math.nan), ("q1", None), ("q1", 0.0)])
    assert (estimate.value, estimate.n, estimate.clusters) == (0.5, 2, 1)
    assert math.isnan(estimate.stderr)
    empty = clustered_mean([("q1", math.nan)])
    assert empty.n == 0 and math.isnan(empty.value)


def test_a_difference_over_shared_queries_by_hand() -> None:
    # BC last minus turn 1 on the same two queries. BC: q1 1.0, q2 0.5 (mean 0.75);
    # turn 1: q1 0.5, q2 0.0 (mean 0.25). Difference 0.5. Contributions per query:
    # q1 (1.0 - 0.75)/2 - (0.5 - 0.25)/2 = 0; q2 (0.5 - 0.75)/2 - (0.0 - 0.25)/2 = 0:
    # every query gains exactly 0.5, so the error is 0 (independent means would say 0.354).
    gap = clustered_difference([("q1", 1.0), ("q2", 0.5)], [("q1", 0.5), ("q2", 0.0)])
    assert gap.value == pytest.approx(0.5) and gap.stderr == pytest.approx(0.0)
    # q1 gains 1.0, q2 nothing: contributions +0.25, -0.25; sqrt(2 * 0.125) = 0.5.
    uneven = clustered_difference([("q1", 1.0), ("q2", 0.0)], [("q1", 0.0), ("q2", 0.0)])
    assert uneven.value == 0.5 and uneven.stderr == pytest.approx(0.5)
    assert clustered_difference([("q1", 1.0)], []).n == 0


def scores(rows: list[tuple[str, str, float]], key: str | None = "harm") -> list[SampleScore]:
    """Hand-made sample scores: {key: value} (or the bare value with key None)."""
    return [
        SampleScore(
            score=Score(value=value if key is None else {key: value}),
            sample_id=f"{query}/{index}",
            sample_metadata={"query_id": query, "condition": condition},
        )
        for index, (query, condition, value) in enumerate(rows)
    ]


HAND_MADE = [("q1", "bc", 1.0), ("q1", "bc", 1.0), ("q2", "bc", 0.0), ("q2", "bc", 0.0)]


def call(metric: Metric, rows: list[SampleScore]) -> Any:
    return cast(Any, metric)(rows)


def test_inspects_top_level_stderr_and_the_breakdowns_agree() -> None:
    # The top-level key uses Inspect's stderr(cluster="query_id"); the breakdown metric our
    # own function. On the same hand-made scores both give 0.5, not the unclustered 0.289.
    top = call(stderr(cluster="query_id"), scores(HAND_MADE, key=None))
    unclustered = call(stderr(), scores(HAND_MADE, key=None))
    breakdown = call(by_condition(), scores(HAND_MADE))
    assert top == pytest.approx(0.5) and unclustered == pytest.approx(0.2887, abs=1e-4)
    assert breakdown["bc.harm.stderr"] == pytest.approx(top)
