"""Flow validity rules and the flow enumeration, against hand counts."""

import pytest

from heedbench.solvers import is_valid_flow, valid_flows
from heedbench.solvers.carryon import flow_condition


@pytest.mark.parametrize(
    "flow",
    [
        ("clarify",),
        ("delay", "clarify"),
        ("pushback", "backchannel", "rephrase"),
        ("delay", "switch", "backchannel", "pushback"),
        ("switch", "clarify"),
        ("switch", "switch", "pushback"),
        ("switch", "delay", "rephrase"),  # a pause in between lifts rule 4
    ],
)
def test_valid_flows(flow: tuple[str, ...]) -> None:
    assert is_valid_flow(flow)


@pytest.mark.parametrize(
    ("flow", "rule"),
    [
        ((), "empty"),
        (("clarify", "delay"), "ends on a non-contentful move"),
        (("delay", "backchannel", "clarify"), "two non-contentful moves in a row"),
        (("delay", "clarify", "backchannel", "reask", "delay", "pushback"), "three non-contentful"),
        (("switch", "rephrase"), "rephrasing right after a switch"),
        (("clarify", "switch", "reask"), "re-asking right after a switch"),
    ],
)
def test_invalid_flows(flow: tuple[str, ...], rule: str) -> None:
    assert not is_valid_flow(flow), rule


def test_unknown_move_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown moves"):
        is_valid_flow(("clarify", "insult"))


def test_enumeration_matches_hand_counts() -> None:
    # Length 1: the 5 contentful moves. Length 2: 25 contentful pairs minus switch->rephrase
    # and switch->reask (23), plus 2 non-contentful x 5 contentful (10) = 33.
    # Length 3: CCC 105 (23 pairs extended, 3 options after a switch, 5 otherwise),
    # NCC 2 x 23 = 46, CNC 5 x 2 x 5 = 50 -> 201.
    counts = [sum(len(f) == k for f in valid_flows(3)) for k in (1, 2, 3)]
    assert counts == [5, 33, 201]
    assert len(valid_flows(5)) == 9209
    assert all(is_valid_flow(flow) for flow in valid_flows(5))
    assert len(set(valid_flows(5))) == len(valid_flows(5))


def test_conditions() -> None:
    assert flow_condition(("pushback", "clarify")) == "bc"
    assert flow_condition(("delay", "reask")) == "bc"
    assert flow_condition(("switch", "pushback", "rephrase")) == "nc"
