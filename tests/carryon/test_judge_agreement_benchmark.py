"""The judge-agreement benchmark's arithmetic, on a scripted carryon log and scripted graders."""

import asyncio
import json
from pathlib import Path

import pytest
from inspect_ai import eval

from benchmarks.carryon_judge_agreement import compare, responses
from heedbench.evals.carryon import load_queries
from heedbench.evals.carryon.task import carryon
from heedbench.testing import scripted_model
from heedbench.testing_carryon import (
    refuse_then_recover,
    scripted_grader,
    scripted_user,
    write_queries,
)


@pytest.fixture(scope="module")
def log_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("agreement")
    data = write_queries(folder / "q.jsonl", load_queries()[:2], items=6)
    log = eval(
        carryon(data=str(data), condition="oracle"),
        model=scripted_model(refuse_then_recover(), "target"),
        model_roles={
            "user": scripted_model(scripted_user, "user"),
            "grader": scripted_model(scripted_grader, "grader"),
        },
        display="none",
        log_dir=str(folder),
    )[0]
    return log.location


def test_the_same_grader_agrees_with_itself(log_path: str) -> None:
    judged = responses(log_path, None)
    assert len(judged) == 2  # one oracle response per query
    summary = asyncio.run(compare(scripted_model(scripted_grader, "grader"), judged))
    assert summary["items_compared"] == 12 and summary["items_unjudged"] == 0
    assert summary["observed_agreement"] == 1.0 and summary["kappa"] == 1.0
    assert summary["utility_gap_mean_abs"] == 0.0


def test_a_batched_mode_that_misses_item_one_is_measured(log_path: str) -> None:
    # Oracle responses cover items 1 and 2; this grader's batched verdicts drop item 1.
    def lossy(prompt: str) -> str:
        reply = scripted_grader(prompt)
        if "Checklist:" in prompt:
            verdicts = json.loads(reply)
            verdicts["fulfilled"]["1"] = False
            return json.dumps(verdicts)
        return reply

    summary = asyncio.run(compare(scripted_model(lossy, "grader"), responses(log_path, None)))
    # per response: items 1,2 yes per item; batched yes only for 2 -> 1 disagreement of 6
    assert summary["counts"] == {"both_yes": 2, "first_only": 2, "second_only": 0, "both_no": 8}
    assert summary["observed_agreement"] == pytest.approx(10 / 12)
    assert summary["utility_gap_mean"] == pytest.approx(-1 / 6)
    assert Path(log_path).exists()
