"""Offline logs for the report tests: real runs of all three tasks with scripted models.

Built once per test session (per xdist worker) into a temporary folder, then reported on.
"""

import os
from collections.abc import Callable
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
from heedbench.solvers.choice import ChoiceMethod
from heedbench.solvers.choice.prompts import TEMPLATES, TemplateId
from heedbench.testing import ContextRanks, Reply, choice_oracle, scripted_model, user_ranks
from tests.report import foreign, runs

N = 5
CHOICE_TEMPLATES: dict[ChoiceMethod, tuple[TemplateId, ...]] = {
    "pointwise": ("T7", "T8"),
    "pairwise_score": ("T1", "T2"),
    "pairwise_test": ("T5", "T6"),
}
"""Two templates × three designs, each run with the oracle and the picky model."""
CHANCE_RUNS: tuple[tuple[ChoiceMethod, TemplateId], ...] = (
    ("pointwise", "T7"),
    ("pairwise_score", "T1"),
)
"""The chance model runs the default templates of two designs (none for pairwise_test)."""
PICKY_GOOD = ("T2", "T6", "T8")
"""Templates the picky model answers like the oracle (T8 only for contexts without rain)."""


def scripted(name: str, reply: str = "ok") -> Model:
    return scripted_model(lambda prompt: reply, name=name)


def broken(prompt: str) -> str:
    raise RuntimeError("scripted failure")


def roles() -> dict[str, Model]:
    return {"user": scripted("sim-user"), "grader": scripted("judge")}


def run(task: object, model: Model | str, log_dir: Path, **kwargs: object) -> None:
    eval(task, model=model, display="none", log_dir=str(log_dir), **kwargs)  # type: ignore[arg-type]


def template_of(prompt: str) -> str:
    """Which template a prompt was written from (default 1–5 score range)."""
    for template_id, template in TEMPLATES.items():
        if prompt.startswith(template.system.format(score_low=1, score_high=5) + "\n"):
            return template_id
    raise AssertionError(f"no template matches {prompt[:80]!r}")


def context_of(prompt: str) -> str:
    return prompt.split("Context:", 1)[1].splitlines()[0]


def picky_reply(ranks: ContextRanks) -> Reply:
    """Exact with the templates in `PICKY_GOOD`, noisy with the others; with T8 it answers
    prose (⊥) in rainy contexts, so its best-SPO pointwise run is not valid everywhere."""
    exact, noisy = choice_oracle(ranks), choice_oracle(ranks, noise=0.3)

    def reply(prompt: str) -> str:
        template = template_of(prompt)
        if template == "T8" and "rain" in context_of(prompt):
            return "It depends on the weather, really."
        return exact(prompt) if template in PICKY_GOOD else noisy(prompt)

    return reply


def choice_logs(log_dir: Path) -> None:
    ranks = user_ranks(n=N)
    models: dict[str, Model] = {
        "oracle": scripted_model(choice_oracle(ranks), name="oracle"),
        "picky": scripted_model(picky_reply(ranks), name="picky"),
    }
    # an older pointwise T7 run of the picky model, superseded by the newer one below
    run(
        choice(n=N, method="pointwise", template="T7"),
        scripted_model(choice_oracle(ranks), name="picky"),
        log_dir,
    )
    for method, templates in CHOICE_TEMPLATES.items():
        for template in templates:
            for model in models.values():
                run(choice(n=N, method=method, template=template), model, log_dir)
    for method, template in CHANCE_RUNS:
        run(choice(n=N, method=method, template=template), "heedbench/random", log_dir)


def other_logs(log_dir: Path) -> None:
    """Real carryon and prefdisco runs (the failed carryon run is kept out of the numbers),
    and a log of another suite: listed and skipped."""
    runs.carryon_logs(log_dir, fail=broken)
    run(foreign.other_suite(), scripted("outsider"), log_dir, model_roles=roles())


PARTS: tuple[tuple[str, Callable[[Path], None]], ...] = (
    ("choice", choice_logs),
    ("carryon", other_logs),
    ("prefdisco", runs.prefdisco_logs),
)
"""The logs in three folders under one root, each built once by whichever worker gets to it
first: two xdist workers start from opposite ends, so they build different parts at the same
time instead of one waiting for the other to build everything."""


@pytest.fixture(scope="session")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The logs, built once per test session even when xdist runs several workers."""
    base = tmp_path_factory.getbasetemp()
    # Under xdist each worker's base sits in the run's own folder, which they share.
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    shared = base.parent if worker else base
    root = shared / "report-logs"
    order = PARTS if not worker or int(worker.removeprefix("gw")) % 2 == 0 else PARTS[::-1]
    for name, build in order:
        with FileLock(str(shared / f"report-logs-{name}.lock")):
            folder = root / name
            if not (folder / "complete").exists():
                folder.mkdir(parents=True, exist_ok=True)
                build(folder)
                (folder / "complete").touch()
    return root


@pytest.fixture(scope="session")
def report(
    log_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Loaded, list[Section], Path]:
    out = tmp_path_factory.mktemp("report")
    loaded, sections = build_sections(Options(logs=[str(log_dir)], out=out))
    write_report(sections, out)
    return loaded, sections, out
