"""The `choice` tables against real offline runs (scripted oracle/noisy models, chance model)."""

from pathlib import Path

import pytest

from heedbench.report.choice import CHANCE_MODEL, choice_rows
from heedbench.report.document import Section
from heedbench.report.load import Loaded
from heedbench.report.stats import fmt
from tests.report.helpers import logs_of, mean_and_se, sample_rows

Report = tuple[Loaded, list[Section], Path]


def test_every_row_matches_means_recomputed_from_the_samples(log_dir: Path, report: Report) -> None:
    loaded, _, out = report
    text = (out / "report.md").read_text()
    rows = choice_rows(loaded)
    assert len(rows) == 8  # 3 designs x 3 models, minus pairwise_test for the chance model
    for row in rows:
        log = next(
            log
            for log in logs_of(log_dir, "choice", row.model)
            if log.eval.metadata and log.eval.metadata["method"] == row.method
        )  # the newest run
        samples = sample_rows(log)
        valid = [value for _, value, _ in samples if value["valid"] == 1.0]
        assert row.valid == len(valid) and row.contexts == len(samples) == 23
        for key in ("spo", "kendall", "kendall_norm", "queries"):
            mean, se, n = mean_and_se([value[key] for value in valid])
            if row.method == "pairwise_test" and key.startswith("kendall"):
                assert n == 0
                continue
            estimate = row.estimates[key]
            assert estimate.value == pytest.approx(mean)
            assert estimate.n == n
            assert estimate.stderr == pytest.approx(se, nan_ok=True)
        assert fmt(row.estimates["spo"]) in text


def test_oracle_is_perfect_and_chance_is_the_reference_row(report: Report) -> None:
    loaded, _, out = report
    rows = {(r.method, r.model): r for r in choice_rows(loaded)}
    assert rows[("pointwise", "mockllm/oracle")].estimates["spo"].value == 1.0
    assert rows[("pointwise", "mockllm/oracle")].estimates["kendall"].value == 0.0
    chance = rows[("pointwise", CHANCE_MODEL)].estimates["spo"].value
    assert chance < rows[("pointwise", "mockllm/oracle")].estimates["spo"].value
    text = (out / "report.md").read_text()
    assert f"| pointwise | T7 | {CHANCE_MODEL} (chance) |" in text
    # pairwise_test was not run with the chance model: the table says so
    assert f"| pairwise_test | — | {CHANCE_MODEL} (chance) | — | —, no chance run |" in text
    assert "— (SPO only)" in text


def test_newest_run_wins_and_older_runs_are_listed(report: Report) -> None:
    loaded, _, out = report
    noisy = next(
        r for r in choice_rows(loaded) if (r.method, r.model) == ("pointwise", "mockllm/noisy")
    )
    # the superseded run answered like the oracle (SPO 1); the newest is noisy
    assert noisy.estimates["spo"].value < 1.0
    assert len(loaded.superseded) == 2
    assert (out / "report.md").read_text().count("no: newer logs of the same run hold") == 2
