"""Strict preference overlap (SPO) and Kendall distance with penalty K(p).

Pure functions over weak orders (indifference sets, most preferred first) so that users can
score their own choice functions without running an eval.
"""

import math
from collections.abc import Collection, Mapping, Sequence
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


def context_pairs(user: Sequence[Sequence[str]], blind: Sequence[Sequence[str]]) -> set[StrictPair]:
    """The user's strict pairs that the context-blind order does not rank the same way.

    These are the pairs where the context, not general usefulness, decides: `blind` ties the
    two objects or ranks them the other way round.
    """
    same_objects(user, blind)
    blind_strict = strict_pairs(blind)
    return {pair for pair in strict_pairs(user) if pair not in blind_strict}


def spo_context_of_relation(
    user: Sequence[Sequence[str]],
    chosen_strict: Collection[StrictPair],
    blind: Sequence[Sequence[str]],
) -> float:
    """SPO restricted to `context_pairs(user, blind)`, against any strict relation.

    The context-blind order itself keeps none of these pairs (it scores 0 by construction);
    a chooser scores above 0 only by ranking objects the way this context, and not their
    general usefulness, asks for.

    Returns:
        The share of those pairs that `chosen_strict` keeps; NaN when there is none.
    """
    pairs = context_pairs(user, blind)
    if not pairs:
        return math.nan
    kept = set(chosen_strict)
    return sum(1 for pair in pairs if pair in kept) / len(pairs)


def spo_context(
    user: Sequence[Sequence[str]],
    chosen: Sequence[Sequence[str]],
    blind: Sequence[Sequence[str]],
) -> float:
    """Context-dependent SPO of a weak order: SPO over the pairs the blind order gets wrong.

    Args:
        user: the user's weak order, most preferred set first.
        chosen: the choice function's weak order over the same objects.
        blind: a context-blind weak order over the same objects (e.g. the
            leave-one-context-out mean-level order).
    """
    same_objects(user, chosen)
    return spo_context_of_relation(user, strict_pairs(chosen), blind)


def kendall_context_pairs(
    user: Sequence[Sequence[str]], blind: Sequence[Sequence[str]]
) -> list[tuple[str, str]]:
    """Unordered pairs on which the blind order and the user differ (strict vs tie, or reversed)."""
    same_objects(user, blind)
    user_rank, blind_rank = rank_map(user), rank_map(blind)
    return [
        (x, y)
        for x, y in combinations(sorted(user_rank), 2)
        if _sign(user_rank[y] - user_rank[x]) != _sign(blind_rank[y] - blind_rank[x])
    ]


def kendall_context(
    user: Sequence[Sequence[str]],
    chosen: Sequence[Sequence[str]],
    blind: Sequence[Sequence[str]],
    p: float = 0.5,
) -> float:
    """K(p) per pair over the pairs where the blind order's relation differs from the user's.

    On those pairs (`kendall_context_pairs`) the context-blind order is discordant or weakly
    discordant by construction, so it scores between p and 1; the user's own order scores 0.

    Returns:
        (|D| + p·|W|) / pairs over those pairs (lower is better); NaN when there is none.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must lie in [0, 1], got {p}")
    same_objects(user, chosen)
    pairs = kendall_context_pairs(user, blind)
    if not pairs:
        return math.nan
    user_rank, chosen_rank = rank_map(user), rank_map(chosen)
    total = 0.0
    for x, y in pairs:
        user_sign = _sign(user_rank[y] - user_rank[x])
        chosen_sign = _sign(chosen_rank[y] - chosen_rank[x])
        if user_sign * chosen_sign < 0:
            total += 1.0
        elif (user_sign == 0) != (chosen_sign == 0):
            total += p
    return total / len(pairs)


def unordered_pairs(n: int) -> int:
    """n(n−1)/2, the number of unordered pairs of n objects: the scale of K(p)."""
    return n * (n - 1) // 2


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


def _relation(strict: Collection[StrictPair], x: str, y: str) -> int:
    return 1 if (x, y) in strict else -1 if (y, x) in strict else 0


def contrast(
    user_a: Sequence[Sequence[str]],
    user_b: Sequence[Sequence[str]],
    chosen_a: Collection[StrictPair],
    chosen_b: Collection[StrictPair],
) -> float:
    """How a chooser follows the user from one twin context to the other.

    Of the object pairs whose user relation changes between twins a and b (x ≻ y becomes
    x ∼ y or y ≻ x, and so on), the share whose chosen relation moves the same way (towards y
    when the user's moves towards y). A chooser blind to what differs between the twins
    chooses alike in both and scores 0; one that follows the user scores 1. `chosen_a` and
    `chosen_b` are strict relations (a weak order's `strict_pairs`, or Pairwise-Test's
    answers), so a chooser that is not rational can be held to it too.

    Returns:
        A share in [0, 1]; NaN when the user orders the twins alike.
    """
    same_objects(user_a, user_b)
    ranks_a, ranks_b = rank_map(user_a), rank_map(user_b)
    strict_a, strict_b = set(chosen_a), set(chosen_b)
    changed = followed = 0
    for x, y in combinations(sorted(ranks_a), 2):
        # a relation is +1 (x ≻ y), 0 (x ∼ y) or −1; a move is its change from a to b
        user_move = _sign(ranks_b[y] - ranks_b[x]) - _sign(ranks_a[y] - ranks_a[x])
        if user_move:
            changed += 1
            chosen_move = _relation(strict_b, x, y) - _relation(strict_a, x, y)
            followed += _sign(chosen_move) == _sign(user_move)
    return followed / changed if changed else math.nan


TwinContext = tuple[Sequence[Sequence[str]], Collection[StrictPair] | None, Mapping[str, str]]
"""One context for `twin_contrasts`: user order, chosen strict relation (None when the chooser
produced no valid one) and its twins (earlier context id → the factor they differ in)."""


def twin_contrasts(contexts: Mapping[str, TwinContext]) -> dict[str, list[float]]:
    """Per differing factor, the `contrast` of every twin pair chosen validly in both contexts.

    Twin pairs whose user orders do not differ (NaN) are left out.
    """
    found: dict[str, list[float]] = {}
    for user_b, chosen_b, twins in contexts.values():
        for twin, factor in twins.items():
            if twin not in contexts or chosen_b is None:
                continue
            user_a, chosen_a, _ = contexts[twin]
            if chosen_a is None:
                continue
            value = contrast(user_a, user_b, chosen_a, chosen_b)
            if not math.isnan(value):
                found.setdefault(factor, []).append(value)
    return dict(sorted(found.items()))
