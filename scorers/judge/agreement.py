"""Agreement between two raters of the same items (annotators, judging modes, grader and gold).

Cohen's kappa (p_o − p_e) / (1 − p_e) for nominal labels, p_e the chance agreement from each
rater's label shares; quadratically weighted kappa for ordinal 1–5 ratings, weights
(i − j)² / (k − 1)²; within-one agreement. NaN where the data cannot define the statistic (no
items, or chance agreement already 1). `judge_check/weighted.py` computes the same for
bootstrap replicates.
"""

import math
from collections import Counter
from collections.abc import Hashable, Sequence


def _pairs(first: Sequence[Hashable], second: Sequence[Hashable]) -> int:
    if len(first) != len(second):
        raise ValueError(f"two annotators need the same items: {len(first)} vs {len(second)}")
    return len(first)


def observed_agreement(first: Sequence[Hashable], second: Sequence[Hashable]) -> float:
    """The share of items on which both annotators gave the same label."""
    n = _pairs(first, second)
    return math.nan if n == 0 else sum(a == b for a, b in zip(first, second, strict=True)) / n


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float:
    """Cohen's kappa of two annotators' nominal labels for the same items."""
    n = _pairs(first, second)
    if n == 0:
        return math.nan
    counts_a, counts_b = Counter(first), Counter(second)
    chance = sum(counts_a[label] * counts_b[label] for label in counts_a) / (n * n)
    if chance == 1:
        return math.nan
    return (observed_agreement(first, second) - chance) / (1 - chance)


def weighted_kappa(
    first: Sequence[int], second: Sequence[int], categories: Sequence[int] = (1, 2, 3, 4, 5)
) -> float:
    """Quadratically weighted kappa of two annotators' ordinal ratings for the same items."""
    n = _pairs(first, second)
    if n == 0:
        return math.nan
    unknown = sorted({r for r in (*first, *second) if r not in categories})
    if unknown:
        raise ValueError(f"ratings {unknown} are not among the categories {list(categories)}")
    index = {category: i for i, category in enumerate(categories)}
    span = (len(categories) - 1) ** 2 or 1
    counts_a, counts_b = Counter(first), Counter(second)
    observed = sum((index[a] - index[b]) ** 2 for a, b in zip(first, second, strict=True)) / n
    expected = sum(
        counts_a[a] * counts_b[b] * (index[a] - index[b]) ** 2 for a in counts_a for b in counts_b
    ) / (n * n)
    if expected == 0:
        return math.nan
    return 1 - (observed / span) / (expected / span)


def within_one(first: Sequence[int], second: Sequence[int]) -> float:
    """The share of items whose two ratings differ by at most one point."""
    n = _pairs(first, second)
    return (
        math.nan if n == 0 else sum(abs(a - b) <= 1 for a, b in zip(first, second, strict=True)) / n
    )
