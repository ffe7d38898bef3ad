"""PrefAlign and normalized alignment: the PrefDisco arithmetic."""

import math
from collections.abc import Mapping

SCORE_RANGE = (1.0, 5.0)


def prefalign(scores: Mapping[str, float | None], weights: Mapping[str, float]) -> float | None:
    """Weighted mean of the per-criterion scores: Σ w·s / Σ w, on the 1–5 scale.

    None when any criterion's score is None (unread): a partial rubric is not silently
    averaged as if it were complete. ValueError when the criteria differ, a score lies outside
    1–5, or the weights are not non-negative with a positive sum.
    """
    if set(scores) != set(weights):
        raise ValueError(
            f"scores and weights name different criteria: only scored "
            f"{sorted(set(scores) - set(weights))}, only weighted "
            f"{sorted(set(weights) - set(scores))}"
        )
    if any(weight < 0 for weight in weights.values()) or sum(weights.values()) <= 0:
        raise ValueError(f"weights must be non-negative with a positive sum, got {dict(weights)}")
    if any(score is None for score in scores.values()):
        return None
    low, high = SCORE_RANGE
    total = 0.0
    for criterion, score in scores.items():
        assert score is not None
        if not low <= score <= high:
            raise ValueError(f"score for {criterion!r} must lie in 1–5, got {score}")
        total += weights[criterion] * score
    return total / sum(weights.values())


def normalized_alignment(baseline: float, discovery: float, oracle: float) -> float:
    """100·(D − B)/(O − B): where discovery lands between generic (0) and informed (100).

    Negative when asking made the answer worse than not asking; above 100 when discovery beat
    the oracle. NaN when O = B, where the scale is undefined; when O < B the sign no longer
    reads as better/worse, so report O − B beside it.
    """
    gap = oracle - baseline
    if gap == 0:
        return math.nan
    return 100.0 * (discovery - baseline) / gap
