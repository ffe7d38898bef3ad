"""Agreement between two raters of the same items: the one home for this arithmetic.

The raters may be two annotators (`heedbench annotate`), two judging modes, or a grader and
the gold labels (the judge checks).

- Cohen's kappa for a yes/no (or any nominal) label: (p_o − p_e) / (1 − p_e), p_o the share
  of items both gave the same label, p_e the agreement expected by chance from each
  annotator's own label shares.
- Weighted kappa for an ordinal 1–5 rating: 1 − Σ w·observed / Σ w·expected over the pairs
  of ratings, with quadratic weights w = (i − j)² / (k − 1)² (a one-point gap costs little, a
  four-point gap the most); `expected` is the cross product of the two annotators' marginals.
- Within-one agreement: the share of items whose two ratings differ by at most one point.

A statistic that the data cannot define (no items, or chance agreement already 1 because
both annotators used one label throughout) is NaN.
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
