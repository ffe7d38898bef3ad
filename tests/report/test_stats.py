"""Estimates pinned to hand-worked numbers."""

import math

import numpy as np
import pytest

from heedbench.report.stats import Estimate, bootstrap, difference, fmt, mean_se


def test_mean_and_standard_error_skip_nan() -> None:
    estimate = mean_se([1.0, 2.0, 3.0, math.nan, None])
    assert (estimate.value, estimate.n) == (2.0, 3)
    assert estimate.stderr == pytest.approx(1 / math.sqrt(3))  # sd 1, n 3
    assert mean_se([]).missing and mean_se([math.nan]).n == 0


def test_bootstrap_is_seeded_and_brackets_the_statistic() -> None:
    units = [1.0, 2.0, 3.0, 4.0]

    def mean(sample: object) -> float:
        return float(np.mean(sample))  # type: ignore[call-overload]

    first = bootstrap(units, mean, rng=np.random.default_rng(1))
    again = bootstrap(units, mean, rng=np.random.default_rng(1))
    assert first == again and first.value == 2.5 and first.n == 4
    assert first.low is not None and first.high is not None
    assert 1.0 <= first.low < 2.5 < first.high <= 4.0


def test_difference_of_independent_means() -> None:
    gap = difference(Estimate(0.5, 10, stderr=0.3), Estimate(0.2, 8, stderr=0.4))
    assert gap.value == pytest.approx(0.3) and gap.stderr == pytest.approx(0.5) and gap.n == 8
    assert difference(Estimate(0.5, 10, stderr=0.3), Estimate(math.nan, 0)).missing


def test_format() -> None:
    assert fmt(Estimate(0.12345, 7, stderr=0.01)) == "0.123 ± 0.010 (n=7)"
    assert fmt(Estimate(30.0, 11, low=12.0, high=48.9), 1) == "30.0 [12.0, 48.9] (n=11)"
    assert fmt(Estimate(-0.0001, 3, stderr=0.1)) == "0.000 ± 0.100 (n=3)"
    assert fmt(Estimate(math.nan, 0), missing="—, no oracle run") == "—, no oracle run"
