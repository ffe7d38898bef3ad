"""Type-check the heedbench package as installed, straight from the source folders.

The package maps top-level folders (evals/, solvers/, scorers/) into `heedbench.*`, which
mypy cannot follow through setuptools' editable-install hook. This script mirrors that mapping
as a copy under build/typecheck/ (mypy skips symlinks), runs mypy on it with the settings
in pyproject.toml, and reports errors against the original source paths.
Usage: `python tools/typecheck.py`.
"""

import os
import shutil
import sys
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "build" / "typecheck"
MAPPED = {"evals": "evals", "solvers": "solvers", "scorers": "scorers"}


def build_tree() -> Path:
    """Recreate build/typecheck/heedbench mirroring the package-dir mapping."""
    if TREE.exists():
        shutil.rmtree(TREE)
    package = TREE / "heedbench"
    skip = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "heedbench", package, ignore=skip)
    for name, folder in MAPPED.items():
        shutil.copytree(ROOT / folder, package / name, ignore=skip)
    return package


def source_path(line: str) -> str:
    """Point a mypy message at the file a developer edits, not at its copy."""
    for prefix in (f"{TREE / 'heedbench'}/", f"{(TREE / 'heedbench').relative_to(ROOT)}/"):
        for name, folder in MAPPED.items():
            line = line.replace(f"{prefix}{name}/", f"{folder}/")
        line = line.replace(prefix, "heedbench/")
    return line


def main() -> int:
    """Run mypy over the mirrored package plus the tests and benchmarks."""
    package = build_tree()
    os.environ["MYPYPATH"] = str(TREE)
    targets = [str(package)] + [
        str(ROOT / extra) for extra in ("tests", "benchmarks", "tools") if (ROOT / extra).is_dir()
    ]
    stdout, stderr, status = api.run(
        ["--config-file", str(ROOT / "pyproject.toml"), "--no-incremental", *targets]
    )
    sys.stdout.write("".join(source_path(line) for line in stdout.splitlines(keepends=True)))
    sys.stderr.write(stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
