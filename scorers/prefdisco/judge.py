"""PrefAlign judging: the grader scores a final response on each rubric criterion.

Two modes: `per_criterion` (one grader call per criterion, as the paper does, run
concurrently) and `batched` (all criteria in one structured call). A criterion the grader
never scores readably stays None, and the sample's PrefAlign is then unscored.
"""

from collections.abc import Mapping
from typing import Any, Literal

from inspect_ai.model import GenerateConfig, Model

from heedbench.evals.prefdisco.dataset import Criterion
from heedbench.jsonparse import get_key
from heedbench.scorers.judge import Fence, RubricJudgement, judge_each, judge_table
from heedbench.scorers.judge.call import rating, read_scale, table, text, verdict_schema
from heedbench.scorers.prefdisco.prompts import BATCHED, CRITERION_ENTRY, PER_CRITERION

JudgeMode = Literal["per_criterion", "batched"]
RESPONSE_LABEL = "the response to grade"
CRITERION_SCHEMA = verdict_schema(
    "criterion_score",
    {"justification": text("one sentence"), "score": rating("score on this criterion")},
)


def batched_schema(criteria: int) -> Any:
    """The structured-output schema of a batched PrefAlign verdict over `criteria` criteria."""
    return verdict_schema(
        "criteria_scores",
        {
            "justification": text("one sentence"),
            "scores": table(criteria, rating("score"), "criterion number -> score"),
        },
    )


def _levels(criterion: Criterion) -> str:
    return "\n".join(f"- {score}: {text}" for score, text in sorted(criterion.levels.items()))


def _fields(criterion: Criterion, preference: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "name": criterion.preference,
        "description": criterion.description,
        "levels": _levels(criterion),
        "value": preference.get("value"),
        "value_range": preference.get("value_range", "1-5"),
        "justification": preference.get("justification", ""),
    }


async def score_criteria(
    grader: Model,
    criteria: tuple[Criterion, ...],
    preferences: Mapping[str, Mapping[str, Any]],
    response: str,
    *,
    mode: JudgeMode = "batched",
    structured: bool = True,
    config: GenerateConfig | None = None,
) -> RubricJudgement[int]:
    """Grade `response` on every criterion with the grader: criterion name → score 1–5."""
    if mode == "per_criterion":
        prompts = {}
        for c in criteria:
            fence = Fence.over(response)
            prompts[c.preference] = PER_CRITERION.format(
                fence=fence.announcement,
                response=fence.block(RESPONSE_LABEL, response),
                **_fields(c, preferences[c.preference]),
            )
        return await judge_each(
            grader,
            prompts,
            lambda found: read_scale(get_key(found, "score")),
            keys=("score",),
            schema=CRITERION_SCHEMA if structured else None,
            note_key="justification",
            config=config,
        )
    listing = "\n\n".join(
        CRITERION_ENTRY.format(number=i, **_fields(c, preferences[c.preference]))
        for i, c in enumerate(criteria, start=1)
    )
    fence = Fence.over(response)
    prompt = BATCHED.format(
        criteria=listing, fence=fence.announcement, response=fence.block(RESPONSE_LABEL, response)
    )
    return await judge_table(
        grader,
        prompt,
        [c.preference for c in criteria],
        "scores",
        read_scale,
        schema=batched_schema(len(criteria)) if structured else None,
        note_key="justification",
        config=config,
    )
