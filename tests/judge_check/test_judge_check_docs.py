"""Every command in docs/graders.md runs as written, on an offline model and the fixture data.

The guide's commands name a real grader; here the model is `heedbench/random` (it never
answers a judge prompt readably, so every case is unscored, which is enough to show the
options parse and the run completes), each run takes two cases, and `-T data=` points at the
fixture folder so the test does not depend on the shipped data. The report command then reads
what they wrote.
"""

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai import eval

import heedbench._registry as registry
from heedbench.report.cli import main
from tests.report.helpers import report_markdown

ROOT = Path(__file__).resolve().parents[2]
DATA = str(Path(__file__).parent / "data")
BLOCK = re.compile(r"```bash\n(.*?)```", re.DOTALL)


def commands() -> list[list[str]]:
    """The guide's shell commands, comments dropped, split into words."""
    text = (ROOT / "docs" / "graders.md").read_text(encoding="utf-8")
    lines = [
        line.split("#", 1)[0].strip()
        for block in BLOCK.findall(text)
        for line in block.splitlines()
    ]
    return [shlex.split(line) for line in lines if line]


def inspect_eval(words: list[str], log_dir: Path) -> None:
    """`inspect eval TASK [-T k=v ...] [--epochs N] --model M` through Inspect's Python API.

    The task is looked up in heedbench's registry module: by name, Inspect finds it only
    from outside the checkout (tests/native runs the CLI that way).
    """
    assert words[:2] == ["inspect", "eval"]
    task, rest = words[2], words[3:]
    args: dict[str, Any] = {}
    options: dict[str, Any] = {}
    while rest:
        flag, value, rest = rest[0], rest[1], rest[2:]
        if flag == "-T":
            key, _, raw = value.partition("=")
            args[key] = yaml.safe_load(raw)
        elif flag == "--epochs":
            options["epochs"] = int(value)
        else:
            assert flag == "--model", f"a flag this test does not translate: {flag}"
    build = getattr(registry, task.removeprefix("heedbench/"))  # the task the name resolves to
    [log] = eval(
        build(**(args | {"data": DATA})),
        model="heedbench/random",
        limit=2,
        display="none",
        log_dir=str(log_dir),
        **options,
    )
    assert log.status == "success", log.error


def test_the_guides_commands_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found = commands()
    assert [w[:2] for w in found].count(["inspect", "eval"]) == 4
    logs = tmp_path / "logs"
    for words in found:
        if words[:2] == ["inspect", "eval"]:
            inspect_eval(words, logs)
        else:
            assert words[:4] == ["heedbench", "report", "logs", "-o"], words
            assert main(["report", str(logs), "-o", str(tmp_path / words[4])]) == 0
    report = report_markdown(tmp_path / "report" / "report.md")
    assert "Graders against the gold cases" in report
    assert "carryon_judge_check heedbench/random: " in capsys.readouterr().out
