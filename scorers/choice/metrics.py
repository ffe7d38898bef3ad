"""Strict preference overlap (SPO) and Kendall distance with penalty K(p).

Pure functions over weak orders (indifference sets, most preferred first) so that users can
score their own choice functions without running an eval.
"""

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from itertools import combinations

from heedbench.preference import StrictPair, rank_map, same_objects, strict_pairs

Order = Sequence[Sequence[str]]


def spo_of_relation(user: Order, chosen_strict: Collection[StrictPair]) -> float:
    r"""SPO against any strict relation (Pairwise-Test's answers need not form a weak order).

    Returns:
        1 − |≻u \ ≻c| / |≻u|, or NaN when the user has no strict preference at all.
    """
    user_strict, kept = strict_pairs(user), set(chosen_strict)
    if not user_strict:
        return math.nan
    return 1.0 - sum(pair not in kept for pair in user_strict) / len(user_strict)


def spo(user: Order, chosen: Order) -> float:
    """Strict preference overlap: the share of the user's strict preferences `chosen` keeps.

    A `chosen` order stricter than the user's is not penalised (partial alignment). NaN when
    the user expresses no strict preference.

    Raises:
        ValueError: the orders cover different objects or repeat an object.
    """
    same_objects(user, chosen)
    return spo_of_relation(user, strict_pairs(chosen))


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


def _discordance(
    user: Order, chosen: Order, pairs: Iterable[tuple[str, str]] | None = None
) -> list[tuple[bool, bool]]:
    """(discordant, weakly discordant) for each of `pairs` (default: every unordered pair)."""
    same_objects(user, chosen)
    user_rank, chosen_rank = rank_map(user), rank_map(chosen)
    found = []
    for x, y in combinations(sorted(user_rank), 2) if pairs is None else pairs:
        a, b = _sign(user_rank[y] - user_rank[x]), _sign(chosen_rank[y] - chosen_rank[x])
        found.append((a * b < 0, (a == 0) != (b == 0)))
    return found


def discordance_counts(user: Order, chosen: Order) -> tuple[int, int]:
    """Discordant (D: strict both ways, opposite) and weakly discordant (W) unordered pairs.

    W: strict in one order and indifferent in the other.
    """
    kinds = _discordance(user, chosen)
    return sum(d for d, _ in kinds), sum(w for _, w in kinds)


def _check_p(p: float) -> None:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must lie in [0, 1], got {p}")


def kendall_penalty(user: Order, chosen: Order, p: float = 0.5) -> float:
    """Kendall distance with penalty, K(p) = |D| + p·|W| over unordered pairs (lower is better).

    `p` weighs a weakly discordant pair against a discordant one, in [0, 1].

    Raises:
        ValueError: `p` outside [0, 1], or the orders cover different objects.
    """
    _check_p(p)
    discordant, weak = discordance_counts(user, chosen)
    return discordant + p * weak


def unordered_pairs(n: int) -> int:
    """n(n−1)/2, the number of unordered pairs of n objects: the scale of K(p)."""
    return n * (n - 1) // 2


def normalised_kendall_penalty(user: Order, chosen: Order, p: float = 0.5) -> float:
    """K(p) divided by the number of unordered pairs n(n−1)/2, so contexts of any size compare."""
    pairs = unordered_pairs(len(rank_map(user)))
    return kendall_penalty(user, chosen, p) / pairs if pairs else math.nan


def context_pairs(user: Order, blind: Order) -> set[StrictPair]:
    """The user's strict pairs that the context-blind order does not rank the same way.

    These are the pairs where the context, not general usefulness, decides: `blind` ties the
    two objects or ranks them the other way round.
    """
    same_objects(user, blind)
    return set(strict_pairs(user)) - set(strict_pairs(blind))


def spo_context_of_relation(
    user: Order, chosen_strict: Collection[StrictPair], blind: Order
) -> float:
    """SPO restricted to `context_pairs(user, blind)`, against any strict relation.

    The context-blind order keeps none of these pairs (it scores 0 by construction); a chooser
    scores above 0 only by ranking objects the way this context, not their general
    usefulness, asks for. NaN when there is no such pair.
    """
    pairs, kept = context_pairs(user, blind), set(chosen_strict)
    return sum(pair in kept for pair in pairs) / len(pairs) if pairs else math.nan


def spo_context(user: Order, chosen: Order, blind: Order) -> float:
    """Context-dependent SPO of a weak order: SPO over the pairs the blind order gets wrong.

    `blind` is a context-blind order over the same objects (e.g. the leave-one-context-out
    mean-level order).
    """
    same_objects(user, chosen)
    return spo_context_of_relation(user, strict_pairs(chosen), blind)


def kendall_context_pairs(user: Order, blind: Order) -> list[tuple[str, str]]:
    """Unordered pairs on which the blind order and the user differ (strict vs tie, or reversed)."""
    same_objects(user, blind)
    user_rank, blind_rank = rank_map(user), rank_map(blind)
    return [
        (x, y)
        for x, y in combinations(sorted(user_rank), 2)
        if _sign(user_rank[y] - user_rank[x]) != _sign(blind_rank[y] - blind_rank[x])
    ]


def kendall_context(user: Order, chosen: Order, blind: Order, p: float = 0.5) -> float:
    """K(p) per pair over the pairs where the blind order's relation differs from the user's.

    On those pairs (`kendall_context_pairs`) the context-blind order is discordant or weakly
    discordant by construction, so it scores between p and 1; the user's own order scores 0.

    Returns:
        (|D| + p·|W|) / pairs over those pairs (lower is better); NaN when there is none.
    """
    _check_p(p)
    same_objects(user, chosen)
    pairs = kendall_context_pairs(user, blind)
    if not pairs:
        return math.nan
    costs = (1.0 if d else p if w else 0.0 for d, w in _discordance(user, chosen, pairs))
    return sum(costs) / len(pairs)


def _relation(strict: Collection[StrictPair], x: str, y: str) -> int:
    return 1 if (x, y) in strict else -1 if (y, x) in strict else 0


def contrast(
    user_a: Order,
    user_b: Order,
    chosen_a: Collection[StrictPair],
    chosen_b: Collection[StrictPair],
) -> float:
    """How a chooser follows the user from one twin context to the other.

    Of the object pairs whose user relation changes between twins a and b (x ≻ y becomes
    x ∼ y or y ≻ x, and so on), the share whose chosen relation moves the same way. A chooser
    blind to what differs between the twins chooses alike in both and scores 0; one that
    follows the user scores 1. The chosen sides are strict relations, so a chooser that is not
    rational (Pairwise-Test) can be held to it too. NaN when the user orders the twins alike.
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


TwinContext = tuple[Order, Collection[StrictPair] | None, Mapping[str, str]]
"""One context for `twin_contrasts`: user order, chosen strict relation (None when the chooser
produced no valid one) and its twins (earlier context id → the factor they differ in)."""


def twin_contrasts(contexts: Mapping[str, TwinContext]) -> dict[str, list[float]]:
    """Per differing factor, the `contrast` of every twin pair chosen validly in both contexts.

    Twin pairs whose user orders do not differ (NaN) are left out.
    """
    found: dict[str, list[float]] = {}
    for user_b, chosen_b, twins in contexts.values():
        for twin, factor in twins.items():
            chosen_a = contexts[twin][1] if twin in contexts else None
            if chosen_a is None or chosen_b is None:
                continue
            value = contrast(contexts[twin][0], user_b, chosen_a, chosen_b)
            if not math.isnan(value):
                found.setdefault(factor, []).append(value)
    return dict(sorted(found.items()))
