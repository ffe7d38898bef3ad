"""Pairwise-Score and Pairwise-SCC on hand-worked answer sets."""

import math

from heedbench.solvers import pairwise_scc_order, pairwise_score_order
from heedbench.solvers.choice import compare, is_complete, order_consistency, pairwise_scores


def both(answers: dict[tuple[str, str], str | None], x: str, y: str, ans: str | None) -> None:
    """Record the same answer for both presentation orders."""
    answers[(x, y)] = ans
    answers[(y, x)] = ans


def test_none_in_one_order_makes_indifference() -> None:
    answers: dict[tuple[str, str], str | None] = {}
    both(answers, "a", "b", "a")
    both(answers, "a", "c", "a")
    answers[("b", "c")], answers[("c", "b")] = "b", "none"
    objects = ["a", "b", "c"]
    assert pairwise_scores(answers, objects) == {"a": 2.0, "b": 0.5, "c": 0.5}
    assert pairwise_score_order(answers, objects) == [["a"], ["b", "c"]]
    assert pairwise_scc_order(answers, objects) == [["a"], ["b", "c"]]


def test_cycle_becomes_one_indifference_set() -> None:
    answers: dict[tuple[str, str], str | None] = {}
    both(answers, "a", "b", "a")
    both(answers, "b", "c", "b")
    both(answers, "c", "a", "c")
    for x in "abc":
        both(answers, x, "d", x)
    objects = ["a", "b", "c", "d"]
    assert pairwise_score_order(answers, objects) == [["a", "b", "c"], ["d"]]
    assert pairwise_scc_order(answers, objects) == [["a", "b", "c"], ["d"]]


def test_scc_collapses_where_score_still_separates() -> None:
    # a>b>c>a is a cycle; a>d, b>d, d>c pulls d into the same component.
    answers: dict[tuple[str, str], str | None] = {}
    both(answers, "a", "b", "a")
    both(answers, "b", "c", "b")
    both(answers, "c", "a", "c")
    both(answers, "a", "d", "a")
    both(answers, "b", "d", "b")
    both(answers, "d", "c", "d")
    objects = ["a", "b", "c", "d"]
    assert pairwise_score_order(answers, objects) == [["a", "b"], ["c", "d"]]
    assert pairwise_scc_order(answers, objects) == [["a", "b", "c", "d"]]


def test_order_bias_reads_as_indifference() -> None:
    # The model always picks the first-presented object: each pair is x>=y and y>=x.
    objects = ["a", "b", "c"]
    answers = {(x, y): x for x in objects for y in objects if x != y}
    assert pairwise_score_order(answers, objects) == [["a", "b", "c"]]
    assert order_consistency(answers, objects) == 0.0


def test_invalid_answer_in_one_order_is_covered_by_the_other() -> None:
    answers: dict[tuple[str, str], str | None] = {("a", "b"): None, ("b", "a"): "a"}
    assert compare(answers, "a", "b") == ">"
    assert is_complete(answers, ["a", "b"])
    assert pairwise_score_order(answers, ["a", "b"]) == [["a"], ["b"]]
    assert order_consistency(answers, ["a", "b"]) == 0.0


def test_invalid_answers_in_both_orders_leave_the_pair_undecided() -> None:
    answers: dict[tuple[str, str], str | None] = {}
    both(answers, "a", "b", None)
    both(answers, "a", "c", "a")
    both(answers, "b", "c", "b")
    objects = ["a", "b", "c"]
    assert compare(answers, "a", "b") is None
    assert not is_complete(answers, objects)
    # No points change hands for the undecided pair.
    assert pairwise_scores(answers, objects) == {"a": 1.0, "b": 1.0, "c": 0.0}
    assert pairwise_score_order(answers, objects) == [["a", "b"], ["c"]]
    # The graph has no edge between a and b: both are sources, listing order decides.
    assert pairwise_scc_order(answers, objects) == [["a"], ["b"], ["c"]]


def test_consistency_is_undefined_when_no_pair_was_asked_twice() -> None:
    assert math.isnan(order_consistency({("a", "b"): "a"}, ["a", "b"]))
