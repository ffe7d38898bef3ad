"""Each task family's eval.yaml is true: tasks exist, versions match, counts and data hashes hold."""

import hashlib
from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai import Task
from inspect_ai.util import registry_info

import heedbench._registry as registry

ROOT = Path(__file__).resolve().parent.parent
FAMILIES = sorted(p.parent.name for p in (ROOT / "evals").glob("*/__init__.py"))
REQUIRED = ("title", "description", "group", "contributors", "version", "papers", "tasks")


def metadata(family: str) -> dict[str, Any]:
    path = ROOT / "evals" / family / "eval.yaml"
    assert path.is_file(), f"evals/{family}/ has no eval.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path} is not a mapping"
    return data


def registered_tasks() -> set[str]:
    """The tasks Inspect's registry holds from heedbench's entry point, as `heedbench/<name>`.

    Inspect prefixes the package name only when it sees heedbench as an installed package
    (not, say, when the repository's own build metadata shadows the install), so the prefix is
    added here rather than read.
    """
    names = set()
    for name in registry.__all__:
        info = registry_info(getattr(registry, name))
        if info.type == "task":
            names.add(f"heedbench/{info.name.removeprefix('heedbench/')}")
    return names


def build(name: str, args: dict[str, Any]) -> Task:
    task = getattr(registry, name.removeprefix("heedbench/"))(**args)
    assert isinstance(task, Task)
    return task


def test_every_family_has_one() -> None:
    assert FAMILIES == ["carryon", "choice", "judge_check", "pipelines", "prefdisco"]
    for family in FAMILIES:
        data = metadata(family)
        assert [key for key in REQUIRED if key not in data] == [], family


def test_every_registered_task_is_described_once() -> None:
    described = [task["name"] for family in FAMILIES for task in metadata(family)["tasks"]]
    assert sorted(described) == sorted(registered_tasks())


@pytest.mark.parametrize("family", FAMILIES)
def test_tasks_exist_with_the_stated_version_and_sample_counts(
    family: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # example inputs are named relative to the repository
    data = metadata(family)
    for entry in data["tasks"]:
        name = entry["name"]
        assert name in registered_tasks(), f"{family}: {name} is not a registered task"
        versions = {entry["version"], data["version"]}
        checks: list[tuple[dict[str, Any], int | None]] = [({}, entry["dataset_samples"])]
        checks += [(v["args"], v["dataset_samples"]) for v in entry.get("variants", [])]
        for args, samples in checks:
            if samples is None:
                continue  # depends on inputs the task has no default for
            task = build(name, args)
            assert versions == {task.version}, f"{name}: eval.yaml says {versions}"
            assert len(task.dataset) == samples, f"{name} {args}: {len(task.dataset)} samples"


@pytest.mark.parametrize("family", FAMILIES)
def test_papers_and_shipped_data_are_pinned(family: str) -> None:
    data = metadata(family)
    for paper in data["papers"]:
        assert paper["title"] and paper["authors"], paper
        arxiv = paper["arxiv"]
        assert arxiv is None or (isinstance(arxiv, str) and len(arxiv.split(".")) == 2), arxiv
        if arxiv:
            assert paper["url"] == f"https://arxiv.org/abs/{arxiv}"
    for dataset in data["datasets"]:
        assert dataset["provenance"] and dataset["revision"], dataset["name"]
        if dataset["kind"] != "shipped":
            continue
        folder = ROOT / dataset["path"]
        for relative, digest in dataset["files"].items():
            actual = hashlib.sha256((folder / relative).read_bytes()).hexdigest()
            assert actual == digest, (
                f"{dataset['path']}/{relative} changed: update its sha256 in "
                f"evals/{family}/eval.yaml to {actual} (and the CHANGELOG)"
            )


def test_the_wheel_layout_ships_each_eval_yaml_and_readme() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = data["tool"]["setuptools"]["package-data"]
    for family in FAMILIES:
        assert {"eval.yaml", "README.md"} <= set(shipped[f"heedbench.evals.{family}"]), family


@pytest.mark.parametrize("family", FAMILIES)
def test_the_fields_inspect_evals_entries_carry(family: str) -> None:
    data = metadata(family)
    assert data.get("tags") and all(isinstance(tag, str) for tag in data["tags"])
    arxiv_ids = [paper["arxiv"] for paper in data["papers"] if paper.get("arxiv")]
    if len(arxiv_ids) == 1:  # one paper with an arXiv id: the entry's top-level arxiv link
        assert data["arxiv"] == f"https://arxiv.org/abs/{arxiv_ids[0]}"
    # grader checks and data builds are not model results: inspect_evals marks such tasks
    maintenance = family in ("judge_check", "pipelines")
    assert all((task.get("kind") == "maintenance") == maintenance for task in data["tasks"])
