"""PrefAlign judging: the grader scores a final response on each rubric criterion.

Two modes: `per_criterion` (one grader call per criterion, as the paper does, run
concurrently) and `batched` (all criteria in one structured call). A criterion the grader
never scores readably stays None, and the sample's PrefAlign is then unscored.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from inspect_ai.model import Model
from inspect_ai.util import collect

from heedbench.evals.prefdisco.dataset import Criterion
from heedbench.jsonparse import get_key
from heedbench.scorers.judge import data_block, judge
from heedbench.scorers.judge.call import JudgementError
from heedbench.scorers.prefdisco.prompts import BATCHED, CRITERION_ENTRY, PER_CRITERION

JudgeMode = Literal["per_criterion", "batched"]
RESPONSE_LABEL = "The response to grade:"


@dataclass
class CriterionScores:
    """Scores per criterion (None where unscored) and why any are missing."""

    scores: dict[str, int | None]
    failures: dict[str, str]
    calls: int


def read_score(value: Any) -> int:
    """A 1–5 integer score, or JudgementError."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise JudgementError(f"score must be an integer 1-5, got {value!r}")
    try:
        number = float(value)
    except ValueError as error:
        raise JudgementError(f"score must be an integer 1-5, got {value!r}") from error
    if number != int(number) or not 1 <= number <= 5:
        raise JudgementError(f"score must be an integer 1-5, got {value!r}")
    return int(number)


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
) -> CriterionScores:
    """Grade `response` on every criterion with the grader."""
    block = data_block(RESPONSE_LABEL, response)
    if mode == "per_criterion":
        prompts = [
            PER_CRITERION.format(response=block, **_fields(c, preferences[c.preference]))
            for c in criteria
        ]
        results = await collect(
            *(judge(grader, prompt, lambda found: read_score(found["score"])) for prompt in prompts)
        )
        return CriterionScores(
            scores={c.preference: r.value for c, r in zip(criteria, results, strict=True)},
            failures={
                c.preference: r.reason or ""
                for c, r in zip(criteria, results, strict=True)
                if not r.ok
            },
            calls=sum(r.attempts for r in results),
        )
    listing = "\n\n".join(
        CRITERION_ENTRY.format(number=i, **_fields(c, preferences[c.preference]))
        for i, c in enumerate(criteria, start=1)
    )

    def read_all(found: dict[str, Any]) -> dict[str, int]:
        table = get_key(found, "scores")
        if not isinstance(table, Mapping):
            raise JudgementError("'scores' must map criterion numbers to scores")
        return {
            c.preference: read_score(get_key(dict(table), str(i)))
            for i, c in enumerate(criteria, start=1)
        }

    result = await judge(grader, BATCHED.format(criteria=listing, response=block), read_all)
    if result.value is None:
        reason = result.reason or "unreadable judgement"
        return CriterionScores(
            scores=dict.fromkeys((c.preference for c in criteria), None),
            failures={c.preference: reason for c in criteria},
            calls=result.attempts,
        )
    return CriterionScores(scores=dict(result.value), failures={}, calls=result.attempts)
