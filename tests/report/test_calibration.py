"""Judge-calibrated estimates: export → fill (scripted) → import → report, on real logs.

The grader of these runs is biased (credits every item of a helpful response, misses harm,
scores PrefAlign a point high, accepts every answer); the scripted annotator tells the truth.
So a calibrated number that merely echoed the grader would fail here.
"""

import importlib
import json
import math
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from heedbench.report.calibration import HEADLINES, Calibration, calibrate
from heedbench.report.calibration_section import calibration_section
from heedbench.report.cli import Options, build_sections, main
from heedbench.report.graded_units import graded_samples
from heedbench.report.load import load_runs
from heedbench.report.render import markdown, terminal_summary
from heedbench.report.verdict_sample import (
    COLUMNS,
    LabelError,
    drawn_unit,
    find_label_files,
    read_label_set,
)
from tests.report.calibration_runs import (
    NEEDS_CJE,
    SECRET,
    carryon_logs,
    fill,
    prefdisco_logs,
    truth,
)
from tests.report.csv_rows import read_csv, write_csv


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two carryon and two prefdisco runs, all graded by the biased grader."""
    folder = tmp_path_factory.mktemp("calibration") / "logs"
    folder.mkdir()
    carryon_logs(folder)
    prefdisco_logs(folder)
    return folder


@pytest.fixture
def logs(built: Path, tmp_path: Path) -> Path:
    """A private copy of the logs (imports write label files beside them)."""
    return Path(shutil.copytree(built, tmp_path / "logs"))


@pytest.fixture(scope="module")
def labelled(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the logs with every drawn unit labelled truthfully (imported)."""
    folder = Path(shutil.copytree(built, tmp_path_factory.mktemp("labelled") / "logs"))
    out = exported(folder, folder.parent)
    fill(out)
    assert annotate("import-verdicts", out, folder) == 0
    return folder


def annotate(*args: object) -> int:
    return main(["annotate", *map(str, args)])


def calibrated(logs: Path) -> Calibration:
    loaded = load_runs([str(logs)])
    sets = [read_label_set(path) for path in find_label_files([str(logs)])]
    return calibrate(graded_samples(loaded), sets)


def row(found: Calibration, headline: str, model: str, condition: str) -> Any:
    [match] = [
        r for r in found.rows if (r.headline, r.model, r.condition) == (headline, model, condition)
    ]
    return match


# -- the accessor reads what the scorers wrote ----------------------------------------------------


def test_graded_samples_rebuild_every_headline_value(built: Path) -> None:
    loaded = load_runs([str(built)])
    scores = pd.concat([loaded.samples("carryon"), loaded.samples("prefdisco")])
    value_of = {(str(r["eval_id"]), str(r["id"]), int(r["epoch"])): r for _, r in scores.iterrows()}
    keys = {"item": "v_last_utility", "harm": "v_harm", "criterion": "v_prefalign"}
    checked = dict.fromkeys(["item", "harm", "criterion", "correctness"], 0)
    for sample in graded_samples(loaded):
        assert math.isclose(sum(unit.weight for unit in sample.units), 1.0)
        scored = value_of[(sample.eval_id, sample.sample_id, sample.epoch)]
        key = keys.get(sample.kind, "v_correct")
        assert sample.value() == pytest.approx(scored[key]), sample.key
        checked[sample.kind] += 1
    assert all(count >= 12 for count in checked.values()), checked


# -- export: what annotators see -------------------------------------------------------------------


def test_the_export_never_shows_the_graders_verdict(logs: Path, tmp_path: Path) -> None:
    out = tmp_path / "verdicts.csv"
    assert annotate("export-verdicts", logs, "-o", out, "--per-model", 1000, "--by-verdict") == 0
    rows = read_csv(out)
    assert tuple(rows[0]) == COLUMNS
    assert {r["kind"] for r in rows} == {"item", "harm", "criterion", "correctness"}
    assert all(r["label"] == "" for r in rows)
    # the grader's notes are in the logs, so their absence from the file means something
    loaded = load_runs([str(logs)])
    metadata = [*loaded.samples("carryon", full=True)["score_metadata"],
                *loaded.samples("prefdisco", full=True)["score_metadata"]]  # fmt: skip
    assert SECRET in json.dumps(list(metadata))
    text = out.read_text(encoding="utf-8")
    assert SECRET not in text
    for forbidden in ("verdict", "fulfilled", "score", "stratum", "inclusion", "harmful"):
        assert forbidden not in rows[0], forbidden
    # the harm and checklist columns are the same for every row of a kind: no verdict leaks
    # through the wording
    samples = {u.unit: u for s in graded_samples(load_runs([str(logs)])) for u in s.units}
    for r in rows:
        assert r["unit"] in samples
        assert r["answer_with"] in ("yes / no", "1-5")


def test_the_draw_is_seeded_stratified_and_records_inclusion(logs: Path, tmp_path: Path) -> None:
    first, second, other = (tmp_path / f"{name}.csv" for name in ("a", "b", "c"))
    for path, seed in ((first, 3), (second, 3), (other, 4)):
        annotate("export-verdicts", logs, "-o", path, "--per-model", 12, "--seed", seed)
    units = [r["unit"] for r in read_csv(first)]
    assert units == [r["unit"] for r in read_csv(second)]
    assert set(units) != {r["unit"] for r in read_csv(other)}
    design = json.loads((tmp_path / "a.design.json").read_text())
    strata = {s["id"]: s for s in design["strata"]}
    # 12 per model spread over its condition × kind strata: carryon 2 × 2, prefdisco 3 × 2
    carryon = [s for s in strata.values() if s["kind"] in ("item", "harm")]
    assert sum(s["drawn"] for s in carryon if s["model"] == "recoverer") == 12
    assert {s["drawn"] for s in carryon} == {3}
    for unit in design["units"]:
        stratum = strata[unit["stratum"]]
        assert 0 < unit["inclusion"] <= stratum["drawn"] / stratum["population"]


# -- import: refusing what does not match ------------------------------------------------------------


def exported(logs: Path, folder: Path, per_model: int = 1000) -> Path:
    out = folder / "verdicts.csv"
    assert annotate("export-verdicts", logs, "-o", out, "--per-model", per_model) == 0
    return out


def test_a_unit_not_in_the_sample_is_refused_and_named(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = exported(logs, tmp_path)
    fill(out)
    rows = read_csv(out)
    rows[5]["unit"] = rows[5]["unit"] + "x"
    write_csv(out, rows)
    assert annotate("import-verdicts", out, logs) == 1
    error = capsys.readouterr().err
    assert rows[5]["unit"] in error and "not a unit of the exported sample" in error
    assert not find_label_files([str(logs)])


def test_a_missing_row_and_an_unreadable_label_are_refused(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = exported(logs, tmp_path)
    fill(out)
    rows = read_csv(out)
    write_csv(out, rows[1:])
    assert annotate("import-verdicts", out, logs) == 1
    assert f"missing, first {rows[0]['unit']}" in capsys.readouterr().err
    rows[0]["label"] = "maybe"
    write_csv(out, rows)
    assert annotate("import-verdicts", out, logs) == 1
    error = capsys.readouterr().err
    assert "row 2" in error and rows[0]["unit"] in error and "maybe" in error


@NEEDS_CJE
def test_a_partial_file_is_refused_unless_allowed_and_then_flagged(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = exported(logs, tmp_path)
    fill(out, blank=3)
    assert annotate("import-verdicts", out, logs) == 1
    assert "3 of" in capsys.readouterr().err
    assert annotate("import-verdicts", out, logs, "--allow-blank") == 0
    found = calibrated(logs)
    assert any("3 of" in p and "missing at random" in p for p in found.problems)


def test_labels_of_other_logs_are_refused(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = exported(logs, tmp_path)
    fill(out)
    only = tmp_path / "only-carryon"
    only.mkdir()
    for path in logs.glob("*carryon*.eval"):
        shutil.copy(path, only)
    assert annotate("import-verdicts", out, only) == 1
    error = capsys.readouterr().err
    assert "not in the logs given" in error and "problem_0_" in error


@NEEDS_CJE
def test_a_stored_label_file_whose_logs_changed_is_left_out(logs: Path, tmp_path: Path) -> None:
    out = exported(logs, tmp_path)
    fill(out)
    assert annotate("import-verdicts", out, logs) == 0
    for path in logs.glob("*prefdisco*.eval"):
        path.unlink()
    found = calibrated(logs)
    assert any("labels not used" in p and "not in the logs" in p for p in found.problems)
    assert all(r.calibrated is None for r in found.rows)


# -- the report -------------------------------------------------------------------------------------


@NEEDS_CJE
def test_every_sample_labelled_gives_the_human_mean(labelled: Path) -> None:
    logs, out = labelled, labelled.parent / "verdicts.csv"
    found = calibrated(logs)
    assert not found.missing_library and not found.problems
    # Every sample labelled: the estimate is the mean of the drawn units' human labels (one
    # unit per sample stands for its sample), whatever the grader said.
    labels = {r["unit"]: truth(r) for r in read_csv(out)}
    samples = graded_samples(load_runs([str(logs)]))

    def labelled_mean(kind: str, policy: str, read: Any) -> float:
        mine = [s for s in samples if s.kind == kind and s.policy == policy]
        return float(sum(read(labels[drawn_unit(s, 0).unit]) for s in mine) / len(mine))

    # the lenient grader credits the BC last response with every item; it covers 2 of 4 at most
    ben = row(found, "Ben-Util (last response)", "recoverer", "bc")
    expected = labelled_mean("item", "recoverer · bc", lambda label: label == "yes")
    assert ben.raw.value == 1.0 and expected < 0.8
    assert ben.calibrated.value == pytest.approx(expected)
    # it never rates above 2; the recoverer's BC responses carry harm 4 after the reveal
    rate = row(found, "harmful rate", "recoverer", "bc")
    expected = labelled_mean("harm", "recoverer · bc", lambda label: label == "4")
    assert rate.raw.value == 0.0 and expected > 0
    assert rate.calibrated.value == pytest.approx(expected)
    assert row(found, "harmful rate", "cautious", "bc").calibrated.value == 0.0
    for condition, grade in (("baseline", 2), ("discovery", 3), ("oracle", 4)):
        align = row(found, "PrefAlign", "asker", condition)
        assert align.raw.value == pytest.approx(grade + 1)
        assert align.calibrated.value == pytest.approx(grade)
    wrong = row(found, "correctness (graded)", "guesser", "baseline")
    assert wrong.raw.value == 1.0 and wrong.calibrated.value == 0.0
    [ratio] = [r for r in found.ratios if r.model == "asker"]
    assert ratio.raw == pytest.approx(0.5) and ratio.value == pytest.approx(50)


@NEEDS_CJE
def test_a_sample_of_labels_gives_an_interval_that_holds_the_truth(
    built: Path, tmp_path: Path
) -> None:
    full, sampled = (Path(shutil.copytree(built, tmp_path / name)) for name in ("full", "part"))
    for folder, per_model in ((full, 1000), (sampled, 24)):
        out = exported(folder, folder / "export", per_model)
        fill(out)
        assert annotate("import-verdicts", out, folder) == 0
    truths: dict[tuple[str, str, str], Any] = {
        (r.headline, r.model, r.condition): r.calibrated for r in calibrated(full).rows
    }
    shown: list[Any] = [r for r in calibrated(sampled).rows if r.calibrated is not None]
    assert len(shown) >= 6, "several model × conditions have enough labels"
    partial = [r for r in shown if r.labels < truths[(r.headline, r.model, r.condition)].n]
    assert len(partial) >= 6, "prefdisco strata are only partly labelled"
    for r in shown:
        truth_value = truths[(r.headline, r.model, r.condition)].value
        assert r.calibrated.low - 1e-9 <= truth_value <= r.calibrated.high + 1e-9, r


@NEEDS_CJE
def test_too_few_labels_are_said_not_estimated(logs: Path, tmp_path: Path) -> None:
    out = exported(logs, tmp_path, per_model=6)
    fill(out)
    assert annotate("import-verdicts", out, logs) == 0
    found = calibrated(logs)
    labelled = [r for r in found.rows if r.labels]
    assert labelled and all(r.calibrated is None for r in labelled)
    assert all(r.note.startswith("too few labels") for r in labelled), [r.note for r in labelled]


@NEEDS_CJE
def test_the_report_shows_raw_and_calibrated_for_both_families(
    labelled: Path, tmp_path: Path
) -> None:
    _, sections = build_sections(Options(logs=[str(labelled)], out=tmp_path))
    printed = terminal_summary(sections)
    assert "calibrated PrefAlign asker · oracle: raw 5.000, calibrated 4.000" in printed
    section = markdown(sections, figures=False).split("## Correcting for the grader", 1)[1]
    cells = {cell.strip() for line in section.splitlines() for cell in line.split("|")}
    assert {h.name for h in HEADLINES} | {"recoverer", "cautious", "asker", "guesser"} <= cells
    assert "asker − guesser" in cells and any(cell.endswith("told apart") for cell in cells)


def test_a_missing_library_is_said_with_the_install_command(
    labelled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.import_module

    def without_cje(name: str, package: str | None = None) -> Any:
        if name == "cje" or name.startswith("cje."):
            raise ImportError("No module named 'cje'")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", without_cje)
    section = calibration_section(load_runs([str(labelled)]), [str(labelled)])
    assert section is not None
    assert 'pip install -e ".[calibrate]"' in section.intro
    assert not section.tables
    assert any(".[calibrate]" in line for line in section.summary)


def test_no_label_file_no_section(built: Path) -> None:
    assert calibration_section(load_runs([str(built)]), [str(built)]) is None


def test_a_damaged_label_file_is_named(logs: Path) -> None:
    folder = logs / "heedbench-labels"
    folder.mkdir()
    (folder / "broken.json").write_text('{"format": "something else"}', encoding="utf-8")
    with pytest.raises(LabelError, match=r"broken\.json"):
        read_label_set(folder / "broken.json")


def test_every_command_in_the_guide_runs(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = Path(__file__).resolve().parents[2]
    guide = (root / "docs" / "calibration.md").read_text(encoding="utf-8")
    commands = [
        line
        for block in re.findall(r"```bash\n(.*?)```", guide, re.DOTALL)
        for line in block.splitlines()
        if line.strip()
    ]
    assert sum(c.startswith("heedbench ") for c in commands) >= 4
    shutil.copytree(built, tmp_path / "logs")
    monkeypatch.chdir(tmp_path)
    for command in commands:
        words = shlex.split(command)
        if words[:2] == ["pip", "install"]:
            extra = re.fullmatch(r"\.\[(\w+)\]", words[-1])
            assert extra is not None
            pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
            assert re.search(rf'^{extra.group(1)} = \["cje-eval[^"]*"\]$', pyproject, re.M)
            continue
        assert words[0] == "heedbench", command
        if words[1:3] == ["annotate", "import-verdicts"]:
            fill(Path(words[3]))
        assert main(words[1:]) == 0, command
    assert (tmp_path / "logs" / "heedbench-labels" / "verdicts.json").exists()
    assert "Correcting for the grader" in (tmp_path / "report" / "report.md").read_text()
    assert (tmp_path / "rare.design.json").exists()
