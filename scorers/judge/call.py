"""Ask a judge, read its verdict, retry on malformed output, and report what failed.

Every verdict is asked for as structured output (`response_schema`, supported by Inspect for
the main providers) unless the caller passes no schema; the reply is read by `find_verdict`,
which takes only the grader's own verdict, never one quoted from the material it judged (the
texts in the prompt's `Fence` blocks). A judgement that still fails after the retries — or a
grader call the provider blocked — comes back as a failure with the reason, so the scorer
records it as unscored (`GRADER_FAILED`): never as a pass or a fail.
"""

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, Model, ResponseSchema
from inspect_ai.util import JSONSchema

from heedbench.calls import UNSCORED_REASON, FailedCall, generate_checked
from heedbench.scorers.judge.blocks import read_blocks
from heedbench.scorers.judge.verdict import (
    AmbiguousVerdictError,
    find_verdict,
    material_verdicts,
)

T = TypeVar("T")

GRADER_FAILED = UNSCORED_REASON["grader"]
"""Inspect's `ScoreReason` for a sample left unscored because the grader gave no usable
verdict; the free-text cause goes in the score's explanation."""

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
    number: int | float = value if not isinstance(value, str) else math.nan
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError as error:
            raise problem from error
    # Range first: an int too large for a float, inf and NaN all fail here without arithmetic.
    if not low <= number <= high or number != int(number):
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


FieldSchema = JSONSchema


def boolean(description: str) -> FieldSchema:
    """A true/false verdict field."""
    return JSONSchema(type="boolean", description=description)


def rating(description: str, low: int = 1, high: int = 5) -> FieldSchema:
    """An integer rating field in [low, high]."""
    return JSONSchema(type="integer", enum=list(range(low, high + 1)), description=description)


def text(description: str) -> FieldSchema:
    """A free-text field (a reason, a quote)."""
    return JSONSchema(type="string", description=description)


def table(keys: int, value: FieldSchema, description: str) -> FieldSchema:
    """An object mapping "1".."keys" to one value each."""
    return _object({str(number): value for number in range(1, keys + 1)}, description)


def _object(fields: Mapping[str, FieldSchema], description: str | None = None) -> JSONSchema:
    return JSONSchema(
        type="object",
        properties=dict(fields),
        required=list(fields),
        additionalProperties=False,
        description=description,
    )


def verdict_schema(name: str, fields: Mapping[str, FieldSchema]) -> ResponseSchema:
    """A strict structured-output schema for one verdict object (fields in the order given)."""
    return ResponseSchema(name=name, json_schema=_object(fields), strict=True)


@dataclass
class JudgeResult(Generic[T]):
    """The parsed judgement, or None with the reason it could not be had."""

    value: T | None
    reason: str | None = None
    attempts: int = 0
    replies: list[str] = field(default_factory=list)
    verdict: dict[str, Any] = field(default_factory=dict)
    """The verdict object the value was read from (with the grader's reason or evidence)."""
    stop_reasons: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether a judgement was obtained."""
        return self.value is not None


async def judge(
    model: Model,
    prompt: str | list[ChatMessage],
    read: Callable[[dict[str, Any]], T],
    *,
    keys: Sequence[str],
    schema: ResponseSchema | None = None,
    retries: int = DEFAULT_RETRIES,
    config: GenerateConfig | None = None,
    material: Sequence[str] | None = None,
) -> JudgeResult[T]:
    """Call `model` and turn its reply into a judgement with `read`.

    Args:
        model: the judge (usually the `grader` role model).
        prompt: the judge prompt, its untrusted parts in `Fence` blocks.
        read: builds the judgement from the verdict object; raises `JudgementError`
            (or `KeyError`, `TypeError`, `ValueError`) when the object is unusable.
        keys: the keys a verdict object carries (see `find_verdict`).
        schema: structured-output schema for the verdict; None asks in the prompt only.
        retries: extra attempts after a malformed reply; each retry tells the judge what was
            wrong with its previous reply.
        config: generation settings for the judge (its own, not the evaluated model's).
        material: the texts being judged; a verdict object that also occurs in them never
            counts. Unset: the texts of the prompt's `Fence` blocks.

    Returns:
        The judgement, or a failure with the last problem and every raw reply.
    """
    settings = config or GenerateConfig()
    if schema is not None:
        settings = settings.merge(GenerateConfig(response_schema=schema))
    messages: list[ChatMessage] = (
        [ChatMessageUser(content=prompt)] if isinstance(prompt, str) else list(prompt)
    )
    if material is None:
        material = [text for message in messages for _, text in read_blocks(message.text)]
    echoes = material_verdicts(material, keys)  # once: every attempt is read against them
    result: JudgeResult[T] = JudgeResult(value=None)
    problem = "no attempt made"
    for attempt in range(1, retries + 2):
        result.attempts = attempt
        try:
            output = await generate_checked(model, messages, role="grader", config=settings)
        except FailedCall as failure:
            result.reason = str(failure)
            return result
        reply = output.completion
        result.replies.append(reply)
        result.stop_reasons.append(output.stop_reason)
        try:
            verdict = find_verdict(reply, keys, echoes=echoes)
            result.value, result.verdict = read(verdict), verdict
            return result
        except AmbiguousVerdictError as error:
            problem = str(error)
        except (JudgementError, KeyError, TypeError, ValueError, ArithmeticError) as error:
            problem = f"unusable judgement ({error})"
        messages = [
            *messages,
            output.message,
            ChatMessageUser(content=REMINDER.format(problem=problem)),
        ]
    result.reason = f"judge failed after {retries + 1} attempts: {problem}"
    return result
