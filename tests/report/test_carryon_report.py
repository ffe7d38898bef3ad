"""The `carryon` tables, checked against real offline runs (tests/report/runs.py)."""

import itertools
import math
import statistics
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval

from heedbench.evals.carryon import load_queries
from heedbench.evals.carryon.task import carryon
from heedbench.report.carryon import (
    by_condition,
    carryon_data,
    failure_flags,
    harm_change,
    move_effects,
    recovery,
)
from heedbench.report.cli import Options, build_sections
from heedbench.report.document import Section
from heedbench.report.load import Loaded
from heedbench.report.stats import fmt
from heedbench.scorers.carryon import FailureThresholds
from heedbench.testing import scripted_model
from heedbench.testing_carryon import (
    refuse_then_recover,
    scripted_grader,
    scripted_user,
    write_queries,
)
from tests.report.helpers import clustered, logs_of, report_markdown, sample_rows

Report = tuple[Loaded, list[Section], Path]
MODELS = ("mockllm/recoverer", "mockllm/locked", "mockllm/eager")
Row = tuple[dict[str, Any], dict[str, float], dict[str, Any]]


def rows_of(log_dir: Path, model: str) -> list[Row]:
    return sample_rows(logs_of(log_dir, "carryon", model)[0])


def by_key(log_dir: Path, model: str, key: str, **where: str) -> tuple[float, float, int]:
    """A score key's mean, clustered stderr and count over a model's samples."""
    return clustered(
        [
            (m["query_id"], v[key])
            for m, v, _ in rows_of(log_dir, model)
            if all(m[k] == w for k, w in where.items())
        ]
    )


def table_row(text: str, *cells: str, containing: str = "") -> str:
    """The first Markdown table line that starts with these cells (and holds `containing`)."""
    start = "| " + " | ".join(cells) + " |"
    return next(x for x in text.splitlines() if x.startswith(start) and containing in x)


@pytest.mark.parametrize("model", MODELS)
def test_condition_means_match_the_samples(log_dir: Path, report: Report, model: str) -> None:
    loaded, _, out = report
    data = carryon_data(loaded)
    assert data is not None
    text = report_markdown(out / "report.md")
    for condition, measure, key in [
        ("turn1", "utility", "turn1_utility"),
        ("oracle", "utility", "oracle_utility"),
        ("bc", "utility", "bc_last_utility"),
        ("nc", "utility", "nc_last_utility"),
        ("turn1", "harm", "turn1_harm"),
        ("bc", "harm", "bc_harm"),
        ("bc", "redundancy", "bc_redundancy"),
        ("nc", "harmful_rate", "nc_harmful_rate"),
    ]:
        estimate = by_condition(data, model, condition, measure)
        if model == "mockllm/locked" and condition == "oracle":
            assert estimate.missing
            continue
        mean, se, n = by_key(log_dir, model, key)
        if n == 0:  # e.g. redundancy of a model that never fulfils anything: undefined
            assert estimate.n == 0
            continue
        assert estimate.value == pytest.approx(mean)
        assert estimate.n == n
        assert estimate.stderr == pytest.approx(se, nan_ok=True)
        assert fmt(estimate, 2 if measure == "harm" else 3) in text


def test_turn1_is_every_response_to_the_query_alone(log_dir: Path, report: Report) -> None:
    data = carryon_data(report[0])
    assert data is not None
    rows = rows_of(log_dir, "mockllm/eager")
    first = [(m["query_id"], t["turns"][0]["utility"]) for m, _, t in rows
             if m["condition"] != "oracle"]  # fmt: skip
    estimate = by_condition(data, "mockllm/eager", "turn1", "utility")
    assert (estimate.value, estimate.n) == pytest.approx(clustered(first)[::2])
    assert estimate.n == sum(1 for m, _, _ in rows if m["condition"] in ("turn1", "bc", "nc"))
    oracle = by_condition(data, "mockllm/eager", "oracle", "utility")
    assert oracle.n == sum(1 for m, _, _ in rows if m["condition"] == "oracle")


def test_missing_oracle_run_is_said_not_shown(report: Report) -> None:
    text = report_markdown(report[2] / "report.md")
    assert "—, no oracle run" in table_row(text, "mockllm/locked")
    # A run that is there but leaves a number undefined says so: the locked model never
    # fulfils anything, so its redundancy is undefined, not missing a run.
    undefined = " | ".join(["—, undefined"] * 4)
    assert table_row(text, "mockllm/locked", containing=f"| {undefined} |")


def test_failure_flags_use_the_condition_means(log_dir: Path, report: Report) -> None:
    data = carryon_data(report[0])
    assert data is not None
    flags = failure_flags(data, FailureThresholds())
    locked, recoverer = flags["mockllm/locked"], flags["mockllm/recoverer"]
    assert locked["utility_lock_in"].flagged is True
    assert recoverer["utility_lock_in"].flagged is False
    turn1 = by_key(log_dir, "mockllm/recoverer", "turn1_utility")[0]
    bc = by_key(log_dir, "mockllm/recoverer", "bc_last_utility")[0]
    assert recoverer["utility_lock_in"].evidence["gain"] == pytest.approx(bc - turn1)
    oracle_rate = by_key(log_dir, "mockllm/recoverer", "oracle_harmful_rate")[0]
    assert recoverer["unsafe_recovery"].evidence["oracle_harmful_rate"] == pytest.approx(
        oracle_rate
    )
    text = report_markdown(report[2] / "report.md")
    assert table_row(text, "mockllm/locked", containing="| utility lock in | FLAGGED |")


def test_thresholds_come_from_the_command_line(log_dir: Path, tmp_path: Path) -> None:
    strict = FailureThresholds(lock_in_gain=0.99)
    _, sections = build_sections(Options(logs=[str(log_dir)], out=tmp_path, thresholds=strict))
    carryon = next(s for s in sections if s.title.startswith("carryon"))
    assert "flags: utility_lock_in" in next(x for x in carryon.summary if "recoverer" in x)


def test_by_exchange_and_move_effects_match_the_turns(log_dir: Path, report: Report) -> None:
    data = carryon_data(report[0])
    assert data is not None
    rows = rows_of(log_dir, "mockllm/recoverer")
    deltas: dict[str, list[tuple[str, float]]] = {}
    at_two = []
    for metadata, _, score_metadata in rows:
        turns = score_metadata["turns"]
        if metadata["condition"] == "bc":
            at_two.append((metadata["query_id"], turns[1]["utility"]))
        for before, now in itertools.pairwise(turns):
            change = now["utility"] - before["utility"]
            deltas.setdefault(now["move"], []).append((metadata["query_id"], change))
    effects = move_effects(data)
    for move, values in deltas.items():
        mean, se, n = clustered(values)
        estimate = effects[("mockllm/recoverer", move)][0]
        assert estimate.value == pytest.approx(mean)
        assert estimate.n == n
        assert estimate.stderr == pytest.approx(se, nan_ok=True)
    mean, se, n = clustered(at_two)
    text = report_markdown(report[2] / "report.md")
    queries = len({query for query, _ in at_two})  # n names the samples and their queries
    cell = f"{mean:.3f} ± {se:.3f} (n={n}, {queries} queries)"
    assert cell in table_row(text, "mockllm/recoverer", "BC", "2")


def test_redundancy_pools_responses_and_conversations(log_dir: Path, report: Report) -> None:
    data = carryon_data(report[0])
    assert data is not None
    rows = rows_of(log_dir, "mockllm/eager")
    per_response = [
        (m["query_id"], t["redundancy"])
        for m, _, s in rows
        if m["condition"] == "bc"
        for t in s["turns"]
        if t["exchange"] >= 2 and t["redundancy"] is not None
    ]
    expected = clustered(per_response)
    assert expected[0] > 0  # its full first answers are repeated later: a real test
    estimate = data.turn_estimate("mockllm/eager", "redundancy", m_condition="bc")
    assert (estimate.value, estimate.n) == pytest.approx(expected[::2])
    text = report_markdown(report[2] / "report.md")
    line = table_row(text, "mockllm/eager", containing=fmt(estimate))
    conversation = by_condition(data, "mockllm/eager", "bc", "redundancy")
    assert conversation.value == pytest.approx(by_key(log_dir, "mockllm/eager", "bc_redundancy")[0])
    assert fmt(conversation) in line


def group_of(utility: float, harm: int) -> str:
    """The documented turn-1 groups, written out again."""
    if utility == 0 and harm <= 2:
        return "refusal"
    return "full" if utility >= 0.5 else "partial"


def test_turn1_groups_match_the_first_responses(log_dir: Path, report: Report) -> None:
    rows = rows_of(log_dir, "mockllm/eager")
    text = report_markdown(report[2] / "report.md")
    for condition, name in (("bc", "BC"), ("nc", "NC")):
        conversations = [(m, s["turns"]) for m, _, s in rows if m["condition"] == condition]
        groups = [group_of(t[0]["utility"], t[0]["harm"]) for _, t in conversations]
        counts = {g: groups.count(g) for g in ("refusal", "partial", "full")}
        shares = [f"{c} ({c / len(groups):.0%})" for c in counts.values()]
        assert table_row(text, "mockllm/eager", name, *shares, "0")
    bc = [(m, s["turns"]) for m, _, s in rows if m["condition"] == "bc"]
    assert {group_of(t[0]["utility"], t[0]["harm"]) for _, t in bc} == {
        "refusal", "partial", "full"
    }  # fmt: skip
    for group in ("refusal", "partial", "full"):
        at_two = [(m["query_id"], t[1]["harm"]) for m, t in bc
                  if group_of(t[0]["utility"], t[0]["harm"]) == group]  # fmt: skip
        mean, se, n = clustered([(q, float(h)) for q, h in at_two])
        queries = len({query for query, _ in at_two})
        cell = f"{mean:.2f}" + ("" if math.isnan(se) else f" ± {se:.2f}")
        cell += f" (n={n}, {queries} queries)"
        assert table_row(text, "mockllm/eager", group, "BC", "2").endswith(f"| {cell} |")


def test_harm_convergence_is_the_spread_across_models(log_dir: Path, report: Report) -> None:
    text = report_markdown(report[2] / "report.md")
    for exchange in (1, 2):
        means = []
        for model in MODELS:
            harms = [s["turns"][exchange - 1]["harm"] for m, _, s in rows_of(log_dir, model)
                     if m["condition"] == "bc" and len(s["turns"]) >= exchange]  # fmt: skip
            means.append(statistics.fmean(harms))
        low, high = min(means), max(means)
        cells = [f"{x:.2f}" for x in (low, high, high - low, statistics.stdev(means))]
        assert table_row(text, "BC", str(exchange), "3", *cells)


def test_categories_show_recovery_and_harm_change(log_dir: Path, report: Report) -> None:
    data = carryon_data(report[0])
    assert data is not None
    text = report_markdown(report[2] / "report.md")
    model = "mockllm/eager"
    for category in {m["category"] for m, _, _ in rows_of(log_dir, model)}:
        gain = recovery(data, model, category)
        bc = by_key(log_dir, model, "bc_last_utility", category=category)[0]
        turn1 = by_key(log_dir, model, "turn1_utility", category=category)[0]
        assert gain.value == pytest.approx(bc - turn1)
        change = harm_change(data, model, category)
        bc_harm = by_key(log_dir, model, "bc_harm", category=category)[0]
        oracle_harm = by_key(log_dir, model, "oracle_harm", category=category)[0]
        assert change.value == pytest.approx(bc_harm - oracle_harm)
        line = table_row(text, model, category)
        assert fmt(gain) in line and fmt(change, 2) in line


def test_two_settings_of_one_model_are_two_rows(tmp_path: Path) -> None:
    data = write_queries(tmp_path / "q.jsonl", load_queries()[::50], items=6)
    roles = {
        "user": scripted_model(scripted_user, "sim-user"),
        "grader": scripted_model(scripted_grader, "judge"),
    }
    logs = tmp_path / "logs"
    for judge, condition in (("per_item", "turn1,oracle"), ("batched", "oracle"),
                             ("batched", "bc")):  # fmt: skip
        eval(
            carryon(data=str(data), condition=condition, judge=judge, flows_per_query=1),
            model=scripted_model(refuse_then_recover(), "twin"),
            model_roles=roles,
            display="none",
            log_dir=str(logs),
        )
    loaded, sections = build_sections(Options(logs=[str(logs)], out=tmp_path / "out"))
    carryon_data_ = carryon_data(loaded)
    assert carryon_data_ is not None
    labels = carryon_data_.labels
    assert labels == ["mockllm/twin [judge=batched]", "mockllm/twin [judge=per_item]"]
    section = next(s for s in sections if s.title.startswith("carryon"))
    utility = section.tables[0]
    by_label = {row[0]: row for row in utility.rows}
    # Four queries: each row's oracle rests on its own four samples, never on eight.
    assert by_label["mockllm/twin [judge=per_item]"][3].endswith("(n=4, 4 queries)")
    assert by_label["mockllm/twin [judge=batched]"][3].endswith("(n=4, 4 queries)")
    # The batched oracle and BC runs differ in condition only: one row holds both.
    assert by_label["mockllm/twin [judge=batched]"][4].endswith("(n=4, 4 queries)")
    assert "no BC run" in by_label["mockllm/twin [judge=per_item]"][4]
    settings = by_label["mockllm/twin [judge=batched]"][1]
    assert "judge=batched" in settings and "grader=mockllm/judge" in settings
    assert "flows_per_query=1" in settings and "judge=per_item" not in settings
    assert any("mockllm/twin [judge=per_item]" in line for line in section.summary)
