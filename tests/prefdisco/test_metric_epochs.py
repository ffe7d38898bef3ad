"""prefdisco's metrics read scores as Inspect's epoch reducer leaves them.

With `--epochs k` the metrics see one reduced score per sample: PrefAlign and correctness
averaged key by key (a NaN key left out), `correct` no longer 0 or 1. Normalized alignment
pairs the reduced baseline, discovery and oracle values of each record. These tests run the
metrics inside real evals (pytest_inspect_evals replays per-epoch scores through Inspect's
reducers).
"""

import math
from typing import Any

import pytest
from inspect_ai.scorer import Score
from pytest_inspect_evals.metrics import assert_agreeing_epochs_change_nothing, run_metrics

from heedbench.scorers.prefdisco.alignment import normalized_alignment
from heedbench.scorers.prefdisco.metrics import (
    condition_stats,
    discovery_below_baseline,
    normalized_alignment_metric,
)

pytestmark = pytest.mark.usefixtures("offline_metric_evals")

NAN = math.nan


def value(condition: str, prefalign: float, correct: float) -> dict[str, float]:
    """A score value as the prefdisco scorer writes it (questions only where the model asks)."""
    found = {"prefalign": prefalign, "correct": correct}
    return found | {"questions": 2} if condition == "discovery" else found


RUN = [
    # (source, problem, condition, PrefAlign, correct): two math records, one medqa record;
    # one discovery answer's correctness is unjudged, one oracle sample the grader failed
    ("math", "p1", "baseline", 2.0, 1),
    ("math", "p1", "discovery", 3.0, NAN),
    ("math", "p1", "oracle", 4.5, 1),
    ("math", "p2", "baseline", 3.0, 0),
    ("math", "p2", "discovery", 2.5, 1),
    ("math", "p2", "oracle", 4.0, 1),
    ("medqa", "p1", "baseline", 1.5, 1),
    ("medqa", "p1", "discovery", 3.5, 1),
    ("medqa", "p1", "oracle", NAN, NAN),
]
METADATA = [
    {"source": source, "problem_id": problem, "condition": condition}
    for source, problem, condition, *_ in RUN
]


def scores() -> list[Score]:
    return [
        Score.unscored(reason="grader_failed", explanation="no verdict")
        if math.isnan(prefalign) and math.isnan(correct)
        else Score(value=value(condition, prefalign, correct))
        for _, _, condition, prefalign, correct in RUN
    ]


@pytest.mark.parametrize(
    "metric",
    [condition_stats, normalized_alignment_metric, discovery_below_baseline],
    ids=["condition_stats", "normalized_alignment", "discovery_below_baseline"],
)
def test_equal_epochs_leave_every_prefdisco_metric_unchanged(metric: Any) -> None:
    assert_agreeing_epochs_change_nothing([metric()], scores(), metadata=METADATA)


def test_normalized_alignment_pairs_the_reduced_conditions_of_each_record() -> None:
    # Two epochs per sample that disagree; each record's condition value is its epoch mean.
    epochs = [
        [Score(value=value("baseline", 2.0, 1)), Score(value=value("baseline", 3.0, 1))],
        [Score(value=value("discovery", 3.0, 1)), Score(value=value("discovery", 4.0, 0))],
        [Score(value=value("oracle", 4.0, 1)), Score(value=value("oracle", 5.0, 1))],
    ]
    metadata = [
        {"source": "math", "problem_id": "p1", "condition": c}
        for c in ("baseline", "discovery", "oracle")
    ]
    metrics = [normalized_alignment_metric(), discovery_below_baseline(), condition_stats()]
    values = run_metrics(metrics, epochs, metadata=metadata)
    assert values["normalized_alignment"] == pytest.approx(normalized_alignment(2.5, 3.5, 4.5))
    assert values["normalized_alignment_math"] == pytest.approx(50.0)
    assert values["discovery_below_baseline"] == 0.0
    assert values["correct_discovery"] == pytest.approx(0.5)  # an accuracy over epochs
    assert values["questions_discovery"] == 2.0
    assert "questions_baseline" not in values  # only discovery asks


def test_a_record_left_without_a_condition_leaves_the_pairing() -> None:
    # medqa's oracle is unscored in every epoch: medqa has no normalized alignment, and the
    # run's figure is math's alone.
    values = run_metrics(
        [normalized_alignment_metric()], [[s, s] for s in scores()], metadata=METADATA
    )
    math_records = ((2.0 + 3.0) / 2, (3.0 + 2.5) / 2, (4.5 + 4.0) / 2)
    assert values["normalized_alignment"] == pytest.approx(normalized_alignment(*math_records))
    medqa = values["normalized_alignment_medqa"]
    assert isinstance(medqa, float) and math.isnan(medqa)
