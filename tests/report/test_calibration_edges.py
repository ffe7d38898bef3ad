"""Calibration at its edges: blank labels in a by-verdict draw, labels that are all the same,
and labels that do not follow the grader (synthetic samples, one yes/no unit each)."""

import random
from dataclasses import replace
from pathlib import Path

import pytest

from heedbench.report.calibration import Calibration, Row, calibrate
from heedbench.report.calibration_section import calibration_tables
from heedbench.report.graded_units import GradedSample, Unit
from heedbench.report.verdict_sample import Design, LabelSet, draw
from tests.report.calibration_runs import NEEDS_CJE

pytestmark = NEEDS_CJE
BEN = "Ben-Util (last response)"


def population(says_yes: dict[str, float], queries: int = 120, seed: int = 0) -> tuple[
    list[GradedSample], dict[str, float]
]:  # fmt: skip
    """Two models on shared queries; each sample's one item has a human truth (yes 40 % of
    the time) and a verdict: a true item gets yes with probability 0.9, a false one with the
    model's `says_yes` (a grader lenient with one model only)."""
    rng = random.Random(seed)
    samples, truth = [], {}
    for model, lenient in says_yes.items():
        for query in range(queries):
            human = float(rng.random() < 0.4)
            verdict = float(rng.random() < (0.9 if human else lenient))
            unit = f"item:{model}:q{query}@1:0"
            truth[unit] = human
            samples.append(
                GradedSample(kind="item", eval_id=model, log=f"{model}.eval",
                             sample_id=f"q{query}", epoch=1, model=model, condition="bc",
                             cluster=f"q{query}", grader="g",
                             units=(Unit(unit, verdict, 1.0),))
            )  # fmt: skip
    return samples, truth


def rows(found: Calibration) -> dict[str, Row]:
    return {r.model: r for r in found.rows if r.headline == BEN}


def test_blank_labels_in_a_by_verdict_draw_count_as_never_drawn() -> None:
    """Half the labels left blank must estimate exactly as a draw that never drew those units:
    the blanks' stratum probability is labelled / population, not drawn / population."""
    samples, truth = population({"a": 0.5, "b": 0.1})
    design, chosen = draw(samples, 60, seed=1, by_verdict=True)
    blank = {unit.unit for index, (_, unit) in enumerate(chosen) if index % 2}
    labels = {u.unit: (None if u.unit in blank else truth[u.unit]) for _, u in chosen}
    with_blanks = calibrate(samples, [LabelSet(Path("blank.json"), design, labels)])

    answered = {u: label for u, label in labels.items() if label is not None}
    strata = {
        sid: replace(s, drawn=sum(design.units[u].stratum == sid for u in answered))
        for sid, s in design.strata.items()
    }
    smaller = Design(design.seed, design.per_model, True, design.logs, strata,
                     {u: design.units[u] for u in answered})  # fmt: skip
    never_drawn = calibrate(samples, [LabelSet(Path("fewer.json"), smaller, dict(answered))])

    for model in ("a", "b"):
        mine, theirs = rows(with_blanks)[model], rows(never_drawn)[model]
        assert mine.calibrated is not None and theirs.calibrated is not None
        assert mine.calibrated.value == pytest.approx(theirs.calibrated.value)
        assert mine.calibrated.low == pytest.approx(theirs.calibrated.low)
        assert mine.labels == sum(unit.startswith(f"item:{model}:") for unit in answered)


def test_a_by_verdict_stratum_without_labels_is_said_not_estimated() -> None:
    samples, truth = population({"a": 0.5, "b": 0.1})
    design, chosen = draw(samples, 60, seed=1, by_verdict=True)
    labels = {u.unit: (None if u.verdict == 0 and s.model == "a" else truth[u.unit])
              for s, u in chosen}  # fmt: skip
    found = calibrate(samples, [LabelSet(Path("x.json"), design, labels)])
    a, b = rows(found)["a"], rows(found)["b"]
    assert a.calibrated is None and "no label in stratum 'item | a · bc | no'" in a.note
    assert b.calibrated is not None


def test_identical_labels_give_no_interval_and_say_why() -> None:
    samples, _ = population({"a": 0.5, "b": 0.1})
    design, chosen = draw(samples, 50, seed=0)
    labels: dict[str, float | None] = {u.unit: 1.0 for _, u in chosen}
    found = calibrate(samples, [LabelSet(Path("yes.json"), design, labels)])
    for row in rows(found).values():
        assert "every label is 1" in row.note, row.note
    estimates, differences = calibration_tables(found)
    cells = [line[5] for line in estimates.rows]
    assert all("(no interval)" in cell and "[" not in cell for cell in cells), cells
    [difference] = differences.rows
    assert "[" not in difference[3] and difference[4].startswith("no interval")


def test_labels_opposite_to_the_grader_are_said_and_the_reversal_shown() -> None:
    """The grader credits model a far more often; people say the opposite of every verdict."""
    samples, _ = population({"a": 0.9, "b": 0.0}, queries=150)
    design, chosen = draw(samples, 100, seed=0)
    labels: dict[str, float | None] = {u.unit: 1.0 - u.verdict for _, u in chosen}
    found = calibrate(samples, [LabelSet(Path("flip.json"), design, labels)])
    a, b = rows(found)["a"], rows(found)["b"]
    assert a.raw.value > b.raw.value
    for row in (a, b):
        assert "labels do not follow the grader" in row.note and "uninformative" in row.note
    [difference] = found.differences
    assert difference.raw > 0 > difference.high
    assert difference.reading.startswith("told apart, reversing the raw difference")


def test_an_informative_grader_gets_no_such_note() -> None:
    samples, truth = population({"a": 0.5, "b": 0.1})
    design, chosen = draw(samples, 60, seed=2)
    labels: dict[str, float | None] = {u.unit: truth[u.unit] for _, u in chosen}
    found = calibrate(samples, [LabelSet(Path("true.json"), design, labels)])
    for row in rows(found).values():
        assert row.calibrated is not None and row.note == "", row.note
