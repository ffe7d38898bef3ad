"""Model calls whose failures are never mistaken for answers.

Inspect hands some provider failures back as ordinary-looking output: an HTTP 400
`context_length_exceeded` or a content-filter block becomes the error text with stop reason
`model_length` / `content_filter`, and a reply without choices becomes an empty completion.
Every heedbench model call (evaluated model, simulated user, grader) goes through
`generate_checked`, which looks before anyone reads the text:

- no choices, no text (unless the stop reason is `max_tokens`), or an error with content: a
  glitch. Asked again, up to `CALL_ATTEMPTS` times; if it persists, `ModelCallError` and the
  sample errors (`inspect eval-retry` or `--retry-on-error` run it again).
- `content_filter`: the provider, not the model, blocked the call. `FailedCall`: the sample
  ends unscored with the reason.
- `model_length`: the input no longer fits the context window. `FailedCall`, unscored.
- text, or `max_tokens` with whatever text there is: the model's own output, returned. A
  reply cut short by the token budget is the model's answer.

A filter block or an overflow is never a model's answer, a user's message or a grader's
verdict in any family. Every returned output's stop reason is kept by the caller for the log.
"""

from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
)
from inspect_ai.solver import TaskState
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_ai.util import collect

T = TypeVar("T")
A = TypeVar("A")
B = TypeVar("B")
CallRole = Literal["target", "user", "grader"]
FailureKind = Literal["no_choices", "empty", "provider_error", "content_filter", "context_length"]

CALL_ATTEMPTS = 3
"""Attempts at a call whose reply was a glitch (no choices, no text) before giving up."""

RETRIED: tuple[FailureKind, ...] = ("no_choices", "empty", "provider_error")
"""Failures worth asking again: a second request may well succeed."""

_DETAIL_CHARS = 300


@dataclass(frozen=True)
class CallFailure:
    """Why a model call gave no usable output."""

    kind: FailureKind
    role: CallRole
    detail: str = ""

    def describe(self) -> str:
        """One line for a score's reason or an error message."""
        who = {
            "target": "the evaluated model",
            "user": "the simulated user",
            "grader": "the grader",
        }
        text = f"{who[self.role]}'s call failed ({self.kind.replace('_', ' ')})"
        return f"{text}: {self.detail}" if self.detail else text


UNSCORED_REASON: dict[CallRole, str] = {
    "target": "no_response",
    "user": "scoring_failed",
    "grader": "grader_failed",
}
"""Inspect's `ScoreReason` for a sample left unscored by a failed call of each role (the
simulated user has no reason of its own: the sample could not be scored)."""


class FailedCall(Exception):
    """A call the provider refused or could not fit: the sample cannot be scored."""

    def __init__(self, failure: CallFailure) -> None:
        super().__init__(failure.describe())
        self.failure = failure


class ModelCallError(RuntimeError):
    """A call kept failing after every attempt: the sample errors, to be run again."""


def call_failure(output: ModelOutput, role: CallRole) -> CallFailure | None:
    """What is wrong with `output`, or None when it is the model's own reply."""
    if output.empty:
        return CallFailure("no_choices", role, "the provider returned no choices")
    stop = output.stop_reason
    detail = (output.error or output.completion or "").strip()[:_DETAIL_CHARS]
    details = output.choices[0].stop_details
    if stop == "content_filter":
        explanation = details.explanation if details and details.explanation else detail
        return CallFailure("content_filter", role, (explanation or "")[:_DETAIL_CHARS])
    if stop == "model_length":
        return CallFailure("context_length", role, detail)
    if output.error:
        return CallFailure("provider_error", role, output.error[:_DETAIL_CHARS])
    if not output.completion.strip() and not output.message.tool_calls and stop != "max_tokens":
        return CallFailure("empty", role, f"no text (stop reason {stop})")
    return None


async def generate_checked(
    model: Model,
    messages: str | Sequence[ChatMessage],
    *,
    role: CallRole,
    config: GenerateConfig | None = None,
    cache: bool | CachePolicy | None = None,
    tools: Sequence[ToolInfo] = (),
    tool_choice: ToolChoice | None = None,
) -> ModelOutput:
    """`model.generate`, returning only the model's own reply.

    Args:
        model: the model to call.
        messages: the prompt.
        role: whose call this is, for the failure message.
        config: generation settings for this call.
        cache: Inspect cache policy (None: the model's configured default). Repeated attempts
            bypass the cache, so a cached glitch is not served again.
        tools: tools offered to the model (a grader's `submit_verdict`).
        tool_choice: which tool the model must call, if any.

    Raises:
        FailedCall: the provider blocked the call or the input overflowed the context window.
        ModelCallError: every attempt came back as a glitch.
    """
    prompt = messages if isinstance(messages, str) else list(messages)
    failure: CallFailure | None = None
    for attempt in range(1, CALL_ATTEMPTS + 1):
        settings = config or GenerateConfig()
        offered, forced = list(tools), tool_choice
        if attempt > 1:
            output = await model.generate(prompt, offered, forced, settings, cache=False)
        elif cache is None:
            output = await model.generate(prompt, offered, forced, settings)
        else:
            output = await model.generate(prompt, offered, forced, settings, cache=cache)
        failure = call_failure(output, role)
        if failure is None:
            return output
        if failure.kind not in RETRIED:
            raise FailedCall(failure)
    assert failure is not None
    raise ModelCallError(f"{failure.describe()} (after {CALL_ATTEMPTS} attempts)")


async def generate_reply(state: TaskState) -> ModelOutput:
    """The evaluated model's next message, checked, then appended to the conversation.

    Used by the multi-turn solvers instead of the task's `generate`, whose output Inspect
    would append before anyone could look at it (and which fails on a reply without choices).
    """
    output = await generate_checked(get_model(), state.messages, role="target")
    state.output = output
    state.messages.append(output.message)
    return output


def _leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside a (nested) exception group, in order; `error` itself otherwise."""
    members = getattr(error, "exceptions", None)
    if not isinstance(members, tuple):
        return [error]
    return [leaf for member in members for leaf in _leaves(member)]


async def collect_calls(*calls: Awaitable[T]) -> list[T]:
    """Inspect's `collect`, raising the first failure itself when several calls fail at once.

    `collect` raises a lone failure bare, but two or more as an exception group whose message,
    "unhandled errors in a TaskGroup", is all a log's sample error would say. The first
    failure names the call and why it failed; the others are counted in a note.
    """
    try:
        return await collect(*calls)
    except Exception as error:
        leaves = _leaves(error)
        if leaves == [error]:
            raise
        first = leaves[0]
        if len(leaves) > 1 and hasattr(first, "add_note"):
            first.add_note(f"({len(leaves) - 1} other concurrent call(s) failed as well)")
        raise first from first.__cause__


async def collect_two(first: Awaitable[A], second: Awaitable[B]) -> tuple[A, B]:
    """`collect_calls` of two calls whose results differ in type, each result typed."""
    both: list[Any] = await collect_calls(first, second)
    return both[0], both[1]
