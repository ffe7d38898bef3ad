"""A tie-aware merge sort: a rational preference from O(n log n) pairwise comparisons.

The paper's pairwise designs spend n(n−1) queries; its stated limitation is that cost.
Merge sort over indifference sets compares set representatives only, merges sets the model
calls indifferent, and sorts independent halves concurrently.
"""

from collections.abc import Awaitable, Callable, Sequence

from heedbench.calls import collect_calls
from heedbench.preference import WeakOrder
from heedbench.solvers.choice.relation import Comparison

Comparator = Callable[[str, str], Awaitable[Comparison | None]]
"""Async comparison of x with y; None when the model gave no usable answer (⊥)."""


async def tie_aware_merge_sort(objects: Sequence[str], compare: Comparator) -> WeakOrder:
    """Sort `objects` into a weak order with about n·log2(n) comparisons.

    An undecidable comparison (None) is treated as indifference so the sort can finish;
    the caller is expected to record it and mark the result invalid.

    Returns:
        Indifference sets, most preferred first.
    """
    if len(objects) <= 1:
        return [list(objects)] if objects else []
    middle = len(objects) // 2
    left, right = await collect_calls(
        tie_aware_merge_sort(objects[:middle], compare),
        tie_aware_merge_sort(objects[middle:], compare),
    )
    return await _merge(left, right, compare)


async def _merge(left: WeakOrder, right: WeakOrder, compare: Comparator) -> WeakOrder:
    merged: WeakOrder = []
    i = j = 0
    while i < len(left) and j < len(right):
        relation = await compare(left[i][0], right[j][0])
        if relation == ">":
            merged.append(left[i])
            i += 1
        elif relation == "<":
            merged.append(right[j])
            j += 1
        else:
            merged.append(left[i] + right[j])
            i += 1
            j += 1
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged
