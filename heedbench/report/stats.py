"""Estimates with uncertainty, computed from per-sample scores.

Every headline number in the report is an `Estimate`: a mean with its standard error and the
number of samples it rests on (and, for a clustered mean, the clusters), or a statistic with
a percentile bootstrap interval.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

BOOTSTRAP_RESAMPLES = 2000


@dataclass(frozen=True)
class Estimate:
    """A number with its uncertainty and sample count; `value` is NaN when n == 0."""

    value: float
    n: int
    stderr: float | None = None
    low: float | None = None
    high: float | None = None
    queries: int | None = None
    """The queries (clusters) the samples come from, when the stderr is clustered by query."""

    @property
    def missing(self) -> bool:
        """True when there is nothing to report."""
        return self.n == 0 or math.isnan(self.value)


def finite(values: Sequence[float | None]) -> list[float]:
    """The values that are numbers (None and NaN dropped: unscored or undefined)."""
    return [float(v) for v in values if v is not None and not math.isnan(float(v))]


def mean_se(values: Sequence[float | None]) -> Estimate:
    """Mean and standard error of the mean (sample standard deviation / √n)."""
    data = finite(values)
    if not data:
        return Estimate(math.nan, 0)
    n = len(data)
    mean = sum(data) / n
    if n < 2:
        return Estimate(mean, n, stderr=math.nan)
    variance = sum((x - mean) ** 2 for x in data) / (n - 1)
    return Estimate(mean, n, stderr=math.sqrt(variance / n))


def fmt(estimate: Estimate, digits: int = 3, missing: str = "—") -> str:
    """`mean ± se (n=…)` or `value [low, high] (n=…)`; `missing` when there is no value.

    A clustered mean names its queries too: `(n=12, 4 queries)`.
    """
    if estimate.missing:
        return missing
    value = f"{estimate.value:.{digits}f}"
    if float(value) == 0:
        value = f"{0.0:.{digits}f}"  # no "-0.000"
    if estimate.low is not None and estimate.high is not None:
        spread = f" [{estimate.low:.{digits}f}, {estimate.high:.{digits}f}]"
    elif estimate.stderr is not None and not math.isnan(estimate.stderr):
        spread = f" ± {estimate.stderr:.{digits}f}"
    else:
        spread = ""
    queries = "" if estimate.queries is None else f", {estimate.queries} queries"
    return f"{value}{spread} (n={estimate.n}{queries})"


def plus_minus(estimate: Estimate, digits: int = 3) -> str:
    """`mean ± stderr` without the count (the stderr left out when there is none)."""
    return fmt(estimate, digits).split(" (n=")[0]
