"""choice's run-level count reads scores as Inspect's epoch reducer leaves them.

`valid_contexts` of `contexts` is the paper's "valid" column. With `--epochs k` each
context's score is the reducer's: `valid` becomes the share of epochs whose choice function
was valid. These tests run the metric inside real evals (pytest_inspect_evals replays
per-epoch scores through Inspect's reducers).
"""

from typing import Any

import pytest
from inspect_ai.scorer import Score
from pytest_inspect_evals.metrics import assert_agreeing_epochs_change_nothing, run_metrics

from heedbench.scorers.choice.scorer import context_counts, contrast_metric

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


TWIN_A = [["umbrella"], ["book"], ["sunscreen"]]
TWIN_B = [["sunscreen"], ["book"], ["umbrella"]]
TWINS: list[dict[str, Any]] = [
    {"user_order": TWIN_A, "twins": {}},
    {"user_order": TWIN_B, "twins": {"s0": "sky"}},
]
"""Two twin contexts (the harness names its samples s0, s1): the sun comes out in s1."""


def chosen(order: list[list[str]], valid: int = 1) -> Score:
    """A context's score with the chosen order in its metadata, as the scorer writes it."""
    return Score(value={"spo": 1.0, "valid": valid}, metadata={"chosen_order": order})


def test_equal_epochs_leave_the_contrast_unchanged() -> None:
    scores = [chosen(TWIN_A), chosen(TWIN_B)]
    assert_agreeing_epochs_change_nothing([contrast_metric()], scores, metadata=TWINS)


def test_the_contrast_compares_the_first_epochs_orders_of_contexts_valid_in_every_epoch() -> None:
    follows = run_metrics([contrast_metric()], [[chosen(TWIN_A)], [chosen(TWIN_B)]], metadata=TWINS)
    assert follows == {"contrast_sky": 1.0, "contrast": 1.0}
    blind = run_metrics([contrast_metric()], [[chosen(TWIN_A)], [chosen(TWIN_A)]], metadata=TWINS)
    assert blind == {"contrast_sky": 0.0, "contrast": 0.0}
    # valid in one epoch of two: the reduced `valid` is 0.5, so the pair is left out
    partly = [[chosen(TWIN_A)] * 2, [chosen(TWIN_B), chosen(TWIN_B, valid=0)]]
    assert run_metrics([contrast_metric()], partly, metadata=TWINS) == {}
