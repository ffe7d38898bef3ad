"""choice's run-level count reads scores as Inspect's epoch reducer leaves them.

`valid_contexts` of `contexts` is the paper's "valid" column. With `--epochs k` each
context's score is the reducer's: `valid` becomes the share of epochs whose choice function
was valid. These tests run the metric inside real evals (pytest_inspect_evals replays
per-epoch scores through Inspect's reducers).
"""

import pytest
from inspect_ai.scorer import Score
from pytest_inspect_evals.metrics import assert_agreeing_epochs_change_nothing, run_metrics

from heedbench.scorers.choice.scorer import context_counts

pytestmark = pytest.mark.usefixtures("offline_metric_evals")


def context(valid: int, spo: float) -> Score:
    """A context's score value as the choice scorer writes it (the keys the count reads)."""
    return Score(value={"spo": spo, "kendall": 120.0, "valid": valid, "invalid_rate": 0.0})


UNSCORED = Score.unscored(reason="no_response", explanation="the provider blocked every call")


def test_equal_epochs_leave_the_valid_count_unchanged() -> None:
    scores = [context(1, 0.8), context(0, 0.4), context(1, 0.6), UNSCORED]
    assert_agreeing_epochs_change_nothing([context_counts()], scores)


def test_a_context_is_valid_only_when_every_epoch_was() -> None:
    # Context a valid in both epochs, b in one of two, c in neither; d unscored in both.
    epochs = [
        [context(1, 0.8), context(1, 0.7)],
        [context(1, 0.5), context(0, 0.4)],
        [context(0, 0.3), context(0, 0.2)],
        [UNSCORED, UNSCORED],
    ]
    values = run_metrics([context_counts()], epochs)
    assert values == {"valid_contexts": 1, "contexts": 3}
