"""Agreement statistics under unit weights, for the data and every bootstrap replicate at once.

Each function takes a weight array (rows × units, see `bootstrap.py`) and per-unit arrays, and
returns one value per row; a single row of ones gives the plain statistic (the tests hold them
to hand-worked numbers). NaN marks a row where the statistic is undefined (no units; no unit
of the class a recall is about; chance agreement already perfect for a kappa).

Kappa, nominal or quadratic-weighted, is computed as 1 - observed / expected disagreement
from each row's weighted confusion matrix; with nominal weights (0 on the diagonal, 1 off it)
that is Cohen's (p_o - p_e) / (1 - p_e).
"""

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]
Values = Sequence[float] | npt.NDArray[Any]
"""Per-unit numbers or 0/1 flags (booleans are read as 0/1)."""
Labels = npt.NDArray[Any]
"""Per-unit labels or verdicts: 0/1 for yes/no, 1-5 for ratings."""


def _as(values: Values) -> Array:
    return np.asarray(values, dtype=np.float64)


def share(weights: Array, values: Values) -> Array:
    """The weighted mean of `values` in each row (a share when values are 0/1)."""
    total = weights.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(weights @ _as(values) / total, dtype=np.float64)


def exact(weights: Array, gold: Labels, pred: Labels) -> Array:
    """Share of verdicts equal to the gold label."""
    return share(weights, gold == pred)


def within_one(weights: Array, gold: Labels, pred: Labels) -> Array:
    """Share of verdicts at most one point from the gold label."""
    return share(weights, np.abs(gold - pred) <= 1)


def mean_absolute_error(weights: Array, gold: Labels, pred: Labels) -> Array:
    """Mean distance between verdict and gold label."""
    return share(weights, np.abs(gold - pred))


def bias(weights: Array, gold: Labels, pred: Labels) -> Array:
    """Mean of verdict minus gold: above zero the grader is higher (more lenient on items)."""
    return share(weights, pred - gold)


def slope(weights: Array, gold: Labels, pred: Labels) -> Array:
    """The least-squares slope of the verdicts on the gold (NaN where the gold does not vary).

    1 keeps the scale's spread; below 1 the grader squeezes it, above 1 it stretches it.
    """
    total = weights.sum(axis=1)
    g, p = _as(gold), _as(pred)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_g, mean_p = weights @ g / total, weights @ p / total
        covariance = weights @ (g * p) / total - mean_g * mean_p
        variance = weights @ (g * g) / total - mean_g**2
        return np.asarray(np.where(variance > 1e-12, covariance / variance, np.nan))


def recall(weights: Array, gold: Labels, pred: Labels, label: float) -> Array:
    """Share of the units whose gold label is `label` that the grader gave that label."""
    mask = gold == label
    return share(weights[:, mask], pred[mask] == label)


def balanced_accuracy(weights: Array, gold: Labels, pred: Labels) -> Array:
    """Mean of the recall of "yes" and the recall of "no" (NaN when a class is absent)."""
    return (recall(weights, gold, pred, 1.0) + recall(weights, gold, pred, 0.0)) / 2


def kappa(
    weights: Array,
    gold: Labels,
    pred: Labels,
    categories: Sequence[int],
    *,
    quadratic: bool = False,
) -> Array:
    """Cohen's kappa (nominal, 0/1 disagreement) or quadratic-weighted kappa ((i - j)² / (k - 1)²).

    `categories` are the labels in order (0, 1 for yes/no; 1..5 for ratings).
    """
    index = {category: i for i, category in enumerate(categories)}
    k = len(categories)
    cells = np.array([index[int(g)] * k + index[int(p)] for g, p in zip(gold, pred, strict=True)])
    onehot = np.zeros((len(cells), k * k))
    onehot[np.arange(len(cells)), cells] = 1.0
    confusion = (weights @ onehot).reshape(-1, k, k)
    total = confusion.sum(axis=(1, 2))
    i, j = np.indices((k, k))
    disagreement = ((i - j) ** 2 / max((k - 1) ** 2, 1)) if quadratic else (i != j).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (confusion * disagreement).sum(axis=(1, 2)) / total
        rows = confusion.sum(axis=2) / total[:, None]
        columns = confusion.sum(axis=1) / total[:, None]
        expected = np.einsum("bi,bj,ij->b", rows, columns, disagreement)
        value = 1 - observed / expected
    return np.asarray(np.where(expected > 0, value, np.nan), dtype=np.float64)
