"""Weak orders: the common currency of the `choice` solvers and scorers.

A weak order is a list of indifference sets, most preferred first (`list[list[str]]`).
Keeping the representation plain lets users compute our metrics on their own data.
"""

from collections.abc import Iterable, Mapping, Sequence

WeakOrder = list[list[str]]
"""Indifference sets, most preferred first."""

StrictPair = tuple[str, str]
"""`(x, y)` meaning x is strictly preferred to y."""


def rank_map(order: Sequence[Sequence[str]]) -> dict[str, int]:
    """Map each object to the index of its indifference set (0 = most preferred).

    Raises:
        ValueError: an object appears twice or a set is empty.
    """
    ranks: dict[str, int] = {}
    for level, indifference_set in enumerate(order):
        if not indifference_set:
            raise ValueError(f"indifference set {level} is empty")
        for obj in indifference_set:
            if obj in ranks:
                raise ValueError(f"object {obj!r} appears more than once in the order")
            ranks[obj] = level
    return ranks


def same_objects(user: Sequence[Sequence[str]], chosen: Sequence[Sequence[str]]) -> None:
    """Raise ValueError unless both weak orders cover exactly the same objects."""
    user_objects = set(rank_map(user))
    chosen_objects = set(rank_map(chosen))
    if user_objects != chosen_objects:
        missing = sorted(user_objects - chosen_objects)
        extra = sorted(chosen_objects - user_objects)
        raise ValueError(
            f"the orders cover different objects: missing from chosen {missing}, "
            f"not in user {extra}"
        )


def strict_pairs(order: Sequence[Sequence[str]]) -> set[StrictPair]:
    """All ordered pairs `(x, y)` with x strictly preferred to y."""
    ranks = rank_map(order)
    return {(x, y) for x, rx in ranks.items() for y, ry in ranks.items() if rx < ry}


def restrict(order: Sequence[Sequence[str]], keep: Iterable[str]) -> WeakOrder:
    """The weak order induced on a subset of objects; sets left empty are dropped."""
    kept = set(keep)
    restricted = [[obj for obj in level if obj in kept] for level in order]
    return [level for level in restricted if level]


def by_score(scores: Mapping[str, float]) -> WeakOrder:
    """The weak order of scored objects: equal scores indifferent, the highest first."""
    levels: dict[float, list[str]] = {}
    for obj, score in scores.items():
        levels.setdefault(score, []).append(obj)
    return [levels[score] for score in sorted(levels, reverse=True)]
