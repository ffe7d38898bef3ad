"""Means with query-clustered standard errors.

The conversations of one query share it, its checklist and the model's first reading of it,
so the standard error treats each query (the cluster) as the unit: the cluster-robust
estimate with the correction C / (C − 1), as Inspect's `stderr(cluster=...)`; with one sample
per cluster it is the usual sd / √n. Unlike Inspect's, it also gives differences of means.
"""

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ClusteredMean:
    """A mean (or difference of means) with its cluster-robust standard error.

    `stderr` is NaN with fewer than two clusters, `value` NaN with no values at all.
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

    Each value x of a term with mean m over n values adds weight × (x − m) / n to its
    cluster's total; the variance is C / (C − 1) × Σ total² over the C clusters. Terms may
    share clusters (a query's BC and turn-1 samples): that keeps a difference's error honest.
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
