"""Means with query-clustered standard errors.

The conversations of one query are not independent: they share the query, its checklist and
the model's first reading of it. So a standard error treats each query (the cluster) as the
unit: the cluster-robust estimate with the finite-cluster correction C / (C − 1), the same
formula as Inspect's `stderr(cluster=...)`. With one sample per cluster it equals the usual
sample standard deviation / √n.
"""

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ClusteredMean:
    """A mean (or a difference of means) with its cluster-robust standard error.

    `stderr` is NaN when fewer than two clusters hold values (the spread is unknown); `value`
    is NaN when there are no values at all.
    """

    value: float
    stderr: float
    n: int
    clusters: int


Observation = tuple[Hashable, float]
"""(cluster id, value); a NaN or None value is left out (unscored or undefined)."""


def _finite(observations: Iterable[tuple[Hashable, float | None]]) -> list[Observation]:
    return [
        (cluster, float(value))
        for cluster, value in observations
        if value is not None and not math.isnan(value)
    ]


def clustered_combination(
    terms: Sequence[tuple[float, Iterable[tuple[Hashable, float | None]]]],
) -> ClusteredMean:
    """Σ weight × mean(observations) over terms, with a cluster-robust standard error.

    Each value x of a term whose mean is m over n values adds weight × (x − m) / n to its
    cluster's total; the variance is C / (C − 1) × Σ over clusters of total², where C counts
    the clusters holding any value. Terms may share clusters (a query's BC and turn-1
    samples), which is what makes the standard error of a difference honest.
    """
    kept = [(weight, _finite(observations)) for weight, observations in terms]
    if any(not observations for _, observations in kept):
        return ClusteredMean(math.nan, math.nan, 0, 0)
    totals: dict[Hashable, float] = {}
    value = 0.0
    for weight, observations in kept:
        mean = sum(x for _, x in observations) / len(observations)
        value += weight * mean
        for cluster, x in observations:
            totals[cluster] = totals.get(cluster, 0.0) + weight * (x - mean) / len(observations)
    count = len(totals)
    stderr = (
        math.sqrt(count / (count - 1) * sum(t * t for t in totals.values()))
        if count > 1
        else math.nan
    )
    n = min(len(observations) for _, observations in kept)
    return ClusteredMean(value, stderr, n, count)


def clustered_mean(observations: Iterable[tuple[Hashable, float | None]]) -> ClusteredMean:
    """The mean of (cluster, value) observations with its cluster-robust standard error."""
    return clustered_combination([(1.0, observations)])


def clustered_difference(
    first: Iterable[tuple[Hashable, float | None]],
    second: Iterable[tuple[Hashable, float | None]],
) -> ClusteredMean:
    """mean(first) − mean(second); `n` is the smaller count, clusters may be shared."""
    return clustered_combination([(1.0, first), (-1.0, second)])
