"""Judging a response on several keys (rubric criteria, checklist items) in one of two ways.

Per key (one concurrent call each, the papers' way) or batched (one call returning a table
numbered 1..n). A key never answered readably stays None with the reason, never guessed.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from inspect_ai.model import ChatMessage, GenerateConfig, Model, ResponseSchema

from heedbench.calls import collect_calls
from heedbench.scorers.judge.call import JudgementError, judge
from heedbench.scorers.judge.verdict import DEFAULT_CHANNEL, VerdictChannel

T = TypeVar("T")


@dataclass
class RubricJudgement(Generic[T]):
    """Key → judged value (None where unjudged), why any are missing, and calls spent."""

    values: dict[str, T | None]
    failures: dict[str, str]
    calls: int
    notes: dict[str, str] = field(default_factory=dict)
    """The grader's evidence or justification per key (batched: one note for all, key "*")."""

    @property
    def complete(self) -> bool:
        """Whether every key was judged."""
        return not self.failures


def _note(verdict: Mapping[str, Any], note_key: str | None) -> str:
    value = verdict.get(note_key) if note_key else None
    return "" if value is None else str(value)


async def judge_each(
    grader: Model,
    prompts: Mapping[str, str | list[ChatMessage]],
    read: Callable[[dict[str, Any]], T],
    *,
    schema: ResponseSchema,
    channel: VerdictChannel = DEFAULT_CHANNEL,
    note_key: str | None = None,
    config: GenerateConfig | None = None,
) -> RubricJudgement[T]:
    """One concurrent judge call per key; `read` turns a verdict object into the value.

    `note_key` names the verdict field holding the grader's evidence, kept per key.
    """
    names = list(prompts)
    results = await collect_calls(
        *(
            judge(grader, prompts[name], read, schema=schema, channel=channel, config=config)
            for name in names
        )
    )
    pairs = list(zip(names, results, strict=True))
    return RubricJudgement(
        values={name: result.value for name, result in pairs},
        failures={
            name: result.reason or "unreadable judgement" for name, result in pairs if not result.ok
        },
        calls=sum(result.attempts for result in results),
        notes={name: _note(result.verdict, note_key) for name, result in pairs if result.ok},
    )


async def judge_table(
    grader: Model,
    prompt: str,
    keys: Sequence[str],
    table: str,
    read_value: Callable[[Any], T],
    *,
    schema: ResponseSchema,
    channel: VerdictChannel = DEFAULT_CHANNEL,
    note_key: str | None = None,
    config: GenerateConfig | None = None,
) -> RubricJudgement[T]:
    """One judge call whose verdict holds `table`: {"1": value, ..., "n": value} for the keys."""

    def read_all(found: dict[str, Any]) -> dict[str, T]:
        entries = found[table]
        if not isinstance(entries, Mapping):
            raise JudgementError(f"'{table}' must map the numbers 1..{len(keys)} to answers")
        return {key: read_value(entries[str(n)]) for n, key in enumerate(keys, start=1)}

    result = await judge(grader, prompt, read_all, schema=schema, channel=channel, config=config)
    if result.value is None:
        reason = result.reason or "unreadable judgement"
        return RubricJudgement(
            values=dict.fromkeys(keys, None),
            failures=dict.fromkeys(keys, reason),
            calls=result.attempts,
        )
    return RubricJudgement(
        values=dict(result.value),
        failures={},
        calls=result.attempts,
        notes={"*": _note(result.verdict, note_key)} if note_key else {},
    )
