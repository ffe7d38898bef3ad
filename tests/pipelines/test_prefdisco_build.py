"""Offline PrefDisco builds with scripted models: personas -> profiles -> folder -> run."""

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput

from heedbench.evals.pipelines.prefdisco import (
    PrefDiscoBuildError,
    prefdisco_personas,
    prefdisco_profiles,
)
from heedbench.evals.prefdisco.dataset import read_source
from heedbench.evals.prefdisco.task import prefdisco
from heedbench.report.cli import main
from tests.pipelines.scripted import blocked, model, persona_writer, profiler
from tests.prefdisco.scripted import asks, models

PROBLEMS = Path(__file__).parents[2] / "datasets" / "build_examples" / "math_problems.jsonl"


def personas_run(tmp_path: Path, count: int = 3) -> EvalLog:
    log = eval(
        prefdisco_personas(count=count, seed=1),
        model="none",
        model_roles={"generator": model("persona_writer", persona_writer)},
        display="none",
        log_dir=str(tmp_path / "personas"),
    )[0]
    assert log.status == "success", log.error
    return log


def profiles_run(tmp_path: Path, personas: str, script: Any = None, **params: Any) -> EvalLog:
    settings = {"source": "math", "problems": str(PROBLEMS), "sample_size": 3,
                "personas_per_problem": 2, "dimensions": 5, "expertise_min": 1,
                "expertise_max": 2, **params}  # fmt: skip
    log = eval(
        prefdisco_profiles(personas=personas, **settings),
        model="none",
        model_roles={"generator": model("profiler", script or profiler())},
        display="none",
        log_dir=str(tmp_path / "profiles"),
    )[0]
    assert log.status == "success", log.error
    return log


def test_three_problems_by_two_personas_built_and_run_by_prefdisco(
    tmp_path: Path, capsys: Any
) -> None:
    personas = personas_run(tmp_path)
    assert all(s.scores and s.scores["persona_built"].value == 1 for s in personas.samples or [])
    profiles = profiles_run(tmp_path, personas.location)
    assert len(profiles.samples or []) == 6
    assert all(s.scores and s.scores["profile_built"].value == 1 for s in profiles.samples or [])

    out = tmp_path / "built"
    assert main(["build", "prefdisco", profiles.location, "-o", str(out)]) == 0
    path = out / "benchmark_1k" / "math" / "train.jsonl"
    lines = [json.loads(line) for line in path.open()]
    meta, records = lines[0], lines[1:]
    assert meta["type"] == "metadata" and meta["dataset"] == "math"
    assert meta["total_personas_in_library"] == 3 and meta["personas_per_problem"] == 2
    assert meta["sample_size"] == 3 and meta["llm_clients"] == ["buildtest/profiler"]
    assert [r["problem_id"].split("_")[1] for r in records] == ["0", "0", "1", "1", "2", "2"]
    for record in records:
        assert (
            record["problem_id"]
            == f"problem_{record['problem_id'].split('_')[1]}_" + (record["persona"]["id"])
        )
        prefs = record["persona_preferences"]
        assert len(prefs) == 5 and sum(p["type"] == "expertise" for p in prefs.values()) == 1
        assert "Familiarity with Topic 1" in prefs  # the "Preference for" prefix is removed
        assert {p["problem_context"] for p in prefs.values()} == {"math problem"}
        criteria = record["evaluation_rubric"]["evaluation_criteria"]
        # importances 5, 3, 2, 4, 1 (total 15)
        assert [c["weight"] for c in criteria] == pytest.approx([5 / 15, 3 / 15, 2 / 15,
                                                                 4 / 15, 1 / 15])  # fmt: skip
        assert [level["score"] for level in criteria[0]["levels"]] == [1, 3, 5]
        uses = sum(r["persona"]["id"] == record["persona"]["id"] for r in records)
        assert record["persona"]["usage_count"] == uses
        assert record["original_problem"] in [json.loads(x) for x in PROBLEMS.open()]
    loaded, report = read_source("math", data=str(out), strict=True)
    assert len(loaded) == 6 and report.clean
    printed = capsys.readouterr().out
    assert "| math | 6 | 3 | " in printed and "| 5 | 5.0 | 5 | 6 | 24 | 30 | 5 |" in printed
    assert (path.parent / "card.md").exists()

    evaluated, roles = models(asks(1))
    log = eval(
        prefdisco(source="math", data=str(out)),
        model=evaluated,
        model_roles=roles,
        display="none",
        log_dir=str(tmp_path / "run"),
    )[0]
    assert log.status == "success", log.error
    assert len(log.samples or []) == 18  # 6 records x 3 conditions
    assert all(s.scores for s in log.samples or [])


def test_a_profile_with_the_wrong_count_is_asked_again(tmp_path: Path) -> None:
    personas = personas_run(tmp_path)
    prompts: list[str] = []
    script = profiler(wrong_count_first=True)

    def recording(prompt: str) -> str | ModelOutput:
        prompts.append(prompt)
        return script(prompt)

    log = profiles_run(tmp_path, personas.location, recording, sample_size=1)
    assert all(s.scores and s.scores["profile_built"].value == 1 for s in log.samples or [])
    retries = [p for p in prompts if "could not be read" in p]
    assert len(retries) == 2 and "'dimensions' has 4 entries; give exactly 5" in retries[0]


def test_a_blocked_rubric_call_is_a_recorded_failure_and_left_out(
    tmp_path: Path, capsys: Any
) -> None:
    personas = personas_run(tmp_path)

    def blocks_rubrics_on_divisors(prompt: str) -> str | ModelOutput:
        if "scoring rubric" in prompt and "divisors" in prompt:
            return blocked()
        return profiler()(prompt)

    log = profiles_run(tmp_path, personas.location, blocks_rubrics_on_divisors, sample_size=5)
    failed = [s for s in log.samples or [] if s.scores and s.scores["profile_built"].value == 0]
    assert len(failed) == 2
    reason = failed[0].store["build"]["failure"]
    assert reason.startswith("rubric: the generator model's call failed (content filter)")
    out = tmp_path / "built"
    assert main(["build", "prefdisco", log.location, "-o", str(out), "--strict"]) == 1
    assert "2 items are not built (--strict)" in capsys.readouterr().err
    assert not (out / "benchmark_1k").exists()
    assert main(["build", "prefdisco", log.location, "-o", str(out)]) == 0
    assert "content filter" in capsys.readouterr().err
    assert len(read_source("math", data=str(out))[0]) == 8


def test_near_duplicate_personas_are_rejected_from_the_library(tmp_path: Path) -> None:
    personas = personas_run(tmp_path)
    first = (personas.samples or [])[0].store["build"]["persona"]
    twin = {**first, "name": "Someone Else"}
    twin["id"] = f"else_{twin['id'].split('_')[1]}"
    library = tmp_path / "library.json"
    from heedbench.solvers.pipelines.prefdisco_checks import persona_id

    twin["id"] = persona_id(twin["name"], twin["minimal_necessary_description"])
    library.write_text(json.dumps([twin]))
    log = profiles_run(tmp_path, f"{personas.location},{library}", sample_size=1)
    assert log.eval.metadata is not None
    rejected = log.eval.metadata["rejected_personas"]
    assert rejected == [{"persona_id": twin["id"], "duplicate_of": first["id"],
                         "reason": "summary, occupation and expertise overlap 1.00 >= 0.50"}]  # fmt: skip
    assert len(log.eval.metadata["library"]) == 3


def test_too_small_a_library_is_refused_before_any_call(tmp_path: Path) -> None:
    personas = personas_run(tmp_path, count=1)
    with pytest.raises(PrefDiscoBuildError, match="library has 1 personas"):
        prefdisco_profiles(personas=personas.location, source="math", problems=str(PROBLEMS),
                           personas_per_problem=2)  # fmt: skip


def test_the_command_refuses_a_record_the_loader_would_repair(tmp_path: Path, capsys: Any) -> None:
    log = profiles_run(tmp_path, personas_run(tmp_path).location, sample_size=1)
    broken = read_eval_log(log.location)
    sample = (broken.samples or [])[0]
    sample.store["build"]["record"]["evaluation_rubric"]["evaluation_criteria"][0]["weight"] = 3
    path = str(tmp_path / "broken.eval")
    write_eval_log(broken, path)
    assert main(["build", "prefdisco", path, "-o", str(tmp_path / "out")]) == 1
    error = capsys.readouterr().err
    assert f"{path}: sample '{sample.id}'" in error and "weights_normalised" in error
    sample.store["build"]["record"]["persona"] = "a string"
    write_eval_log(broken, path)
    assert main(["build", "prefdisco", path, "-o", str(tmp_path / "out")]) == 1
    assert "field 'persona': Input should be a valid dictionary" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
