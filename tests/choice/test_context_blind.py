"""Context-blind choosers and the context-dependent scores, on hand-worked orders."""

import math

import pytest

from heedbench.evals.choice import choice_dataset
from heedbench.scorers import kendall_context, spo_context
from heedbench.scorers.choice import (
    context_pairs,
    cut_to_sizes,
    global_order,
    leave_one_out_orders,
    mean_level_order,
)
from heedbench.scorers.choice.context_blind import level_sums
from heedbench.scorers.choice.metrics import kendall_context_pairs

OBJECTS = ["a", "b", "c", "d"]
# levels: c1 a0 b1 c1 d2 | c2 b0 a1 c2 d2 | c3 c0 d0 a1 b1  ->  sums a2 b2 c3 d4
ORDERS = {
    "c1": [["a"], ["b", "c"], ["d"]],
    "c2": [["b"], ["a"], ["c", "d"]],
    "c3": [["c", "d"], ["a", "b"]],
}


def test_level_sums_and_the_global_order() -> None:
    assert level_sums(list(ORDERS.values()), OBJECTS) == {"a": 2, "b": 2, "c": 3, "d": 4}
    # equal sums are indifference
    assert global_order(list(ORDERS.values()), OBJECTS) == [["a", "b"], ["c"], ["d"]]
    assert mean_level_order([ORDERS["c1"]], OBJECTS) == ORDERS["c1"]


def test_leaving_one_context_out_subtracts_its_levels() -> None:
    blind = leave_one_out_orders(ORDERS, OBJECTS)
    assert blind == {
        "c1": [["b"], ["a", "c", "d"]],  # a2 b1 c2 d2
        "c2": [["a", "c"], ["b", "d"]],  # a1 b2 c1 d2
        "c3": [["a", "b"], ["c"], ["d"]],  # a1 b1 c3 d4
    }
    with pytest.raises(ValueError, match="at least two contexts"):
        leave_one_out_orders({"c1": ORDERS["c1"]}, OBJECTS)


def test_cut_to_sizes_keeps_the_order_and_takes_the_users_shape() -> None:
    assert cut_to_sizes([["b"], ["a", "c", "d"]], [1, 2, 1]) == [["b"], ["a", "c"], ["d"]]
    with pytest.raises(ValueError, match="do not partition"):
        cut_to_sizes([["b"], ["a", "c", "d"]], [2, 1])


def test_context_pairs_are_the_strict_pairs_the_blind_order_gets_wrong() -> None:
    user, blind = ORDERS["c1"], [["b"], ["a", "c", "d"]]
    # user strict: ab ac ad bd cd; blind strict: ba bc bd -> bd is the only pair it gets
    assert context_pairs(user, blind) == {("a", "b"), ("a", "c"), ("a", "d"), ("c", "d")}
    assert spo_context(user, user, blind) == 1.0
    assert spo_context(user, blind, blind) == 0.0  # the blind order scores 0 by construction
    assert spo_context(user, [["a"], ["b"], ["c"], ["d"]], blind) == 1.0
    assert spo_context(user, [["d"], ["c"], ["b"], ["a"]], blind) == 0.0
    assert spo_context(user, [["a", "b", "c"], ["d"]], blind) == 0.5  # keeps ad and cd
    assert math.isnan(spo_context(user, user, user))  # nothing left for the context to decide


def test_kendall_context_counts_the_pairs_where_blind_and_user_differ() -> None:
    user, blind = ORDERS["c1"], [["b"], ["a", "c", "d"]]
    # ab reversed, ac ad cd tied by blind, bc tied by the user: 5 pairs; bd agrees
    assert sorted(kendall_context_pairs(user, blind)) == [
        ("a", "b"),
        ("a", "c"),
        ("a", "d"),
        ("b", "c"),
        ("c", "d"),
    ]
    assert kendall_context(user, user, blind) == 0.0
    # the blind order: ab discordant (1), the other four weakly discordant (p each)
    assert kendall_context(user, blind, blind, p=0.5) == pytest.approx((1 + 4 * 0.5) / 5)
    assert kendall_context(user, blind, blind, p=0.0) == pytest.approx(1 / 5)
    assert math.isnan(kendall_context(user, user, user))
    with pytest.raises(ValueError, match="p must lie"):
        kendall_context(user, user, blind, p=2.0)


def test_the_shipped_blind_order_earns_nothing_on_the_pairs_the_context_decides() -> None:
    for sample in choice_dataset():
        assert sample.metadata is not None
        user, blind = sample.metadata["user_order"], sample.metadata["context_blind_order"]
        assert spo_context(user, blind, blind) == 0.0, sample.id
        assert kendall_context(user, blind, blind, p=0.5) >= 0.5, sample.id
        assert spo_context(user, user, blind) == 1.0, sample.id
        assert len(context_pairs(user, blind)) >= 50, sample.id  # enough to measure on
