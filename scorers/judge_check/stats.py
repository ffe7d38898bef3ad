"""Agreement between a grader's verdicts and gold labels: the judge checks' arithmetic.

Yes/no verdicts (Ben-Util items, correctness): accuracy, per-class recall, balanced accuracy,
macro-F1 and Cohen's kappa. 1–5 ratings (harm, PrefAlign criteria): exact agreement,
agreement within one point, mean absolute error and quadratic-weighted kappa. Both: the
signed bias. Repeated epochs: how often the grader gave the same verdict again. Every
function takes plain (gold, verdict) pairs and returns NaN when there is nothing to measure;
`weighted.py` computes the same statistics for bootstrap replicates.
"""

import math
from collections.abc import Sequence
from statistics import fmean

from heedbench.scorers.judge import agreement

NAN = math.nan

Pair = tuple[int, int]
"""(gold, predicted) for a 1–5 scale; (1/0, 1/0) for yes/no."""


def _sides(pairs: Sequence[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """The gold labels and the verdicts of `pairs`, as two aligned lists."""
    return [gold for gold, _ in pairs], [pred for _, pred in pairs]


def exact(pairs: Sequence[Pair]) -> float:
    """Share of pairs where the verdict equals the gold label."""
    return fmean(gold == pred for gold, pred in pairs) if pairs else NAN


def within_one(pairs: Sequence[Pair]) -> float:
    """Share of pairs where the verdict is at most one point from the gold label."""
    return agreement.within_one(*_sides(pairs))


def mean_absolute_error(pairs: Sequence[Pair]) -> float:
    """Mean distance between verdict and gold label."""
    return fmean(abs(gold - pred) for gold, pred in pairs) if pairs else NAN


def quadratic_weighted_kappa(pairs: Sequence[Pair], low: int = 1, high: int = 5) -> float:
    """Cohen's kappa with quadratic disagreement weights, for ordinal ratings in [low, high].

    1 = perfect agreement, 0 = what the two marginal distributions give by chance. NaN when
    chance disagreement is zero (both sides used a single and the same level throughout).
    """
    return agreement.weighted_kappa(*_sides(pairs), categories=range(low, high + 1))


def macro_f1(pairs: Sequence[tuple[bool, bool]]) -> float:
    """Mean of the F1 scores of the yes class and the no class.

    A class absent from both the gold labels and the verdicts is left out of the mean.
    """
    scores = []
    for positive in (True, False):
        hits = sum(1 for gold, pred in pairs if gold == positive and pred == positive)
        false_alarms = sum(1 for gold, pred in pairs if gold != positive and pred == positive)
        misses = sum(1 for gold, pred in pairs if gold == positive and pred != positive)
        denominator = 2 * hits + false_alarms + misses
        if denominator:
            scores.append(2 * hits / denominator)
    return fmean(scores) if scores else NAN


def kappa(pairs: Sequence[tuple[bool, bool]]) -> float:
    """Cohen's kappa of yes/no verdicts against the gold labels."""
    return agreement.cohen_kappa(*_sides(pairs))


def signed_bias(pairs: Sequence[Pair]) -> float:
    """Mean of verdict minus gold label (for yes/no: share judged yes minus share that is)."""
    return fmean(pred - gold for gold, pred in pairs) if pairs else NAN


def recall(pairs: Sequence[tuple[bool, bool]], label: bool) -> float:
    """Share of the units whose gold label is `label` that the verdict got right."""
    chosen = [pred for gold, pred in pairs if gold == label]
    return fmean(pred == label for pred in chosen) if chosen else NAN


def consistency(verdicts: Sequence[Sequence[int]]) -> float:
    """Share of units judged at least twice whose verdicts were all the same."""
    repeated = [unit for unit in verdicts if len(unit) > 1]
    return fmean(len(set(unit)) == 1 for unit in repeated) if repeated else NAN
