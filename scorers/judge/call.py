"""Ask a judge, read its verdict from the reply's structure, re-ask once, report what failed.

A reply that is not exactly the schema's object in the call's channel (`verdict.py`) is put
back to the grader once, with the problem named; a judgement that still fails, or a call the
provider blocked, comes back as a failure with the reason, which the scorer records as
unscored (`GRADER_FAILED`), never as a pass or a fail.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from inspect_ai.model import (
    ChatMessage,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    ResponseSchema,
)
from inspect_ai.util import JSONSchema

from heedbench.calls import UNSCORED_REASON, FailedCall, generate_checked
from heedbench.scorers.judge.verdict import (
    DEFAULT_CHANNEL,
    FORCED_TOOL,
    SUBMIT_TOOL,
    VerdictChannel,
    VerdictError,
    read_verdict,
    submit_tool,
)

T = TypeVar("T")

GRADER_FAILED = UNSCORED_REASON["grader"]
"""Inspect's `ScoreReason` for a sample left unscored because the grader gave no usable
verdict; the free-text cause goes in the score's explanation."""

DEFAULT_RETRIES = 1
"""Extra attempts after an unreadable verdict: the grader is asked once more."""

REMINDER: dict[VerdictChannel, str] = {
    "schema": "Your previous reply could not be read as the verdict: {problem}. Reply again "
    "with the JSON object only, exactly as the schema asks.",
    "tool": "Your previous reply could not be read as the verdict: {problem}. Call the "
    f"{SUBMIT_TOOL} tool once, with the verdict as its arguments.",
    "text": "Your previous reply could not be read as the verdict: {problem}. Reply again "
    "with exactly one JSON object and nothing else.",
}


class JudgementError(ValueError):
    """A verdict object that matches the schema but still holds no usable judgement."""


def boolean(description: str) -> JSONSchema:
    """A true/false verdict field."""
    return JSONSchema(type="boolean", description=description)


def rating(description: str, low: int = 1, high: int = 5) -> JSONSchema:
    """An integer rating field in [low, high]."""
    return JSONSchema(type="integer", enum=list(range(low, high + 1)), description=description)


def text(description: str) -> JSONSchema:
    """A free-text field (a reason, a quote)."""
    return JSONSchema(type="string", description=description)


def table(keys: int, value: JSONSchema, description: str) -> JSONSchema:
    """An object mapping "1".."keys" to one value each."""
    return _object({str(number): value for number in range(1, keys + 1)}, description)


def _object(fields: Mapping[str, JSONSchema], description: str | None = None) -> JSONSchema:
    return JSONSchema(
        type="object",
        properties=dict(fields),
        required=list(fields),
        additionalProperties=False,
        description=description,
    )


def verdict_schema(name: str, fields: Mapping[str, JSONSchema]) -> ResponseSchema:
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

    @property
    def ok(self) -> bool:
        """Whether a judgement was obtained."""
        return self.value is not None


def _retry_messages(
    output: ModelOutput, channel: VerdictChannel, problem: str
) -> list[ChatMessage]:
    """What follows an unreadable reply: the reply, an answer to each tool call, the reminder."""
    answers: list[ChatMessage] = [
        ChatMessageTool(
            content=f"Not accepted: {problem}", tool_call_id=call.id, function=call.function
        )
        for call in output.message.tool_calls or []
    ]
    return [
        output.message,
        *answers,
        ChatMessageUser(content=REMINDER[channel].format(problem=problem)),
    ]


async def judge(
    model: Model,
    prompt: str | list[ChatMessage],
    read: Callable[[dict[str, Any]], T],
    *,
    schema: ResponseSchema,
    channel: VerdictChannel = DEFAULT_CHANNEL,
    retries: int = DEFAULT_RETRIES,
    config: GenerateConfig | None = None,
) -> JudgeResult[T]:
    """Call `model` and turn its verdict, read in `channel`, into a judgement with `read`.

    `read` gets the verdict object already checked against `schema` and raises
    `JudgementError` (or `KeyError`, `TypeError`, `ValueError`) when it is still unusable;
    each of the `retries` extra attempts tells the judge the problem. `config` is the judge's
    own generation settings. Returns the judgement, or a failure with the last problem and
    every raw reply.
    """
    settings = config or GenerateConfig()
    if channel == "schema":
        settings = settings.merge(GenerateConfig(response_schema=schema))
    tools = [submit_tool(schema)] if channel == "tool" else []
    messages: list[ChatMessage] = (
        [ChatMessageUser(content=prompt)] if isinstance(prompt, str) else list(prompt)
    )
    result: JudgeResult[T] = JudgeResult(value=None)
    problem = "no attempt made"
    for attempt in range(1, retries + 2):
        result.attempts = attempt
        try:
            output = await generate_checked(
                model,
                messages,
                role="grader",
                config=settings,
                tools=tools,
                tool_choice=FORCED_TOOL if tools else None,
            )
        except FailedCall as failure:
            result.reason = str(failure)
            return result
        result.replies.append(output.completion)
        try:
            verdict = read_verdict(output, channel, schema)
            result.value, result.verdict = read(verdict), verdict
            return result
        except VerdictError as error:
            problem = str(error)
        except (JudgementError, KeyError, TypeError, ValueError, ArithmeticError) as error:
            problem = f"unusable verdict ({error})"
        messages = [*messages, *_retry_messages(output, channel, problem)]
    result.reason = f"judge failed after {retries + 1} attempts in the {channel} channel: {problem}"
    return result
