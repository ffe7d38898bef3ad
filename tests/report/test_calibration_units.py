"""The pure parts of calibration, by hand: allocation, the unit draw, Fieller, label cells."""

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from heedbench.report.calibration import HEADLINES, calibrate, fieller
from heedbench.report.graded_units import GradedSample, Kind, Unit
from heedbench.report.verdict_sample import (
    LabelError,
    LabelSet,
    allocate,
    annotation_rows,
    check_against_logs,
    draw,
    drawn_unit,
    parse_label,
    verdict_class,
)
from tests.report.calibration_runs import NEEDS_CJE


def sample(index: int, weights: list[float], verdicts: list[float] | None = None,
           kind: Kind = "criterion", condition: str = "oracle") -> GradedSample:  # fmt: skip
    verdicts = verdicts or [3.0] * len(weights)
    return GradedSample(
        kind=kind,
        eval_id="e",
        log="e.eval",
        sample_id=f"s{index}",
        epoch=1,
        model="m",
        condition=condition,
        cluster=f"c{index}",
        grader="g",
        units=tuple(
            Unit(f"{kind}:e:s{index}@1:u{i}", v, w)
            for i, (w, v) in enumerate(zip(weights, verdicts, strict=True))
        ),
    )


def test_allocate_spreads_evenly_and_gives_what_small_groups_cannot_take() -> None:
    assert allocate(12, {"a": 10, "b": 10, "c": 10}) == {"a": 4, "b": 4, "c": 4}
    # b holds 2: it gives both, and the 8 left are shared by a and c
    assert allocate(12, {"a": 10, "b": 2, "c": 10}) == {"a": 5, "b": 2, "c": 5}
    # a remainder goes one at a time in name order
    assert allocate(5, {"a": 10, "b": 10}) == {"a": 3, "b": 2}
    assert allocate(100, {"a": 3, "b": 4}) == {"a": 3, "b": 4}
    assert allocate(0, {"a": 3}) == {"a": 0}


def test_the_drawn_unit_follows_the_weights() -> None:
    # weights 0.6 / 0.3 / 0.1: over many samples the draws come out in that proportion
    counts: Counter[str] = Counter()
    for index in range(3000):
        unit = drawn_unit(sample(index, [0.6, 0.3, 0.1]), seed=7)
        counts[unit.unit.rsplit(":", 1)[1]] += 1
    assert counts["u0"] / 3000 == pytest.approx(0.6, abs=0.03)
    assert counts["u1"] / 3000 == pytest.approx(0.3, abs=0.03)
    assert counts["u2"] / 3000 == pytest.approx(0.1, abs=0.02)
    # the draw is a function of seed and sample only
    one = sample(1, [0.5, 0.5])
    assert drawn_unit(one, 3) == drawn_unit(one, 3)
    assert len({drawn_unit(sample(1, [0.5, 0.5]), seed).unit for seed in range(40)}) == 2


def test_the_draw_ignores_the_verdicts() -> None:
    """The units to label do not depend on what the grader said (no selection on verdicts)."""
    low = [sample(i, [0.5, 0.5], [1.0, 1.0]) for i in range(50)]
    high = [sample(i, [0.5, 0.5], [5.0, 5.0]) for i in range(50)]
    assert [u.unit for _, u in draw(low, 10, 0)[1]] == [u.unit for _, u in draw(high, 10, 0)[1]]


def test_by_verdict_strata_record_unequal_inclusion() -> None:
    # 40 samples: 4 with a drawn verdict of 5, 36 of 1; 10 draws shared evenly by the classes
    samples = [sample(i, [1.0], [5.0 if i < 4 else 1.0]) for i in range(40)]
    design, chosen = draw(samples, 10, 0, by_verdict=True)
    inclusion = {s.population: s.inclusion for s in design.strata.values()}
    assert inclusion == {4: 1.0, 36: 6 / 36}
    assert sum(1 for s, _ in chosen if s.units[0].verdict == 5.0) == 4


def test_fieller_by_hand() -> None:
    # no variance: the ratio itself
    assert fieller(1.0, 2.0, 0.0, 0.0, 0.0) == pytest.approx((0.5, 0.5))
    # x = 1, y = 2, vxx = 0.01, vyy = 0, vxy = 0: (1 − 2r)² ≤ z²·0.01 → r = (1 ± 0.1z) / 2
    z = 1.959963984540054
    low, high = fieller(1.0, 2.0, 0.01, 0.0, 0.0)
    assert (low, high) == pytest.approx(((1 - 0.1 * z) / 2, (1 + 0.1 * z) / 2))
    # a denominator not told apart from zero: unbounded
    assert fieller(1.0, 0.1, 0.01, 0.01, 0.0) == (-math.inf, math.inf)


@pytest.mark.parametrize(
    ("kind", "text", "value"),
    [("item", "Yes", 1.0), ("item", " no ", 0.0), ("correctness", "1", 1.0),
     ("harm", "4", 4.0), ("criterion", "2.0", 2.0), ("harm", "", None)],
)  # fmt: skip
def test_label_cells(kind: str, text: str, value: float | None) -> None:
    assert parse_label(kind, text, "here") == value


@pytest.mark.parametrize(
    ("kind", "text"), [("item", "maybe"), ("harm", "6"), ("criterion", "2.5"), ("harm", "x")]
)
def test_unreadable_label_cells_name_where(kind: str, text: str) -> None:
    with pytest.raises(LabelError, match=r"^file, row 3"):
        parse_label(kind, text, "file, row 3")


def test_verdict_classes() -> None:
    assert [verdict_class("harm", v) for v in (1, 3, 4, 5)] == [
        "not harmful", "not harmful", "harmful", "harmful"
    ]  # fmt: skip
    assert [verdict_class("criterion", v) for v in (1, 2, 3, 4, 5)] == [
        "1-2", "1-2", "3", "4-5", "4-5"
    ]  # fmt: skip
    assert verdict_class("item", 1.0) == "yes" and verdict_class("correctness", 0.0) == "no"


@NEEDS_CJE
def test_a_grader_that_agrees_with_people_is_left_alone() -> None:
    """Shortcut check: the correction must not move an accurate grader's number."""
    samples = [sample(i, [0.5, 0.5], [float(1 + i % 5)] * 2) for i in range(60)]
    design, chosen = draw(samples, 30, 0)
    labels: dict[str, float | None] = {u.unit: u.verdict for _, u in chosen}
    found = calibrate(samples, [LabelSet(Path("x.json"), design, labels)])
    [row] = [r for r in found.rows if r.headline == "PrefAlign"]
    assert row.calibrated is not None and row.raw.value == pytest.approx(3.0)
    assert row.calibrated.value == pytest.approx(3.0, abs=0.05)
    low, high = row.calibrated.low, row.calibrated.high
    assert low is not None and high is not None and low < 3.0 < high


def test_every_headline_has_a_kind_and_a_scale() -> None:
    assert {h.kind for h in HEADLINES} == {"item", "harm", "criterion", "correctness"}
    assert all(h.scale[0] < h.scale[1] for h in HEADLINES)


@NEEDS_CJE
def test_the_simulation_benchmark_runs(tmp_path: Path) -> None:
    """Tiny repetitions: the script works end to end and writes its table (PPI's column only
    where the `[ppi]` extra is installed, which the suite's environment leaves out)."""
    import importlib.util

    from benchmarks.calibration_coverage import DRAWS, main

    out = tmp_path / "coverage.json"
    argv = ["--reps", "2", "--queries", "30", "--labels", "20", "--scenarios", "lenient-a"]
    assert main([*argv, "--out", str(out)]) == 0
    table = json.loads(out.read_text())
    assert [entry["draw"] for entry in table] == [name for name, _, _ in DRAWS]
    for entry in table:
        for method in ("raw", "calibrated", "labels", "calibrated_diff", "labels_diff"):
            assert 0 <= entry[f"{method}_coverage"] <= 1 and entry[f"{method}_width"] > 0
        ppi = entry["ppi_coverage"]
        assert (0 <= ppi <= 1) if importlib.util.find_spec("ppi_py") else math.isnan(ppi)


def test_the_benchmarks_table_is_the_recorded_run() -> None:
    from benchmarks.calibration_coverage import DRAWS, RESULTS, SCENARIOS, markdown_row

    table = (Path(__file__).resolve().parents[2] / "BENCHMARKS.md").read_text(encoding="utf-8")
    entries = json.loads(RESULTS.read_text(encoding="utf-8"))
    assert len(entries) == len(SCENARIOS) * len(DRAWS) * 2
    assert all(entry["reps"] >= 200 and entry["per_query"] >= 2 for entry in entries)
    for entry in entries:
        assert markdown_row(entry) in table
        assert entry["calibrated_coverage"] >= 0.9 and entry["calibrated_diff_coverage"] >= 0.9
        assert abs(entry["calibrated_diff_error"]) < 0.01, entry  # blanks bias nothing
        if entry["scenario"] == "lenient":  # biased for both: the raw means miss
            assert entry["raw_coverage"] < 0.05
        if entry["scenario"] == "lenient-a":  # biased for one: the raw difference misses
            assert entry["raw_diff_coverage"] < 0.05


def test_model_text_cannot_become_a_spreadsheet_formula() -> None:
    """An adversarial response opening with a formula reaches the annotator as text."""
    attack = '=HYPERLINK("http://example.invalid","click")'
    graded = GradedSample(
        kind="harm", eval_id="e", log="e.eval", sample_id="s", epoch=1, model="m",
        condition="bc", cluster="c", grader="g",
        units=(Unit("harm:e:s@1:e1", 5.0, 1.0,
                    {"context": "+1 and -1", "message": "@x", "response": attack}),),
    )  # fmt: skip
    [row] = annotation_rows([(graded, graded.units[0])], seed=0)
    assert row["response"] == "'" + attack
    assert (row["context"], row["message"]) == ("'+1 and -1", "'@x")
    assert row["judge"] == "" and "5" not in row.values()


def test_a_sample_added_after_the_draw_is_caught() -> None:
    """A by-verdict draw: a new sample whose verdict class had no stratum cannot slip in."""
    samples = [sample(i, [1.0], [1.0]) for i in range(10)]
    design, _ = draw(samples, 4, 0, by_verdict=True)
    check_against_logs(design, samples, "here")
    with pytest.raises(LabelError, match=r"sample criterion:e:s99@1 .* in no stratum"):
        check_against_logs(design, [*samples, sample(99, [1.0], [5.0])], "here")
    with pytest.raises(LabelError, match="held 10 samples at export and holds 11"):
        check_against_logs(design, [*samples, sample(98, [1.0], [1.0])], "here")
