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
    RubricJudgement,
    VerdictChannel,
    judge_each,
    judge_table,
)
from heedbench.scorers.judge.call import rating, table, text, verdict_schema
from heedbench.scorers.judge.prompts import fill
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
) -> dict[str, str]:
    return {
        "name": criterion.preference,
        "description": criterion.description,
        "levels": _levels(criterion, prompt),
        "value": str(preference.get("value")),
        "value_range": str(preference.get("value_range", "1-5")),
        "justification": str(preference.get("justification", "")),
    }


STYLES: dict[GraderPrompt, tuple[str, str, str, str, str]] = {
    "paper": (
        PAPER_PER_CRITERION,
        PAPER_CRITERION_EXAMPLE,
        PAPER_BATCHED,
        PAPER_BATCHED_EXAMPLE,
        PAPER_CRITERION_ENTRY,
    ),
    "anchored": (PER_CRITERION, CRITERION_EXAMPLE, BATCHED, BATCHED_EXAMPLE, CRITERION_ENTRY),
}
"""Per prompt style: per-criterion template and example, batched template and example, entry."""


def _messages(prompt: GraderPrompt, user: str) -> list[ChatMessage]:
    """The call's messages: a system message under `paper`, then the user prompt."""
    system = [ChatMessageSystem(content=PAPER_SYSTEM)] if prompt == "paper" else []
    return [*system, ChatMessageUser(content=user)]


def criterion_messages(
    criterion: Criterion,
    preference: Mapping[str, Any],
    response: str,
    prompt: GraderPrompt,
    channel: VerdictChannel = DEFAULT_CHANNEL,
) -> list[ChatMessage]:
    """The messages of one per-criterion grader call (a system message under `paper`)."""
    template, example, *_ = STYLES[prompt]
    block = (RESPONSE_LABEL, response)
    fields = _fields(criterion, preference, prompt)
    user = fill(template, channel, example, CRITERION_SCHEMAS[prompt], block, **fields)
    return _messages(prompt, user)


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
    *_, template, example, entry = STYLES[prompt]
    listing = "\n\n".join(
        entry.format(number=i, **_fields(c, preferences[c.preference], prompt))
        for i, c in enumerate(criteria, start=1)
    )
    schema = batched_schema(len(criteria), prompt)
    block = (RESPONSE_LABEL, response)
    user = fill(template, channel, example, schema, block, criteria=listing)
    return await judge_table(
        grader,
        user,
        [c.preference for c in criteria],
        "scores",
        int,
        schema=schema,
        channel=channel,
        note_key="justification",
        config=config,
    )
