"""PrefAlign judging: the grader scores a final response on each rubric criterion.

Two modes: `per_criterion` (one grader call per criterion, as the paper does, run
concurrently) and `batched` (all criteria in one structured call). A criterion the grader
never scores readably stays None, and the sample's PrefAlign is then unscored.
"""

from collections.abc import Mapping
from typing import Any, Literal

from inspect_ai.model import Model

from heedbench.evals.prefdisco.dataset import Criterion
from heedbench.jsonparse import get_key
from heedbench.scorers.judge import RubricJudgement, data_block, judge_each, judge_table
from heedbench.scorers.judge.call import read_scale
from heedbench.scorers.prefdisco.prompts import BATCHED, CRITERION_ENTRY, PER_CRITERION

JudgeMode = Literal["per_criterion", "batched"]
RESPONSE_LABEL = "The response to grade:"


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
    mode: JudgeMode = "batched",
) -> RubricJudgement[int]:
    """Grade `response` on every criterion with the grader: criterion name → score 1–5."""
    block = data_block(RESPONSE_LABEL, response)
    if mode == "per_criterion":
        prompts = {
            c.preference: PER_CRITERION.format(
                response=block, **_fields(c, preferences[c.preference])
            )
            for c in criteria
        }
        return await judge_each(grader, prompts, lambda found: read_scale(get_key(found, "score")))
    listing = "\n\n".join(
        CRITERION_ENTRY.format(number=i, **_fields(c, preferences[c.preference]))
        for i, c in enumerate(criteria, start=1)
    )
    prompt = BATCHED.format(criteria=listing, response=block)
    return await judge_table(grader, prompt, [c.preference for c in criteria], "scores", read_scale)
