"""Agreement between two judges on hand-worked tables."""

import math

import pytest

from heedbench.scorers.judge.agreement import cohen_kappa, observed_agreement


def test_kappa_by_hand() -> None:
    # 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: observed 35/50 = 0.7;
    # first says yes 25/50, second 30/50; chance 0.5*0.6 + 0.5*0.4 = 0.5; kappa 0.4.
    pairs = [(True, True)] * 20 + [(True, False)] * 5 + [(False, True)] * 10
    first, second = zip(*(pairs + [(False, False)] * 15), strict=True)
    assert observed_agreement(first, second) == pytest.approx(0.7)
    assert cohen_kappa(first, second) == pytest.approx(0.4)


def test_perfect_and_undefined_agreement() -> None:
    assert cohen_kappa([True, False], [True, False]) == 1.0
    same = [False] * 4
    assert observed_agreement(same, same) == 1.0 and math.isnan(cohen_kappa(same, same))
    assert math.isnan(observed_agreement([], []))
