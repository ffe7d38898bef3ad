"""Agreement between two judges on hand-worked tables."""

import math

import pytest

from heedbench.scorers.judge.agreement import binary_agreement


def test_kappa_by_hand() -> None:
    # 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: observed 35/50 = 0.7;
    # first says yes 25/50, second 30/50; chance 0.5*0.6 + 0.5*0.4 = 0.5; kappa 0.4.
    pairs = [(True, True)] * 20 + [(True, False)] * 5 + [(False, True)] * 10
    counts = binary_agreement(pairs + [(False, False)] * 15)
    assert (counts.both_yes, counts.first_only, counts.second_only, counts.both_no) == (
        20, 5, 10, 15,
    )  # fmt: skip
    assert counts.observed == pytest.approx(0.7)
    assert counts.kappa == pytest.approx(0.4)


def test_perfect_and_undefined_agreement() -> None:
    assert binary_agreement([(True, True), (False, False)]).kappa == 1.0
    same = binary_agreement([(False, False)] * 4)
    assert same.observed == 1.0 and math.isnan(same.kappa)  # chance agreement is 1
    assert math.isnan(binary_agreement([]).observed)
