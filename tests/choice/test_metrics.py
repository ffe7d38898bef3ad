"""SPO and K(p) against cases worked by hand."""

import math

import pytest

from heedbench.scorers import kendall_penalty, normalised_kendall_penalty, spo, spo_of_relation

USER = [["a"], ["b", "c"], ["d"]]  # strict: a>b a>c a>d b>d c>d (5 pairs); b~c


def test_identical_orders_are_fully_aligned() -> None:
    assert spo(USER, USER) == 1.0
    assert kendall_penalty(USER, USER) == 0.0


def test_tie_broken_one_way_and_a_strict_pair_merged() -> None:
    chosen = [["a", "b"], ["c"], ["d"]]
    # a>b is lost (1 of 5 strict pairs); {a,b} and {b,c} are weakly discordant.
    assert spo(USER, chosen) == pytest.approx(0.8)
    assert kendall_penalty(USER, chosen) == pytest.approx(1.0)
    assert kendall_penalty(USER, chosen, p=1.0) == pytest.approx(2.0)
    assert normalised_kendall_penalty(USER, chosen) == pytest.approx(1.0 / 6)


def test_stricter_choice_function_is_not_penalised_by_spo() -> None:
    user = [["a", "b"], ["c"]]
    chosen = [["a"], ["b"], ["c"]]
    assert spo(user, chosen) == 1.0
    assert kendall_penalty(user, chosen) == 0.5  # the user's tie a~b is broken


def test_looser_choice_function_loses_every_strict_pair() -> None:
    user = [["a"], ["b"], ["c"]]
    chosen = [["a", "b", "c"]]
    assert spo(user, chosen) == 0.0
    assert kendall_penalty(user, chosen) == 1.5  # three weakly discordant pairs


def test_inversion_is_fully_discordant() -> None:
    user = [["a"], ["b"], ["c"]]
    assert spo(user, [["c"], ["b"], ["a"]]) == 0.0
    assert kendall_penalty(user, [["c"], ["b"], ["a"]]) == 3.0


def test_inverting_indifference_keeps_it() -> None:
    # {b,c} stay indifferent when the order is reversed: D counts only the 5 strict pairs.
    assert kendall_penalty(USER, [["d"], ["b", "c"], ["a"]]) == 5.0


def test_spo_of_a_bare_relation_counts_missing_pairs_as_violations() -> None:
    assert spo_of_relation(USER, {("a", "b"), ("a", "c"), ("d", "a")}) == pytest.approx(2 / 5)


def test_spo_is_undefined_without_strict_user_preferences() -> None:
    assert math.isnan(spo([["a", "b"]], [["a"], ["b"]]))


@pytest.mark.parametrize(
    "chosen",
    [[["a"], ["b"], ["c"]], [["a"], ["b", "c"], ["d"], ["e"]], [["a", "a"], ["b", "c", "d"]]],
)
def test_orders_over_different_objects_are_rejected(chosen: list[list[str]]) -> None:
    with pytest.raises(ValueError):
        kendall_penalty(USER, chosen)
    with pytest.raises(ValueError):
        spo(USER, chosen)


def test_penalty_outside_unit_interval_is_rejected() -> None:
    with pytest.raises(ValueError, match="p must lie"):
        kendall_penalty(USER, USER, p=1.5)
