"""The six `choice` designs: how each turns model answers into a choice function."""

import math
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations
from typing import Literal, get_args

from heedbench.calls import collect_calls
from heedbench.preference import StrictPair, WeakOrder
from heedbench.solvers.choice.query import ChoiceQuerier
from heedbench.solvers.choice.relation import (
    Answers,
    Comparison,
    Validity,
    compare,
    half_answered,
    is_complete,
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
OrderBuilder = Callable[[Answers, list[str]], WeakOrder]


async def _ask_all_ordered_pairs(querier: ChoiceQuerier, objects: Sequence[str]) -> Answers:
    pairs = list(permutations(objects, 2))
    replies = await collect_calls(*(querier.pairwise(x, y) for x, y in pairs))
    return dict(zip(pairs, replies, strict=True))


def _undecided(answers: Answers, objects: Sequence[str]) -> int:
    return sum(1 for x, y in combinations(objects, 2) if compare(answers, x, y) is None)


def all_ordered_pairs(
    order_from_answers: Callable[[Answers, list[str]], WeakOrder],
    validity: Validity = "lenient",
) -> MethodRunner:
    """A design that asks all n(n−1) ordered pairs and builds a weak order from the answers.

    Pairwise-Score and Pairwise-SCC differ only in `order_from_answers`. The context is valid
    when ≿Q is complete (`lenient`, the paper's definition) and, under `strict`, when no pair
    was answered in one order and ⊥ in the other.
    """

    async def run(querier: ChoiceQuerier, objects: list[str], rng: random.Random) -> ChoiceResult:
        answers = await _ask_all_ordered_pairs(querier, objects)
        half = half_answered(answers, objects)
        return ChoiceResult(
            chosen=order_from_answers(answers, objects),
            valid=is_complete(answers, objects) and (validity == "lenient" or half == 0),
            order_consistency=order_consistency(answers, objects),
            undecided_pairs=_undecided(answers, objects),
            half_answered_pairs=half,
        )

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
    if any(score is None for score in scores):
        return ChoiceResult(chosen=None, valid=False)
    levels: dict[int, list[str]] = {}
    for obj, score in zip(objects, scores, strict=True):
        assert score is not None
        levels.setdefault(score, []).append(obj)
    return ChoiceResult(chosen=[levels[s] for s in sorted(levels, reverse=True)], valid=True)


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

    Valid when every comparison made was decided (and, under `strict`, answered in both
    orders).
    """

    async def run(querier: ChoiceQuerier, objects: list[str], rng: random.Random) -> ChoiceResult:
        answers: dict[tuple[str, str], str | None] = {}

        async def compare_both_orders(x: str, y: str) -> Comparison | None:
            forward, backward = await collect_calls(querier.pairwise(x, y), querier.pairwise(y, x))
            answers[(x, y)], answers[(y, x)] = forward, backward
            return compare(answers, x, y)

        chosen = await tie_aware_merge_sort(objects, compare_both_orders)
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

    return run


ASKED_ONCE: dict[str, MethodRunner] = {
    "pairwise_test": run_pairwise_test,
    "pointwise": run_pointwise,
    "listwise": run_listwise,
}
"""The designs that ask each pair (or object) once: `validity` does not apply to them."""


def method_runner(method: str, validity: Validity = "lenient") -> MethodRunner:
    """The runner of one design; `validity` applies to the designs that ask both orders."""
    if method == "pairwise_score":
        return all_ordered_pairs(pairwise_score_order, validity)
    if method == "pairwise_scc":
        return all_ordered_pairs(pairwise_scc_order, validity)
    if method == "pairwise_sort":
        return pairwise_sort(validity)
    return ASKED_ONCE[method]
