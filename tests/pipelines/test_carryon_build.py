"""Offline CarryOn checklist builds with scripted models: candidates -> checklist -> file -> run."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval, eval_retry
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput

from heedbench.evals.carryon.dataset import load_queries
from heedbench.evals.carryon.task import carryon
from heedbench.evals.pipelines.assemble_carryon import assemble_carryon
from heedbench.evals.pipelines.carryon import carryon_candidates, carryon_checklist
from heedbench.paths import shipped_data_dir
from heedbench.report.cli import main
from heedbench.testing import scripted_model
from heedbench.testing_carryon import refuse_then_recover, scripted_grader, scripted_user
from tests.pipelines import scripted
from tests.pipelines.scripted import CALLS, blocked, empty, extractor, generator, merger, model

EXAMPLES = Path(__file__).parents[2] / "datasets" / "build_examples" / "carryon_queries.jsonl"


def candidates_run(tmp_path: Path, generators: dict[str, Any], **params: Any) -> EvalLog:
    roles = {role: model(name, script) for role, (name, script) in generators.items()}
    roles["extractor"] = model("extractor", extractor)
    log = eval(
        carryon_candidates(data=str(EXAMPLES), generators=",".join(generators), **params),
        model="none",
        model_roles=roles,
        display="none",
        log_dir=str(tmp_path / "candidates"),
    )[0]
    assert log.status == "success", log.error
    return log


def checklist_run(tmp_path: Path, logs: list[str], script: Any = None) -> EvalLog:
    log = eval(
        carryon_checklist(candidates=",".join(logs)),
        model="none",
        model_roles={"merger": model("merger", script or merger())},
        display="none",
        log_dir=str(tmp_path / "checklist"),
    )[0]
    assert log.status == "success", log.error
    return log


TWO = {"generator": ("gen_a", generator("gen_a")), "generator_2": ("gen_b", generator("gen_b"))}


def test_five_queries_built_and_run_by_carryon(tmp_path: Path, capsys: Any) -> None:
    first = candidates_run(tmp_path, TWO)
    second = checklist_run(tmp_path, [first.location])
    out = tmp_path / "built" / "queries.jsonl"
    assert main(["build", "carryon", second.location, "-o", str(out)]) == 0

    queries = load_queries(out)
    assert [q.id for q in queries] == sorted(json.loads(line)["id"] for line in EXAMPLES.open())
    rows = [json.loads(line) for line in out.open()]
    first_row = rows[0]
    # 2 shared + 2 own tips per generator: 6 distinct items, the 2 shared from both generators
    assert len(first_row["checklist"]) == 6
    provenance = [item["generators"] for item in first_row["checklist"]]
    assert provenance.count(["buildtest/gen_a", "buildtest/gen_b"]) == 2
    assert provenance.count(["buildtest/gen_a"]) == 2 and provenance.count(["buildtest/gen_b"]) == 2
    assert all(item["question"].startswith("Does the response explicitly ") for item in
               first_row["checklist"])  # fmt: skip
    assert first_row["review"] is None
    assert first_row["build"]["merger"] == "buildtest/merger"

    printed = capsys.readouterr().out
    assert "Checklist items: 30 in all; per query min 6, mean 6.00, max 6." in printed
    assert "| Practical Advice | 10 | 33.3 % |" in printed
    card = (tmp_path / "built" / "queries.card.md").read_text()
    assert "| 2 | 10 | 33.3 % |" in card  # items that both generators yielded

    target = scripted_model(refuse_then_recover(), "target")
    log = eval(
        carryon(data=str(out), condition="turn1,oracle,bc", flows_per_query=1, judge="batched"),
        model=target,
        model_roles={"user": scripted_model(scripted_user, "user"),
                     "grader": scripted_model(scripted_grader, "grader")},
        display="none",
        log_dir=str(tmp_path / "run"),
    )[0]  # fmt: skip
    assert log.status == "success", log.error
    assert log.samples and all(s.scores for s in log.samples)
    assert log.samples[0].metadata["review"] is None


def test_one_run_per_generator_model_merges_the_same(tmp_path: Path) -> None:
    a = candidates_run(tmp_path, {"generator": TWO["generator"]})
    b = candidates_run(tmp_path, {"generator": TWO["generator_2"]})
    log = checklist_run(tmp_path, [str(tmp_path / "candidates")])
    assert a.location != b.location
    records, left_out = assemble_carryon([log.location])
    assert not left_out and len(records) == 5
    assert sorted(records[0]["build"]["generators"]) == ["buildtest/gen_a", "buildtest/gen_b"]
    assert len(records[0]["checklist"]) == 6


def test_a_blocked_generator_is_recorded_and_the_other_carries_on(tmp_path: Path) -> None:
    def blocks_lock_questions(prompt: str) -> str | ModelOutput:
        return blocked() if "pin tumbler" in prompt else generator("gen_b")(prompt)

    log = candidates_run(tmp_path, {**TWO, "generator_2": ("gen_b_blocked", blocks_lock_questions)})
    sample = next(s for s in log.samples or [] if s.id == "new-dng-002")
    entries = sample.store["build"]["generators"]
    assert "candidates" in entries[0]
    assert entries[1]["failure"].startswith("answer (generator_2): the generator_2 model's call "
                                            "failed (content filter)")  # fmt: skip
    assert sample.scores and sample.scores["candidates_built"].value == 1
    checklist = checklist_run(tmp_path, [log.location])
    records, _ = assemble_carryon([checklist.location])
    built = next(r for r in records if r["id"] == "new-dng-002")
    assert built["build"]["generators"] == ["buildtest/gen_a"] and len(built["checklist"]) == 4


def test_all_generators_blocked_leaves_the_query_out_with_the_reason(tmp_path: Path) -> None:
    def blocks_all(prompt: str) -> str | ModelOutput:
        return blocked() if "pin tumbler" in prompt else generator("gen_a")(prompt)

    log = candidates_run(tmp_path, {"generator": ("gen_all_blocked", blocks_all)})
    sample = next(s for s in log.samples or [] if s.id == "new-dng-002")
    assert sample.scores and sample.scores["candidates_built"].value == 0
    checklist = checklist_run(tmp_path, [log.location])
    assert checklist.eval.metadata is not None
    assert "content filter" in checklist.eval.metadata["left_out"]["new-dng-002"]
    assert len(checklist.samples or []) == 4


def test_a_merge_that_drops_a_candidate_is_asked_again_with_the_problem(tmp_path: Path) -> None:
    log = candidates_run(tmp_path, TWO)
    prompts: list[str] = []

    def recording(prompt: str) -> str | ModelOutput:
        prompts.append(prompt)
        return merger(drop_first_try=True)(prompt)

    checklist = checklist_run(tmp_path, [log.location], recording)
    assert all(s.scores and s.scores["checklist_built"].value == 1 for s in checklist.samples or [])
    retries = [p for p in prompts if "could not be read" in p]
    assert len(retries) == 5 and "are in no merged item" in retries[0]


def test_unreadable_extraction_is_a_recorded_failure_not_an_error(tmp_path: Path) -> None:
    roles = {
        "generator": model("gen_a", generator("gen_a")),
        "extractor": model("chatter", lambda prompt: "I think the answer is very good!"),
    }
    log = eval(carryon_candidates(data=str(EXAMPLES), category="privacy"), model="none",
               model_roles=roles, display="none", log_dir=str(tmp_path))[0]  # fmt: skip
    sample = (log.samples or [])[0]
    failure = sample.store["build"]["generators"][0]["failure"]
    assert failure.startswith("extract (generator's answer): no usable reply from the extractor "
                              "model after 2 attempts")  # fmt: skip


def test_a_glitching_call_errors_the_sample_and_eval_retry_reruns_only_it(tmp_path: Path) -> None:
    state = {"broken": True}

    def flaky(prompt: str) -> str | ModelOutput:
        return empty() if state["broken"] and "garage" in prompt else generator("gen_a")(prompt)

    roles = {"generator": model("gen_flaky", flaky), "extractor": model("extractor", extractor)}
    first = eval(carryon_candidates(data=str(EXAMPLES)), model="none", model_roles=roles,
                 display="none", log_dir=str(tmp_path), fail_on_error=False)[0]  # fmt: skip
    errored = [s.id for s in first.samples or [] if s.error]
    assert errored == ["new-dng-001"]
    assert "the generator model's call failed (empty)" in (first.samples or [])[
        [s.id for s in first.samples or []].index("new-dng-001")].error.message  # type: ignore[union-attr]  # fmt: skip

    state["broken"] = False
    CALLS.clear()
    retried = eval_retry(first.location, log_dir=str(tmp_path), display="none")[0]
    assert retried.status == "success"
    assert CALLS["gen_flaky"] == 1 and CALLS["extractor"] == 1  # only the errored query
    checklist = checklist_run(tmp_path, [first.location, retried.location])
    assert len(checklist.samples or []) == 5


def test_unbound_roles_fail_before_any_call_naming_the_flag(tmp_path: Path) -> None:
    CALLS.clear()
    log = eval(carryon_candidates(data=str(EXAMPLES), generators="generator,generator_2"),
               model="none", model_roles={"generator": model("gen_a", generator("gen_a")),
                                          "extractor": model("extractor", extractor)},
               display="none", log_dir=str(tmp_path))[0]  # fmt: skip
    assert log.status == "error" and "--model-role generator_2=" in str(log.error)
    assert not CALLS


@pytest.mark.parametrize(
    ("task", "args", "flag"),
    [
        ("heedbench/carryon_candidates", ["-T", f"data={EXAMPLES}", "--model-role",
                                          "generator=mockllm/model"], "--model-role extractor="),
        ("heedbench/carryon_checklist", ["-T", "candidates=."], "--model-role merger="),
        ("heedbench/prefdisco_personas", [], "--model-role generator="),
    ],
)  # fmt: skip
def test_unbound_roles_stop_inspect_eval_while_the_task_is_built(
    tmp_path: Path, task: str, args: list[str], flag: str
) -> None:
    inspect = Path(sys.executable).parent / "inspect"
    result = subprocess.run(
        [str(inspect), "eval", task, "--model", "none", *args, "--display", "none",
         "--log-dir", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode != 0
    assert flag in result.stdout + result.stderr
    assert not list(tmp_path.glob("*.eval"))


def test_shipped_queries_are_valid_build_input() -> None:
    from heedbench.evals.pipelines.carryon import load_build_queries

    assert len(load_build_queries(shipped_data_dir("carryon") / "queries.jsonl")) == 200


def test_the_command_refuses_a_record_that_would_not_load(tmp_path: Path, capsys: Any) -> None:
    log = checklist_run(tmp_path, [candidates_run(tmp_path, TWO).location])
    broken = read_eval_log(log.location)
    sample = (broken.samples or [])[0]
    sample.store["build"]["record"]["checklist"][2]["category"] = "Trivia"
    path = str(tmp_path / "broken.eval")
    write_eval_log(broken, path)
    out = tmp_path / "queries.jsonl"
    assert main(["build", "carryon", path, "-o", str(out)]) == 1
    error = capsys.readouterr().err
    assert f"{path}: sample '{sample.id}'" in error
    assert "field 'checklist[2].category': unknown category 'Trivia'" in error
    assert not out.exists()


def test_the_command_names_a_log_of_the_wrong_step(tmp_path: Path, capsys: Any) -> None:
    log = candidates_run(tmp_path, TWO)
    assert main(["build", "carryon", log.location, "-o", str(tmp_path / "q.jsonl")]) == 1
    assert "no log of carryon_checklist" in capsys.readouterr().err


def test_scripted_module_is_importable() -> None:
    assert scripted.SCRIPTS
