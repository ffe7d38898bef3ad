"""The `choice` section against real offline runs: two templates × three designs × the oracle
and a template-sensitive ("picky") model, plus chance runs of two designs."""

import math
import statistics
from pathlib import Path

import pytest
from inspect_ai import eval

from heedbench.evals.choice import choice, choice_dataset
from heedbench.preference import strict_pairs
from heedbench.report.choice import CHANCE_MODEL, ChoiceRow, choice_rows
from heedbench.report.cli import Options, build_sections
from heedbench.report.document import Section, Table
from heedbench.report.figures import assign_markers
from heedbench.report.load import Loaded
from heedbench.report.stats import fmt
from heedbench.solvers.choice import CHOICE_METHODS
from heedbench.testing import scripted_model
from tests.report.conftest import CHANCE_RUNS, CHOICE_TEMPLATES, N
from tests.report.helpers import logs_of, mean_and_se, report_markdown, sample_rows

Report = tuple[Loaded, list[Section], Path]
ORACLE, PICKY = "mockllm/oracle", "mockllm/picky"


def section(report: Report) -> Section:
    return next(s for s in report[1] if s.title.startswith("choice"))


def table(report: Report, caption_start: str) -> Table:
    return next(t for t in section(report).tables if t.caption.startswith(caption_start))


def cell(found: Table, design: str, model: str) -> str:
    row = next(r for r in found.rows if r[0] == design)
    column = next(i for i, c in enumerate(found.columns) if c.startswith(model))
    return row[column]


def rows_by_run(report: Report) -> dict[tuple[str, str, str], ChoiceRow]:
    return {(r.method, r.template, r.model): r for r in choice_rows(report[0])}


def rainy_contexts() -> int:
    return sum(1 for s in choice_dataset(n=N) if "rain" in str(s.input))


def test_every_run_is_its_own_row_once(report: Report) -> None:
    rows = choice_rows(report[0])
    expected = {
        (method, template, model)
        for method, templates in CHOICE_TEMPLATES.items()
        for template in templates
        for model in (ORACLE, PICKY)
    } | {(method, template, CHANCE_MODEL) for method, template in CHANCE_RUNS}
    keys = [(r.method, r.template, r.model) for r in rows]
    assert len(keys) == len(set(keys)) == len(expected) == 14
    assert set(keys) == expected
    # the per-run table and the terminal summary name each run once, template included
    alignment = table(report, "Alignment per run")
    listed = [(r[0], r[1], r[2].removesuffix(" (chance)")) for r in alignment.rows[: len(rows)]]
    assert sorted(listed) == sorted(keys)
    summary = section(report).summary
    assert len(summary) == len(set(summary)) == 14
    for method, template, model in keys:
        assert (
            sum(method in line and f" {template} " in line and model in line for line in summary)
            == 1
        )


def test_every_row_matches_means_recomputed_from_the_samples(log_dir: Path, report: Report) -> None:
    loaded, _, out = report
    text = report_markdown(out / "report.md")
    for row in choice_rows(loaded):
        log = next(
            log
            for log in logs_of(log_dir, "choice", row.model)
            if log.eval.metadata
            and (log.eval.metadata["method"], log.eval.metadata["template"])
            == (row.method, row.template)
        )  # the newest run
        samples = sample_rows(log)
        values = [value for _, value, _ in samples]
        valid = [value for value in values if value["valid"] == 1.0]
        assert row.valid == len(valid) and row.contexts == len(samples) == 23
        for key in ("spo", "kendall", "kendall_norm", "queries"):
            pool = values if key == "queries" else valid  # queries are spent on every context
            mean, se, n = mean_and_se([value[key] for value in pool])
            if row.method == "pairwise_test" and key.startswith("kendall"):
                assert n == 0
                continue
            estimate = row.estimates[key]
            assert estimate.value == pytest.approx(mean, nan_ok=True)
            assert estimate.n == n
            assert estimate.stderr == pytest.approx(se, nan_ok=True)
        if row.valid:
            assert fmt(row.estimates["spo"]) in text


def test_table_1_picks_the_best_template_by_spo(report: Report) -> None:
    found = table(report, "Table 1")
    assert found.columns == ["design", ORACLE, PICKY, f"{CHANCE_MODEL} (chance)"]
    assert [r[0] for r in found.rows] == ["pairwise_score", "pairwise_test", "pointwise"]
    # the oracle is perfect with both templates: the tie goes to the earlier template;
    # spo_context leads (the oracle keeps every pair the context decides), SPO in brackets
    perfect = "1.000 ± 0.000 (SPO 1.000 ± 0.000)"
    assert cell(found, "pointwise", ORACLE) == f"{perfect} / 23/23 / T7"
    assert cell(found, "pairwise_score", ORACLE) == f"{perfect} / 23/23 / T1"
    assert cell(found, "pairwise_test", ORACLE) == f"{perfect} / 23/23 / T5"
    # the picky model is exact only with T2, T6 and T8; T8 is invalid in rainy contexts
    assert cell(found, "pairwise_score", PICKY) == f"{perfect} / 23/23 / T2"
    assert cell(found, "pairwise_test", PICKY) == f"{perfect} / 23/23 / T6"
    valid = 23 - rainy_contexts()
    assert 0 < valid < 23
    assert cell(found, "pointwise", PICKY) == f"{perfect} / {valid}/23 / T8"
    rows = rows_by_run(report)
    for noisy in (("pairwise_score", "T1"), ("pairwise_test", "T5"), ("pointwise", "T7")):
        assert rows[(*noisy, PICKY)].estimates["spo"].value < 1.0
    chance = rows[("pointwise", "T7", CHANCE_MODEL)]
    spo, context = chance.estimates["spo"], chance.estimates["spo_context"]
    assert cell(found, "pointwise", CHANCE_MODEL) == (
        f"{context.value:.3f} ± {context.stderr:.3f} "
        f"(SPO {spo.value:.3f} ± {spo.stderr:.3f}) / 23/23 / T7"
    )
    assert cell(found, "pairwise_test", CHANCE_MODEL) == "not run"


def test_table_2_picks_the_best_fully_valid_template_by_kendall(report: Report) -> None:
    found = table(report, "Table 2")
    # pairwise_test has no K(p): no row
    assert [r[0] for r in found.rows] == ["pairwise_score", "pointwise"]
    assert cell(found, "pairwise_score", ORACLE) == "0.000 ± 0.000 (K(p) 0.0 ± 0.0) / 23/23 / T1"
    assert cell(found, "pairwise_score", PICKY) == "0.000 ± 0.000 (K(p) 0.0 ± 0.0) / 23/23 / T2"
    # Table 1's pointwise pick (T8) is not valid everywhere, so Table 2 takes T7
    noisy = rows_by_run(report)[("pointwise", "T7", PICKY)]
    assert noisy.fully_valid and noisy.estimates["kendall"].value > 0
    kendall, context = noisy.estimates["kendall"], noisy.estimates["kendall_context"]
    assert cell(found, "pointwise", PICKY) == (
        f"{context.value:.3f} ± {context.stderr:.3f} "
        f"(K(p) {kendall.value:.1f} ± {kendall.stderr:.1f}) / 23/23 / T7"
    )


def test_indifference_sets_follow_the_picks(report: Report) -> None:
    found = table(report, "Indifference sets")
    rows = rows_by_run(report)
    user = statistics.fmean(
        len(s.metadata["user_order"]) for s in choice_dataset(n=N) if s.metadata
    )
    assert cell(found, "pointwise", "model user") == f"{user:.2f}"
    t8 = rows[("pointwise", "T8", PICKY)].estimates["indifference_sets"].value
    t7 = rows[("pointwise", "T7", PICKY)].estimates["indifference_sets"].value
    assert cell(found, "pointwise", PICKY) == f"{t8:.2f} (T8); {t7:.2f} (T7, Table 2)"
    oracle = rows[("pairwise_score", "T1", ORACLE)].estimates["indifference_sets"].value
    assert oracle == pytest.approx(user)
    assert cell(found, "pairwise_score", ORACLE) == f"{oracle:.2f} (T1)"


def test_reference_rows_are_computed_from_the_runs_data(report: Report) -> None:
    found = table(report, "Reference rows")
    strict = [
        len(strict_pairs(s.metadata["user_order"])) for s in choice_dataset(n=N) if s.metadata
    ]
    by_label = {(r[0], r[1], r[2]): r for r in found.rows}
    reversed_row = by_label[("user order reversed", "—", "—")]
    assert reversed_row[5].startswith("0.000")
    assert reversed_row[6].startswith(f"{statistics.fmean(strict):.1f}")
    indifferent = by_label[("everything indifferent (one set)", "—", "—")]
    assert indifferent[6].startswith(f"{0.5 * statistics.fmean(strict):.1f}")
    # the context-blind chooser scores 0 on the pairs the context decides, by construction
    blind = by_label[("mean level in the other contexts (ties indifferent)", "—", "—")]
    assert blind[3] == "exact, context-blind" and blind[4].startswith("0.000")
    # one simulated chance row per design × template the runs used
    simulated = {(r[1], r[2]) for r in found.rows if r[3] == "simulated"}
    assert simulated == {(m, t) for m, ts in CHOICE_TEMPLATES.items() for t in ts}
    # the simulation reproduces the real chance runs
    rows = rows_by_run(report)
    for method, template in CHANCE_RUNS:
        real = rows[(method, template, CHANCE_MODEL)]
        line = next(r for r in found.rows if r[1:4] == [method, template, "simulated"])
        assert line[4] == fmt(real.estimates["spo_context"])
        assert line[5] == fmt(real.estimates["spo"])
        assert line[6] == fmt(real.estimates["kendall"], 1)
    expected = {(r[1], r[2]) for r in found.rows if r[3] == "exact expectation"}
    assert expected == {
        ("pointwise", "T7"),
        ("pointwise", "T8"),
        ("pairwise_test", "T5"),
        ("pairwise_test", "T6"),
    }


def test_newest_run_wins_and_older_runs_are_listed(report: Report) -> None:
    loaded, _, out = report
    picky = rows_by_run(report)[("pointwise", "T7", PICKY)]
    # the superseded run answered like the oracle (SPO 1); the newest is noisy
    assert picky.estimates["spo"].value < 1.0
    superseded = [r for r in loaded.superseded if r.family == "choice"]
    assert [(r.model, r.metadata["template"]) for r in superseded] == [(PICKY, "T7")]
    assert report_markdown(out / "report.md").count("no: newer logs of the same run hold") == len(
        loaded.superseded
    )


def test_a_run_with_no_valid_context_is_marked_as_such(tmp_path: Path) -> None:
    for template in ("T9", "T10"):
        eval(
            choice(n=N, method="listwise", template=template),
            model=scripted_model(lambda prompt: "no ranking today", name="mute"),
            display="none",
            log_dir=str(tmp_path),
        )
    loaded, sections = build_sections(Options(logs=[str(tmp_path)], out=tmp_path / "out"))
    choice_section = next(s for s in sections if s.title.startswith("choice"))
    first = next(t for t in choice_section.tables if t.caption.startswith("Table 1"))
    assert first.rows == [["listwise", "— / 0/23 / T9, T10 (0 valid contexts)"]]
    second = next(t for t in choice_section.tables if t.caption.startswith("Table 2"))
    assert second.rows[0][1].startswith("— (no fully valid run; most valid: 0/23")
    per_run = next(t for t in choice_section.tables if t.caption.startswith("Alignment per run"))
    runs = [r for r in per_run.rows if r[2] == "mockllm/mute"]
    assert len(runs) == 2
    assert all(r[4] == r[5] == "—, 0 valid contexts" and r[-1] == "0/23" for r in runs)
    figure = next(f for f in choice_section.figures if f.name == "choice_queries.png")
    assert "0 valid contexts" in figure.caption and "listwise T9" in figure.caption
    assert not math.isnan(choice_rows(loaded)[0].estimates["queries"].value)


def test_six_designs_get_six_markers() -> None:
    markers = assign_markers(CHOICE_METHODS)
    assert len(CHOICE_METHODS) == 6
    assert len(set(markers.values())) == 6


def half_broken(prompt: str) -> str:
    """Valid JSON when the first-presented name sorts first, prose (⊥) otherwise."""
    first = prompt.split("Object 1:")[1].splitlines()[0].strip()
    second = prompt.split("Object 2:")[1].splitlines()[0].strip()
    return '{"answer": "none"}' if first < second else "cannot say"


def test_settings_other_than_the_template_keep_runs_apart(tmp_path: Path) -> None:
    model = scripted_model(half_broken, name="halfway")
    for validity in ("lenient", "strict"):
        eval(
            choice(n=N, method="pairwise_score", validity=validity),
            model=model,
            display="none",
            log_dir=str(tmp_path),
        )
    loaded, sections = build_sections(Options(logs=[str(tmp_path)], out=tmp_path / "out"))
    rows = choice_rows(loaded)
    assert sorted(r.settings for r in rows) == ["n=5, validity=lenient", "n=5, validity=strict"]
    assert [r.valid for r in sorted(rows, key=lambda r: r.settings)] == [23, 0]
    choice_section = next(s for s in sections if s.title.startswith("choice"))
    firsts = [t for t in choice_section.tables if t.caption.startswith("Table 1")]
    assert [t.caption.rsplit("settings: ", 1)[1] for t in firsts] == [
        "n=5, validity=lenient",
        "n=5, validity=strict",
    ]
    assert firsts[0].rows[0][1].startswith("0.000 ± 0.000 (SPO 0.000 ± 0.000) / 23/23 / T1")
    assert firsts[1].rows[0][1] == "— / 0/23 / T1 (0 valid contexts)"
    summary = choice_section.summary
    assert len(summary) == 2 and "validity=strict" in summary[1]
    references = [t for t in choice_section.tables if t.caption.startswith("Reference rows")]
    assert len(references) == 2
