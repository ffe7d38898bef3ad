"""The Inspect Flow specs under flows/: what they expand to, offline, and a tiny run end to end."""

import contextvars
from collections import Counter
from collections.abc import Callable
from itertools import product
from pathlib import Path
from typing import Any

import pytest

flow_api = pytest.importorskip("inspect_flow.api")
from inspect_flow import FlowSpec, FlowTask  # noqa: E402

from heedbench.evals.choice import choice_dataset  # noqa: E402
from heedbench.evals.choice.task import DEFAULT_TEMPLATE, fitting_templates  # noqa: E402
from heedbench.params import ParameterError  # noqa: E402
from heedbench.prices import DEFAULT_PRICES  # noqa: E402
from heedbench.report.cli import main as heedbench  # noqa: E402
from heedbench.report.load import load_runs  # noqa: E402
from heedbench.sweeps import PAPER_CHOICE_DESIGNS, task_version  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONTEXTS = [str(sample.id) for sample in choice_dataset()]


@pytest.fixture(autouse=True, scope="module")
def quiet_flow() -> None:
    flow_api.init(display="none", dotenv_base_dir=None)


def load(spec: str, **args: Any) -> FlowSpec:
    """The spec as `flow config` / `flow run` load it: the file run with `-A` arguments."""
    loaded: FlowSpec = flow_api.load_spec(str(ROOT / "flows" / f"{spec}.py"), args=args)
    return loaded


def tasks(spec: FlowSpec) -> list[FlowTask]:
    found = list(spec.tasks or [])
    assert all(isinstance(task, FlowTask) for task in found)
    return found  # type: ignore[return-value]


def model_of(task: FlowTask) -> str:
    name = task.model_name
    assert isinstance(name, str)
    return name


def args_of(task: FlowTask) -> dict[str, Any]:
    assert isinstance(task.args, dict)
    return dict(task.args)


def fresh(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run a spec as `flow run` would, in a context of its own: Flow leaves the context it
    resolves tasks in with an (empty) role binding, which a later build would take for
    `inspect eval` without roles (see heedbench.roles.roles_bound_before_build)."""
    return contextvars.Context().run(call, *args, **kwargs)


def offline(spec: FlowSpec, log_dir: Path) -> FlowSpec:
    """No Flow store (it would index logs in the user's data folder), logs in a temp folder."""
    return spec.model_copy(update={"store": None, "log_dir": str(log_dir)})


def test_choice_paper_is_designs_by_templates_by_models() -> None:
    spec = load("choice_paper", models="lab/a,lab/b")
    found = Counter(
        (model_of(t), args_of(t)["method"], args_of(t)["template"]) for t in tasks(spec)
    )
    expected = {
        (model, design, template)
        for model, design in product(("lab/a", "lab/b"), PAPER_CHOICE_DESIGNS)
        for template in fitting_templates(design)
    }
    assert set(found) == expected and max(found.values()) == 1
    assert len(expected) == 2 * (7 + 7 + 3 + 4 + 2)
    for task in tasks(spec):
        assert task.name == "heedbench/choice" and task.version == task_version("choice")
        assert args_of(task)["cache"] is True
    assert spec.options and spec.options.model_cost_config == str(DEFAULT_PRICES)
    assert spec.options.log_realtime is False

    best = load("choice_paper", models="lab/a", designs="all", templates="default", n=10)
    assert {(args_of(t)["method"], args_of(t)["template"]) for t in tasks(best)} == set(
        DEFAULT_TEMPLATE.items()
    )
    assert all(args_of(t)["n"] == 10 for t in tasks(best))  # any other -A is a task argument


def test_carryon_paper_is_four_conditions_per_model_with_both_roles() -> None:
    spec = load("carryon_paper", models=["lab/a", "lab/b"], user="lab/u", grader="lab/g")
    found = {(model_of(t), args_of(t)["condition"]) for t in tasks(spec)}
    assert found == set(product(("lab/a", "lab/b"), ("turn1", "oracle", "bc", "nc")))
    for task in tasks(spec):
        assert task.model_roles == {"user": "lab/u", "grader": "lab/g"}
        # one setting of the model for the report: the same flows per query on all four
        assert args_of(task)["flows_per_query"] == 8
        assert task.version == task_version("carryon")
    with pytest.raises(ParameterError, match="-A grader="):
        load("carryon_paper", models="lab/a", user="lab/u")


def test_prefdisco_paper_is_conditions_by_sources_by_models_plus_fixed_k() -> None:
    spec = load("prefdisco_paper", models="lab/a,lab/b", user="lab/u", grader="lab/g")
    shipped = ("math", "medqa", "mmlu", "socialiqa")
    found = Counter(
        (
            model_of(t),
            args_of(t)["source"],
            args_of(t)["condition"],
            args_of(t).get("fixed_questions"),
        )
        for t in tasks(spec)
    )
    conditions: list[tuple[str, int | None]] = [
        (c, None) for c in ("baseline", "discovery", "oracle")
    ]
    conditions += [("discovery", k) for k in (2, 4, 8)]
    expected = {
        (model, source, condition, k)
        for model, source, (condition, k) in product(("lab/a", "lab/b"), shipped, conditions)
    }
    assert set(found) == expected and max(found.values()) == 1
    assert all(t.model_roles == {"user": "lab/u", "grader": "lab/g"} for t in tasks(spec))

    # the release: ten sources, nothing downloaded to expand the spec
    hub = load(
        "prefdisco_paper", models="lab/a", user="lab/u", grader="lab/g", data="hub",
        revision="0123abc", fixed_questions="",
    )  # fmt: skip
    assert len(tasks(hub)) == 10 * 3
    assert all(args_of(t)["revision"] == "0123abc" for t in tasks(hub))

    # beyond the paper: one stock-questionnaire discovery run per source, when asked for
    stock = load("prefdisco_paper", models="lab/a", user="lab/u", grader="lab/g",
                 fixed_questions="", stock="true")  # fmt: skip
    asked = [args_of(t) for t in tasks(stock) if args_of(t).get("questions") == "stock"]
    assert sorted(a["source"] for a in asked) == sorted(shipped)
    assert {a["condition"] for a in asked} == {"discovery"} and len(tasks(stock)) == 4 * 4


def test_choice_shards_split_the_contexts_by_sample_id(tmp_path: Path) -> None:
    shards = [
        load("choice_shards", shard=k, shards=3, model="heedbench/random", log_dir=str(tmp_path))
        for k in range(3)
    ]
    ids = [list(tasks(spec)[0].sample_id or []) for spec in shards]  # type: ignore[arg-type]
    assert sorted(i for shard in ids for i in shard) == sorted(CONTEXTS)
    assert [len(shard) for shard in ids] == [8, 8, 7]
    assert len({spec.log_dir for spec in shards}) == 3
    assert all(str(spec.log_dir).startswith(str(tmp_path)) for spec in shards)
    with pytest.raises(ParameterError, match="0 <= shard < shards"):
        load("choice_shards", shard=3, shards=3, model="heedbench/random")


@pytest.mark.parametrize(
    ("spec", "args", "count"),
    [
        ("choice_paper", {"models": "heedbench/random", "templates": "default"}, 5),
        (
            "carryon_paper",
            {"models": "mockllm/model", "user": "mockllm/u", "grader": "mockllm/g"},
            4,
        ),
        (
            "prefdisco_paper",
            {
                "models": "mockllm/model",
                "user": "mockllm/u",
                "grader": "mockllm/g",
                "sources": "math",
            },
            6,
        ),
        ("choice_shards", {"shard": 1, "shards": 2, "model": "heedbench/random", "n": 5}, 1),
    ],
)
def test_every_spec_instantiates_its_tasks_in_a_dry_run(
    spec: str, args: dict[str, Any], count: int, tmp_path: Path
) -> None:
    # a dry run builds every task (arguments checked, versions compared with the installed
    # tasks, datasets loaded) and calls no model
    loaded = offline(load(spec, **args), tmp_path / "logs")
    assert len(tasks(loaded)) == count
    result = fresh(flow_api.run, loaded, base_dir=str(tmp_path), dry_run=True)
    assert result.logs == []
    assert not (tmp_path / "logs").exists() or not list((tmp_path / "logs").glob("*.eval"))


def run(spec: FlowSpec, tmp_path: Path) -> None:
    result = fresh(flow_api.run, spec.model_copy(update={"store": None}), base_dir=str(tmp_path))
    assert result.success, [log.error for log in result.logs]


def test_a_sharded_run_end_to_end_and_its_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "choice-2x"
    shard = {"shards": 2, "model": "heedbench/random", "method": "pointwise", "n": 4}
    run(load("choice_shards", shard=0, log_dir=str(root), **shard), tmp_path)

    # one shard so far: the report counts it and lists the other shard's contexts as missing
    loaded = load_runs([str(root)])
    (coverage,) = loaded.coverage.values()
    assert coverage.count("scored") == 12
    assert sorted(coverage.missing_ids) == sorted(CONTEXTS[1::2])

    run(load("choice_shards", shard=1, log_dir=str(root), **shard), tmp_path)
    assert sorted(p.name for p in root.iterdir()) == ["shard-0-of-2", "shard-1-of-2"]
    loaded = load_runs([str(root)])
    (coverage,) = loaded.coverage.values()
    assert coverage.count("scored") == 23 and coverage.missing_ids == []
    assert coverage.duplicates == {} and coverage.logs == 2
    assert len(loaded.used) == 2 and loaded.failed == [] and loaded.foreign == []
    capsys.readouterr()
    assert heedbench(["report", str(root), "-o", str(tmp_path / "report")]) == 0
    assert "heedbench/random [method=pointwise, n=4]: 23/23 scored" in capsys.readouterr().out


def test_a_tiny_paper_sweep_end_to_end_and_its_report(tmp_path: Path) -> None:
    logs = tmp_path / "choice-paper"
    spec = load(
        "choice_paper", models="heedbench/random", designs="pointwise,listwise",
        templates="default", n=4, log_dir=str(logs),
    )  # fmt: skip
    run(spec, tmp_path)
    # Flow's own files (flow.yaml, eval-set.json, ...) sit beside the logs; the report reads
    # the logs and leaves the rest alone
    assert (logs / "flow.yaml").exists()
    loaded = load_runs([str(logs)])
    assert sorted(r.args["method"] for r in loaded.used) == ["listwise", "pointwise"]
    assert all(r.model == "heedbench/random" and r.status == "success" for r in loaded.used)
    assert heedbench(["report", str(logs), "-o", str(tmp_path / "report")]) == 0
