"""What the code imports is what pyproject.toml declares, and only Inspect's public API is used."""

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ("heedbench", "evals", "solvers", "scorers")
"""The folders installed as the `heedbench` package."""
FIRST_PARTY = {"heedbench", "benchmarks", "tools", "tests", "flows"}
SCOPES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "package": (PACKAGE, ()),
    "flows": (("flows",), ("flow",)),
    "benchmarks and tools": (("benchmarks", "tools"), ("test", "lint", "s3", "ppi")),
    "tests": (("tests",), ("test", "flow", "s3", "s3-servers")),
}
"""Where code lives -> (its folders, the extras it may use besides the main dependencies)."""


def normalise(name: str) -> str:
    """A distribution name as package indexes compare them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared(extras: tuple[str, ...]) -> set[str]:
    """The distributions pyproject.toml declares: main dependencies plus the given extras."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra in extras:
        requirements += project["optional-dependencies"][extra]
    names = set()
    for requirement in requirements:
        match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
        assert match, requirement
        names.add(normalise(match.group()))
    return names


def python_files(folders: tuple[str, ...]) -> Iterator[Path]:
    for folder in folders:
        if (ROOT / folder).is_dir():
            yield from sorted((ROOT / folder).rglob("*.py"))


def imported_modules(path: Path) -> Iterator[tuple[str, int]]:
    """Every absolute import in a file, lazy ones inside functions included: (module, line)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module, node.lineno
            for alias in node.names:  # `from inspect_ai.model import _model`
                yield f"{node.module}.{alias.name}", node.lineno


@pytest.mark.parametrize("scope", list(SCOPES))
def test_every_third_party_import_is_declared(scope: str) -> None:
    folders, extras = SCOPES[scope]
    allowed = declared(extras)
    providers = packages_distributions()
    missing = []
    for path in python_files(folders):
        for module, line in imported_modules(path):
            top = module.split(".")[0]
            if top in sys.stdlib_module_names or top in FIRST_PARTY or top == "__future__":
                continue
            distributions = {normalise(d) for d in providers.get(top, [])}
            if not distributions:
                # not installed here: an extra this environment left out (`[test]` alone skips
                # the tests that need one); CI installs every extra, so it is checked there
                continue
            if not distributions & allowed:
                where = path.relative_to(ROOT)
                missing.append(f"{where}:{line} imports {top} ({distributions or 'not installed'})")
    assert not missing, f"undeclared in pyproject.toml for the {scope}:\n" + "\n".join(missing)


def test_the_package_declares_what_the_report_and_the_hub_loader_need() -> None:
    main = declared(())
    assert {"pandas", "matplotlib", "huggingface-hub", "pyyaml"} <= main


ALLOWED_PRIVATE = {("heedbench/models/relay.py", "inspect_ai.solver._task_state")}
"""The one private import, each with its reason: a model provider has no public way to learn
which sample and epoch is calling, and the relay needs them so two samples that make the same
call are asked apart (docs/pilot.md); the lint is told the same on the import's line."""


def _allowed(path: str, module: str) -> bool:
    """Whether `module` (or a name imported from it) is an allowed private import of `path`."""
    return any(
        path == where and (module == allowed or module.startswith(allowed + "."))
        for where, allowed in ALLOWED_PRIVATE
    )


@pytest.mark.parametrize(
    "folders",
    [PACKAGE, ("flows",), ("benchmarks", "tools")],
    ids=["package", "flows", "benchmarks and tools"],
)
def test_no_private_inspect_imports(folders: tuple[str, ...]) -> None:
    private = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in python_files(folders)
        for module, line in imported_modules(path)
        if module.split(".")[0] in ("inspect_ai", "inspect_flow")
        and any(part.startswith("_") for part in module.split(".")[1:])
        and not _allowed(str(path.relative_to(ROOT)), module)
    ]
    assert not private, "use the public API:\n" + "\n".join(private)


def test_the_private_import_check_sees_what_it_should(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from inspect_ai.model._model import active_model\n"
        "from inspect_ai.log import _samples\n"
        "import inspect_ai._util.error\n"
        "def f():\n    from pandas import DataFrame\n",
        encoding="utf-8",
    )
    found = [module for module, _ in imported_modules(sample)]
    assert "inspect_ai.model._model" in found
    assert "inspect_ai.log._samples" in found
    assert "inspect_ai._util.error" in found
    assert "pandas" in found  # lazy imports count too


FIRST_IMPORT = """
import importlib, pkgutil, sys

def walk(name):
    module = importlib.import_module(name)
    yield name
    for info in pkgutil.iter_modules(getattr(module, "__path__", [])):
        child = f"{name}.{info.name}"
        yield from walk(child) if info.ispkg else [child]

# the mapped folders are not found under heedbench's own path, so each is a root
roots = ("heedbench", "heedbench.evals", "heedbench.solvers", "heedbench.scorers")
names = sorted({name for root in roots for name in walk(root)})
failed = []
for name in names:
    for loaded in [m for m in sys.modules if m == "heedbench" or m.startswith("heedbench.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as error:
        failed.append(f"{name}: {type(error).__name__}: {error}")
print(len(names))
print("\\n".join(failed))
"""


def test_every_module_imports_first_without_a_cycle() -> None:
    # a user re-scoring from Python imports a scorer module before anything else
    # (`from heedbench.scorers.carryon.scorer import carryon_judge`); a cycle through a task
    # family's __init__ only shows when that module is the first one loaded
    done = subprocess.run(
        [sys.executable, "-c", FIRST_IMPORT], capture_output=True, text=True, check=True
    )
    count, *failed = done.stdout.strip().splitlines()
    assert int(count) > 100, "the walk found the package's modules"
    assert [line for line in failed if line] == []


def test_dev_installs_every_extra() -> None:
    """CI installs `[dev]`: with every extra in it, every import above is checked there."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    [dev] = extras["dev"]
    named = set(re.fullmatch(r"heedbench\[(.*)\]", dev).group(1).split(","))  # type: ignore[union-attr]
    # ppi (one benchmark's column) shadows the tests package, so it stays out (pyproject.toml)
    assert named == set(extras) - {"dev", "ppi"}
