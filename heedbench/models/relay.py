"""`heedbench/relay`: hands each call to an outside answerer through a folder, for any role.

A person, or an assistant outside Inspect, plays the role: each `generate` call is written as
one JSON file, `<folder>/requests/<id>.json` (the messages, the tools offered and the one the
call forces, the response schema, and a stable `id`, a digest of all of these and of the
sample and epoch that ask), and the call waits for `<folder>/replies/<id>.json`:

- `{"text": "..."}`: the reply (for a call with a response schema, the object as JSON text);
- `{"object": {...}}`: a call with a response schema answered with the object itself;
- `{"tool_call": {"name": "...", "arguments": {...}}}`: a call that forces a tool.

No reply within `-M timeout=` seconds (default 600), or a reply file that is none of these,
ends the call with `RelayError`, a provider error: the sample errors, never turns into an
answer, and `inspect eval-retry` runs it again (replies written meanwhile are picked up, since
a repeated call has the same id). The log names the role's model `heedbench/relay`, so it
records which roles were relayed; `-M folder=` (default `relay`) keeps each role's calls apart.
"""

import asyncio
import hashlib
import json
import time
from pathlib import Path
from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput
from inspect_ai.solver._task_state import (
    sample_state,  # inspect-evals-lint: ignore[private_api_imports] -- no public sample id
)
from inspect_ai.tool import ToolChoice, ToolFunction, ToolInfo

POLL_SECONDS = 0.5
READ_ATTEMPTS = 4
DEFAULT_TIMEOUT = 600.0


class RelayError(ValueError):
    """The outside answerer gave no usable reply in time: a provider error, never an answer."""


def request_of(
    input: list[ChatMessage],
    tools: list[ToolInfo],
    tool_choice: ToolChoice,
    config: GenerateConfig,
    asker: str = "",
) -> dict[str, Any]:
    """The call as the answerer sees it, with its stable id.

    `asker` (the sample and epoch making the call) goes into the id but not into the body: two
    samples or epochs asking the same thing get their own answers, as from a sampled model,
    while a retried sample finds the reply it had. The answerer never sees which sample asks
    (a sample id such as `off-003/delay-rephrase` would tell it the flow).
    """
    body: dict[str, Any] = {
        "messages": [{"role": m.role, "content": m.text} for m in input],
        "tools": [t.model_dump(exclude_none=True) for t in tools],
        "tool_choice": tool_choice.name if isinstance(tool_choice, ToolFunction) else tool_choice,
        "response_schema": (
            config.response_schema.model_dump(exclude_none=True) if config.response_schema else None
        ),
    }
    keyed = {**body, "asker": asker} if asker else body
    digest = hashlib.sha256(json.dumps(keyed, sort_keys=True).encode()).hexdigest()[:20]
    return {"id": digest, **body}


def output_of(model: str, request: dict[str, Any], reply: Any) -> ModelOutput:
    """The model output a reply file stands for; `RelayError` if it stands for none."""
    if not isinstance(reply, dict) or len(reply) != 1:
        raise RelayError(f"relay reply {request['id']}: must be one of text, object or tool_call")
    ((kind, value),) = reply.items()
    forced = request["tool_choice"] if isinstance(request["tool_choice"], str) else None
    if kind == "tool_call" and isinstance(value, dict) and isinstance(value.get("arguments"), dict):
        name = str(value.get("name") or forced or "")
        return ModelOutput.for_tool_call(model, name, value["arguments"])
    if kind == "object" and isinstance(value, dict):
        return ModelOutput.from_content(model=model, content=json.dumps(value))
    if kind == "text" and isinstance(value, str):
        return ModelOutput.from_content(model=model, content=value)
    raise RelayError(f"relay reply {request['id']}: {kind!r} does not hold a usable {kind}")


async def relay_output(
    model: str,
    input: list[ChatMessage],
    tools: list[ToolInfo],
    tool_choice: ToolChoice,
    config: GenerateConfig,
    *,
    folder: Path,
    timeout: float = DEFAULT_TIMEOUT,
) -> ModelOutput:
    """Write the request, wait for its reply, and turn the reply into the model's output."""
    state = sample_state()
    asker = f"{state.sample_id}#{state.epoch}" if state is not None else ""
    request = request_of(input, tools, tool_choice, config, asker)
    (folder / "requests").mkdir(parents=True, exist_ok=True)
    (folder / "replies").mkdir(parents=True, exist_ok=True)
    asked = folder / "requests" / f"{request['id']}.json"
    if not asked.exists():
        temporary = asked.with_suffix(".tmp")
        temporary.write_text(json.dumps(request, indent=1, ensure_ascii=False), encoding="utf-8")
        temporary.replace(asked)  # an answerer never sees half a request
    answer = folder / "replies" / f"{request['id']}.json"
    deadline = time.monotonic() + timeout
    while not answer.exists():
        if time.monotonic() > deadline:
            raise RelayError(f"relay: no reply to {asked} within {timeout:g} s")
        await asyncio.sleep(POLL_SECONDS)
    for attempt in range(READ_ATTEMPTS):  # a reply being written may be read half-way
        try:
            return output_of(model, request, json.loads(answer.read_text(encoding="utf-8")))
        except ValueError as error:
            if attempt == READ_ATTEMPTS - 1:
                raise RelayError(f"relay reply {answer}: not valid JSON ({error})") from error
            await asyncio.sleep(POLL_SECONDS)
    raise AssertionError("unreachable")
