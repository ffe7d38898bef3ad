"""The model calls of the build pipelines, with failures named after the build role.

Every call goes through `heedbench.calls.generate_checked` (free text) or
`heedbench.scorers.judge.call.judge` (a JSON object under a schema, read from the reply's
structure in the task's channel, `-T verdict`, and asked again with the problem named). Those
helpers describe a failed call
as the evaluated model's or the grader's; here the message names the build role instead
("the generator model's call failed (content filter)").

- A blocked or overflowing call, or a reply still unusable after the retries, raises
  `StepFailed`: the item is recorded as failed, with the reason, and the build goes on.
- A call that keeps glitching raises `ModelCallError`: the sample errors and
  `inspect eval-retry` runs it again.
"""

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ResponseSchema
from inspect_ai.solver import TaskState

from heedbench.calls import FailedCall, ModelCallError, generate_checked
from heedbench.scorers.judge.call import DEFAULT_RETRIES, judge
from heedbench.scorers.judge.verdict import VerdictChannel

T = TypeVar("T")

PRODUCT = "build"
"""Store key under which a build sample leaves its product (read back from the log)."""

_CALLERS = ("the evaluated model's", "the simulated user's", "the grader's")


class StepFailed(Exception):
    """One step of one item could not be done; the message says which, by whom, and why."""


def rename(text: str, role: str) -> str:
    """`text` with the call helpers' caller names replaced by the build role's name."""
    for caller in _CALLERS:
        text = text.replace(caller, f"the {role} model's")
    return text.replace("judge failed after", f"no usable reply from the {role} model after")


def model_name(model: Model) -> str:
    """`provider/model`, as Inspect writes it in logs and the price table keys it."""
    return str(model)


def summary(state: TaskState, text: str) -> None:
    """The sample's output: one line on what the build step made (the product is in the store)."""
    state.output = ModelOutput.from_content(model="build", content=text)


async def write_text(
    model: Model,
    messages: str | Sequence[ChatMessage],
    *,
    role: str,
    step: str,
    config: GenerateConfig | None = None,
) -> tuple[str, str]:
    """The model's free-text reply and its stop reason.

    Raises:
        StepFailed: the provider blocked the call or the input overflowed.
        ModelCallError: the call kept glitching (the sample errors, to be retried).
    """
    try:
        output = await generate_checked(model, messages, role="target", config=config)
    except FailedCall as failure:
        raise StepFailed(f"{step}: {rename(str(failure), role)}") from failure
    except ModelCallError as error:
        raise ModelCallError(f"{step}: {rename(str(error), role)}") from error
    return output.completion, output.stop_reason


async def ask_json(
    model: Model,
    prompt: str | list[ChatMessage],
    read: Callable[[dict[str, Any]], T],
    *,
    schema: ResponseSchema,
    channel: VerdictChannel,
    role: str,
    step: str,
    retries: int = DEFAULT_RETRIES,
    config: GenerateConfig | None = None,
) -> T:
    """A JSON reply read by `read`, asked again (with the problem named) when unusable.

    Args:
        model: the role model.
        prompt: the request.
        read: builds the value from the reply's JSON object; raises `JudgementError`,
            `KeyError`, `TypeError` or `ValueError` naming what is wrong.
        schema: the reply object's schema.
        channel: where the reply's object is (`-T verdict`: schema, tool or text).
        retries: extra attempts after an unusable reply.
        role: the build role, for messages.
        step: the step's name, for messages.
        config: the role's generation settings.

    Raises:
        StepFailed: the call was blocked or overflowed, or every reply was unusable.
        ModelCallError: the call kept glitching.
    """
    try:
        result = await judge(
            model, prompt, read, schema=schema, channel=channel, retries=retries, config=config
        )
    except ModelCallError as error:
        raise ModelCallError(f"{step}: {rename(str(error), role)}") from error
    if result.value is None:
        raise StepFailed(f"{step}: {rename(result.reason or 'no usable reply', role)}")
    return result.value
