"""The `prefdisco` tables and figures, checked against real offline runs (tests/report/runs.py).

Expected numbers are recomputed from the logs with the standard library, never with report
code.
"""

import functools
import inspect
import math
import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from heedbench.evals.prefdisco.task import prefdisco
from heedbench.report import figures
from heedbench.report.cli import Options, build_sections
from heedbench.report.document import Section
from heedbench.report.load import Loaded
from heedbench.report.prefdisco import (
    ALL,
    SETTING_DEFAULTS,
    SWITCHES,
    PrefDiscoRow,
    negative_shares,
    prefdisco_rows,
    provider_of,
    run_setting,
    setting_label,
    stock_rows,
)
from heedbench.report.prefdisco import _samples as read_prefdisco_samples
from heedbench.report.stats import fmt
from heedbench.scorers import normalized_alignment
from heedbench.solvers.prefdisco.settings import DEFAULTS
from heedbench.solvers.prefdisco.settings import LEGACY as LEGACY_SWITCHES
from tests.prefdisco.scripted import asks, grader_reply, models
from tests.report.helpers import logs_of, mean_and_se, report_markdown, sample_rows
from tests.report.runs import ASKER, FIXED_K, PROBER

Report = tuple[Loaded, list[Section], Path]
CONDITIONS = ("baseline", "discovery", "oracle")
DEFAULT = "protocol=paper, judge=batched, user_type=passive"
"""The setting of the shared logs (tests/report/runs.py judges them batched)."""


def default_log(log_dir: Path, model: str) -> EvalLog:
    """The newest run of `model` with the default setting (no fixed questions)."""
    return next(
        log
        for log in logs_of(log_dir, "prefdisco", model)
        if log.eval.task_args.get("fixed_questions") is None
    )


def rows_by(loaded: Loaded) -> dict[tuple[str, str, str], PrefDiscoRow]:
    return {(r.model, r.settings, r.source): r for r in prefdisco_rows(loaded)}


def paired_alignment(samples: list[tuple[dict[str, Any], dict[str, float], Any]]) -> tuple[
    float, int
]:  # fmt: skip
    """Normalized alignment over the records scored in all three conditions, and their count."""
    by_record: dict[tuple[str, str], dict[str, float]] = {}
    for m, v, _ in samples:
        by_record.setdefault((m["problem_id"], m["persona_id"]), {})[m["condition"]] = v[
            "prefalign"
        ]
    complete = [r for r in by_record.values() if len(r) == 3 and all(x == x for x in r.values())]
    b, d, o = (statistics.fmean(r[c] for r in complete) for c in CONDITIONS)
    return normalized_alignment(b, d, o), len(complete)


def source_means(samples: Any) -> tuple[float, ...]:
    """One source's B, D and O over its records scored in all three conditions."""
    by_record: dict[tuple[str, str], dict[str, float]] = {}
    for m, v, _ in samples:
        by_record.setdefault((m["problem_id"], m["persona_id"]), {})[m["condition"]] = v[
            "prefalign"
        ]
    complete = [r for r in by_record.values() if len(r) == 3 and all(x == x for x in r.values())]
    return tuple(statistics.fmean(r[c] for r in complete) for c in CONDITIONS)


def test_alignment_accuracy_and_questions_match_the_samples(log_dir: Path, report: Report) -> None:
    loaded, _, out = report
    text = report_markdown(out / "report.md")
    rows = rows_by(loaded)
    samples = sample_rows(default_log(log_dir, ASKER))
    per_source = {}
    for source in ("math", "medqa", ALL):
        mine = [(m, v, x) for m, v, x in samples if source in (ALL, m["source"])]
        row = rows[(ASKER, DEFAULT, source)]
        for condition in CONDITIONS:
            picked = [v for m, v, _ in mine if m["condition"] == condition]
            for key, estimate in (
                ("prefalign", row.prefalign[condition]),
                ("correct", row.accuracy[condition]),
            ):
                mean, se, n = mean_and_se([v[key] for v in picked])
                assert estimate.value == pytest.approx(mean)
                assert estimate.n == n
                assert estimate.stderr == pytest.approx(se)
        questions = mean_and_se(
            [v["questions"] for m, v, _ in mine if m["condition"] == "discovery"]
        )
        assert row.questions.value == pytest.approx(questions[0])
        if source != ALL:
            per_source[source] = paired_alignment(mine)
            expected, complete = per_source[source]
        else:  # over all sources: from the source-averaged means, on all their records
            means = [source_means(x for x in samples if x[0]["source"] == s) for s in per_source]
            b, d, o = (statistics.fmean(m[i] for m in means) for i in range(3))
            expected = normalized_alignment(b, d, o)
            complete = sum(n for _, n in per_source.values())
        assert row.normalized.value == pytest.approx(expected)
        assert row.normalized.n == complete
        assert row.normalized.low is not None and row.normalized.high is not None
        assert row.normalized.low <= row.normalized.value <= row.normalized.high
        by_record: dict[tuple[str, str], dict[str, float]] = {}
        for m, v, _ in mine:
            by_record.setdefault((m["problem_id"], m["persona_id"]), {})[m["condition"]] = v[
                "prefalign"
            ]
        paired = [
            r
            for r in by_record.values()
            if all(r.get(c, float("nan")) == r.get(c) for c in ("baseline", "discovery"))
        ]
        worse = [float(r["discovery"] < r["baseline"]) for r in paired]
        assert row.worse.value == pytest.approx(sum(worse) / len(worse))
        assert row.worse.n == len(worse)
        assert f"| {ASKER} | {DEFAULT} | {row.source if source != ALL else f'**{ALL}**'} |" in text
        assert fmt(row.normalized, 1) in text


def test_missing_oracle_says_so(report: Report) -> None:
    guesser = rows_by(report[0])[("mockllm/guesser", DEFAULT, ALL)]
    assert guesser.normalized.missing
    assert guesser.missing == "—, no oracle run"
    assert f"| mockllm/guesser | {DEFAULT} | **{ALL}** |" in report_markdown(
        report[2] / "report.md"
    )


def test_runs_of_one_model_under_two_settings_are_never_pooled(tmp_path: Path) -> None:
    # The same model, once by default (grader: baseline 2, discovery 3, oracle 4 -> 50) and
    # once with four fixed questions (grader: discovery 2 -> 0); pooled, they would read 25.
    logs = tmp_path / "logs"
    grades = {"default": {"baseline": 2, "discovery": 3, "oracle": 4},
              "fixed": {"baseline": 2, "discovery": 2, "oracle": 4}}  # fmt: skip
    for name, params in (("default", {}), ("fixed", {"fixed_questions": 4})):
        target, roles = models(asks(1), grader=functools.partial(grader_reply, grades=grades[name]))
        log = eval(prefdisco(**params), model=target, model_roles=roles, limit=6,  # type: ignore[arg-type]
                   display="none", log_dir=str(logs))[0]  # fmt: skip
        assert log.status == "success"
    out = tmp_path / "out"
    loaded, sections = build_sections(Options(logs=[str(logs)], out=out))
    overall = [r for r in prefdisco_rows(loaded) if r.source == ALL]
    assert len(overall) == 2 and {r.model for r in overall} == {"mockllm/model"}
    found = {r.setting["fixed_questions"]: r.normalized.value for r in overall}
    assert found == {None: pytest.approx(50.0), 4: pytest.approx(0.0)}
    section = next(s for s in sections if s.title.startswith("prefdisco"))
    lines = [line for line in section.summary if line.startswith("prefdisco mockllm/model")]
    assert len(lines) == 2
    default = "protocol=paper, judge=per_criterion, user_type=passive"
    assert any(f"[{default}, fixed_questions=4]" in line and "normalized 0.0" in line
               for line in lines)  # fmt: skip
    assert any(f"[{default}]" in line and "normalized 50.0" in line for line in lines)


def test_the_stock_questionnaire_stands_beside_the_models_own_discovery(tmp_path: Path) -> None:
    # Own discovery (grader: B 2, D 4, O 4 -> 100) and a stock-questionnaire discovery run
    # alone (D 3): on the same records, with the own run's B and O, 100·(3 − 2)/(4 − 2) = 50,
    # so the questionnaire earns half of the model's own discovery gain.
    logs = tmp_path / "logs"
    runs: tuple[tuple[dict[str, Any], dict[str, int]], ...] = (({}, {"baseline": 2, "discovery": 4, "oracle": 4}),
            ({"questions": "stock", "condition": "discovery"}, {"discovery": 3}))  # fmt: skip
    for params, grades in runs:
        target, roles = models(asks(1), grader=functools.partial(grader_reply, grades=grades))
        log = eval(prefdisco(**params), model=target, model_roles=roles, limit=6,
                   display="none", log_dir=str(logs))[0]  # fmt: skip
        assert log.status == "success"
    out = tmp_path / "out"
    loaded, sections = build_sections(Options(logs=[str(logs)], out=out))
    [row] = stock_rows(read_prefdisco_samples(loaded), np.random.default_rng(0))
    assert (row.model, row.source) == ("mockllm/model", "math")
    assert row.own.value == pytest.approx(100.0) and row.stock.value == pytest.approx(50.0)
    assert row.share == pytest.approx(0.5)
    assert row.own.n == row.stock.n == 2  # the two records scored in all four
    section = next(s for s in sections if s.title.startswith("prefdisco"))
    assert any("stock questionnaire: normalized 50.0" in line for line in section.summary)
    table = next(t for t in section.tables if "stock questionnaire" in t.caption)
    assert table.rows[0][0] == "mockllm/model" and "questions" not in table.rows[0][1]
    assert (table.rows[0][2], table.rows[0][-1]) == ("math", "50%")


def test_settings_are_read_from_the_task_arguments() -> None:
    assert run_setting({}) == {
        **SETTING_DEFAULTS, "protocol": "budgeted", "judge": "batched", **LEGACY_SWITCHES.record()
    }  # fmt: skip
    unset = dict.fromkeys(SWITCHES)  # a current log records the switches, unset by default
    setting = run_setting({"protocol": "paper", "judge": "batched", "max_problems": 5, **unset})
    assert setting["seed"] == 42  # the draw's default seed, as the task records it
    assert setting_label(setting) == f"{DEFAULT}, max_problems=5, seed=42"
    assert setting_label(run_setting({**SETTING_DEFAULTS, **unset})) == (
        "protocol=paper, judge=per_criterion, user_type=passive"
    )
    defaults = {name: p.default for name, p in inspect.signature(prefdisco).parameters.items()}
    assert {key: defaults[key] for key in SETTING_DEFAULTS} == SETTING_DEFAULTS
    assert {key: defaults[key] for key in SWITCHES} == unset
    assert provider_of("openai/gpt-4o") == "openai" and provider_of(ASKER) == "openai"


def test_switches_resolve_by_protocol_and_old_logs_keep_what_they_ran() -> None:
    unset = dict.fromkeys(SWITCHES)
    paper = run_setting({**SETTING_DEFAULTS, **unset})
    explicit = run_setting({**SETTING_DEFAULTS, **DEFAULTS["paper"].record()})
    assert paper == explicit  # the protocol's own choice, said or not, is one setting
    budgeted = run_setting({**SETTING_DEFAULTS, "protocol": "budgeted", **unset})
    assert {k: budgeted[k] for k in SWITCHES} == LEGACY_SWITCHES.record()
    assert "grader_prompt" not in setting_label(budgeted)  # budgeted's own choice: not named
    # a paper log written before the switches: what heedbench ran then (budgeted's choices)
    old = run_setting(SETTING_DEFAULTS)
    assert old != paper and setting_label(old) == (
        "protocol=paper, judge=per_criterion, user_type=passive, grader_prompt=anchored, "
        "user_format=text, sampling=provider, reasoning=provider, correctness=deterministic, "
        "markers=labels, share_baseline=False"
    )
    # a 3.0.0 log (three switches recorded, correctness as given) keeps what it ran
    v3 = run_setting({**SETTING_DEFAULTS, "grader_prompt": None, "user_format": None,
                      "sampling": None, "correctness": "deterministic"})  # fmt: skip
    assert setting_label(v3) == (
        "protocol=paper, judge=per_criterion, user_type=passive, reasoning=provider, "
        "correctness=deterministic, markers=labels, share_baseline=False"
    )


def test_figures_name_models_as_the_tables_do(
    report: Report, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _, sections, _ = report
    section = next(s for s in sections if s.title.startswith("prefdisco"))
    named: list[str] = []

    def record(path: Path, **kwargs: Any) -> None:
        """Keep the model labels a figure draws: bar groups or series, histograms, panels."""
        if kwargs.get("xlabel") == "model":
            named.extend(kwargs["groups"])
        elif "groups" in kwargs:
            named.extend(kwargs["series"])
        named.extend(kwargs.get("counts", {}))
        named.extend(panel[0] for panel in kwargs.get("panels", ()))

    for name in ("grouped_bars", "histograms", "scatter_fits", "line_panels"):
        monkeypatch.setattr(figures, name, record)
    for figure in section.figures:
        figure.draw(tmp_path / figure.name)
    table_models = {row[0] for table in section.tables for row in table.rows}
    assert named and ASKER in table_models
    # every label a figure draws is a model exactly as the tables name it (mockllm/... here)
    assert all(label.split(" (")[0] in table_models for label in named), named
    assert all(label.startswith("mockllm/") for label in named)


def test_share_of_model_source_pairs_with_negative_alignment(report: Report) -> None:
    loaded, sections, _ = report
    rows = prefdisco_rows(loaded)
    pairs = [
        r for r in rows if r.settings == DEFAULT and r.source != ALL and not r.normalized.missing
    ]
    assert {(r.model, r.source) for r in pairs} == {
        (ASKER, "math"), (ASKER, "medqa"), (PROBER, "math")
    }  # fmt: skip
    negative = sum(r.normalized.value < 0 for r in pairs)
    assert negative >= 1  # the prober personalises badly (tests/report/runs.py)
    share = next(s for s in negative_shares(rows) if s.settings == DEFAULT)
    assert share.share.value == pytest.approx(negative / len(pairs)) and share.share.n == 3
    section = next(s for s in sections if s.title.startswith("prefdisco"))
    table = next(t for t in section.tables if t.caption.startswith("Share of model"))
    assert [DEFAULT, "3", str(negative)] == next(r for r in table.rows if r[0] == DEFAULT)[:3]
    assert any(f"{negative} of 3 model × source pairs" in line for line in section.summary)


def test_questions_against_prefalign_per_provider(log_dir: Path, report: Report) -> None:
    _, sections, _ = report
    section = next(s for s in sections if s.title.startswith("prefdisco"))
    table = next(t for t in section.tables if "Figure 3" in t.caption)
    found = {(row[0], row[1]): row for row in table.rows}
    for model, provider in ((ASKER, "openai"), (PROBER, "google")):
        points = [
            (v["questions"], v["prefalign"])
            for m, v, _ in sample_rows(default_log(log_dir, model))
            if m["condition"] == "discovery" and not math.isnan(v["prefalign"])
        ]
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        r = statistics.correlation(xs, ys)
        slope, intercept = statistics.linear_regression(xs, ys)
        row = found[(DEFAULT, provider)]
        assert row[2] == str(len(points))
        assert row[5].startswith(f"{r:.3f} [") and row[7].startswith(f"{slope:.3f} ±")
        assert row[8] == f"{intercept:.2f}"
    assert (DEFAULT, "**all providers**") in found
    # free discovery only: the fixed-k runs of the asker have a setting of their own
    assert not any("fixed_questions" in key[0] for key in found)
    names = [figure.name for figure in section.figures]
    assert "prefdisco_questions_vs_prefalign.png" in names


def test_fixed_numbers_of_questions_by_source(report: Report) -> None:
    loaded, sections, out = report
    rows = [r for r in prefdisco_rows(loaded) if r.model == ASKER]
    for k in FIXED_K:
        row = next(r for r in rows if r.setting["fixed_questions"] == k and r.source == "math")
        assert row.questions.value == k  # a model that always asks asks exactly k
        assert row.prefalign["discovery"].n > 0
    section = next(s for s in sections if s.title.startswith("prefdisco"))
    table = next(t for t in section.tables if "Figure 5" in t.caption)
    shown = [(row[2], row[3]) for row in table.rows if row[0] == ASKER]
    assert shown[:2] == [("free", "math"), ("free", "medqa")]
    assert [k for k, source in shown if source == "math"] == ["free", "2", "4", "8"]
    assert (out / "prefdisco_fixed_questions.png").stat().st_size > 10_000
