"""PrefAlign and normalized alignment against hand-worked numbers."""

import math

import pytest

from heedbench.scorers import normalized_alignment, prefalign


def test_prefalign_is_the_weighted_mean() -> None:
    # (0.5*5 + 0.3*3 + 0.2*1) / 1.0 = 3.6
    assert prefalign(
        {"depth": 5, "tone": 3, "jargon": 1}, {"depth": 0.5, "tone": 0.3, "jargon": 0.2}
    ) == pytest.approx(3.6)


def test_prefalign_normalises_weights_that_do_not_sum_to_one() -> None:
    # importances 4 and 1: (4*2 + 1*5) / 5 = 2.6
    assert prefalign({"a": 2, "b": 5}, {"a": 4, "b": 1}) == pytest.approx(2.6)


def test_an_unscored_criterion_makes_the_sample_unscored() -> None:
    assert prefalign({"a": 4, "b": None}, {"a": 0.5, "b": 0.5}) is None


@pytest.mark.parametrize(
    ("scores", "weights", "message"),
    [
        ({"a": 4}, {"a": 0.5, "b": 0.5}, "different criteria"),
        ({"a": 6}, {"a": 1.0}, "must lie in 1"),
        ({"a": 3}, {"a": 0.0}, "positive sum"),
    ],
)
def test_bad_inputs_are_rejected(
    scores: dict[str, float], weights: dict[str, float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        prefalign(scores, weights)


def test_normalized_alignment() -> None:
    assert normalized_alignment(baseline=2.0, discovery=3.0, oracle=4.0) == pytest.approx(50.0)
    assert normalized_alignment(2.0, 4.0, 4.0) == pytest.approx(100.0)
    assert normalized_alignment(3.0, 2.4, 4.0) == pytest.approx(-60.0)  # asking made it worse
    assert math.isnan(normalized_alignment(3.0, 3.5, 3.0))
