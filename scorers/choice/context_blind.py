"""Reference choosers: orders built from other contexts' user orders.

They read little or none of the context they are scored on.

A benchmark of context-dependent choice is only as good as the share of its score that such a
chooser cannot earn. Each chooser ranks objects by their *level* (the index of their
indifference set, 0 = most preferred) in a pool of other contexts:

- context-blind: the mean level over the whole pool (leave the scored context out, and it
  knows which objects are generally useful, not what this context asks for); the same order
  cut into the user's set sizes; one global order over every context, the scored one included
  (an upper bound rather than a fair chooser);
- reading factors: the mean level over the pool contexts that share the scored context's
  value of the factors read (a context's factors are its recorded `factors`, e.g. precipitation
  or companion), ties broken by the whole pool's mean, the whole pool when none shares them;
- additive: the whole pool's mean plus, for every factor, how far the mean of the contexts
  sharing its value lies from it.

Means are exact fractions, so ties are exact and ties left are indifference. Pure functions
over weak orders (`list[list[str]]`, most preferred first).
"""

import itertools
from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction

from heedbench.preference import WeakOrder, rank_map

BLIND_ORDER = "context_blind_order"
"""Sample metadata key of a context's context-blind order (set by the dataset)."""

Factors = Mapping[str, str]
Pooled = tuple[Factors, Sequence[Sequence[str]]]
"""One pool context: its factors and its user order."""


Orders = Sequence[Sequence[Sequence[str]]]


def mean_levels(orders: Orders, objects: Sequence[str]) -> dict[str, Fraction]:
    """Each object's mean level (set index, 0 = most preferred) over `orders`.

    Raises:
        ValueError: no order, or an order misses one of `objects`.
    """
    if not orders:
        raise ValueError("a mean level needs at least one order")
    sums = dict.fromkeys(objects, 0)
    for order in orders:
        ranks = rank_map(order)
        missing = [obj for obj in objects if obj not in ranks]
        if missing:
            raise ValueError(f"an order does not place {', '.join(missing)}")
        for obj in objects:
            sums[obj] += ranks[obj]
    return {obj: Fraction(total, len(orders)) for obj, total in sums.items()}


def order_by_key(key: Mapping[str, Hashable], objects: Sequence[str]) -> WeakOrder:
    """Objects by ascending key; equal keys form one indifference set (kept in `objects` order)."""
    values = sorted(set(key.values()))  # type: ignore[type-var]
    return [[obj for obj in objects if key[obj] == value] for value in values]


def mean_level_order(orders: Orders, objects: Sequence[str]) -> WeakOrder:
    """The weak order by mean level over `orders` (ties are indifference)."""
    return order_by_key(mean_levels(orders, objects), objects)


global_order = mean_level_order
"""The mean-level order over every context, the scored one included."""


def leave_one_out_orders(
    orders: Mapping[str, Sequence[Sequence[str]]], objects: Sequence[str]
) -> dict[str, WeakOrder]:
    """For each context id, the mean-level order of all the *other* contexts.

    Raises:
        ValueError: fewer than two contexts (nothing is left to learn from).
    """
    if len(orders) < 2:
        raise ValueError("leaving one context out needs at least two contexts")
    return {
        context: mean_level_order([o for c, o in orders.items() if c != context], objects)
        for context in orders
    }


def _sharing(pool: Sequence[Pooled], target: Factors, read: Sequence[str]) -> Orders:
    """The orders of the pool contexts that share the target's value of every factor read."""
    return [o for factors, o in pool if all(factors.get(f) == target.get(f) for f in read)]


def factor_order(
    pool: Sequence[Pooled], target: Factors, objects: Sequence[str], read: Sequence[str]
) -> WeakOrder:
    """The chooser that reads only the factors `read` of the scored context.

    Mean level over the pool contexts that share every value read, ties broken by the whole
    pool's mean level; the whole pool when no context shares them (it then knows no more
    than the context-blind chooser).
    """
    blind = mean_levels([order for _, order in pool], objects)
    sharing = _sharing(pool, target, read)
    near = mean_levels(sharing, objects) if sharing else blind
    return order_by_key({obj: (near[obj], blind[obj]) for obj in objects}, objects)


def additive_order(
    pool: Sequence[Pooled], target: Factors, objects: Sequence[str], factors: Sequence[str]
) -> WeakOrder:
    """Every factor read at once: the pool's mean level plus each factor's shift from it.

    For each factor, the shift is the mean level of the pool contexts sharing the scored
    context's value minus the whole pool's (none when no context shares it); the shifts add
    up, ties broken by the pool's mean.
    """
    blind = mean_levels([order for _, order in pool], objects)
    total = dict(blind)
    for factor in factors:
        sharing = _sharing(pool, target, [factor])
        if sharing:
            near = mean_levels(sharing, objects)
            for obj in objects:
                total[obj] += near[obj] - blind[obj]
    return order_by_key({obj: (total[obj], blind[obj]) for obj in objects}, objects)


def cut_to_sizes(order: Sequence[Sequence[str]], sizes: Sequence[int]) -> WeakOrder:
    """Flatten `order` (ties in their listed order) and cut it into sets of the given sizes.

    This is the context-blind order forced into the user's shape: it knows how many objects
    the user puts on each level, not which ones.

    Raises:
        ValueError: the sizes do not add up to the number of objects, or one is not positive.
    """
    flat = [obj for level in order for obj in level]
    if any(size <= 0 for size in sizes) or sum(sizes) != len(flat):
        raise ValueError(f"set sizes {list(sizes)} do not partition {len(flat)} objects")
    ends = list(itertools.accumulate(sizes))
    return [flat[end - size : end] for size, end in zip(sizes, ends, strict=True)]
