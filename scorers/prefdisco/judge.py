"""PrefAlign judging: the grader scores a final response on each rubric criterion.

Two modes: `per_criterion` (one grader call per criterion, as the paper does, run
concurrently) and `batched` (all criteria in one structured call). Two prompt styles
(`prompts.py`): `paper` (the reference's: a system message, score before justification) and
`anchored` (heedbench's earlier prompt: justification first, scale anchors). A criterion the
grader never scores readably stays None, and the sample's PrefAlign is then unscored; the
grader's justification per criterion is kept (`RubricJudgement.notes`).
"""

import json
from collections.abc import Mapping
from typing import Any, Literal

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, GenerateConfig, Model

from heedbench.evals.prefdisco.dataset import Criterion
from heedbench.scorers.judge import (
    DEFAULT_CHANNEL,
    Fence,
    RubricJudgement,
    VerdictChannel,
    judge_each,
    judge_table,
    reply_instruction,
)
from heedbench.scorers.judge.call import rating, table, text, verdict_schema
from heedbench.scorers.prefdisco.prompts import (
    BATCHED,
    BATCHED_EXAMPLE,
    CRITERION_ENTRY,
    CRITERION_EXAMPLE,
    PAPER_BATCHED,
    PAPER_BATCHED_EXAMPLE,
    PAPER_CRITERION_ENTRY,
    PAPER_CRITERION_EXAMPLE,
    PAPER_PER_CRITERION,
    PAPER_SYSTEM,
    PER_CRITERION,
)
from heedbench.solvers.prefdisco.settings import GraderPrompt

JudgeMode = Literal["per_criterion", "batched"]
RESPONSE_LABEL = "the response to grade"
_SCORE = rating("score on this criterion")
_WHY = text("one sentence")
CRITERION_SCHEMAS: dict[GraderPrompt, Any] = {
    "paper": verdict_schema("criterion_score", {"score": _SCORE, "justification": _WHY}),
    "anchored": verdict_schema("criterion_score", {"justification": _WHY, "score": _SCORE}),
}
"""Per-criterion structured output, its fields in the order the prompt asks for them."""


def batched_schema(criteria: int, prompt: GraderPrompt = "anchored") -> Any:
    """The structured-output schema of a batched PrefAlign verdict over `criteria` criteria."""
    scores = table(criteria, rating("score"), "criterion number -> score")
    fields = {"scores": scores, "justification": _WHY}
    if prompt == "anchored":
        fields = {"justification": _WHY, "scores": scores}
    return verdict_schema("criteria_scores", fields)


def _levels(criterion: Criterion, prompt: GraderPrompt) -> str:
    ordered = sorted(criterion.levels.items())
    if prompt == "paper":
        return json.dumps([{"score": s, "description": d} for s, d in ordered], indent=2)
    return "\n".join(f"- {score}: {text}" for score, text in ordered)


def _fields(
    criterion: Criterion, preference: Mapping[str, Any], prompt: GraderPrompt
) -> dict[str, Any]:
    return {
        "name": criterion.preference,
        "description": criterion.description,
        "levels": _levels(criterion, prompt),
        "value": preference.get("value"),
        "value_range": preference.get("value_range", "1-5"),
        "justification": preference.get("justification", ""),
    }


def criterion_messages(
    criterion: Criterion,
    preference: Mapping[str, Any],
    response: str,
    prompt: GraderPrompt,
    channel: VerdictChannel = DEFAULT_CHANNEL,
) -> list[ChatMessage]:
    """The messages of one per-criterion grader call (a system message under `paper`)."""
    fence = Fence.over(response)
    template = PAPER_PER_CRITERION if prompt == "paper" else PER_CRITERION
    example = PAPER_CRITERION_EXAMPLE if prompt == "paper" else CRITERION_EXAMPLE
    user = template.format(
        reply=reply_instruction(channel, example, CRITERION_SCHEMAS[prompt]),
        fence=fence.announcement,
        response=fence.block(RESPONSE_LABEL, response),
        **_fields(criterion, preference, prompt),
    )
    system: list[ChatMessage] = (
        [ChatMessageSystem(content=PAPER_SYSTEM)] if prompt == "paper" else []
    )
    return [*system, ChatMessageUser(content=user)]


async def score_criteria(
    grader: Model,
    criteria: tuple[Criterion, ...],
    preferences: Mapping[str, Mapping[str, Any]],
    response: str,
    *,
    mode: JudgeMode = "batched",
    channel: VerdictChannel = DEFAULT_CHANNEL,
    config: GenerateConfig | None = None,
    prompt: GraderPrompt = "paper",
) -> RubricJudgement[int]:
    """Grade `response` on every criterion with the grader: criterion name → score 1–5.

    `prompt` is the prompt style (`-T grader_prompt`): "paper" (the benchmark's default) or
    "anchored". The grader's justification per criterion is in the result's `notes` (batched:
    one for all, under "*").
    """
    if mode == "per_criterion":
        messages = {
            c.preference: criterion_messages(
                c, preferences[c.preference], response, prompt, channel
            )
            for c in criteria
        }
        return await judge_each(
            grader, messages, lambda found: int(found["score"]), schema=CRITERION_SCHEMAS[prompt],
            channel=channel, note_key="justification", config=config,
        )  # fmt: skip
    entry = PAPER_CRITERION_ENTRY if prompt == "paper" else CRITERION_ENTRY
    listing = "\n\n".join(
        entry.format(number=i, **_fields(c, preferences[c.preference], prompt))
        for i, c in enumerate(criteria, start=1)
    )
    fence = Fence.over(response)
    template = PAPER_BATCHED if prompt == "paper" else BATCHED
    example = PAPER_BATCHED_EXAMPLE if prompt == "paper" else BATCHED_EXAMPLE
    user = template.format(
        reply=reply_instruction(channel, example, batched_schema(len(criteria), prompt)),
        criteria=listing,
        fence=fence.announcement,
        response=fence.block(RESPONSE_LABEL, response),
    )
    return await judge_table(
        grader,
        user,
        [c.preference for c in criteria],
        "scores",
        int,
        schema=batched_schema(len(criteria), prompt),
        channel=channel,
        note_key="justification",
        config=config,
    )
