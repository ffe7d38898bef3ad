"""`deterministic_verdict` against the hand-labelled corpus of final responses."""

from collections import Counter

import pytest

from heedbench.scorers import deterministic_verdict
from tests.prefdisco.verdict_corpus import CASES, OPTION_SETS, Case


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c.shows[:40]}" for i, c in enumerate(CASES)])
def test_corpus_verdict(case: Case) -> None:
    verdict = deterministic_verdict(case.response, case.gold, case.kind, OPTION_SETS[case.options])
    assert verdict is case.expected, case.shows


def test_corpus_is_large_and_mixed() -> None:
    mix = Counter(case.expected for case in CASES)
    assert len(CASES) >= 60
    assert min(mix[True], mix[False], mix[None]) >= 10, mix
    assert {case.kind for case in CASES} == {"math", "multiple_choice"}


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="kind must be one of math, multiple_choice"):
        deterministic_verdict("The answer is 3.", "3", "essay")  # type: ignore[arg-type]
