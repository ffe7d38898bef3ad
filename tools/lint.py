"""Run inspect-evals-lint over a mirror of the repository in which each family is one package.

The linter expects an evaluation's solvers, scorers and metrics inside its own package
(`<source-root>/<name>/`), while heedbench keeps them in top-level `solvers/<family>/` and
`scorers/<family>/` folders (the design card's layout). Linting `evals/` alone, its rules
about custom scorers, solvers, metrics, unscored reasons and model roles skip every family
with "none found". This script copies each family's `evals/`, `solvers/` and `scorers/`
folders into one package under build/lint/evals/<family>/ (as `solvers/` and `scorers/`
sub-packages), the shared judge toolkit and the package core as helper packages, links
the tests, README files and registry module, runs the linter there with the settings in
pyproject.toml, and prints findings with paths pointing back at the source files.

Usage: `python tools/lint.py [inspect-evals-lint options]` (default: `--all`).
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIRROR = ROOT / "build" / "lint"
FAMILIES = ("choice", "carryon", "prefdisco", "judge_check", "pipelines")
HELPERS = {"judge": ROOT / "scorers" / "judge", "core": ROOT / "heedbench"}
"""Shared code linted with the linter's helper scope: the judge toolkit and the package core
(role models, checked model calls, parameters, the report)."""
LINKED = ("tests", "README.md", "pyproject.toml", "docs", "datasets")
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc")


def build_mirror() -> None:
    """Recreate build/lint: one package per family, the helpers, and links to the rest."""
    if MIRROR.exists():
        shutil.rmtree(MIRROR)
    source = MIRROR / "evals"
    for family in FAMILIES:
        package = source / family
        shutil.copytree(ROOT / "evals" / family, package, ignore=SKIP)
        for kind in ("solvers", "scorers"):
            if (ROOT / kind / family).is_dir():
                shutil.copytree(ROOT / kind / family, package / kind, ignore=SKIP)
    for name, folder in HELPERS.items():
        shutil.copytree(folder, source / name, ignore=SKIP)
    (MIRROR / "heedbench").mkdir()
    shutil.copy(ROOT / "heedbench" / "_registry.py", MIRROR / "heedbench" / "_registry.py")
    for name in LINKED:
        (MIRROR / name).symlink_to(ROOT / name)


def source_path(text: str) -> str:
    """Point a finding at the file a developer edits, not at its copy."""
    for family in FAMILIES:
        for kind in ("solvers", "scorers"):
            text = text.replace(f"evals/{family}/{kind}/", f"{kind}/{family}/")
    text = text.replace("evals/judge/", "scorers/judge/").replace("evals/core/", "heedbench/")
    return re.sub(re.escape(str(MIRROR)) + "/?", "", text)


def main() -> int:
    """Lint the mirror; exit with the linter's status."""
    build_mirror()
    args = sys.argv[1:]
    valued = {"--select", "--ignore", "--output-format", "--root", "--preset", "--explain"}
    named = [a for i, a in enumerate(args) if not a.startswith("-") and args[i - 1] not in valued]
    if not named and "--all" not in args and "--task" not in args:
        args = ["--all", *args]
    try:
        result = subprocess.run(
            ["inspect-evals-lint", "--root", str(MIRROR), *args],
            capture_output=True, text=True, check=False,
            env={**os.environ, "COLUMNS": os.environ.get("COLUMNS", "120")},
        )  # fmt: skip
    finally:
        shutil.rmtree(MIRROR)
    sys.stdout.write(source_path(result.stdout))
    sys.stderr.write(source_path(result.stderr))
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
