"""Mistakes on the command line come out as one readable line, never a traceback."""

import asyncio
import builtins
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from heedbench.calls import ModelCallError, collect_calls
from heedbench.errors import input_error_message
from heedbench.evals.carryon import load_queries
from heedbench.evals.carryon.task import carryon
from heedbench.evals.choice.task import choice
from heedbench.evals.judge_check.task import prefdisco_judge_check
from heedbench.evals.prefdisco.task import prefdisco
from heedbench.params import ParameterError
from heedbench.roles import RoleNotBoundError
from heedbench.testing import scripted_model
from heedbench.testing_carryon import refuse_then_recover, scripted_user, write_queries

INSPECT = Path(sys.executable).parent / "inspect"


def _bad_data(folder: Path) -> list[str]:
    (folder / "objects.json").write_bytes(b'{"objects": ["a", "b"]}')
    (folder / "contexts.jsonl").write_bytes(b'{"id": "c1", "context": "x", "order": \xff}\n')
    return ["heedbench/choice", "--model", "heedbench/random", "-T", f"data={folder}"]


CASES = {
    "missing role": (
        ["heedbench/carryon", "--model", "mockllm/model"],
        "heedbench: this task needs a 'user' model: pass --model-role user=<provider/model>",
    ),
    "unknown model": (
        ["heedbench/choice", "--model", "nosuchprovider/model"],
        "inspect: Model API nosuchprovider of model 'nosuchprovider/model' not recognized.",
    ),
    "bad -T value": (
        ["heedbench/choice", "--model", "heedbench/random", "-T", "n=abc"],
        "heedbench: -T n: must be an integer of at least 2; got 'abc'",
    ),
    "unknown -T parameter": (
        ["heedbench/choice", "--model", "heedbench/random", "-T", "nn=5"],
        "heedbench: -T nn: heedbench/choice has no such parameter; did you mean -T n?",
    ),
    "unknown role": (
        ["heedbench/carryon", "--model", "mockllm/model", "--model-role", "judge=mockllm/model"],
        "heedbench: --model-role judge: heedbench/carryon does not use a 'judge' model here",
    ),
    "bad data file": (None, "contexts.jsonl: record 1: not UTF-8 text"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_mistake_is_one_line_without_a_traceback(tmp_path: Path, case: str) -> None:
    args, message = CASES[case]
    if args is None:
        args = _bad_data(tmp_path)
    result = subprocess.run(
        [str(INSPECT), "eval", *args, "--display", "none", "--log-dir", str(tmp_path / "logs")],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    printed = result.stdout + result.stderr
    assert result.returncode == 1
    assert message in printed
    assert "Traceback" not in printed
    assert len(printed.strip().splitlines()) <= 4, printed
    assert not list(tmp_path.glob("logs/*.eval"))  # stopped before any run started


def test_the_traceback_is_there_when_asked_for(tmp_path: Path) -> None:
    args = CASES["bad -T value"][0] or []
    result = subprocess.run(
        [str(INSPECT), "eval", *args, "--display", "none", "--log-dir", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "HEEDBENCH_TRACEBACK": "1"},
    )  # fmt: skip
    assert "Traceback" in result.stderr and "ParameterError" in result.stderr


@pytest.mark.parametrize(
    ("build", "typo", "suggestion"),
    [
        (choice, "methd", "method"),
        (carryon, "conditon", "condition"),
        (prefdisco, "max_turn", "max_turns"),
        (prefdisco_judge_check, "judg", "judge"),
    ],
)
def test_an_unknown_parameter_is_an_error_naming_the_closest(
    build: object, typo: str, suggestion: str
) -> None:
    with pytest.raises(ParameterError, match=f"-T {typo}: .*did you mean -T {suggestion}\\?"):
        build(**{typo: 1})  # type: ignore[operator]


def test_a_bug_keeps_its_traceback() -> None:
    assert input_error_message(KeyError("checklist")) is None
    assert input_error_message(ValueError("math domain error")) is None


@pytest.mark.skipif(not hasattr(builtins, "ExceptionGroup"), reason="Python 3.11+")
def test_an_input_error_inside_exception_groups_is_found() -> None:
    group_of = builtins.ExceptionGroup
    inner = RoleNotBoundError("this task needs a 'grader' model")
    group = group_of("unhandled errors in a TaskGroup", [ValueError("x"), inner])
    wrapped = RuntimeError("task failed")
    wrapped.__context__ = group_of("outer", [group])
    assert input_error_message(wrapped) == "heedbench: this task needs a 'grader' model"


def test_concurrent_failures_raise_the_first_cause_not_the_task_group() -> None:
    async def fails(message: str) -> None:
        raise ModelCallError(message)

    async def run() -> None:
        await collect_calls(fails("the grader's call failed (empty)"), fails("second"))

    with pytest.raises(ModelCallError, match=r"the grader's call failed \(empty\)") as raised:
        asyncio.run(run())
    assert "1 other concurrent call(s) failed as well" in "".join(raised.value.__notes__)


def test_an_errored_sample_names_the_failed_call_not_the_task_group(tmp_path: Path) -> None:
    # Every grader call comes back empty: each is retried, then fails; many fail at once.
    data = write_queries(tmp_path / "q.jsonl", load_queries()[:1], 4)
    log = inspect_eval(
        carryon(data=str(data), condition="oracle"),
        model=scripted_model(refuse_then_recover(), "target"),
        model_roles={
            "user": scripted_model(scripted_user, "user"),
            "grader": scripted_model(lambda prompt: "", "grader"),
        },
        display="none",
        log_dir=str(tmp_path / "logs"),
        fail_on_error=False,
    )[0]
    assert log.samples
    error = log.samples[0].error
    assert error is not None
    assert "the grader's call failed (empty)" in error.message
    assert "TaskGroup" not in error.message
