"""What a prefdisco log shows a reader, on real offline runs: keys, metrics, ids, explanations.

- score keys and metrics only for the conditions a run holds (no always-NaN or always-0 keys);
- each criterion's score, weight and the grader's justification in the score, and in a
  readable explanation;
- sample ids that lead with the condition, so a cut-off id still shows it;
- a viewer configuration that labels and colours every key a sample has, counts as integers;
- Inspect's `ScoreReason` values for unscored samples.
"""

import json
import math
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model
from inspect_ai.viewer import TaskSamplesView

from heedbench.evals.prefdisco.task import prefdisco
from tests.prefdisco.scripted import asks, models
from tests.prefdisco.test_prefdisco_eval import run, samples, score_of

CONDITION_METRICS = re.compile(r"normalized_alignment|discovery_below_baseline|questions")


def explaining_grader(prompt: str) -> str:
    """Scores by the response's condition tag, each justification naming its own criterion."""
    if "correct answer" in prompt:
        return '{"correct": 1, "justification": "the same value"}'
    tag = re.search(r"\[(baseline|discovery|oracle)\]", prompt)
    score = {"baseline": 2, "discovery": 3, "oracle": 4}[tag.group(1)] if tag else 1
    named = re.search(r"^Criterion: (.*)$", prompt, re.MULTILINE)
    return json.dumps({"score": score, "justification": f"weighed for {named.group(1)}"})  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    return run(tmp_path_factory.mktemp("full"), asks(1), grader=explaining_grader)


@pytest.fixture(scope="module")
def baseline_only(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    return run(tmp_path_factory.mktemp("one"), asks(0), condition="baseline", limit=2)


def metric_names(log: EvalLog) -> set[str]:
    assert log.results is not None
    return {f"{s.name}/{m}" for s in log.results.scores for m in s.metrics}


def raw_scores(log: EvalLog) -> list[dict[str, Any]]:
    """The score values as written in the .eval file (JSON types, not pydantic's)."""
    found = []
    with zipfile.ZipFile(log.location) as archive:
        for name in archive.namelist():
            if name.startswith("samples/"):
                sample = json.loads(archive.read(name))
                found.append(sample["scores"]["prefdisco"]["value"])
    return found


def test_a_one_condition_run_has_no_keys_or_metrics_for_the_others(baseline_only: EvalLog) -> None:
    names = metric_names(baseline_only)
    assert not {n for n in names if CONDITION_METRICS.search(n)}, names
    assert {"prefdisco/prefalign_baseline", "prefalign/mean", "correct/mean"} <= names
    for sample in samples(baseline_only):
        value, _ = score_of(sample)
        assert set(value) == {"prefalign", "correct"}
    view = baseline_only.eval.viewer.task_samples_view  # type: ignore[union-attr]
    assert isinstance(view, TaskSamplesView)
    assert [c.id for c in view.columns or []][1:] == [
        "score__prefdisco__prefalign",
        "score__prefdisco__correct",
    ]
    assert baseline_only.results is not None
    assert all(not math.isnan(m.value) for s in baseline_only.results.scores
               for m in s.metrics.values())  # fmt: skip


def test_a_full_run_reports_every_condition_metric_once(full: EvalLog) -> None:
    names = metric_names(full)
    assert {
        "prefdisco/normalized_alignment",
        "prefdisco/discovery_below_baseline",
        "prefdisco/questions_discovery",
    } <= names
    assert not {"prefdisco/questions_baseline", "prefdisco/questions_oracle"} & names


def test_each_criterion_keeps_its_score_weight_and_justification(full: EvalLog) -> None:
    for sample in samples(full):
        value, meta = score_of(sample)
        criteria = meta["criteria"]
        assert criteria
        for name, entry in criteria.items():
            assert entry["justification"] == f"weighed for {name}"
            assert (
                entry["score"]
                == {"baseline": 2, "discovery": 3, "oracle": 4}[sample.metadata["condition"]]
            )
        explanation = sample.scores["prefdisco"].explanation  # type: ignore[index]
        assert explanation is not None
        head, *rest = explanation.splitlines()
        condition = sample.metadata["condition"]
        assert head.startswith(f"{condition} · PrefAlign {value['prefalign']:.2f} · correct 1")
        lines = [line for line in rest if line.startswith("- **")]
        assert len(lines) == len(criteria)
        weights = [float(re.search(r"weight ([\d.]+)", line).group(1)) for line in lines]  # type: ignore[union-attr]
        assert weights == sorted(weights, reverse=True)  # heaviest first
        for name, entry in criteria.items():
            assert any(
                line.startswith(f"- **{name}**: {entry['score']} ")
                and line.endswith(f"weighed for {name}")
                for line in lines
            )


def test_sample_ids_lead_with_the_condition_and_pair_per_record(full: EvalLog) -> None:
    ids = [str(s.id) for s in samples(full)]
    assert len(ids) == len(set(ids)) == 9
    records: dict[str, set[str]] = {}
    for sample in samples(full):
        condition, rest = str(sample.id).split("/", 1)
        assert condition == sample.metadata["condition"]
        assert rest == sample.metadata["problem_id"]
        records.setdefault(rest, set()).add(condition)
    assert all(found == {"baseline", "discovery", "oracle"} for found in records.values())


def test_counts_are_integers_and_every_key_is_labelled(full: EvalLog) -> None:
    for value in raw_scores(full):
        assert isinstance(value["questions"], int) and isinstance(value["correct"], int)
    view = full.eval.viewer.task_samples_view  # type: ignore[union-attr]
    assert isinstance(view, TaskSamplesView)
    keys = {"prefalign", "correct", "questions"}
    assert set(view.score_labels or {}) == set(view.score_color_scales or {}) == keys
    assert {c.id.removeprefix("score__prefdisco__") for c in view.columns or []} - {
        "sampleId"
    } == keys


def blocked_target(
    messages: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig
) -> ModelOutput:
    output = ModelOutput.from_content(model="target", content="", stop_reason="content_filter")
    output.usage = ModelUsage(input_tokens=9, output_tokens=0, total_tokens=9)
    return output


@pytest.mark.parametrize(
    ("case", "reason"),
    [("grader says nothing", "grader_failed"), ("the model's call is blocked", "refusal"),
     ("the user is silent", "scoring_failed")],
)  # fmt: skip
def test_unscored_samples_carry_inspects_reason(tmp_path: Path, case: str, reason: str) -> None:
    target, roles = models(asks(1))
    if case == "grader says nothing":
        roles["grader"] = models(asks(1), grader=lambda p: "No idea.")[1]["grader"]
    elif case == "the model's call is blocked":
        target = get_model("mockllm/target", custom_outputs=blocked_target, memoize=False)
    else:
        roles["user"] = models(asks(1), user=lambda p: "*shrugs*")[1]["user"]
    log = eval(prefdisco(condition="discovery", correctness="grader"), model=target,
               model_roles=roles, limit=1, display="none", log_dir=str(tmp_path))[0]  # fmt: skip
    [sample] = samples(log)
    score = sample.scores["prefdisco"]  # type: ignore[index]
    assert isinstance(score.value, float) and math.isnan(score.value)
    assert score.reason == reason
    assert score.explanation  # the cause in words
