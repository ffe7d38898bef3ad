"""Task parameters: one typed check names the parameter and what it accepts, for every task."""

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task

from heedbench import params
from heedbench.evals.carryon.task import carryon
from heedbench.evals.choice.task import choice
from heedbench.evals.prefdisco.task import prefdisco
from heedbench.params import ParameterError


@pytest.mark.parametrize(("value", "expected"), [(3, 3), ("3", 3), (" 7 ", 7), (4.0, 4), (-2, -2)])
def test_integer_accepts_whole_numbers(value: Any, expected: int) -> None:
    assert params.integer("n", value) == expected


@pytest.mark.parametrize("value", ["abc", 6.5, True, None, [1], "6.5", float("nan")])
def test_integer_rejects_everything_else_naming_the_parameter(value: Any) -> None:
    with pytest.raises(ParameterError, match=r"^-T n: must be an integer; got "):
        params.integer("n", value)


def test_integer_bounds_are_in_the_message() -> None:
    with pytest.raises(ParameterError, match="-T k: must be an integer from 1 to 5; got 9"):
        params.integer("k", 9, low=1, high=5)
    with pytest.raises(ParameterError, match="of at least 1"):
        params.integer("k", 0, low=1)


@pytest.mark.parametrize(("value", "expected"), [(0.5, 0.5), ("0.25", 0.25), (1, 1.0)])
def test_number_accepts_reals(value: Any, expected: float) -> None:
    assert params.number("p", value, low=0, high=1) == expected


@pytest.mark.parametrize("value", ["abc", True, False, None, float("inf"), 1.5, -0.1])
def test_number_rejects_booleans_text_and_out_of_range(value: Any) -> None:
    with pytest.raises(ParameterError, match="-T p: must be a number from 0 to 1"):
        params.number("p", value, low=0, high=1)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, True), (False, False), ("true", True), ("False", False), (" TRUE ", True)],
)
def test_flag_reads_what_was_written(value: Any, expected: bool) -> None:
    assert params.flag("cache", value) is expected


@pytest.mark.parametrize("value", ["nope", "maybe", "yes", "0", 1, 0, None, "on", "t", "", "fa"])
def test_flag_never_reads_truthiness(value: Any) -> None:
    with pytest.raises(ParameterError, match="-T cache: must be true or false"):
        params.flag("cache", value)


def test_one_of_lists_the_valid_values() -> None:
    with pytest.raises(ParameterError, match="-T judge: must be one of a, b; got 'c'"):
        params.one_of("judge", "c", ("a", "b"))


@pytest.mark.parametrize(
    ("build", "kwargs", "message"),
    [
        (choice, {"n": "abc"}, "-T n: must be an integer"),
        (choice, {"n": 6.5}, "-T n: must be an integer"),
        (choice, {"n": 41}, "-T n: must be an integer from 2 to 40"),
        (choice, {"p": "abc"}, "-T p: must be a number"),
        (choice, {"p": True}, "-T p: must be a number"),
        (choice, {"seed": "abc"}, "-T seed: must be an integer"),
        (choice, {"cache": "maybe"}, "-T cache: must be true or false"),
        (choice, {"score_low": "x"}, "-T score_low: must be an integer"),
        (carryon, {"flows_per_query": "abc"}, "-T flows_per_query: must be an integer"),
        (carryon, {"allow_self_roles": "nope"}, "-T allow_self_roles: must be true or false"),
        (carryon, {"lock_in_gain": 1.5}, "-T lock_in_gain: must be a number from 0 to 1"),
        (carryon, {"repetition": -0.2}, "-T repetition: must be a number from 0 to 1"),
        (carryon, {"unsafe_harm_excess": "high"}, "-T unsafe_harm_excess: must be a number"),
        (carryon, {"revision": "abc123"}, "-T revision: pins a hub dataset"),
        (
            carryon,
            {"category": "foo"},
            "-T category: must be one of offensive_language, dangerous_topics, privacy, "
            "false_information, all",
        ),
        (carryon, {"seed": "abc"}, "-T seed: must be an integer"),
        (prefdisco, {"max_turns": "abc"}, "-T max_turns: must be an integer"),
        (prefdisco, {"allow_self_roles": "nope"}, "-T allow_self_roles: must be true or"),
        (prefdisco, {"revision": "abc123"}, "-T revision: pins the hub release"),
    ],
)
def test_tasks_check_every_parameter_before_loading(
    build: Callable[..., Task], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ParameterError, match=message):
        build(**kwargs)


def test_the_string_false_never_turns_self_grading_on() -> None:
    # A quoted 'false' arrives as text; it must read as false, so the unbound grader still
    # stops the task instead of the evaluated model silently grading itself.
    assert params.flag("allow_self_roles", "false") is False


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["heedbench/choice", "-T", "n=abc"], "-T n: must be an integer"),
        (["heedbench/choice", "-T", "cache=maybe"], "-T cache: must be true or false"),
        (
            ["heedbench/carryon", "-T", "allow_self_roles=nope", "-T", "condition=turn1"],
            "-T allow_self_roles: must be true or false",
        ),
    ],
)
def test_the_command_line_names_the_bad_parameter(
    tmp_path: Path, args: list[str], message: str
) -> None:
    inspect = Path(sys.executable).parent / "inspect"
    result = subprocess.run(
        [str(inspect), "eval", *args, "--model", "mockllm/model", "--display", "none",
         "--log-dir", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode != 0
    assert message in result.stdout + result.stderr
    assert not list(tmp_path.glob("*.eval"))
