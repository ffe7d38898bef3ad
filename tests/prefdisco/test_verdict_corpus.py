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


CORRECTION = "Wait, no \u2014 the answer is {x}."
CLOSINGS = ("Let me know if you would like another example!", "Hope this helps your dad.")


def alternatives(case: Case) -> list[str]:
    """Answers to correct to: for multiple choice every option letter, for math the gold and
    a wrong number."""
    options = OPTION_SETS[case.options]
    if case.kind == "multiple_choice":
        return sorted(options) if options else ["A", "C"]
    return [case.gold, "9876"]


@pytest.mark.parametrize("separator", [" ", "\n\n"])
@pytest.mark.parametrize("case", CASES, ids=[f"{i}" for i in range(len(CASES))])
def test_a_correction_gives_its_own_verdict_or_none(case: Case, separator: str) -> None:
    options = OPTION_SETS[case.options]
    decided = 0
    for x in alternatives(case):
        alone = deterministic_verdict(f"The answer is {x}.", case.gold, case.kind, options)
        decided += alone is not None
        corrected = case.response + separator + CORRECTION.format(x=x)
        verdict = deterministic_verdict(corrected, case.gold, case.kind, options)
        assert verdict in (alone, None), (x, case.shows)
    assert decided  # at least the gold itself is decidable, so the case tests something


@pytest.mark.parametrize("closing", CLOSINGS)
@pytest.mark.parametrize("case", CASES, ids=[f"{i}" for i in range(len(CASES))])
def test_a_friendly_closing_never_changes_a_verdict_to_another(case: Case, closing: str) -> None:
    options = OPTION_SETS[case.options]
    verdict = deterministic_verdict(case.response + "\n\n" + closing, case.gold, case.kind, options)
    assert verdict in (case.expected, None), case.shows


def test_corrections_are_read_not_merely_deferred() -> None:
    # The property above also holds for a reader that always defers; this one does not.
    decided, total = 0, 0
    for case in CASES:
        options = OPTION_SETS[case.options]
        for x in alternatives(case):
            alone = deterministic_verdict(f"The answer is {x}.", case.gold, case.kind, options)
            if alone is None:
                continue
            corrected = case.response + "\n\n" + CORRECTION.format(x=x)
            total += 1
            decided += deterministic_verdict(corrected, case.gold, case.kind, options) is alone
    assert total > 300 and decided / total >= 0.95, (decided, total)
