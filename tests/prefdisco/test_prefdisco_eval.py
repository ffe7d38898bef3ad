"""End-to-end `prefdisco` runs with scripted models, offline: data -> solver -> scorer -> log."""

import json
import logging
import math
import random
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, EvalSample

from heedbench.evals.prefdisco import dataset
from heedbench.evals.prefdisco.dataset import load_records
from heedbench.evals.prefdisco.task import prefdisco
from heedbench.paths import shipped_data_dir
from heedbench.solvers.prefdisco.user_prompts import USER_STYLES
from heedbench.testing import instruction_section, scripted_model
from heedbench.testing import log_metric as metric
from tests.prefdisco.scripted import Calls, asks, condition_of, final, grader_reply, models

MATH_RECORDS = 3  # the first three records: `--limit 9` keeps whole triples
RECORD = load_records("math")[0]


def run(
    tmp_path: Path, model: Any, *, calls: Calls | None = None, limit: int = 3 * MATH_RECORDS,
    user: Any = None, grader: Any = grader_reply, **params: Any,
) -> EvalLog:  # fmt: skip
    extra = {"user": user} if user is not None else {}
    evaluated, roles = models(model, grader=grader, calls=calls, **extra)
    log = eval(
        prefdisco(**params),
        model=evaluated,
        model_roles=roles,
        limit=limit,
        display="none",
        log_dir=str(tmp_path),
    )[0]
    assert log.status == "success", log.error
    return log


def samples(log: EvalLog, condition: str | None = None) -> list[EvalSample]:
    return [
        s for s in log.samples or [] if condition is None or s.metadata["condition"] == condition
    ]


def score_of(sample: EvalSample) -> tuple[dict[str, Any], dict[str, Any]]:
    assert sample.scores is not None
    score = sample.scores["prefdisco"]
    assert isinstance(score.value, dict) and score.metadata is not None
    return score.value, score.metadata


def test_normalized_alignment_from_a_hand_checkable_run(tmp_path: Path) -> None:
    # Grader: 2 for baseline, 3 for discovery, 4 for oracle -> 100 (3 - 2) / (4 - 2) = 50.
    log = run(tmp_path, asks(2))
    assert metric(log, "prefdisco", "prefalign_baseline") == pytest.approx(2.0)
    assert metric(log, "prefdisco", "prefalign_discovery") == pytest.approx(3.0)
    assert metric(log, "prefdisco", "prefalign_oracle") == pytest.approx(4.0)
    assert metric(log, "prefdisco", "normalized_alignment") == pytest.approx(50.0)
    assert metric(log, "prefdisco", "normalized_alignment_math") == pytest.approx(50.0)
    assert metric(log, "prefdisco", "discovery_below_baseline") == 0.0
    assert metric(log, "prefdisco", "questions_discovery") == 2.0
    assert math.isnan(metric(log, "prefdisco", "questions_baseline"))  # only discovery asks
    assert metric(log, "prefdisco", "correct_oracle") == 1.0  # problem 0 (3 personas): 7


def test_sample_design(tmp_path: Path) -> None:
    log = run(tmp_path, asks(1))
    ids = [str(s.id) for s in samples(log)]
    assert len(ids) == len(set(ids)) == 9
    sample = next(s for s in samples(log) if str(s.id).startswith("discovery/"))
    assert str(sample.id) == f"discovery/{sample.metadata['problem_id']}"
    assert {"problem_id", "source", "condition", "persona_id", "user_type"} <= set(sample.metadata)
    assert sample.metadata["problem_id"].endswith(sample.metadata["persona_id"])
    value, meta = score_of(sample)
    assert set(value) == {"prefalign", "correct", "questions"}
    # the user sees (and the log keeps) the model's whole message, markers included
    question = (
        "###ACTION###: ask_question\n###RESPONSE###: How much detail do you want? (question 1)"
    )
    assert meta["exchanges"] == [{"question": question, "answer": "Keep it short."}]
    assert (meta["correctness"]["method"], meta["correctness"]["mode"]) == ("grader", "grader")
    assert meta["criteria"] and all(
        {"score", "weight", "justification"} <= set(c) for c in meta["criteria"].values()
    )
    assert log.eval.metadata is not None and log.eval.metadata["family"] == "prefdisco"


@pytest.mark.parametrize(
    ("protocol", "opening"),
    [("paper", "Please help me with the following task: "),
     ("budgeted", "Could you help me with this task?\n\n")],
)  # fmt: skip
def test_baseline_sees_the_task_alone_and_oracle_the_profiles(
    tmp_path: Path, protocol: str, opening: str
) -> None:
    calls = Calls()
    run(tmp_path, asks(0), calls=calls, limit=3, condition="all", protocol=protocol)
    baseline = next(p for p in calls.model if condition_of(p) == "baseline")
    oracle = next(p for p in calls.model if condition_of(p) == "oracle")
    assert baseline.startswith(opening + RECORD.problem.task_text())
    assert "mportance" in oracle and "Name:" in oracle
    assert calls.user == []


def test_budgeted_model_that_answers_at_once_is_judged_on_that_answer(tmp_path: Path) -> None:
    calls = Calls()
    log = run(
        tmp_path, asks(0), calls=calls, condition="discovery", limit=MATH_RECORDS,
        protocol="budgeted",
    )  # fmt: skip
    for sample in samples(log):
        value, meta = score_of(sample)
        assert value["questions"] == 0 and not meta["final_requested"]
    assert calls.user == [] and len(calls.model) == MATH_RECORDS


@pytest.mark.parametrize("share", [False, True])
def test_model_that_asks_until_the_budget_runs_out(tmp_path: Path, share: bool) -> None:
    calls = Calls()
    log = run(
        tmp_path, asks(99), calls=calls, condition="discovery", max_turns=3, limit=MATH_RECORDS,
        share_baseline=share,
    )  # fmt: skip
    for sample in samples(log):
        value, meta = score_of(sample)
        assert value["questions"] == 3 and meta["final_requested"]
        assert value["prefalign"] == pytest.approx(3.0)  # the answer to the final request
    assert len(calls.user) == 3 * MATH_RECORDS
    # three questions and the final answer; shared, the three personas of problem 0 had the
    # same conversation (the scripted user says the same each time), so one played it
    assert len(calls.model) == 4 * (1 if share else MATH_RECORDS)
    shared = [score_of(s)[1]["shared_replies"] for s in samples(log)]
    assert sorted(shared) == ([0, 4, 4] if share else [0, 0, 0])
    assert metric(log, "prefdisco", "questions_discovery") == 3.0


def test_budgeted_unmarked_message_gets_one_reminder_then_counts_as_the_answer(
    tmp_path: Path,
) -> None:
    log = run(tmp_path, final, condition="discovery", limit=1, protocol="budgeted")
    value, meta = score_of(samples(log)[0])
    assert meta["reminders"] == 1 and value["questions"] == 0
    assert "read as the final answer" in meta["protocol_notes"][0]
    assert value["prefalign"] == pytest.approx(3.0)


def test_decorated_markers_are_understood(tmp_path: Path) -> None:
    def decorated(prompt: str) -> str:
        if condition_of(prompt) != "discovery":
            return final(prompt)
        if "**Question:**" not in prompt:
            return "**Question:** Do you like tables?"
        return "  ## final answer - " + final(prompt)

    log = run(tmp_path, decorated, condition="discovery", limit=1, markers="labels")
    value, meta = score_of(samples(log)[0])
    assert value["questions"] == 1 and meta["reminders"] == 0
    assert meta["exchanges"][0]["question"] == "Do you like tables?"


def test_budgeted_fixed_questions_pushes_an_early_answer_back_into_asking(tmp_path: Path) -> None:
    def eager(prompt: str) -> str:
        # Answers straight away unless told to keep asking.
        if condition_of(prompt) != "discovery":
            return final(prompt)
        if prompt.rstrip().endswith("starting with `QUESTION:`."):
            return "QUESTION: Which level of detail?"
        return "FINAL ANSWER: " + final(prompt)

    calls = Calls()
    log = run(
        tmp_path, eager, calls=calls, condition="discovery", fixed_questions=2, limit=1,
        protocol="budgeted",
    )  # fmt: skip
    value, meta = score_of(samples(log)[0])
    assert value["questions"] == 2 and meta["pushbacks"] == 2 and meta["final_requested"]
    assert "exactly 2 questions" in calls.model[0]


def test_fixed_questions_stops_at_k(tmp_path: Path) -> None:
    log = run(tmp_path, asks(99), condition="discovery", fixed_questions=4, limit=1)
    value, _ = score_of(samples(log)[0])
    assert value["questions"] == 4


@pytest.mark.parametrize("user_type", ["passive", "collaborative"])
def test_budgeted_user_types(tmp_path: Path, user_type: str) -> None:
    calls = Calls()
    log = run(
        tmp_path, asks(1), calls=calls, condition="discovery", user_type=user_type, limit=1,
        protocol="budgeted",
    )  # fmt: skip
    assert USER_STYLES[user_type] in calls.user[0]
    assert "How much detail do you want? (question 1)" in calls.user[0]
    assert samples(log)[0].metadata["user_type"] == user_type


def test_user_text_is_cleaned_and_regenerated_once_when_empty(tmp_path: Path) -> None:
    replies = iter(["*shrugs*", 'User: "Short and casual."'])
    log = run(tmp_path, asks(1), user=lambda prompt: next(replies), condition="discovery", limit=1)
    _, meta = score_of(samples(log)[0])
    assert meta["exchanges"][0]["answer"] == "Short and casual."
    assert meta["user_regenerations"] == 1


def test_malformed_grader_leaves_prefalign_unscored_with_the_reason(tmp_path: Path) -> None:
    def broken(prompt: str) -> str:
        return "5 across the board" if "Criterion" in prompt else grader_reply(prompt)

    log = run(tmp_path, asks(1), grader=broken, limit=3)
    value, meta = score_of(samples(log)[0])
    assert math.isnan(value["prefalign"]) and value["correct"] in (0.0, 1.0)
    assert "failed after 2 attempts" in meta["unscored"]["prefalign"]
    # partly scored: correctness stands, and the score names the grader as what failed
    assert samples(log)[0].scores["prefdisco"].reason == "grader_failed"  # type: ignore[index]
    assert "Unscored: prefalign:" in (samples(log)[0].scores["prefdisco"].explanation or "")  # type: ignore[index]
    assert log.results is not None
    prefalign = next(s for s in log.results.scores if s.name == "prefalign")
    assert (prefalign.scored_samples, prefalign.unscored_samples) == (0, 3)
    assert math.isnan(metric(log, "prefalign", "mean"))


def test_a_grader_that_judges_nothing_leaves_an_unscored_score_with_the_reason(
    tmp_path: Path,
) -> None:
    log = run(tmp_path, asks(1), grader=lambda prompt: "No idea.", correctness="grader", limit=3)
    for sample in samples(log):
        assert sample.scores is not None
        result = sample.scores["prefdisco"]
        assert isinstance(result.value, float) and math.isnan(result.value)
        assert result.reason == "grader_failed"  # Inspect's ScoreReason; the cause is explained
        assert result.explanation is not None and "Unscored: prefalign: " in result.explanation
        assert "correct: judge failed after 2 attempts" in result.explanation
        assert result.metadata is not None and set(result.metadata["unscored"]) == {
            "prefalign",
            "correct",
        }


def test_per_criterion_judging_calls_the_grader_once_per_criterion(tmp_path: Path) -> None:
    calls = Calls()
    log = run(tmp_path, asks(0), calls=calls, condition="baseline", judge="per_criterion", limit=1)
    value, meta = score_of(samples(log)[0])
    # one call per criterion and the correctness call
    assert meta["grader_calls"] == len(meta["criteria"]) + 1 == len(calls.grader)
    assert value["prefalign"] == pytest.approx(2.0)


def record_file(tmp_path: Path, source: str, original: dict[str, Any]) -> Path:
    """The first shipped medqa record, its problem swapped for another source's row."""
    lines = (shipped_data_dir("prefdisco") / "benchmark_1k/medqa/train.jsonl").read_text()
    record = next(json.loads(x) for x in lines.splitlines() if '"personalized_problem"' in x)
    record["original_problem"] = original
    path = tmp_path / f"{source}.jsonl"
    path.write_text(json.dumps(record) + "\n")
    return path


def test_a_lone_letter_is_read_without_a_grader_under_deterministic(tmp_path: Path) -> None:
    calls = Calls()
    log = run(
        tmp_path, lambda prompt: "**B**", calls=calls, source="medqa", limit=3,
        condition="baseline", correctness="deterministic",
    )  # fmt: skip
    for sample in samples(log):
        value, meta = score_of(sample)
        assert meta["correctness"]["method"] == "choice_letter"
        assert value["correct"] == float(sample.target == "B")
    assert not any("correct answer" in instruction_section(p) for p in calls.grader)


def test_correctness_grader_mode_grades_every_answer(tmp_path: Path) -> None:
    calls = Calls()
    log = run(tmp_path, asks(0), calls=calls, condition="baseline", correctness="grader", limit=2)
    for sample in samples(log):
        value, meta = score_of(sample)
        assert value["correct"] == 1.0
        assert (meta["correctness"]["mode"], meta["correctness"]["method"]) == ("grader", "grader")
    assert sum("The correct answer:" in p for p in calls.grader) == 2
    assert log.eval.metadata is not None and log.eval.metadata["correctness"] == "grader"


def test_free_text_answers_go_to_the_grader(tmp_path: Path) -> None:
    path = record_file(tmp_path, "simpleqa", {"problem": "Who wrote it?", "answer": "Ann Lee"})
    calls = Calls()
    log = run(tmp_path, asks(0, "Ann Lee."), calls=calls, source="simpleqa", data=str(path))
    value, meta = score_of(samples(log)[0])
    assert value["correct"] == 1.0 and meta["correctness"]["method"] == "grader"
    assert any("The correct answer: Ann Lee" in p for p in calls.grader)


def test_no_gold_label_is_unscored(tmp_path: Path) -> None:
    row = {"question": "Where is a fork kept?", "answerKey": "",
           "choices": {"label": ["A", "B"], "text": ["drawer", "sky"]}}  # fmt: skip
    path = record_file(tmp_path, "commonsenseqa", row)
    log = run(tmp_path, asks(0, "Answer: A"), source="commonsenseqa", data=str(path))
    value, meta = score_of(samples(log)[0])
    assert math.isnan(value["correct"]) and "no gold" in meta["unscored"]["correct"]
    assert value["prefalign"] == pytest.approx(2.0)
    # a source without gold labels is no grader failure: no abnormal-score reason
    assert samples(log)[0].scores["prefdisco"].reason is None  # type: ignore[index]


def test_source_all_runs_every_shipped_source_with_unique_ids(tmp_path: Path) -> None:
    task = prefdisco(source="all", condition="baseline")
    ids = [str(s.id) for s in task.dataset]
    assert len(ids) == len(set(ids)) == 120
    assert {s.metadata["source"] for s in task.dataset if s.metadata} == {
        "math", "medqa", "mmlu", "socialiqa"
    }  # fmt: skip
    assert ids[0].startswith("baseline/math/problem_0_")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"condition": "interview"}, "-T condition: must be one of"),
        ({"source": "gsm8k"}, "-T source: must be one of"),
        ({"variant": "10k"}, "-T variant: must be one of"),
        ({"variant": "5k"}, "5k variant covers only"),
        ({"user_type": "chatty"}, "-T user_type: must be one of"),
        ({"protocol": "reference"}, "-T protocol: must be one of paper, budgeted"),
        ({"protocol": "budgeted", "user_type": "passive_stop"}, "needs -T protocol=paper"),
        ({"judge": "vibes"}, "-T judge: must be one of"),
        ({"correctness": "vibes"}, "-T correctness: must be one of grader, deterministic"),
        ({"markers": "tags"}, "-T markers: must be one of action, labels"),
        ({"protocol": "budgeted", "markers": "action"}, "-T markers=action: needs -T protocol="),
        ({"share_baseline": "often"}, "-T share_baseline: must be true or false"),
        ({"questions": "random"}, "-T questions: must be one of model, stock"),
        ({"questions": "stock", "max_turns": 11}, "-T questions=stock: the questionnaire has 10"),
        ({"max_turns": 0}, "-T max_turns: must be an integer"),
        ({"fixed_questions": 0}, "-T fixed_questions: must be an integer"),
        ({"data": "hub"}, "pinned revision"),
        ({"allow_self_roles": "yes"}, "-T allow_self_roles: must be true or false"),
        ({"strict": "maybe"}, "-T strict: must be true or false"),
        ({"max_problems": 0}, "-T max_problems: must be an integer of at least 1"),
        ({"max_problems": "ten"}, "-T max_problems: must be an integer"),
        ({"seed": 7}, "-T seed: seeds the draw of -T max_problems"),
        ({"max_problems": 5, "seed": -1}, "-T seed: must be an integer of at least 0"),
        # a draw larger than the data is refused (the reference's random.sample refuses it too)
        ({"max_problems": 100000}, r"-T max_problems: must be at most \d+, the records of source"),
    ],
)
def test_bad_parameters_fail_before_any_model_call(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        prefdisco(**params)


def test_unbound_roles_fail_before_the_evaluated_model_is_called(tmp_path: Path) -> None:
    calls = Calls()
    evaluated, roles = models(asks(1), calls=calls)
    log = eval(
        prefdisco(condition="discovery"),
        model=evaluated,
        model_roles={"grader": roles["grader"]},
        limit=1,
        display="none",
        log_dir=str(tmp_path),
    )[0]
    assert log.status == "error" and "--model-role user=" in str(log.error)
    assert calls.model == []


def test_self_roles_only_when_opted_in(tmp_path: Path) -> None:
    def both(prompt: str) -> str:
        if prompt.startswith(("You grade", "You check", "You judge")):
            return grader_reply(prompt)
        return asks(0)(prompt)

    evaluated, _ = models(both)
    log = eval(
        prefdisco(condition="baseline", allow_self_roles=True),
        model=evaluated,
        limit=1,
        display="none",
        log_dir=str(tmp_path),
    )[0]
    assert log.status == "success"
    value, _ = score_of(samples(log)[0])
    assert value["prefalign"] == pytest.approx(2.0)


DATA = Path(__file__).parent / "data"


class Collect(logging.Handler):
    """Keeps the records it receives (caplog is off: the suite runs with -p no:logging)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_load_repairs_are_in_the_task_metadata_and_logged_once() -> None:
    dataset._cached_source.cache_clear()
    dataset._cached_records.cache_clear()
    path = str(DATA / "release_quirks.jsonl")
    collect = Collect()
    dataset.logger.addHandler(collect)
    try:
        task = prefdisco(condition="baseline", data=path)
        prefdisco(condition="oracle", data=path)  # the same load: cached, not logged again
    finally:
        dataset.logger.removeHandler(collect)
    assert task.metadata is not None
    repairs = task.metadata["load_repairs"]["math"]
    assert repairs["file"] == path and (repairs["records"], repairs["loaded"]) == (5, 5)
    assert {k: v for k, v in repairs.items() if isinstance(v, int) and v and k not in (
        "records", "loaded")} == {"weights_normalised": 1, "weight_missing": 1,
                                  "levels_nonstandard": 1, "justification_empty": 1}  # fmt: skip
    assert repairs["skipped"] == {}
    warnings = [r.getMessage() for r in collect.records]
    assert len(warnings) == 1 and path in warnings[0] and "weights_normalised 1" in warnings[0]


def test_the_shipped_sample_reports_zero_repairs() -> None:
    task = prefdisco(source="all", condition="baseline")
    assert task.metadata is not None
    for report in task.metadata["load_repairs"].values():
        counts = [
            v for k, v in report.items() if isinstance(v, int) and k not in ("records", "loaded")
        ]
        assert not any(counts) and report["skipped"] == {} and report["loaded"] == 30


def test_unrunnable_records_are_skipped_by_the_task_and_stop_it_under_strict() -> None:
    path = str(DATA / "unrunnable.jsonl")
    task = prefdisco(condition="baseline", data=path)
    assert len(task.dataset) == 2
    assert task.metadata is not None
    assert task.metadata["load_repairs"]["math"]["skipped"] == {
        "no problem text": 1, "no rubric": 1, "no gold answer": 1
    }  # fmt: skip
    with pytest.raises(
        ValueError, match=r"record 3 .*field 'original_problem.problem'.*strict=true"
    ):
        prefdisco(condition="baseline", data=path, strict=True)


def test_max_problems_draws_the_reference_subset(tmp_path: Path) -> None:
    task = prefdisco(condition="baseline", source="mmlu", max_problems=5)
    random.seed(42)
    expected = [r.problem_id for r in random.sample(load_records("mmlu"), 5)]
    assert [s.metadata["problem_id"] for s in task.dataset if s.metadata] == expected
    assert task.metadata is not None
    assert (task.metadata["max_problems"], task.metadata["seed"]) == (5, 42)
    other = prefdisco(condition="baseline", source="mmlu", max_problems=5, seed=3)
    assert [s.metadata["problem_id"] for s in other.dataset if s.metadata] != expected
    both = prefdisco(condition="all", source="all", max_problems=2)
    assert len(both.dataset) == 4 * 2 * 3  # per source, whole triples


def test_a_run_on_repaired_and_skipped_records_scores_every_sample(tmp_path: Path) -> None:
    for name, count in (("release_quirks.jsonl", 5), ("unrunnable.jsonl", 2)):
        log = run(tmp_path, asks(0), condition="baseline", data=str(DATA / name), limit=10)
        assert len(samples(log)) == count
        for sample in samples(log):
            value, meta = score_of(sample)
            assert value["prefalign"] == pytest.approx(2.0)
            assert sum(c["weight"] for c in meta["criteria"].values()) == pytest.approx(1.0)


def test_shared_replies_are_each_models_own_when_one_task_runs_two(tmp_path: Path) -> None:
    # one task object evaluated with two models at once shares one solver: its reply cache
    # must not hand one model's answer to the other
    _, roles = models(asks(0))
    answers = {"right": "The answer is \\boxed{7}.", "wrong": "The answer is \\boxed{12345}."}
    logs = eval(
        prefdisco(condition="baseline", source="math", share_baseline=True),
        model=[scripted_model(asks(0, answer), name) for name, answer in answers.items()],
        model_roles=roles,
        limit=MATH_RECORDS,
        display="none",
        log_dir=str(tmp_path),
    )
    for log in logs:
        name = log.eval.model.rsplit("/", 1)[-1]
        outputs = {sample.output.completion for sample in samples(log)}
        assert outputs and all(answers[name] in text for text in outputs), (name, outputs)
