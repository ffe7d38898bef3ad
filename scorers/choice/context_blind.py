"""Context-blind choosers: orders that never read the context they are scored on.

A benchmark of context-dependent choice is only as good as the share of its score that such a
chooser cannot earn. Each chooser here ranks objects by their *level* (the index of their
indifference set, 0 = most preferred) in other contexts of the same data:

- leave one context out: the mean level over every context but the one scored, as a weak
  order whose ties are indifference (it knows which objects are generally useful, not what
  this context asks for);
- the same order cut into the user's set sizes for the scored context;
- one global order: the mean level over all contexts (it has seen the scored one, with
  weight 1/N, so it is an upper bound rather than a fair chooser).

Levels are summed as integers, so ties are exact. Pure functions over weak orders
(`list[list[str]]`, most preferred first).
"""

from collections.abc import Mapping, Sequence

from heedbench.preference import WeakOrder, rank_map

BLIND_ORDER = "context_blind_order"
"""Sample metadata key of a context's leave-one-context-out order (set by the dataset)."""


def level_sums(orders: Sequence[Sequence[Sequence[str]]], objects: Sequence[str]) -> dict[str, int]:
    """Each object's summed level (set index, 0 = most preferred) over `orders`.

    Raises:
        ValueError: an order misses one of `objects`.
    """
    sums = dict.fromkeys(objects, 0)
    for order in orders:
        ranks = rank_map(order)
        missing = [obj for obj in objects if obj not in ranks]
        if missing:
            raise ValueError(f"an order does not place {', '.join(missing)}")
        for obj in objects:
            sums[obj] += ranks[obj]
    return sums


def order_by_sums(sums: Mapping[str, int], objects: Sequence[str]) -> WeakOrder:
    """Objects by ascending sum; equal sums form one indifference set (kept in `objects` order)."""
    return [[obj for obj in objects if sums[obj] == value] for value in sorted(set(sums.values()))]


def mean_level_order(
    orders: Sequence[Sequence[Sequence[str]]], objects: Sequence[str]
) -> WeakOrder:
    """The weak order by mean level over `orders` (the sums rank the same way)."""
    if not orders:
        raise ValueError("a mean level needs at least one order")
    return order_by_sums(level_sums(orders, objects), objects)


def leave_one_out_orders(
    orders: Mapping[str, Sequence[Sequence[str]]], objects: Sequence[str]
) -> dict[str, WeakOrder]:
    """For each context id, the mean-level order of all the *other* contexts.

    Raises:
        ValueError: fewer than two contexts (nothing is left to learn from).
    """
    if len(orders) < 2:
        raise ValueError("leaving one context out needs at least two contexts")
    total = level_sums(list(orders.values()), objects)
    blind = {}
    for context, order in orders.items():
        own = rank_map(order)
        blind[context] = order_by_sums({obj: total[obj] - own[obj] for obj in objects}, objects)
    return blind


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
    cut, start = [], 0
    for size in sizes:
        cut.append(flat[start : start + size])
        start += size
    return cut


def global_order(orders: Sequence[Sequence[Sequence[str]]], objects: Sequence[str]) -> WeakOrder:
    """The mean-level order over every context, the scored one included."""
    return mean_level_order(orders, objects)
