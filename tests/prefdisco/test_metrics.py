"""Run-level metrics on hand-built sample scores."""

import math
from typing import Any, cast

import pytest
from inspect_ai.scorer import Metric, SampleScore, Score

from heedbench.scorers.prefdisco.metrics import (
    condition_stats,
    discovery_below_baseline,
    normalized_alignment_metric,
)


def call(metric: Metric, scores: list[SampleScore]) -> Any:
    return cast(Any, metric)(scores)


def overall(scores: list[SampleScore]) -> float:
    return float(call(normalized_alignment_metric(), scores)["normalized_alignment"])


def per_source(scores: list[SampleScore]) -> dict[str, float]:
    prefix = "normalized_alignment_"
    values = call(normalized_alignment_metric(), scores)
    return {k.removeprefix(prefix): v for k, v in values.items() if k.startswith(prefix)}


def below(scores: list[SampleScore]) -> float:
    return float(call(discovery_below_baseline(), scores)["discovery_below_baseline"])


def scores(rows: list[tuple[str, str, float]], source: str = "math") -> list[SampleScore]:
    """PrefAlign values as the scorer's dict scores (correct 1, no questions)."""
    return [
        SampleScore(
            score=Score(value={"prefalign": value, "correct": 1, "questions": 0}),
            sample_id=f"{source}/{problem}/{condition}",
            sample_metadata={"problem_id": problem, "condition": condition, "source": source},
        )
        for problem, condition, value in rows
    ]


ROWS = [
    ("p1", "baseline", 2.0), ("p1", "discovery", 3.0), ("p1", "oracle", 4.0),
    ("p2", "baseline", 3.0), ("p2", "discovery", 2.0), ("p2", "oracle", 5.0),
]  # fmt: skip


def test_condition_means() -> None:
    stats = call(condition_stats(), scores(ROWS))
    assert {k: v for k, v in stats.items() if k.startswith("prefalign_") and "stderr" not in k} == {
        "prefalign_baseline": 2.5,
        "prefalign_discovery": 2.5,
        "prefalign_oracle": 4.5,
    }
    assert stats["prefalign_baseline_stderr"] == 0.5  # 2 and 3: sd 0.707 / sqrt 2
    assert stats["correct_oracle"] == 1.0 and stats["questions_discovery"] == 0.0
    # only discovery asks: no questions_baseline / questions_oracle, which would always be 0
    assert not {"questions_baseline", "questions_oracle"} & set(stats)


def test_an_unscored_key_is_left_out_of_its_own_means_only() -> None:
    rows = scores(ROWS)
    rows[0].score.value = {"prefalign": math.nan, "correct": 0, "questions": 0}
    stats = call(condition_stats(), rows)
    assert stats["prefalign_baseline"] == 3.0  # p2 only
    assert stats["correct_baseline"] == 0.5  # both


def test_normalized_alignment_from_the_condition_means() -> None:
    # B = 2.5, D = 2.5, O = 4.5 -> 0; with p1 only: B 2, D 3, O 4 -> 50.
    assert overall(scores(ROWS)) == 0.0
    assert overall(scores(ROWS[:3])) == 50.0


def test_normalized_alignment_is_not_reported_without_all_three_conditions() -> None:
    # a run of baseline and discovery only: no metric at all, rather than a NaN
    assert call(normalized_alignment_metric(), scores(ROWS[:2])) == {}
    assert call(normalized_alignment_metric(), scores(ROWS[3:])) != {}


def test_normalized_alignment_is_nan_without_a_gap() -> None:
    flat = [("p", "baseline", 3.0), ("p", "discovery", 4.0), ("p", "oracle", 3.0)]
    assert math.isnan(overall(scores(flat)))


def test_share_of_problems_where_discovery_is_below_baseline() -> None:
    assert below(scores(ROWS)) == 0.5  # p2 only
    assert call(discovery_below_baseline(), scores([("p", "oracle", 3.0)])) == {}
    # both conditions held, but no record scored in both: NaN, not a share of nothing
    unpaired = scores([("p", "baseline", 3.0), ("q", "discovery", 3.0)])
    assert math.isnan(below(unpaired))


def test_empty_lists() -> None:
    assert call(normalized_alignment_metric(), []) == {}
    assert call(discovery_below_baseline(), []) == {}
    assert call(condition_stats(), []) == {}


def test_normalized_alignment_is_paired_per_source_and_normalised_over_the_source_means() -> None:
    # math: p1 and p2 have all three conditions; p3 has no oracle answer (say it went unscored).
    #   paired: B = (2 + 3)/2 = 2.5, D = (3 + 2)/2 = 2.5, O = (4 + 5)/2 = 4.5 -> 100·0/2 = 0.
    #   (unpaired means would give B = 2, D = 10/3, O = 4.5 -> 53.3: p3 alone would move it.)
    # medqa: q1 B 2 D 4 O 4, q2 B 3 D 3 O 5 -> B 2.5, D 3.5, O 4.5 -> 100·1/2 = 50.
    # the run: from the sources' means, B 2.5, D 3.0, O 4.5 -> 100·0.5/2 = 25
    #   (pooling every record instead would give B 2.2, D 3.4, O 4.5 -> 52.2).
    math_rows = [*ROWS, ("p3", "baseline", 1.0), ("p3", "discovery", 5.0)]
    medqa_rows = [
        ("q1", "baseline", 2.0), ("q1", "discovery", 4.0), ("q1", "oracle", 4.0),
        ("q2", "baseline", 3.0), ("q2", "discovery", 3.0), ("q2", "oracle", 5.0),
    ]  # fmt: skip
    both = scores(math_rows, "math") + scores(medqa_rows, "medqa")
    assert overall(both) == 25.0
    assert per_source(both) == {"math": 0.0, "medqa": 50.0}
    assert overall(scores(math_rows)) == 0.0


def test_a_source_where_oracle_is_near_baseline_cannot_blow_up_the_run() -> None:
    # math: B 2, D 3, O 4 -> 50; mmlu: B 3, D 3.5, O 3.01 -> 5000 on its own.
    # The run: B 2.5, D 3.25, O 3.505 -> 100·0.75/1.005 = 74.6 (a mean of ratios: 2525).
    near = [("f", "baseline", 3.0), ("f", "discovery", 3.5), ("f", "oracle", 3.01)]
    both = scores(ROWS[:3], "math") + scores(near, "mmlu")
    assert overall(both) == pytest.approx(100 * 0.75 / 1.005)
    assert per_source(both) == pytest.approx({"math": 50.0, "mmlu": 5000.0})
    flat = [("f", "baseline", 3.0), ("f", "discovery", 4.0), ("f", "oracle", 3.0)]
    assert math.isnan(per_source(scores(flat, "mmlu"))["mmlu"])
