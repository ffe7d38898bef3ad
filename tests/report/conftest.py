"""Offline logs for the report tests: real `choice` runs, stand-in carryon/prefdisco runs.

Built once per test session (per xdist worker) into a temporary folder, then reported on.
"""

from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.model import Model

from heedbench.evals.choice import choice
from heedbench.report.cli import Options, build_sections
from heedbench.report.document import Section
from heedbench.report.load import Loaded
from heedbench.report.render import write_report
from heedbench.testing import choice_oracle, scripted_model, user_ranks
from tests.report import standins

N = 5
CHOICE_METHODS = ("pointwise", "pairwise_score", "pairwise_test")


def scripted(name: str, reply: str = "ok") -> Model:
    return scripted_model(lambda prompt: reply, name=name)


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

    # carryon stand-ins: a recovering model with every condition, one without an oracle run
    run(standins.carryon(seed=1, skill=0.3), scripted("recoverer"), log_dir, model_roles=roles())
    run(
        standins.carryon(seed=2, skill=0.01, conditions="turn1,bc,nc"),
        scripted("locked"),
        log_dir,
        model_roles=roles(),
    )
    # prefdisco stand-ins: one model with all conditions, one without oracle
    run(standins.prefdisco(seed=3, gain=1.0), scripted("asker"), log_dir, model_roles=roles())
    run(
        standins.prefdisco(seed=4, gain=-0.5, conditions="baseline,discovery"),
        scripted("guesser"),
        log_dir,
        model_roles=roles(),
    )

    # a failed heedbench run and a log of another suite: both kept out of the numbers
    run(standins.carryon(seed=5, fail=True), scripted("broken"), log_dir, model_roles=roles())
    run(standins.other_suite(), scripted("outsider"), log_dir, model_roles=roles())


@pytest.fixture(scope="session")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("logs")
    build_logs(path)
    return path


@pytest.fixture(scope="session")
def report(
    log_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Loaded, list[Section], Path]:
    out = tmp_path_factory.mktemp("report")
    loaded, sections = build_sections(Options(logs=[str(log_dir)], out=out))
    assert write_report(sections, out) == []
    return loaded, sections, out
