"""Type-check the heedbench package as installed, straight from the source folders.

The package maps top-level folders (evals/, solvers/, scorers/) into `heedbench.*`, which
mypy cannot follow through setuptools' editable-install hook, and the top-level `datasets/`
data folder would shadow the `datasets` library. This script copies the package in its
installed shape, plus tests/, benchmarks/, tools/ and flows/, under build/typecheck/ (mypy skips
symlinks), runs mypy there with the settings in pyproject.toml, reports errors against
the original source paths, and removes the copy. Usage: `python tools/typecheck.py`.
"""

import os
import shutil
import sys
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "build" / "typecheck"
MAPPED = {"evals": "evals", "solvers": "solvers", "scorers": "scorers"}
EXTRAS = ("tests", "benchmarks", "tools", "flows")


def build_tree() -> list[str]:
    """Recreate build/typecheck in the installed shape; return the mypy targets."""
    if TREE.exists():
        shutil.rmtree(TREE)
    skip = shutil.ignore_patterns("__pycache__")
    package = TREE / "heedbench"
    shutil.copytree(ROOT / "heedbench", package, ignore=skip)
    for name, folder in MAPPED.items():
        shutil.copytree(ROOT / folder, package / name, ignore=skip)
    targets = ["heedbench"]
    for extra in EXTRAS:
        if (ROOT / extra).is_dir():
            shutil.copytree(ROOT / extra, TREE / extra, ignore=skip)
            targets.append(extra)
    return targets


def source_path(line: str) -> str:
    """Point a mypy message at the file a developer edits, not at its copy."""
    for name, folder in MAPPED.items():
        line = line.replace(f"heedbench/{name}/", f"{folder}/")
    return line


def main() -> int:
    """Run mypy from inside the copy, where no `datasets/` folder shadows the library."""
    targets = build_tree()
    os.chdir(TREE)
    try:
        stdout, stderr, status = api.run(
            ["--config-file", str(ROOT / "pyproject.toml"), "--no-incremental", *targets]
        )
    finally:
        os.chdir(ROOT)
        shutil.rmtree(TREE)  # a stale copy would show up twice in `inspect list tasks`
    sys.stdout.write("".join(source_path(line) for line in stdout.splitlines(keepends=True)))
    sys.stderr.write(stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
