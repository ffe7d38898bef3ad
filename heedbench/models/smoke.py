"""`heedbench/smoke`: plays any role of any heedbench task offline, to try a run without keys.

Its output is seeded by `-M seed=` and the prompt, and well formed in the channel the call asks
for: a forced tool call gets arguments that match the tool's parameters, a call with a
response schema gets an object that matches it, a text-channel grader prompt (which shows its
schema) gets that object alone. Other calls get what the task expects of the role: a choice
answer (as `heedbench/random`), a PrefDisco question or final answer with the protocol's
markers, a simulated user's reply (as JSON where the prompt asks for it), or a plain reply.
Nothing it says is a measurement: `heedbench report` leaves its runs out unless asked.
"""

import hashlib
import json
import random
import re
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageAssistant, GenerateConfig, ModelOutput
from inspect_ai.tool import ToolChoice, ToolFunction, ToolInfo

from heedbench.models.chance import FALLBACK_REPLY, chance_answer
from heedbench.scorers.judge.prompts import SCHEMA_LINE
from heedbench.solvers.prefdisco.protocol import (
    ACTION,
    ANSWER,
    FINAL_MARKER,
    QUESTION_MARKER,
    RESPONSE,
    as_question,
    read_action,
)

WORDS = ("thanks", "that", "makes", "sense", "I", "would", "like", "a", "short", "clear",
         "answer", "with", "one", "example", "please", "keep", "it", "practical", "and",
         "honest", "about", "what", "is", "known")  # fmt: skip
_JSON_USER = ('"thought"', '"response"')
"""A simulated user prompt that asks for its reply as JSON names these two keys."""


def example_of(schema: dict[str, Any], rng: random.Random) -> Any:
    """A value that matches a JSON schema of the kinds heedbench uses.

    Objects, arrays, enums, booleans, integers, numbers and strings.
    """
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = schema.get("type", "object")
    if kind == "object":
        properties = schema.get("properties") or {}
        return {name: example_of(sub, rng) for name, sub in properties.items()}
    if kind == "array":
        count = max(int(schema.get("minItems", 1)), 1)
        return [example_of(schema.get("items") or {}, rng) for _ in range(count)]
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "integer":
        return rng.randint(int(schema.get("minimum", 1)), int(schema.get("maximum", 5)))
    if kind == "number":
        return round(
            rng.uniform(float(schema.get("minimum", 0)), float(schema.get("maximum", 1))), 3
        )
    return " ".join(rng.sample(WORDS, 4))


def _sentence(rng: random.Random, words: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def _shown_schema(prompt: str) -> dict[str, Any] | None:
    """The reply schema a text-channel prompt shows on its `SCHEMA_LINE` line, if any."""
    found = re.search(re.escape(SCHEMA_LINE) + r" (\{.*\})$", prompt, re.MULTILINE)
    if found is None:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _assistant_turn(input: list[ChatMessage], rng: random.Random) -> str:
    """A PrefDisco turn in the conversation's marker style, else a plain reply.

    One question, then the answer: `action` lines under the paper protocol, labels otherwise.
    """
    prompt = "\n".join(message.text for message in input)
    action = ACTION in prompt
    if not action and QUESTION_MARKER not in prompt:
        return _sentence(rng, 30)
    asked = sum(
        isinstance(m, ChatMessageAssistant) and read_action(m.text).kind == "question"
        if action
        else isinstance(m, ChatMessageAssistant) and m.text.lstrip().startswith(QUESTION_MARKER)
        for m in input
    )
    last = input[-1].text if input else ""
    if asked == 0 and FINAL_MARKER not in last:
        return as_question("How much detail would you like, and do examples help you?",
                           "action" if action else "labels")  # fmt: skip
    answer = rng.choice(("A", "B", "C", "D"))
    number = rng.randint(0, 9)
    text = f"{_sentence(rng, 20)} The answer is \\boxed{{{number}}} ({answer})."
    return f"{ACTION} '{ANSWER}'\n{RESPONSE} {text}" if action else f"{FINAL_MARKER} {text}"


def smoke_output(
    model: str,
    input: list[ChatMessage],
    tools: list[ToolInfo],
    tool_choice: ToolChoice,
    config: GenerateConfig,
    *,
    seed: int = 0,
) -> ModelOutput:
    """The smoke model's reply to one call (see the module docstring)."""
    prompt = "\n".join(message.text for message in input)
    digest = hashlib.sha256(f"{seed}\n{prompt}".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    if isinstance(tool_choice, ToolFunction):
        tool = next(t for t in tools if t.name == tool_choice.name)
        arguments = example_of(tool.parameters.model_dump(exclude_none=True), rng)
        return ModelOutput.for_tool_call(model, tool.name, arguments)
    schema = (
        config.response_schema.json_schema.model_dump(exclude_none=True)
        if config.response_schema is not None
        else _shown_schema(prompt)
    )
    if schema is not None:
        content = json.dumps(example_of(schema, rng))
    elif (choice := chance_answer(prompt, rng)) != FALLBACK_REPLY:
        content = choice
    elif all(key in prompt for key in _JSON_USER):
        content = json.dumps({"thought": _sentence(rng, 8), "response": _sentence(rng)})
    else:
        content = _assistant_turn(input, rng)
    return ModelOutput.from_content(model=model, content=content)
