"""The PrefDisco scorer: PrefAlign, correctness and questions asked, per final response.

Score value (flat, so Inspect reduces it per key): `prefalign` (1–5), `correct` (1/0) and
`questions`. A key the grader could not settle is NaN, its reason under `unscored`.
"""

import math
from collections.abc import Mapping, Sequence
from typing import Any, get_args

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from heedbench import params
from heedbench.calls import collect_two
from heedbench.evals.prefdisco.dataset import (
    PrefDiscoRecord,
    Variant,
    record_index,
    record_key,
)
from heedbench.evals.prefdisco.sources import SOURCES
from heedbench.scorers.judge import (
    CHANNELS,
    DEFAULT_CHANNEL,
    VerdictChannel,
    role_model,
)
from heedbench.scorers.judge.call import GRADER_FAILED
from heedbench.scorers.prefdisco.alignment import prefalign
from heedbench.scorers.prefdisco.correctness import check_correctness
from heedbench.scorers.prefdisco.explain import criteria_detail, explanation
from heedbench.scorers.prefdisco.judge import JudgeMode, score_criteria
from heedbench.scorers.prefdisco.metrics import (
    CONDITIONS,
    condition_stats,
    discovery_below_baseline,
    normalized_alignment_metric,
)
from heedbench.solvers.prefdisco.settings import (
    CHOICES,
    LEGACY,
    CorrectnessMode,
    GraderPrompt,
    Protocol,
    Sampling,
    Switches,
    role_config,
)
from heedbench.solvers.prefdisco.solver import PrefDiscoRun

RUN_DETAIL = (
    "exchanges", "question_marks", "turns", "early_answers", "user_stopped", "reminders",
    "pushbacks", "final_requested", "user_regenerations", "plain_user_replies", "stop_reasons",
)  # fmt: skip
"""What the solver recorded of the conversation, kept in the score's metadata as it is."""


@scorer(
    name="prefdisco",
    metrics=[
        normalized_alignment_metric(),
        discovery_below_baseline(),
        condition_stats(),
        {"prefalign": [mean(), stderr()], "correct": [mean(), stderr()]},
    ],
)
def prefdisco_scorer(
    *,
    sources: Sequence[str] | None = None,
    variant: Variant | None = None,
    data: str | None = None,
    revision: str | None = None,
    judge_mode: JudgeMode = "per_criterion",
    correctness_mode: CorrectnessMode | None = None,
    allow_self_roles: bool = False,
    verdict: VerdictChannel = DEFAULT_CHANNEL,
    protocol: Protocol | None = None,
    grader_prompt: GraderPrompt | None = None,
    sampling: Sampling | None = None,
    conditions: Sequence[str] | None = None,
    **unknown: Any,
) -> Scorer:
    """Grade each final response on its persona's rubric and check its answer.

    Args:
        sources: the sources of the samples' records, with `variant`, `data` and `revision`
            as the task took them (`record_index`); unset, each sample's metadata locates its
            record, so `inspect score LOG --scorer heedbench/prefdisco` needs no `-S`.
        variant: the release variant of those records.
        data: where the records come from (as the task's `data`).
        revision: the hub revision, when `data` is "hub".
        judge_mode: "per_criterion" (one grader call per criterion) or "batched".
        correctness_mode: "grader" or "deterministic" (read by form first).
        allow_self_roles: let the evaluated model grade itself when `grader` is unbound.
        verdict: the grader's verdict channel (`schema`, `tool` or `text`).
        protocol: the run's protocol, which sets the grader's temperature.
        grader_prompt: "paper" or "anchored" (`settings.py`).
        sampling: "paper" or "provider" (the grader's top-p and token limit).
        conditions: the run's conditions; `questions` is kept only with discovery (unset: kept).
        **unknown: refused (`inspect score -S` with an option the scorer does not have).

    Unset, `correctness_mode`, `protocol`, `grader_prompt` and `sampling` are what the sample
    was played under; a switch the sample did not record (an older log) is what runs did then
    (`settings.LEGACY`).
    """
    with params.scorer_options():  # `inspect score -S ...` reaches the scorer unchecked
        params.reject_unknown("prefdisco", unknown, prefdisco_scorer)
        if sources is not None:
            sources = params.names("sources", sources, SOURCES)
        if conditions is not None:
            conditions = params.names("conditions", conditions, CONDITIONS)
        variant = params.optional_one_of("variant", variant, get_args(Variant))
        data = params.optional_text("data", data)
        revision = params.optional_text("revision", revision)
        judge_mode = params.one_of("judge_mode", judge_mode, get_args(JudgeMode))
        verdict = params.one_of("verdict", verdict, CHANNELS)
        allow_self_roles = params.flag("allow_self_roles", allow_self_roles)
        protocol = params.optional_one_of("protocol", protocol, get_args(Protocol))
        correctness_mode = params.optional_one_of(
            "correctness_mode", correctness_mode, CHOICES["correctness"]
        )
        grader_prompt = params.optional_one_of(
            "grader_prompt", grader_prompt, CHOICES["grader_prompt"]
        )
        sampling = params.optional_one_of("sampling", sampling, CHOICES["sampling"])
    with_questions = conditions is None or "discovery" in conditions

    async def score(state: TaskState, target: Target) -> Score:
        run = state.store_as(PrefDiscoRun)
        if not run.completed:
            why = "the sample did not finish (it errored part-way)"
            return Score.unscored(reason="scoring_failed", explanation=why)
        if run.failed:
            return Score.unscored(
                reason=run.failed_reason or "scoring_failed",
                explanation=run.failed,
                metadata={"condition": run.condition, "exchanges": run.exchanges},
            )
        played: Protocol = protocol or run.protocol or "paper"
        given = {"correctness": correctness_mode, "grader_prompt": grader_prompt,
                 "sampling": sampling}  # fmt: skip
        switches = Switches(
            **{**LEGACY.record(), **run.switches, **{k: v for k, v in given.items() if v}}
        )
        grader, checker = (
            role_model("grader", allow_evaluated_model=allow_self_roles,
                       config=role_config(use, played, switches))
            for use in ("grader", "correctness")
        )  # fmt: skip
        record = _record(state.metadata, sources, variant, data, revision)
        response = run.final_response
        judgement, correctness = await collect_two(
            score_criteria(grader, record.criteria, record.preferences, response,
                           mode=judge_mode, channel=verdict, prompt=switches.grader_prompt),
            check_correctness(record.problem, run.final_answer or response, checker,
                              mode=switches.correctness, channel=verdict,
                              prompt=switches.grader_prompt, judged=response),
        )  # fmt: skip
        weights = {c.preference: c.weight for c in record.criteria}
        scores = {name: None if s is None else float(s) for name, s in judgement.values.items()}
        alignment = prefalign(scores, weights)
        criteria = criteria_detail(judgement, weights)
        unscored: dict[str, str] = {}
        if alignment is None:
            unscored["prefalign"] = "; ".join(
                f"{name}: {reason}" for name, reason in judgement.failures.items()
            )
        if correctness.value is None:
            unscored["correct"] = correctness.reason or "no verdict"
        value: dict[str, Any] = {
            "prefalign": math.nan if alignment is None else alignment,
            "correct": math.nan if correctness.value is None else int(correctness.value),
        }
        if with_questions:
            value["questions"] = run.questions
        text = explanation(run.condition, value, correctness=correctness, criteria=criteria,
                           judgement=judgement, unscored=unscored)  # fmt: skip
        metadata: dict[str, Any] = {
            "condition": run.condition, "protocol": run.protocol, "switches": switches.record(),
            "questions_from": run.questions_from, "shared_replies": run.shared_replies,
            "judge_mode": judge_mode, "criteria": criteria,
            "grader_calls": judgement.calls + correctness.grader_calls,
            "correctness": correctness.detail(),
            **{key: getattr(run, key) for key in RUN_DETAIL}, "protocol_notes": run.notes,
            "unscored": unscored,
        }  # fmt: skip
        if len(unscored) == 2:
            kept = {k: metadata[k] for k in ("condition", "criteria", "correctness", "unscored")}
            return Score.unscored(
                reason=GRADER_FAILED, answer=response, explanation=text, metadata=kept
            )
        # a key the grader left unsettled (not a source without a gold answer) is its failure
        grader_failed = alignment is None or (
            correctness.value is None and correctness.grader_calls > 0
        )
        return Score(
            value=value,
            answer=response,
            explanation=text,
            reason=GRADER_FAILED if grader_failed else None,
            metadata=metadata,
        )

    return score


def _record(
    metadata: Mapping[str, Any],
    sources: Sequence[str] | None,
    variant: Variant | None,
    data: str | None,
    revision: str | None,
) -> PrefDiscoRecord:
    """The sample's record: from the given sources, or located by the sample's metadata."""
    if sources is None:
        sources = [metadata["source"]]
        variant = metadata.get("variant", "1k")
        data = metadata.get("data")
        revision = metadata.get("revision")
    index = record_index(sources, variant or "1k", data, revision)
    return index[record_key(metadata["source"], metadata["problem_id"])]
