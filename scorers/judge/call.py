"""Ask a judge, parse its JSON, retry on malformed output, and report what failed.

A judgement that still fails after the retries is returned as a failure with the reason, so
the scorer records it as unscored — never as a pass or a fail.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, Model

from heedbench.jsonparse import extract_json_object

T = TypeVar("T")

DEFAULT_RETRIES = 2
"""Extra attempts after a malformed judgement (three calls at most)."""

REMINDER = (
    "Your previous reply could not be read: {problem}. Reply again with the JSON object only, "
    "exactly in the requested format."
)


class JudgementError(ValueError):
    """A judge reply that parsed as JSON but does not hold a usable judgement."""


def read_scale(value: Any, name: str = "score", low: int = 1, high: int = 5) -> int:
    """An integer rating in [low, high] from a number or numeric string, else JudgementError."""
    problem = JudgementError(f"'{name}' must be an integer {low}-{high}, got {value!r}")
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise problem
    try:
        number = float(value)
    except ValueError as error:
        raise problem from error
    if number != int(number) or not low <= number <= high:
        raise problem
    return int(number)


def read_yes_no(value: Any, name: str, allow_numbers: bool = False) -> bool:
    """A yes/no verdict from true/false or "yes"/"no" (and 1/0 if allowed), else JudgementError."""
    if isinstance(value, bool):
        return value
    if allow_numbers and isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "false", "no"):
        return value.strip().lower() in ("true", "yes")
    raise JudgementError(f"'{name}' must be true or false, got {value!r}")


@dataclass
class JudgeResult(Generic[T]):
    """The parsed judgement, or None with the reason it could not be had."""

    value: T | None
    reason: str | None = None
    attempts: int = 0
    replies: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether a judgement was obtained."""
        return self.value is not None


async def judge(
    model: Model,
    prompt: str | list[ChatMessage],
    read: Callable[[dict[str, Any]], T],
    retries: int = DEFAULT_RETRIES,
    config: GenerateConfig | None = None,
) -> JudgeResult[T]:
    """Call `model` and turn its reply into a judgement with `read`.

    Args:
        model: the judge (usually the `grader` role model).
        prompt: the judge prompt, already assembled with `data_block`s.
        read: builds the judgement from the reply's JSON object; raises `JudgementError`
            (or `KeyError`, `TypeError`, `ValueError`) when the object is unusable.
        retries: extra attempts after a malformed reply; each retry tells the judge what was
            wrong with its previous reply.
        config: generation settings for the judge (its own, not the evaluated model's).

    Returns:
        The judgement, or a failure with the last problem and every raw reply.
    """
    messages: list[ChatMessage] = (
        [ChatMessageUser(content=prompt)] if isinstance(prompt, str) else list(prompt)
    )
    replies: list[str] = []
    problem = "no attempt made"
    for attempt in range(1, retries + 2):
        output = await model.generate(messages, config=config or GenerateConfig())
        reply = output.completion
        replies.append(reply)
        found = extract_json_object(reply)
        if found is None:
            problem = "no JSON object in the reply"
        else:
            try:
                return JudgeResult(value=read(found), attempts=attempt, replies=replies)
            except (JudgementError, KeyError, TypeError, ValueError) as error:
                problem = f"unusable judgement ({error})"
        messages = [
            *messages,
            output.message,
            ChatMessageUser(content=REMINDER.format(problem=problem)),
        ]
    return JudgeResult(
        value=None,
        reason=f"judge failed after {retries + 1} attempts: {problem}",
        attempts=retries + 1,
        replies=replies,
    )
