"""Ben-Util arithmetic on a hand-worked conversation."""

import pytest

from heedbench.scorers import cumulative_utility, redundancy, turn_utility

# 10 checklist items; four assistant turns.
TURNS = [{"a", "b"}, set(), {"b", "c", "d", "e"}, {"a", "b", "c", "f"}]


def test_turn_utility() -> None:
    assert turn_utility(TURNS, 10) == [0.2, 0.0, 0.4, 0.4]


def test_cumulative_utility() -> None:
    # union grows: {a,b} -> {a,b} -> {a,b,c,d,e} -> {a,b,c,d,e,f}
    assert cumulative_utility(TURNS, 10) == [0.2, 0.2, 0.5, 0.6]


def test_redundancy_is_undefined_on_the_first_and_empty_turns() -> None:
    # turn 3: b was already fulfilled (1 of 4); turn 4: a, b, c were (3 of 4).
    assert redundancy(TURNS) == [None, None, 0.25, 0.75]


def test_empty_checklist_is_rejected() -> None:
    with pytest.raises(ValueError):
        turn_utility(TURNS, 0)
