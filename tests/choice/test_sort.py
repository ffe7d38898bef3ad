"""The tie-aware merge sort: correct weak orders in O(n log n) comparisons."""

import asyncio
import math
import random

from heedbench.preference import rank_map
from heedbench.solvers import tie_aware_merge_sort
from heedbench.solvers.choice.relation import Comparison


def run_sort(order: list[list[str]], objects: list[str]) -> tuple[list[list[str]], int]:
    ranks = rank_map(order)
    calls = 0

    async def compare(x: str, y: str) -> Comparison | None:
        nonlocal calls
        calls += 1
        if ranks[x] == ranks[y]:
            return "="
        return ">" if ranks[x] < ranks[y] else "<"

    return asyncio.run(tie_aware_merge_sort(objects, compare)), calls


def canonical(order: list[list[str]]) -> list[list[str]]:
    return [sorted(level) for level in order]


def test_recovers_a_weak_order_with_ties() -> None:
    order = [["a", "b"], ["c"], ["d", "e", "f"], ["g"]]
    objects = ["f", "c", "a", "g", "e", "b", "d"]
    result, _ = run_sort(order, objects)
    assert canonical(result) == canonical(order)


def test_comparisons_grow_like_n_log_n() -> None:
    objects = [f"o{i}" for i in range(40)]
    order = [[obj] for obj in objects]
    shuffled = random.Random(0).sample(objects, len(objects))
    result, calls = run_sort(order, shuffled)
    assert result == order
    assert calls <= 40 * math.ceil(math.log2(40))
    assert calls < 40 * 39 / 2 / 3  # far fewer than all pairs


def test_undecidable_comparisons_merge_rather_than_guess() -> None:
    async def undecided(x: str, y: str) -> Comparison | None:
        return None

    result = asyncio.run(tie_aware_merge_sort(["a", "b", "c"], undecided))
    assert canonical(result) == [["a", "b", "c"]]
