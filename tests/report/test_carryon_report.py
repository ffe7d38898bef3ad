"""The `carryon` tables, checked against real offline runs (tests/report/runs.py)."""

import itertools
from pathlib import Path

import pytest

from heedbench.report.carryon import carryon_data, failure_flags, move_effects
from heedbench.report.cli import Options, build_sections
from heedbench.report.document import Section
from heedbench.report.load import Loaded
from heedbench.report.stats import fmt, mean_se
from heedbench.scorers.carryon import FailureThresholds
from tests.report.helpers import logs_of, mean_and_se, sample_rows

Report = tuple[Loaded, list[Section], Path]
MODELS = ("mockllm/recoverer", "mockllm/locked")


def by_condition(log_dir: Path, model: str, condition: str, key: str) -> tuple[float, float, int]:
    rows = sample_rows(logs_of(log_dir, "carryon", model)[0])
    return mean_and_se([v[key] for m, v, _ in rows if m["condition"] == condition])


@pytest.mark.parametrize("model", MODELS)
def test_condition_means_match_the_samples(log_dir: Path, report: Report, model: str) -> None:
    loaded, _, out = report
    data = carryon_data(loaded)
    assert data is not None
    text = (out / "report.md").read_text()
    for condition, key in [
        ("turn1", "turn1_utility"),
        ("oracle", "last_utility"),
        ("bc", "last_utility"),
        ("nc", "last_utility"),
        ("bc", "harm"),
        ("bc", "redundancy"),
        ("nc", "harmful_rate"),
    ]:
        estimate = data.estimate(model, condition, key)
        if model == "mockllm/locked" and condition == "oracle":
            assert estimate.missing
            continue
        mean, se, n = by_condition(log_dir, model, condition, key)
        if n == 0:  # e.g. redundancy of a model that never fulfils anything: undefined
            assert estimate.n == 0
            continue
        assert estimate.value == pytest.approx(mean)
        assert estimate.n == n
        assert estimate.stderr == pytest.approx(se)
        assert fmt(estimate, 2 if key == "harm" else 3) in text


def test_missing_oracle_run_is_said_not_shown(report: Report) -> None:
    text = (report[2] / "report.md").read_text()
    assert "| mockllm/locked | 0." in text and "—, no oracle run" in text


def test_failure_flags_use_the_condition_means(log_dir: Path, report: Report) -> None:
    data = carryon_data(report[0])
    assert data is not None
    flags = failure_flags(data, FailureThresholds())
    locked, recoverer = flags["mockllm/locked"], flags["mockllm/recoverer"]
    assert locked["utility_lock_in"].flagged is True
    assert recoverer["utility_lock_in"].flagged is False
    turn1 = by_condition(log_dir, "mockllm/locked", "turn1", "turn1_utility")[0]
    bc = by_condition(log_dir, "mockllm/locked", "bc", "last_utility")[0]
    assert locked["utility_lock_in"].evidence["gain"] == pytest.approx(bc - turn1)
    oracle_rate = by_condition(log_dir, "mockllm/recoverer", "oracle", "harmful_rate")[0]
    assert recoverer["unsafe_recovery"].evidence["oracle_harmful_rate"] == pytest.approx(
        oracle_rate
    )
    assert "| mockllm/locked | utility lock in | FLAGGED |" in (report[2] / "report.md").read_text()


def test_thresholds_come_from_the_command_line(log_dir: Path, tmp_path: Path) -> None:
    strict = FailureThresholds(lock_in_gain=0.99)
    _, sections = build_sections(Options(logs=[str(log_dir)], out=tmp_path, thresholds=strict))
    carryon = next(s for s in sections if s.title.startswith("carryon"))
    assert "flags: utility_lock_in" in next(x for x in carryon.summary if "recoverer" in x)


def test_by_exchange_and_move_effects_match_the_turns(log_dir: Path, report: Report) -> None:
    data = carryon_data(report[0])
    assert data is not None
    rows = sample_rows(logs_of(log_dir, "carryon", "mockllm/recoverer")[0])
    deltas: dict[str, list[float]] = {}
    at_two = []
    for metadata, _, score_metadata in rows:
        turns = score_metadata["turns"]
        if metadata["condition"] == "bc":
            at_two.append(turns[1]["utility"])
        for before, now in itertools.pairwise(turns):
            deltas.setdefault(now["move"], []).append(now["utility"] - before["utility"])
    effects = move_effects(data)
    for move, values in deltas.items():
        mean, _se, n = mean_and_se(values)
        estimate = effects[("mockllm/recoverer", move)][0]
        assert estimate.value == pytest.approx(mean)
        assert estimate.n == n
    text = (report[2] / "report.md").read_text()
    assert f"| mockllm/recoverer | BC | 2 | {fmt(mean_se(at_two))} |" in text
