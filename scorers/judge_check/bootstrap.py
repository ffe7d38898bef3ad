"""Confidence intervals for agreement statistics: a bootstrap that resamples gold records.

The units of one record (the items of a response, its criteria, its epochs) are not
independent: a grader that misreads a response misreads several of its items at once. So a
replicate draws records with replacement and keeps every unit of each; a record drawn k times
weighs k, so a replicate is a row of unit weights and every statistic is computed for all
replicates at once (`weighted.py`). The interval is the percentile interval of the
replicates where the statistic is defined.
"""

import zlib
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

SEED = 20251
"""The default seed: a run, a re-score and the report give the same intervals."""
N_RESAMPLES = 2000
LEVEL = 0.95

Weights = npt.NDArray[np.float64]
"""Rows of unit weights: row 0 all ones (the data as they are), then one row per replicate."""
WeightedStatistic = Callable[[Weights], npt.NDArray[np.float64]]
"""Weights (rows × units) -> one value per row."""


@dataclass(frozen=True)
class Interval:
    """A statistic's value on the data and its bootstrap interval (NaN when not measured)."""

    value: float
    low: float
    high: float


NOT_MEASURED = Interval(np.nan, np.nan, np.nan)


def generator(seed: int, *keys: str) -> np.random.Generator:
    """A stream of its own per group (keys: the part, ...): others' intervals stay put."""
    return np.random.default_rng([seed, *(zlib.crc32(key.encode()) for key in keys)])


def cluster_weights(
    clusters: Sequence[Hashable], n_resamples: int, rng: np.random.Generator
) -> Weights:
    """Row 0 ones (the data), then per replicate how often each unit's record was drawn.

    `clusters` names each unit's record; inject `rng` to make a test's draws known.
    """
    _, index = np.unique(np.asarray([str(c) for c in clusters]), return_inverse=True)
    records = int(index.max()) + 1 if len(index) else 0
    if records == 0:
        return np.ones((1 + n_resamples, 0))
    counts = rng.multinomial(records, np.full(records, 1 / records), size=n_resamples)
    draws = counts[:, index].astype(np.float64)
    return np.vstack([np.ones((1, len(index))), draws])


def interval_of(values: npt.NDArray[np.float64], level: float = LEVEL) -> Interval:
    """The value (row 0) and the percentile interval of the replicates (the other rows)."""
    value = float(values[0])
    replicates = values[1:][~np.isnan(values[1:])]
    if np.isnan(value) or len(replicates) == 0:
        return Interval(value, np.nan, np.nan)
    tail = (1 - level) / 2
    low, high = np.quantile(replicates, [tail, 1 - tail])
    return Interval(value, float(low), float(high))


@dataclass(frozen=True)
class Resample:
    """One set of bootstrap replicates over a set of units, shared by every statistic on them."""

    weights: Weights
    level: float = LEVEL

    @classmethod
    def of(
        cls,
        clusters: Sequence[Hashable],
        rng: np.random.Generator,
        n_resamples: int = N_RESAMPLES,
        level: float = LEVEL,
    ) -> "Resample":
        """Draw the replicates for units belonging to `clusters` (one record per unit)."""
        return cls(cluster_weights(clusters, n_resamples, rng), level)

    def interval(self, statistic: WeightedStatistic) -> Interval:
        """The statistic on the data and its interval over the replicates."""
        if self.weights.shape[1] == 0:
            return NOT_MEASURED
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.asarray(statistic(self.weights), dtype=np.float64)
        return interval_of(values, self.level)


def bootstrap(
    clusters: Sequence[Hashable],
    statistic: WeightedStatistic,
    *,
    rng: np.random.Generator | None = None,
    n_resamples: int = N_RESAMPLES,
    level: float = LEVEL,
) -> Interval:
    """One statistic with its record-clustered bootstrap interval (seeded unless `rng` given)."""
    draws = rng if rng is not None else generator(SEED)
    return Resample.of(clusters, draws, n_resamples, level).interval(statistic)
