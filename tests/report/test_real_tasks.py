"""The report on logs of the real carryon and prefdisco tasks (offline, scripted models).

The detailed checks run on stand-in logs (conftest.py); this checks that the real tasks'
logs are read the same way and that the headline means match their samples.
"""

from pathlib import Path

import pytest
from inspect_ai import eval

from heedbench.evals.carryon.task import carryon
from heedbench.evals.prefdisco.task import prefdisco
from heedbench.report.carryon import carryon_data
from heedbench.report.load import load_runs
from heedbench.report.prefdisco import ALL, prefdisco_rows
from heedbench.testing import scripted_model
from heedbench.testing_carryon import refuse_then_recover, scripted_grader, scripted_user
from tests.prefdisco.scripted import asks, models
from tests.report.helpers import logs_of, mean_and_se, sample_rows


@pytest.fixture(scope="module")
def real_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    log_dir = tmp_path_factory.mktemp("real")
    eval(
        carryon(flows_per_query=2),
        model=scripted_model(refuse_then_recover(), "recovers"),
        model_roles={
            "user": scripted_model(scripted_user, "user"),
            "grader": scripted_model(scripted_grader, "grader"),
        },
        limit=24,
        display="none",
        log_dir=str(log_dir),
    )
    evaluated, roles = models(asks(2))
    eval(prefdisco(), model=evaluated, model_roles=roles, limit=9, display="none",
         log_dir=str(log_dir))  # fmt: skip
    return log_dir


def test_real_carryon_means_match_the_samples(real_logs: Path) -> None:
    data = carryon_data(load_runs([str(real_logs)]))
    assert data is not None
    rows = sample_rows(logs_of(real_logs, "carryon", "mockllm/recovers")[0])
    for condition, key in (("turn1", "turn1_utility"), ("bc", "last_utility"), ("bc", "harm")):
        mean, _, n = mean_and_se([v[key] for m, v, _ in rows if m["condition"] == condition])
        estimate = data.estimate("mockllm/recovers", condition, key)
        assert estimate.value == pytest.approx(mean)
        assert estimate.n == n > 0
    assert not data.turns.empty  # per-exchange series read from the score metadata


def test_real_prefdisco_means_match_the_samples(real_logs: Path) -> None:
    rows = {(r.model, r.source): r for r in prefdisco_rows(load_runs([str(real_logs)]))}
    row = rows[("mockllm/model", ALL)]
    samples = sample_rows(logs_of(real_logs, "prefdisco", "mockllm/model")[0])
    for condition in ("baseline", "discovery", "oracle"):
        mean, _, n = mean_and_se(
            [v["prefalign"] for m, v, _ in samples if m["condition"] == condition]
        )
        assert row.prefalign[condition].value == pytest.approx(mean)
        assert row.prefalign[condition].n == n > 0
    assert row.questions.value == 2.0
    assert not row.normalized.missing
