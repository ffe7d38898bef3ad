"""Strict preference overlap (SPO) and Kendall distance with penalty K(p).

Pure functions over weak orders (indifference sets, most preferred first) so that users can
score their own choice functions without running an eval.
"""

import math
from collections.abc import Collection, Sequence
from itertools import combinations

from heedbench.preference import StrictPair, rank_map, same_objects, strict_pairs


def spo_of_relation(user: Sequence[Sequence[str]], chosen_strict: Collection[StrictPair]) -> float:
    r"""SPO against an arbitrary strict relation (not necessarily rational).

    Pairwise-Test yields a bare set of strict answers rather than a weak order; this is the
    metric it can be held to.

    Returns:
        1 − |≻u \ ≻c| / |≻u|, or NaN when the user has no strict preference at all.
    """
    user_strict = strict_pairs(user)
    if not user_strict:
        return math.nan
    kept = set(chosen_strict)
    violated = sum(1 for pair in user_strict if pair not in kept)
    return 1.0 - violated / len(user_strict)


def spo(user: Sequence[Sequence[str]], chosen: Sequence[Sequence[str]]) -> float:
    """Strict preference overlap: the share of the user's strict preferences that `chosen` keeps.

    A `chosen` order stricter than the user's is not penalised (partial alignment).

    Args:
        user: the user's weak order, most preferred set first.
        chosen: the choice function's weak order over the same objects.

    Returns:
        A value in [0, 1]; NaN when the user expresses no strict preference.

    Raises:
        ValueError: the orders cover different objects or repeat an object.
    """
    same_objects(user, chosen)
    return spo_of_relation(user, strict_pairs(chosen))


def discordance_counts(
    user: Sequence[Sequence[str]], chosen: Sequence[Sequence[str]]
) -> tuple[int, int]:
    """Count discordant (D) and weakly discordant (W) unordered pairs.

    D: strict in both orders but in opposite directions. W: strict in one order and
    indifferent in the other.
    """
    same_objects(user, chosen)
    user_rank = rank_map(user)
    chosen_rank = rank_map(chosen)
    discordant = weakly_discordant = 0
    for x, y in combinations(sorted(user_rank), 2):
        user_sign = _sign(user_rank[y] - user_rank[x])
        chosen_sign = _sign(chosen_rank[y] - chosen_rank[x])
        if user_sign * chosen_sign < 0:
            discordant += 1
        elif (user_sign == 0) != (chosen_sign == 0):
            weakly_discordant += 1
    return discordant, weakly_discordant


def kendall_penalty(
    user: Sequence[Sequence[str]], chosen: Sequence[Sequence[str]], p: float = 0.5
) -> float:
    """Kendall distance with penalty, K(p) = |D| + p·|W| over unordered pairs (lower is better).

    Args:
        user: the user's weak order, most preferred set first.
        chosen: the choice function's weak order over the same objects.
        p: weight of a weakly discordant pair relative to a discordant one, in [0, 1].

    Raises:
        ValueError: `p` outside [0, 1], or the orders cover different objects.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must lie in [0, 1], got {p}")
    discordant, weakly_discordant = discordance_counts(user, chosen)
    return discordant + p * weakly_discordant


def normalised_kendall_penalty(
    user: Sequence[Sequence[str]], chosen: Sequence[Sequence[str]], p: float = 0.5
) -> float:
    """K(p) divided by the number of unordered pairs n(n−1)/2, so contexts of any size compare."""
    pairs = unordered_pairs(len(rank_map(user)))
    if pairs == 0:
        return math.nan
    return kendall_penalty(user, chosen, p) / pairs


def unordered_pairs(n: int) -> int:
    """n(n−1)/2, the number of unordered pairs of n objects: the scale of K(p)."""
    return n * (n - 1) // 2


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)
