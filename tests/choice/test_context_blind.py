"""Reference choosers (context-blind, one factor, additive), the context-dependent scores and
the twin contrast, on hand-worked orders."""

import math
from fractions import Fraction

import pytest

from heedbench.evals.choice import choice_dataset
from heedbench.preference import strict_pairs
from heedbench.scorers import kendall_context, spo_context
from heedbench.scorers.choice import (
    context_pairs,
    cut_to_sizes,
    global_order,
    leave_one_out_orders,
    mean_level_order,
)
from heedbench.scorers.choice.context_blind import additive_order, factor_order, mean_levels
from heedbench.scorers.choice.metrics import contrast, kendall_context_pairs, twin_contrasts

OBJECTS = ["a", "b", "c", "d"]
# levels: c1 a0 b1 c1 d2 | c2 b0 a1 c2 d2 | c3 c0 d0 a1 b1  ->  sums a2 b2 c3 d4
ORDERS = {
    "c1": [["a"], ["b", "c"], ["d"]],
    "c2": [["b"], ["a"], ["c", "d"]],
    "c3": [["c", "d"], ["a", "b"]],
}


def test_mean_levels_and_the_global_order() -> None:
    third = Fraction(1, 3)
    assert mean_levels(list(ORDERS.values()), OBJECTS) == {
        "a": 2 * third,
        "b": 2 * third,
        "c": 3 * third,
        "d": 4 * third,
    }
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


# factors of the three contexts above: c1 and c2 share the weather, c1 and c3 the companion
FACTORS = {
    "c1": {"weather": "rain", "companion": "dog"},
    "c2": {"weather": "rain", "companion": "alone"},
    "c3": {"weather": "sun", "companion": "dog"},
}
POOL = [(FACTORS[c], ORDERS[c]) for c in ("c1", "c2", "c3")]


def test_a_factor_chooser_averages_the_contexts_sharing_the_value() -> None:
    rainy = {"weather": "rain", "companion": "child"}
    # c1 and c2: a 1/2, b 1/2, c 3/2, d 2; the whole pool ties a and b too (2/3 each)
    assert factor_order(POOL, rainy, OBJECTS, ["weather"]) == [["a", "b"], ["c"], ["d"]]
    # c3 alone: c, d at 0, a, b at 1; the pool breaks c (1) before d (4/3)
    sunny = {"weather": "sun", "companion": "alone"}
    assert factor_order(POOL, sunny, OBJECTS, ["weather"]) == [["c"], ["d"], ["a", "b"]]
    # no context shares the value: it knows what the context-blind chooser knows
    foggy = {"weather": "fog", "companion": "none"}
    assert factor_order(POOL, foggy, OBJECTS, ["weather"]) == [["a", "b"], ["c"], ["d"]]
    # reading both factors: only the contexts sharing both
    assert factor_order(POOL, FACTORS["c3"], OBJECTS, ["weather", "companion"]) == [
        ["c"],
        ["d"],
        ["a", "b"],
    ]


def test_the_additive_chooser_adds_each_factors_shift() -> None:
    # pool means a 2/3 b 2/3 c 1 d 4/3; weather sun (c3): a 1 b 1 c 0 d 0, shifts +1/3 +1/3
    # -1 -4/3; companion alone (c2): b 0 a 1 c 2 d 2, shifts +1/3 -2/3 +1 +2/3
    # totals a 4/3 b 1/3 c 1 d 2/3
    target = {"weather": "sun", "companion": "alone"}
    assert additive_order(POOL, target, OBJECTS, ["weather", "companion"]) == [
        ["b"],
        ["d"],
        ["c"],
        ["a"],
    ]


TWIN_A = [["umbrella"], ["book"], ["sunscreen"]]
TWIN_B = [["sunscreen"], ["book"], ["umbrella"]]  # the sun came out
# pairs: umbrella-book 1 -> -1, umbrella-sunscreen 1 -> -1, book-sunscreen 1 -> -1: all change


def test_contrast_is_zero_for_a_chooser_blind_to_the_difference() -> None:
    for chosen in (TWIN_A, TWIN_B, [["book", "umbrella", "sunscreen"]]):
        assert contrast(TWIN_A, TWIN_B, strict_pairs(chosen), strict_pairs(chosen)) == 0.0


def test_contrast_is_one_for_a_chooser_that_follows_the_user() -> None:
    assert contrast(TWIN_A, TWIN_B, strict_pairs(TWIN_A), strict_pairs(TWIN_B)) == 1.0
    # following only part of the way still counts: book ~ sunscreen, then book > umbrella
    partial_a = [["umbrella"], ["book", "sunscreen"]]
    partial_b = [["book", "sunscreen"], ["umbrella"]]
    assert contrast(
        TWIN_A, TWIN_B, strict_pairs(partial_a), strict_pairs(partial_b)
    ) == pytest.approx(2 / 3)  # book-sunscreen stays tied: no move
    # moving the wrong way counts as not following
    assert contrast(TWIN_A, TWIN_B, strict_pairs(TWIN_B), strict_pairs(TWIN_A)) == 0.0
    # only pairs whose user relation changes count: a twin the user orders alike gives NaN
    assert math.isnan(contrast(TWIN_A, TWIN_A, strict_pairs(TWIN_A), strict_pairs(TWIN_B)))


def test_contrast_reads_a_bare_strict_relation_and_a_weak_change() -> None:
    user_b = [["umbrella", "book"], ["sunscreen"]]  # umbrella-book: 1 -> 0, towards book
    # Pairwise-Test style answers: in b the chooser now prefers book over umbrella
    assert contrast(TWIN_A, user_b, {("umbrella", "book")}, {("book", "umbrella")}) == 1.0


def test_twin_contrasts_group_twin_pairs_by_their_factor() -> None:
    contexts = {
        "dry": (TWIN_A, strict_pairs(TWIN_A), {}),
        "sunny": (TWIN_B, strict_pairs(TWIN_B), {"dry": "sky"}),
        "alike": (TWIN_A, strict_pairs(TWIN_A), {"dry": "companion"}),  # no user change
        "invalid": (TWIN_B, None, {"dry": "time"}),
    }
    assert twin_contrasts(contexts) == {"sky": [1.0]}
