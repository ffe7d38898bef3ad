"""Estimates pinned to hand-worked numbers."""

import math

import pytest

from heedbench.report.stats import Estimate, fmt, mean_se, plus_minus


def test_mean_and_standard_error_skip_nan() -> None:
    estimate = mean_se([1.0, 2.0, 3.0, math.nan, None])
    assert (estimate.value, estimate.n) == (2.0, 3)
    assert estimate.stderr == pytest.approx(1 / math.sqrt(3))  # sd 1, n 3
    assert mean_se([]).missing and mean_se([math.nan]).n == 0


def test_format() -> None:
    assert fmt(Estimate(0.12345, 7, stderr=0.01)) == "0.123 ± 0.010 (n=7)"
    assert fmt(Estimate(30.0, 11, low=12.0, high=48.9), 1) == "30.0 [12.0, 48.9] (n=11)"
    assert fmt(Estimate(-0.0001, 3, stderr=0.1)) == "0.000 ± 0.100 (n=3)"
    assert fmt(Estimate(math.nan, 0), missing="—, no oracle run") == "—, no oracle run"
    # a clustered mean says how many queries its samples come from
    assert fmt(Estimate(0.5, 12, stderr=0.1, queries=4)) == "0.500 ± 0.100 (n=12, 4 queries)"
    assert plus_minus(Estimate(0.5, 12, stderr=0.1, queries=4)) == "0.500 ± 0.100"
