"""A new user's path: the installed entry point resolves tasks and the baseline provider."""

import json
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from inspect_ai.log import read_eval_log

ROOT = Path(__file__).resolve().parent.parent


def test_cli_runs_choice_through_the_entry_point(tmp_path: Path) -> None:
    command = [
        sys.executable, "-m", "inspect_ai", "eval", "heedbench/choice",
        "--model", "heedbench/random", "-T", "n=5", "-T", "method=pairwise_sort",
        "--log-dir", str(tmp_path), "--display", "none",
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    logs = list(tmp_path.glob("*.eval"))
    assert len(logs) == 1
    log = read_eval_log(str(logs[0]))
    assert log.status == "success"
    assert log.eval.task == "heedbench/choice"
    assert log.results is not None
    assert {s.name for s in log.results.scores} >= {"spo", "kendall", "valid"}


def test_task_list_shows_every_task() -> None:
    command = [sys.executable, "-m", "inspect_ai", "list", "tasks", "--json", "evals"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    names = {task["name"] for task in json.loads(result.stdout)}
    assert names >= {
        "choice",
        "carryon",
        "prefdisco",
        "carryon_judge_check",
        "prefdisco_judge_check",
        "carryon_candidates",
        "carryon_checklist",
        "prefdisco_personas",
        "prefdisco_profiles",
    }


def test_wheel_ships_the_data(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
               "-w", str(tmp_path), str(ROOT)]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    (wheel,) = tmp_path.glob("heedbench-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "heedbench/data/choice/contexts.jsonl" in names
    assert "heedbench/data/choice/objects.json" in names
    assert "heedbench/data/choice/v2/contexts.jsonl" in names  # -T data=v2
    assert "heedbench/data/choice/v3/contexts.jsonl" in names  # -T data=v3
    assert "heedbench/data/choice/contrast/contexts.jsonl" in names  # -T data=contrast
    assert "heedbench/data/carryon/queries.jsonl" in names
    assert "heedbench/data/carryon/reviews/adjudicated.jsonl" in names
    assert "heedbench/data/carryon/reviews/round9_decisions.jsonl" in names
    assert "heedbench/data/carryon/refusals.jsonl" in names  # heedbench/refusal replays them
    assert "heedbench/data/carryon/expert_answers.jsonl" in names
    assert "heedbench/data/carryon/gradings/floor_a.jsonl" in names
    assert "heedbench/data/prefdisco/benchmark_1k/medqa/train.jsonl" in names
    assert "heedbench/data/judge_check/carryon_harm.jsonl" in names
    assert "heedbench/data/judge_check/prefdisco_rubric.jsonl" in names
    assert "heedbench/evals/choice/task.py" in names
    assert "heedbench/solvers/choice/relation.py" in names
    assert "heedbench/scorers/choice/metrics.py" in names


def test_sdist_ships_flows_benchmarks_and_docs(tmp_path: Path) -> None:
    code = f"from setuptools import build_meta; print(build_meta.build_sdist({str(tmp_path)!r}))"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    (sdist,) = tmp_path.glob("heedbench-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for path in ("flows/choice_paper.py", "benchmarks/latency.py", "docs/scale.md",
                 "evals/carryon/README.md", "tests/test_packaging.py", "BENCHMARKS.md"):  # fmt: skip
        assert path in names
    assert not any("__pycache__" in name for name in names)


def test_the_pins_that_keep_pip_from_backtracking_fit_together() -> None:
    """pip backtracks through boto3 releases unless boto3 is held to the botocore versions the
    pinned aiobotocore accepts (boto3 1.43.N requires botocore 1.43.N), and through s3fs
    releases unless s3fs is held to the fsspec Inspect accepts; a bump of one alone brings the
    backtracking back."""
    from importlib.metadata import requires, version

    import pytest
    from packaging.requirements import Requirement

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    ours = {r.name: r for r in map(Requirement, declared["project"]["dependencies"])}
    assert version("aiobotocore") in ours["aiobotocore"].specifier
    [window] = [Requirement(r) for r in requires("aiobotocore") or [] if r.startswith("botocore")]
    assert str(ours["boto3"].specifier) == str(window.specifier)
    # s3fs N requires fsspec N: the s3fs pin admits only releases whose fsspec Inspect accepts
    [cap] = [Requirement(r) for r in requires("inspect_ai") or [] if r.startswith("fsspec")]
    [pinned] = [Requirement(r) for r in requires("s3fs") or [] if r.startswith("fsspec")]
    assert version("s3fs") in ours["s3fs"].specifier
    assert version("fsspec") in cap.specifier and version("fsspec") in pinned.specifier
    # the first s3fs the pin leaves out needs an fsspec (its own version) the cap leaves out
    assert "2026.7.0" not in ours["s3fs"].specifier and "2026.7.0" not in cap.specifier


def test_the_s3_extra_is_what_a_user_of_object_storage_needs() -> None:
    """s3fs only: the tests' servers (moto, werkzeug) are in [s3-servers], which [dev] holds."""
    import pytest
    from packaging.requirements import Requirement

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    assert [Requirement(r).name for r in extras["s3"]] == ["s3fs"]
    servers = {Requirement(r).name for r in extras["s3-servers"]}
    assert {"moto", "werkzeug"} <= servers and "s3-servers" in extras["dev"][0]
