"""The `heedbench/...` model provider: reference models that need no key and no network.

- `heedbench/random` (choice's evaluated model): a seeded chance-level choice, the floor.
- `heedbench/smoke` (any role of any task): seeded, well-formed output in the call's channel,
  for trying a task out.
- `heedbench/refusal` (carryon's evaluated model): the query's three shipped refusals in
  turn, the refusal floor.
- `heedbench/relay` (any role): hands each call to a person or an assistant outside Inspect
  through a folder (`relay.py`).

A wrong model name or `-M` argument stops the run with one line naming it.
"""

import inspect
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from heedbench.errors import InputError
from heedbench.models.chance import chance_reply
from heedbench.models.refusal import refusal_output
from heedbench.models.relay import DEFAULT_TIMEOUT, relay_output
from heedbench.models.smoke import smoke_output

Responder = Callable[
    [list[ChatMessage], list[ToolInfo], ToolChoice, GenerateConfig],
    ModelOutput | Awaitable[ModelOutput],
]
ARGUMENTS: dict[str, tuple[str, ...]] = {
    "random": ("seed",),
    "smoke": ("seed",),
    "refusal": ("refusals", "data"),
    "relay": ("folder", "timeout"),
}
"""Each model's `-M` arguments."""


class ModelArgumentError(InputError):
    """A `heedbench/...` model name or `-M` argument the provider does not have."""


def _seed(value: Any) -> int:
    try:
        return int(str(value))
    except ValueError:
        raise ModelArgumentError(f"-M seed: must be an integer; got {value!r}") from None


def _number(name: str, value: Any) -> float:
    try:
        number = float(str(value))
    except ValueError:
        number = -1.0
    if number <= 0:
        raise ModelArgumentError(f"-M {name}: must be a positive number of seconds; got {value!r}")
    return number


def _text(name: str, value: Any) -> str | None:
    if value is None or (isinstance(value, str) and value.strip()):
        return value
    raise ModelArgumentError(f"-M {name}: must be a file path; got {value!r}")


def responder(name: str, arguments: dict[str, Any]) -> Responder:
    """The reply function of model `name` with its `-M` arguments, checked."""
    if name not in ARGUMENTS:
        known = ", ".join(f"heedbench/{n}" for n in ARGUMENTS)
        raise ModelArgumentError(f"no model heedbench/{name}; available: {known}")
    unknown = sorted(set(arguments) - set(ARGUMENTS[name]))
    if unknown:
        takes = ", ".join(ARGUMENTS[name]) or "none"
        raise ModelArgumentError(
            f"-M {unknown[0]}: heedbench/{name} takes no such argument (it takes {takes})"
        )
    model = f"heedbench/{name}"
    if name == "random":
        seed = _seed(arguments.get("seed", 0))
        return lambda input, tools, choice, config: ModelOutput.from_content(
            model=model, content=chance_reply("\n".join(m.text for m in input), seed)
        )
    if name == "smoke":
        seed = _seed(arguments.get("seed", 0))
        return lambda input, tools, choice, config: smoke_output(
            model, input, tools, choice, config, seed=seed
        )
    if name == "relay":
        folder = Path(_text("folder", arguments.get("folder")) or "relay")
        timeout = _number("timeout", arguments.get("timeout", DEFAULT_TIMEOUT))
        return lambda input, tools, choice, config: relay_output(
            model, input, tools, choice, config, folder=folder, timeout=timeout
        )
    refusals, data = (
        _text("refusals", arguments.get("refusals")),
        _text("data", arguments.get("data")),
    )
    return lambda input, tools, choice, config: refusal_output(model, input, refusals, data)


@modelapi(name="heedbench")
class HeedbenchModelAPI(ModelAPI):
    """Dispatches to the named reference model; replies are free and instant."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 (Inspect's ModelAPI signature)
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.reply = responder(model_name, model_args)

    def max_connections(self) -> int:
        """No network: concurrency is free."""
        return 1000

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        """The model's reply, with token usage estimated from the text (4 characters a token)."""
        reply = self.reply(input, tools, tool_choice, config)
        output = await reply if inspect.isawaitable(reply) else reply
        prompt = "\n".join(message.text for message in input)
        tokens_in, tokens_out = len(prompt) // 4 + 1, len(output.completion) // 4 + 1
        output.usage = ModelUsage(
            input_tokens=tokens_in, output_tokens=tokens_out, total_tokens=tokens_in + tokens_out
        )
        return output
