"""An unbound role, or a bound one the task does not use, stops `inspect eval` while the task
is built: no data, no model call."""

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    ("task", "args", "flag"),
    [
        ("heedbench/prefdisco", [], "--model-role user="),
        ("heedbench/carryon", [], "--model-role user="),
        # single-turn carryon needs no simulated user, only the grader
        ("heedbench/carryon", ["-T", "condition=turn1"], "--model-role grader="),
        # a role the task does not use stops the run too, naming it
        ("heedbench/carryon", ["-T", "condition=turn1", "--model-role", "user=mockllm/model",
                               "--model-role", "grader=mockllm/model"],
         "--model-role user: heedbench/carryon does not use a 'user' model"),
        ("heedbench/choice", ["--model-role", "grader=mockllm/model"],
         "--model-role grader: heedbench/choice does not use a 'grader' model"),
        ("heedbench/carryon", ["--model-role", "judge=mockllm/model"],
         "did you mean --model-role grader=...?"),
    ],
)  # fmt: skip
def test_unbound_roles_fail_when_inspect_builds_the_task(
    tmp_path: Path, task: str, args: list[str], flag: str
) -> None:
    # A fresh process running the command line: Inspect binds roles before it builds a task
    # named there, so the task refuses to be built (mockllm without scripted usage would even
    # need the network to answer, so a model call would fail differently).
    inspect = Path(sys.executable).parent / "inspect"
    result = subprocess.run(
        [str(inspect), "eval", task, "--model", "mockllm/model", *args,
         "--display", "none", "--log-dir", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode != 0
    assert flag in result.stdout + result.stderr
    assert not list(tmp_path.glob("*.eval"))  # no run started
