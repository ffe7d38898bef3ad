"""Offline logs for the report tests: real runs of all three tasks with scripted models.

Built once per test session (per xdist worker) into a temporary folder, then reported on.
"""

import os
from pathlib import Path

import pytest
from filelock import FileLock
from inspect_ai import eval
from inspect_ai.model import Model

from heedbench.evals.choice import choice
from heedbench.report.cli import Options, build_sections
from heedbench.report.document import Section
from heedbench.report.load import Loaded
from heedbench.report.render import write_report
from heedbench.testing import choice_oracle, scripted_model, user_ranks
from tests.report import foreign, runs

N = 5
CHOICE_METHODS = ("pointwise", "pairwise_score", "pairwise_test")


def scripted(name: str, reply: str = "ok") -> Model:
    return scripted_model(lambda prompt: reply, name=name)


def broken(prompt: str) -> str:
    raise RuntimeError("scripted failure")


def roles() -> dict[str, Model]:
    return {"user": scripted("sim-user"), "grader": scripted("judge")}


def run(task: object, model: Model | str, log_dir: Path, **kwargs: object) -> None:
    eval(task, model=model, display="none", log_dir=str(log_dir), **kwargs)  # type: ignore[arg-type]


def build_logs(log_dir: Path) -> None:
    ranks = user_ranks(n=N)
    models: dict[str, Model | str] = {
        "oracle": scripted_model(choice_oracle(ranks), name="oracle"),
        "noisy": scripted_model(choice_oracle(ranks, noise=0.3), name="noisy"),
        "random": "heedbench/random",
    }
    for method in CHOICE_METHODS:
        for name, model in models.items():
            if method == "pairwise_test" and name == "random":
                continue  # leaves one design without a chance row
            run(choice(n=N, method=method), model, log_dir)
    # an older pointwise run of the noisy model, superseded by a newer one below
    run(
        choice(n=N, method="pointwise"), scripted_model(choice_oracle(ranks), name="noisy"), log_dir
    )
    run(choice(n=N, method="pointwise"), models["noisy"], log_dir)

    # real carryon and prefdisco runs (the failed carryon run is kept out of the numbers)
    runs.carryon_logs(log_dir, fail=broken)
    runs.prefdisco_logs(log_dir)

    # a log of another suite: listed and skipped
    run(foreign.other_suite(), scripted("outsider"), log_dir, model_roles=roles())


@pytest.fixture(scope="session")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The logs, built once per test session even when xdist runs several workers."""
    base = tmp_path_factory.getbasetemp()
    # Under xdist each worker's base sits in the run's own folder, which they share.
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    path = shared / "report-logs"
    with FileLock(str(shared / "report-logs.lock")):
        if not (path / "complete").exists():
            path.mkdir(exist_ok=True)
            build_logs(path)
            (path / "complete").touch()
    return path


@pytest.fixture(scope="session")
def report(
    log_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Loaded, list[Section], Path]:
    out = tmp_path_factory.mktemp("report")
    loaded, sections = build_sections(Options(logs=[str(log_dir)], out=out))
    assert write_report(sections, out) == []
    return loaded, sections, out
