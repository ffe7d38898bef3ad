"""The choice README's analysis snippets run as written on real `choice` logs."""

import ast
import os
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.native.logs import ROOT, inspect_cli, launch

SNIPPET = re.compile(r"```python\n(.*?)```", re.DOTALL)


def snippet(marker: str) -> str:
    """The README's one python block that calls `marker`."""
    readme = (ROOT / "evals" / "choice" / "README.md").read_text()
    [found] = [code for code in SNIPPET.findall(readme) if f"{marker}(" in code]
    return str(found)


def run(code: str, cwd: Path) -> Any:
    """Run a snippet in `cwd` and return the value of its last expression."""
    tree = ast.parse(code)
    last = tree.body.pop()
    assert isinstance(last, ast.Expr), "a snippet ends on the table it shows"
    namespace: dict[str, Any] = {}
    here = Path.cwd()
    os.chdir(cwd)
    try:
        exec(compile(tree, "README.md", "exec"), namespace)
        return eval(compile(ast.Expression(last.value), "README.md", "eval"), namespace)
    finally:
        os.chdir(here)


@pytest.fixture(scope="module")
def analysis_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder whose `logs/` holds a choice log from this process and one from the CLI."""
    folder = tmp_path_factory.mktemp("analysis")
    launch("choice", folder / "logs")
    inspect_cli("eval", "heedbench/choice", "--model", "heedbench/random", "-T", "n=5",
                "--limit", "4", "--log-dir", "logs", "--display", "none",
                cwd=folder)  # fmt: skip
    return folder


def test_the_evals_df_snippet(analysis_dir: Path) -> None:
    table = run(snippet("evals_df"), analysis_dir)
    assert isinstance(table, pd.DataFrame) and len(table) == 2
    assert list(table["score_choice_alignment_valid_contexts"]) == [4.0, 4.0]
    assert table["score_spo_mean"].between(0, 1).all()


def test_the_samples_df_snippet(analysis_dir: Path) -> None:
    table = run(snippet("samples_df"), analysis_dir)
    assert isinstance(table, pd.DataFrame) and len(table) == 8
    assert table["spo"].between(0, 1).all() and (table["kendall"] >= 0).all()
