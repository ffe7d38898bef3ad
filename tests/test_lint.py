"""inspect-evals-lint sees every family's solvers and scorers (through tools/lint.py)."""

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_evals_lint")

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {
    **{f: (f"evals/{f}", f"solvers/{f}", f"scorers/{f}") for f in
       ("choice", "carryon", "prefdisco", "judge_check", "pipelines")},
    "judge": ("scorers/judge",),
    "core": ("heedbench",),
}  # fmt: skip
"""Where each linted package's code lives in the repository."""
CONSTRUCT = {
    "unscored_reason": r"Score\.unscored\(",
    "custom_scorer_tests": r"^\s*@scorer\b",
    "custom_solver_tests": r"^\s*@solver\b",
    "custom_metric_tests": r"^\s*@metric\b",
    "metric_epoch_safety": r"^\s*@metric\b",
    "model_role_resolution": r"get_model\([^)]*\brole=",
    "sample_ids": r"\bSample\(",
    "task_overridable_defaults": r"^\s*@task\b",
}
"""A rule that says "none found" and the code it would have had to find."""


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "lint.py"), "--output-format", "json"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    return dict(json.loads(result.stdout))


def code_has(package: str, pattern: str) -> bool:
    return any(
        re.search(pattern, path.read_text(encoding="utf-8"), re.MULTILINE)
        for folder in FOLDERS[package]
        for path in (ROOT / folder).rglob("*.py")
    )


def test_every_package_passes(report: dict[str, Any]) -> None:
    failed = [
        f"{p['name']}: {d['rule']} {d['message']}"
        for p in report["packages"]
        for d in p["diagnostics"]
        if d["status"] == "fail"
    ]
    assert report["passed"], "\n".join(failed)
    assert {p["name"] for p in report["packages"]} == set(FOLDERS)


def test_no_rule_skips_code_it_should_have_seen(report: dict[str, Any]) -> None:
    blind = [
        f"{package['name']}: {outcome['rule']} says {outcome['message']!r}"
        for package in report["packages"]
        for outcome in package["outcomes"]
        if outcome["status"] == "skip"
        and outcome["rule"] in CONSTRUCT
        and code_has(package["name"], CONSTRUCT[outcome["rule"]])
    ]
    assert not blind, "\n".join(blind)


def test_the_check_would_catch_the_old_layout() -> None:
    # linting evals/ alone: the families' scorers live in scorers/, so the rule saw none
    assert code_has("carryon", CONSTRUCT["custom_scorer_tests"])
    assert code_has("carryon", CONSTRUCT["unscored_reason"])
