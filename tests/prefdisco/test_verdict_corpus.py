"""The answer reader goes by form: it decides what is unambiguous and never contradicts a human."""

import pytest

from heedbench.scorers import deterministic_verdict
from tests.prefdisco.verdict_corpus import CASES, FORM_CASES, OPTION_SETS, SELF_CORRECTIONS, Case

ALL = CASES + FORM_CASES


def read(case: Case, response: str | None = None) -> bool | None:
    text = case.response if response is None else response
    return deterministic_verdict(text, case.gold, case.kind, OPTION_SETS[case.options])


@pytest.mark.parametrize("case", ALL, ids=[f"{i}-{c.shows[:40]}" for i, c in enumerate(ALL)])
def test_the_reader_never_contradicts_the_label(case: Case) -> None:
    assert read(case) in (case.expected, None), case.shows


@pytest.mark.parametrize("case", FORM_CASES, ids=[c.shows[:40] for c in FORM_CASES])
def test_answers_unambiguous_by_form_are_decided(case: Case) -> None:
    assert read(case) is case.expected, case.shows


def test_the_chatty_corpus_mostly_goes_to_the_grader() -> None:
    decided = [case for case in CASES if read(case) is not None]
    assert 0 < len(decided) < len(CASES) / 3, [case.shows for case in decided]


@pytest.mark.parametrize("response", SELF_CORRECTIONS)
@pytest.mark.parametrize("gold", ["A", "C"])
def test_a_second_answer_after_the_first_leaves_it_to_the_grader(response: str, gold: str) -> None:
    options = OPTION_SETS["medical"]
    assert deterministic_verdict(response, gold, "multiple_choice", options) is None


CORRECTION = "Wait, no \u2014 \\boxed{{{x}}}"
CLOSINGS = ("Let me know if you would like another example!", "Hope this helps your dad.")


def alternatives(case: Case) -> list[str]:
    """Answers to correct to: every option letter, or the gold and a wrong number."""
    options = OPTION_SETS[case.options]
    if case.kind == "multiple_choice":
        return sorted(options) if options else ["A", "C"]
    return [case.gold, "9876"]


@pytest.mark.parametrize("separator", [" ", "\n\n"])
@pytest.mark.parametrize("case", ALL, ids=[f"{i}" for i in range(len(ALL))])
def test_a_correction_gives_its_own_verdict_or_none(case: Case, separator: str) -> None:
    for x in alternatives(case):
        alone = read(case, f"\\boxed{{{x}}}")
        corrected = read(case, case.response + separator + CORRECTION.format(x=x))
        assert corrected in (alone, None), (x, case.shows)


@pytest.mark.parametrize("closing", CLOSINGS)
@pytest.mark.parametrize("case", ALL, ids=[f"{i}" for i in range(len(ALL))])
def test_a_friendly_closing_never_changes_a_verdict_to_another(case: Case, closing: str) -> None:
    assert read(case, case.response + "\n\n" + closing) in (case.expected, None), case.shows


def test_corrections_are_read_not_merely_deferred() -> None:
    # The property above also holds for a reader that always defers; this one does not: a
    # correction ending in one box is read whenever nothing was boxed before it.
    unboxed = [case for case in ALL if "boxed" not in case.response]
    decided = total = 0
    for case in unboxed:
        for x in alternatives(case):
            alone = read(case, f"\\boxed{{{x}}}")
            if alone is None:
                continue
            total += 1
            decided += read(case, case.response + "\n\n" + CORRECTION.format(x=x)) is alone
    assert total > 200 and decided == total, (decided, total)
