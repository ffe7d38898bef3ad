"""Estimates with uncertainty, computed from per-sample scores.

Every headline number in the report is an `Estimate`: a mean with its standard error and the
number of samples it rests on, or a statistic with a percentile bootstrap interval.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

BOOTSTRAP_RESAMPLES = 2000


@dataclass(frozen=True)
class Estimate:
    """A number with its uncertainty and sample count; `value` is NaN when n == 0."""

    value: float
    n: int
    stderr: float | None = None
    low: float | None = None
    high: float | None = None

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


def bootstrap(
    units: Sequence[object],
    statistic: Callable[[Sequence[object]], float],
    *,
    rng: np.random.Generator | None = None,
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = 0.95,
) -> Estimate:
    """Statistic of the units with a percentile bootstrap interval (units resampled whole).

    Resamples whose statistic is undefined (NaN) are dropped from the interval.
    """
    if not units:
        return Estimate(math.nan, 0)
    generator = rng if rng is not None else np.random.default_rng(0)
    point = statistic(units)
    draws = []
    for _ in range(resamples):
        picks = generator.integers(0, len(units), len(units))
        value = statistic([units[i] for i in picks])
        if not math.isnan(value):
            draws.append(value)
    if not draws:
        return Estimate(point, len(units))
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail])
    return Estimate(point, len(units), low=float(low), high=float(high))


def fmt(estimate: Estimate, digits: int = 3, missing: str = "—") -> str:
    """`mean ± se (n=…)` or `value [low, high] (n=…)`; `missing` when there is no value."""
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
    return f"{value}{spread} (n={estimate.n})"


def difference(first: Estimate, second: Estimate) -> Estimate:
    """First − second for independent means; stderr √(se₁² + se₂²), n the smaller count."""
    if first.missing or second.missing:
        return Estimate(math.nan, 0)
    errors = [e.stderr for e in (first, second)]
    stderr = (
        math.sqrt(sum(e * e for e in errors if e is not None))
        if all(e is not None and not math.isnan(e) for e in errors)
        else math.nan
    )
    return Estimate(first.value - second.value, min(first.n, second.n), stderr=stderr)
