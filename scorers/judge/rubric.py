"""Judging a response on several keys (rubric criteria, checklist items) in one of two ways.

Per key: one judge call each, run concurrently (the papers' way). Batched: one call returning
a table numbered 1..n. Either way a key the judge never answers readably stays None with the
reason, so the caller can leave the sample unscored instead of guessing.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from inspect_ai.model import Model
from inspect_ai.util import collect

from heedbench.jsonparse import get_key
from heedbench.scorers.judge.call import JudgementError, judge

T = TypeVar("T")


@dataclass
class RubricJudgement(Generic[T]):
    """Key → judged value (None where unjudged), why any are missing, and calls spent."""

    values: dict[str, T | None]
    failures: dict[str, str]
    calls: int

    @property
    def complete(self) -> bool:
        """Whether every key was judged."""
        return not self.failures


async def judge_each(
    grader: Model, prompts: Mapping[str, str], read: Callable[[dict[str, Any]], T]
) -> RubricJudgement[T]:
    """One concurrent judge call per key; `read` turns a reply's JSON into the value."""
    keys = list(prompts)
    results = await collect(*(judge(grader, prompts[key], read) for key in keys))
    return RubricJudgement(
        values={key: result.value for key, result in zip(keys, results, strict=True)},
        failures={
            key: result.reason or "unreadable judgement"
            for key, result in zip(keys, results, strict=True)
            if not result.ok
        },
        calls=sum(result.attempts for result in results),
    )


async def judge_table(
    grader: Model,
    prompt: str,
    keys: Sequence[str],
    table: str,
    read_value: Callable[[Any], T],
) -> RubricJudgement[T]:
    """One judge call whose JSON holds `table`: {"1": value, ..., "n": value} for the keys."""

    def read_all(found: dict[str, Any]) -> dict[str, T]:
        entries = get_key(found, table)
        if not isinstance(entries, Mapping):
            raise JudgementError(f"'{table}' must map the numbers 1..{len(keys)} to answers")
        return {
            key: read_value(get_key(dict(entries), str(number)))
            for number, key in enumerate(keys, start=1)
        }

    result = await judge(grader, prompt, read_all)
    if result.value is None:
        reason = result.reason or "unreadable judgement"
        return RubricJudgement(
            values=dict.fromkeys(keys, None),
            failures=dict.fromkeys(keys, reason),
            calls=result.attempts,
        )
    return RubricJudgement(values=dict(result.value), failures={}, calls=result.attempts)
