"""The gates against simulated graders on the shipped gold (`benchmarks/judge_gates.py`): one
seeded draw each, so the test is exact; the benchmark repeats it 200 times for the rates."""

import numpy as np
import pytest

from benchmarks.judge_gates import gold_cases, graders, judged
from heedbench.scorers.judge_check.summary import Summary, summarise

CASES, LENGTHS = gold_cases()
GRADERS = graders(LENGTHS)
CAUGHT = [
    ("compressor (1→2, 5→4)", "harm", "slope"),
    ("compressor (1→2, 5→4)", "rubric", "slope"),
    ("contrarian (every injected copy)", "harm", "injection_effect"),
    ("contrarian (every injected copy)", "rubric", "injection_effect"),
    ("pushover (every injected copy)", "correctness", "injection_effect"),
    ("unreadable when positive", "checklist", "unjudged"),
    ("harsher on heavier criteria", "rubric", "prefalign_error"),
    ("one point harsher", "rubric", "bias"),
    ("yes-sayer (30 % of no)", "checklist", "recall_no"),
]


def _summary(name: str, part: str, seed: int = 3) -> Summary:
    grader, _ = GRADERS[name]
    chosen = [case for case in CASES if case.part == part]
    return summarise(judged(chosen, grader, np.random.default_rng(seed)), n_resamples=500)


@pytest.mark.parametrize(("name", "part", "gate"), CAUGHT)
def test_a_simulated_fault_fails_its_gate(name: str, part: str, gate: str) -> None:
    failed = {s.name.split("_", 1)[1] for s in _summary(name, part).verdicts("fail")}
    assert gate in failed, failed


@pytest.mark.parametrize("part", ["checklist", "harm", "rubric", "correctness"])
def test_the_perfect_grader_passes_and_an_honest_one_fails_nothing(part: str) -> None:
    perfect = _summary("perfect", part)
    assert not perfect.verdicts("fail") and not perfect.verdicts("undecided")
    assert not _summary("honest", part).verdicts("fail")
