"""Reference choosers: orders from other contexts' user orders, reading little of the scored one.

A benchmark of context-dependent choice is only as good as the share of its score that such a
chooser cannot earn. Each ranks objects by their mean *level* (index of their indifference
set, 0 = most preferred) in a pool of other contexts: context-blind (the whole pool; also cut
into the user's set sizes, or over every context including the scored one, an upper bound),
reading factors (the pool contexts sharing the scored context's values of the factors read,
ties broken by the whole pool) and additive (the pool's mean plus each factor's shift).
Means are exact fractions, so ties are exact and ties left are indifference.
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

    ValueError when there is no order, or an order misses one of `objects`.
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
    """For each context id, the mean-level order of all the *other* contexts (at least two)."""
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

    Mean level over the pool contexts sharing every value read (the whole pool when none
    does), ties broken by the whole pool's mean level.
    """
    blind = mean_levels([order for _, order in pool], objects)
    sharing = _sharing(pool, target, read)
    near = mean_levels(sharing, objects) if sharing else blind
    return order_by_key({obj: (near[obj], blind[obj]) for obj in objects}, objects)


def additive_order(
    pool: Sequence[Pooled], target: Factors, objects: Sequence[str], factors: Sequence[str]
) -> WeakOrder:
    """Every factor read at once: the pool's mean level plus each factor's shift from it.

    A factor's shift: the mean level of the pool contexts sharing the scored context's value
    minus the whole pool's (none when no context shares it); ties broken by the pool's mean.
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
    """Flatten `order` (ties in listed order) and cut it into sets of the given sizes.

    The context-blind order in the user's shape: it knows how many objects the user puts on
    each level, not which. ValueError when the sizes do not partition the objects.
    """
    flat = [obj for level in order for obj in level]
    if any(size <= 0 for size in sizes) or sum(sizes) != len(flat):
        raise ValueError(f"set sizes {list(sizes)} do not partition {len(flat)} objects")
    ends = list(itertools.accumulate(sizes))
    return [flat[end - size : end] for size, end in zip(sizes, ends, strict=True)]
