"""Every command in the documentation is one that works as written (tests/docs/commands.py)."""

import importlib.util
import inspect as pyinspect
import subprocess
import sys
from pathlib import Path

import pytest

import heedbench._registry as registry
from heedbench.report.cli import _parser
from tests.docs.commands import (
    ROOT,
    Command,
    commands,
    has_placeholder,
    is_offline,
    is_unchecked,
    option_values,
)

INSPECT = Path(sys.executable).parent / "inspect"
ALL = [c for c in commands() if not is_unchecked(c)]
ROLES = {"user", "grader", "generator", "extractor", "merger"}


def inspect_options(subcommand: str) -> set[str]:
    """The long options `inspect <subcommand>` accepts, read from its help."""
    result = subprocess.run(
        [str(INSPECT), subcommand, "--help"], capture_output=True, text=True, check=True
    )
    return {word.rstrip(",") for word in result.stdout.split() if word.startswith("--")}


@pytest.fixture(scope="module")
def eval_options() -> set[str]:
    return inspect_options("eval")


def task_factory(name: str) -> object:
    factory = getattr(registry, name.removeprefix("heedbench/"), None)
    assert factory is not None, f"no task {name}"
    return factory


def check_inspect_eval(command: Command, eval_options: set[str]) -> None:
    words = command.words
    leading = next((i for i, w in enumerate(words[2:], 2) if w.startswith("-")), len(words))
    tasks = [w for w in words[2:leading] if w.startswith("heedbench/")]
    assert tasks, f"{command}: names no heedbench task"
    flags = {w.split("=", 1)[0] for w in words if w.startswith("--")}
    assert flags <= eval_options, f"{command}: unknown option(s) {flags - eval_options}"
    for task in tasks:
        parameters = pyinspect.signature(task_factory(task)).parameters  # type: ignore[arg-type]
        for argument in option_values(words, "-T"):
            name = argument.split("=", 1)[0]
            assert name in parameters and name != "unknown", f"{command}: -T {name}"
    for binding in option_values(words, "--model-role"):
        role = binding.split("=", 1)[0]
        generators = {
            g
            for argument in option_values(words, "-T")
            if argument.startswith("generators=")
            for g in argument.split("=", 1)[1].split(",")
        }
        assert role in ROLES | generators, f"{command}: no task uses a '{role}' role"


def check_heedbench(command: Command) -> None:
    try:
        _parser().parse_args(list(command.words[1:]))
    except SystemExit as stop:
        raise AssertionError(f"{command}: heedbench rejects it") from stop


def check_python(command: Command) -> None:
    words = command.words
    if words[1] == "-m":
        if words[2] == "pytest":
            return
        assert importlib.util.find_spec(words[2]) is not None, f"{command}: no module {words[2]}"
    else:
        assert (ROOT / words[1]).is_file(), f"{command}: no file {words[1]}"


@pytest.mark.parametrize("command", ALL, ids=str)
def test_a_documented_command_is_valid(command: Command, eval_options: set[str]) -> None:
    program = command.words[0]
    if program == "inspect":
        sub = command.words[1]
        if sub in ("eval", "eval-set"):
            check_inspect_eval(command, eval_options if sub == "eval" else inspect_options(sub))
        else:
            assert sub in ("view", "score", "eval-retry", "log", "list"), f"{command}"
    elif program == "heedbench":
        check_heedbench(command)
    elif program == "python":
        check_python(command)
    elif program == "flow":
        spec = next(w for w in command.words if w.endswith(".py"))
        assert (ROOT / spec).is_file(), f"{command}: no spec {spec}"
    else:
        raise AssertionError(f"{command}: a command of a kind tests/docs does not check")


RUNNABLE = [
    c
    for c in ALL
    if c.words[:2] == ("inspect", "eval") and is_offline(c.words) and not has_placeholder(c.words)
]


@pytest.mark.parametrize("command", RUNNABLE, ids=str)
def test_an_offline_documented_eval_runs(command: Command, tmp_path: Path) -> None:
    words = [w for w in command.words if w != "--display"]
    result = subprocess.run(
        [str(INSPECT), *words[1:], "--limit", "1", "--log-dir", str(tmp_path),
         "--display", "none"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert result.returncode == 0, f"{command}\n{result.stderr[-2000:]}"
    assert list(tmp_path.glob("*.eval")), f"{command}: wrote no log"


def test_the_checker_finds_commands_of_every_kind() -> None:
    programs = {c.words[0] for c in ALL}
    assert {"inspect", "heedbench", "python"} <= programs
    assert RUNNABLE, "the quick start runs offline"
