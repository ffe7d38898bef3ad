"""Small offline logs of every task family, and fresh processes to read them in.

A log written here comes from this pytest process, where heedbench is imported from the
checkout; a fresh process runs outside the checkout, where heedbench is the installed package
(as for a user), so Inspect names its registry objects `heedbench/...`. Comparing the two is
how the tests catch a name that depends on how heedbench was imported.
"""

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.log import EvalLog

from heedbench.evals.carryon import load_queries
from heedbench.evals.carryon.task import carryon
from heedbench.evals.choice import choice
from heedbench.evals.judge_check.task import carryon_judge_check, prefdisco_judge_check
from heedbench.evals.prefdisco.task import prefdisco
from heedbench.testing import choice_oracle, scripted_model, user_ranks
from heedbench.testing_carryon import (
    refuse_then_recover,
    scripted_grader,
    scripted_user,
    write_queries,
)
from tests.judge_check.test_judge_check import grader as judge_check_grader
from tests.judge_check.test_judge_check import perfect
from tests.prefdisco.scripted import asks, models

ROOT = Path(__file__).resolve().parents[2]
CHOICE_N = 5
NOISE = 0.3
"""A share of wrong pairwise answers, so K(p) depends on p."""
TIMEOUT = 600


FAMILIES = ("choice", "carryon", "prefdisco", "carryon_judge_check", "prefdisco_judge_check")
TASKS: dict[str, Callable[..., Task]] = {
    "choice": choice,
    "carryon": carryon,
    "prefdisco": prefdisco,
    "carryon_judge_check": carryon_judge_check,
    "prefdisco_judge_check": prefdisco_judge_check,
}


def carryon_queries(folder: Path) -> Path:
    """Two shipped queries cut to six checklist items."""
    folder.mkdir(parents=True, exist_ok=True)
    return write_queries(folder / "queries.jsonl", load_queries()[::100][:2], 6)


def _setup(family: str, log_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The task arguments and the `eval()` arguments of a small offline run of `family`.

    choice: four contexts answered by a noisy oracle; carryon: all four conditions, two
    queries with two conversations each; prefdisco: three math records in the three
    conditions; the judge checks: twelve cases and a grader that agrees with the gold.
    """
    if family == "choice":
        reply = choice_oracle(user_ranks(n=CHOICE_N), noise=NOISE)
        return {"n": CHOICE_N}, {"model": scripted_model(reply), "limit": 4}
    if family == "carryon":
        roles = {
            "user": scripted_model(scripted_user, "user"),
            "grader": scripted_model(scripted_grader, "grader"),
        }
        task_args = {"data": str(carryon_queries(log_dir)), "flows_per_query": 2}
        target = scripted_model(refuse_then_recover(), "target")
        return task_args, {"model": target, "model_roles": roles}
    if family == "prefdisco":
        evaluated, roles = models(asks(2))
        return {}, {"model": evaluated, "model_roles": roles, "limit": 9}
    grader = scripted_model(judge_check_grader(perfect), "grader-under-test")
    return {}, {"model": grader, "limit": 12}


def launch(family: str, log_dir: Path, *, by_name: bool = False) -> EvalLog:
    """Run `family` offline, from the task function or by its registry name."""
    task_args, kwargs = _setup(family, log_dir)
    task: Task | str = f"heedbench/{family}" if by_name else TASKS[family](**task_args)
    log = eval(
        task,
        task_args=task_args if by_name else {},
        display="none",
        log_dir=str(log_dir),
        **kwargs,
    )[0]
    assert log.status == "success", log.error
    return log


def fresh_python(code: str, cwd: Path) -> str:
    """Run `code` in a new Python process in `cwd` and return what it printed.

    The checkout goes at the end of `sys.path`, so `tests.` helpers import but heedbench
    comes from the installed package, as for a user.
    """
    script = f"import sys\nsys.path.append({str(ROOT)!r})\n{code}"
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


def inspect_cli(*args: str, cwd: Path) -> str:
    """Run the `inspect` command line in a new process in `cwd`; its output."""
    command = Path(sys.executable).with_name("inspect")
    done = subprocess.run(
        [str(command), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return done.stdout


def metric_names(log: EvalLog) -> set[tuple[str, str]]:
    """(score name, metric name) of every metric in a log's results."""
    assert log.results is not None
    return {(score.name, name) for score in log.results.scores for name in score.metrics}


def metric_values(log: EvalLog) -> dict[tuple[str, str], float]:
    """Every metric of a log's results by (score name, metric name)."""
    assert log.results is not None
    return {
        (score.name, name): metric.value
        for score in log.results.scores
        for name, metric in score.metrics.items()
    }


def printed_json(output: str) -> Any:
    """The JSON a fresh process printed on its last line."""
    return json.loads(output.strip().splitlines()[-1])
