"""The `prefdisco` tables, checked against real offline runs (tests/report/runs.py)."""

from pathlib import Path

import pytest

from heedbench.report.document import Section
from heedbench.report.load import Loaded
from heedbench.report.prefdisco import ALL, prefdisco_rows
from heedbench.report.stats import fmt
from heedbench.scorers import normalized_alignment
from tests.report.helpers import logs_of, mean_and_se, sample_rows

Report = tuple[Loaded, list[Section], Path]


def test_alignment_accuracy_and_questions_match_the_samples(log_dir: Path, report: Report) -> None:
    loaded, _, out = report
    text = (out / "report.md").read_text()
    rows = {(r.model, r.source): r for r in prefdisco_rows(loaded)}
    samples = sample_rows(logs_of(log_dir, "prefdisco", "mockllm/asker")[0])
    for source in ("math", "medqa", ALL):
        mine = [(m, v) for m, v, _ in samples if source in (ALL, m["source"])]
        row = rows[("mockllm/asker", source)]
        for condition in ("baseline", "discovery", "oracle"):
            picked = [v for m, v in mine if m["condition"] == condition]
            for key, estimate in (
                ("prefalign", row.prefalign[condition]),
                ("correct", row.accuracy[condition]),
            ):
                mean, se, n = mean_and_se([v[key] for v in picked])
                assert estimate.value == pytest.approx(mean)
                assert estimate.n == n
                assert estimate.stderr == pytest.approx(se)
        questions = mean_and_se([v["questions"] for m, v in mine if m["condition"] == "discovery"])
        assert row.questions.value == pytest.approx(questions[0])
        # normalized alignment over records scored in all three conditions
        by_record: dict[tuple[str, str], dict[str, float]] = {}
        for m, v in mine:
            by_record.setdefault((m["problem_id"], m["persona_id"]), {})[m["condition"]] = v[
                "prefalign"
            ]
        complete = [
            r for r in by_record.values() if len(r) == 3 and all(x == x for x in r.values())
        ]
        b, d, o = (
            sum(r[c] for r in complete) / len(complete) for c in ("baseline", "discovery", "oracle")
        )
        assert row.normalized.value == pytest.approx(normalized_alignment(b, d, o))
        assert row.normalized.n == len(complete)
        assert row.normalized.low is not None and row.normalized.high is not None
        assert row.normalized.low <= row.normalized.value <= row.normalized.high
        paired = [
            r
            for r in by_record.values()
            if all(r.get(c, float("nan")) == r.get(c) for c in ("baseline", "discovery"))
        ]
        worse = [float(r["discovery"] < r["baseline"]) for r in paired]
        assert row.worse.value == pytest.approx(sum(worse) / len(worse))
        assert row.worse.n == len(worse)
        assert fmt(row.normalized, 1) in text


def test_missing_oracle_says_so(report: Report) -> None:
    rows = {(r.model, r.source): r for r in prefdisco_rows(report[0])}
    guesser = rows[("mockllm/guesser", ALL)]
    assert guesser.normalized.missing
    assert guesser.missing == "—, no oracle run"
    assert (
        "| mockllm/guesser | passive | **all sources** |" in (report[2] / "report.md").read_text()
    )
