"""The six `choice` designs: how each turns model answers into a choice function."""

import math
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations
from typing import Literal, get_args

from heedbench.calls import collect_calls
from heedbench.preference import StrictPair, WeakOrder, by_score
from heedbench.solvers.choice.query import ChoiceQuerier
from heedbench.solvers.choice.relation import (
    Answers,
    Comparison,
    Validity,
    compare,
    half_answered,
    order_consistency,
    pairwise_scc_order,
    pairwise_score_order,
)
from heedbench.solvers.choice.sort import tie_aware_merge_sort

ChoiceMethod = Literal[
    "pairwise_score", "pairwise_scc", "pairwise_test", "pointwise", "listwise", "pairwise_sort"
]
CHOICE_METHODS: tuple[ChoiceMethod, ...] = get_args(ChoiceMethod)


@dataclass
class ChoiceResult:
    """What a design produced for one context.

    `chosen` is the choice function's weak order (None when the design could not produce
    one); Pairwise-Test instead yields a bare strict relation in `strict`.
    """

    chosen: WeakOrder | None
    valid: bool
    strict: list[StrictPair] | None = None
    order_consistency: float = math.nan
    undecided_pairs: int = 0
    half_answered_pairs: int = 0
    """Pairs asked in both orders with a valid answer in one and ⊥ in the other."""


MethodRunner = Callable[[ChoiceQuerier, list[str], random.Random], Awaitable[ChoiceResult]]


def _both_orders(
    answers: Answers, objects: Sequence[str], chosen: WeakOrder, validity: Validity
) -> ChoiceResult:
    """The result of a design that asks pairs in both orders (every pair, or the sort's).

    Valid when every pair asked is decided (≿Q complete on them: `lenient`, the paper's
    definition) and, under `strict`, no pair was answered in one order and ⊥ in the other.
    """
    undecided = sum(
        1
        for x, y in combinations(objects, 2)
        if (x, y) in answers and compare(answers, x, y) is None
    )
    half = half_answered(answers, objects)
    return ChoiceResult(
        chosen=chosen,
        valid=undecided == 0 and (validity == "lenient" or half == 0),
        order_consistency=order_consistency(answers, objects),
        undecided_pairs=undecided,
        half_answered_pairs=half,
    )


def all_ordered_pairs(
    order_from_answers: Callable[[Answers, list[str]], WeakOrder],
    validity: Validity = "lenient",
) -> MethodRunner:
    """A design that asks all n(n−1) ordered pairs and builds a weak order from the answers.

    Pairwise-Score and Pairwise-SCC differ only in `order_from_answers`.
    """

    async def run(querier: ChoiceQuerier, objects: list[str], rng: random.Random) -> ChoiceResult:
        pairs = list(permutations(objects, 2))
        replies = await collect_calls(*(querier.pairwise(x, y) for x, y in pairs))
        answers = dict(zip(pairs, replies, strict=True))
        return _both_orders(answers, objects, order_from_answers(answers, objects), validity)

    return run


async def run_pairwise_test(
    querier: ChoiceQuerier, objects: list[str], rng: random.Random
) -> ChoiceResult:
    """Pairwise-Test: one query per unordered pair in a seeded order; answers taken as given."""
    pairs = [(x, y) if rng.random() < 0.5 else (y, x) for x, y in combinations(objects, 2)]
    replies = await collect_calls(*(querier.pairwise(x, y) for x, y in pairs))
    strict: list[StrictPair] = []
    for (x, y), answer in zip(pairs, replies, strict=True):
        if answer == x:
            strict.append((x, y))
        elif answer == y:
            strict.append((y, x))
    undecided = sum(1 for answer in replies if answer is None)
    return ChoiceResult(chosen=None, valid=undecided == 0, strict=strict, undecided_pairs=undecided)


async def run_pointwise(
    querier: ChoiceQuerier, objects: list[str], rng: random.Random
) -> ChoiceResult:
    """Pointwise: one integer score per object; equal scores are indifferent."""
    scores = await collect_calls(*(querier.score(obj) for obj in objects))
    scored = {obj: s for obj, s in zip(objects, scores, strict=True) if s is not None}
    if len(scored) < len(objects):
        return ChoiceResult(chosen=None, valid=False)
    return ChoiceResult(chosen=by_score(scored), valid=True)


async def run_listwise(
    querier: ChoiceQuerier, objects: list[str], rng: random.Random
) -> ChoiceResult:
    """Listwise: a single full ranking, valid only as an exact permutation (no ties)."""
    ranking = await querier.ranking(objects)
    if ranking is None:
        return ChoiceResult(chosen=None, valid=False)
    return ChoiceResult(chosen=[[obj] for obj in ranking], valid=True)


def pairwise_sort(validity: Validity = "lenient") -> MethodRunner:
    """Tie-aware merge sort: both presentation orders per comparison, O(n log n) queries.

    Valid when every comparison made was decided (see `_both_orders`).
    """

    async def run(querier: ChoiceQuerier, objects: list[str], rng: random.Random) -> ChoiceResult:
        answers: dict[tuple[str, str], str | None] = {}

        async def compare_both_orders(x: str, y: str) -> Comparison | None:
            forward, backward = await collect_calls(querier.pairwise(x, y), querier.pairwise(y, x))
            answers[(x, y)], answers[(y, x)] = forward, backward
            return compare(answers, x, y)

        chosen = await tie_aware_merge_sort(objects, compare_both_orders)
        return _both_orders(answers, objects, chosen, validity)

    return run


ASKED_ONCE: dict[str, MethodRunner] = {
    "pairwise_test": run_pairwise_test,
    "pointwise": run_pointwise,
    "listwise": run_listwise,
}
"""The designs that ask each pair (or object) once: `validity` does not apply to them."""


def method_runner(method: str, validity: Validity = "lenient") -> MethodRunner:
    """The runner of one design; `validity` applies to the designs that ask both orders."""
    orders = {"pairwise_score": pairwise_score_order, "pairwise_scc": pairwise_scc_order}
    if method in orders:
        return all_ordered_pairs(orders[method], validity)
    return pairwise_sort(validity) if method == "pairwise_sort" else ASKED_ONCE[method]
