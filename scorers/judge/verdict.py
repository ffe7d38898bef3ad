"""Reading a grader's verdict from the structure of its reply, never from its prose.

Each call has one channel (`-T verdict=`, docs/graders.md): `schema` (default; the whole reply
is the strict `response_schema` object), `tool` (the arguments of one forced `submit_verdict`
call) or `text` (the reply is exactly one JSON object, optionally in one code fence). The
object must match the schema exactly (`jsonschema`), repeat no key and hold only finite
numbers; anything else is a `VerdictError` naming the problem. Nothing looks for a verdict in
free text, so a verdict the judged response planted, quoted or re-typed by the grader, is
never read as the grader's own.
"""

import json
import math
import re
from typing import Any, Literal

import jsonschema
from inspect_ai.model import ModelOutput, ResponseSchema
from inspect_ai.tool import ToolFunction, ToolInfo, ToolParams

VerdictChannel = Literal["schema", "tool", "text"]
CHANNELS: tuple[VerdictChannel, ...] = ("schema", "tool", "text")
DEFAULT_CHANNEL: VerdictChannel = "schema"
SUBMIT_TOOL = "submit_verdict"
MAX_DIGITS = 60
"""Integer literals longer than this are refused (and would slow Python's int parser)."""

_FENCED = re.compile(r"```[A-Za-z]*[ \t]*\n?(?P<body>.*?)\n?[ \t]*```", re.DOTALL)


class VerdictError(ValueError):
    """The reply does not hold exactly the schema's verdict object; the message says why."""


def _decoder() -> json.JSONDecoder:
    """A JSON decoder that refuses what JSON does not allow or leaves ambiguous."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in items]
        repeated = sorted({key for key in keys if keys.count(key) > 1})
        if repeated:
            raise VerdictError(f"the key {repeated[0]!r} appears twice")
        return dict(items)

    def constant(name: str) -> float:
        raise VerdictError(f"{name} is not a JSON number")

    def floating(literal: str) -> float:
        number = float(literal)
        if not math.isfinite(number):
            raise VerdictError(f"the number {literal} is out of range")
        return number

    def integer(literal: str) -> int:
        if len(literal.lstrip("-")) > MAX_DIGITS:
            raise VerdictError(f"the number {literal[:12]}... is out of range")
        return int(literal)

    return json.JSONDecoder(
        object_pairs_hook=pairs, parse_constant=constant, parse_float=floating, parse_int=integer
    )


def whole_object(text: str) -> dict[str, Any]:
    """`text` read as exactly one JSON object, optionally inside one code fence.

    VerdictError for anything else: prose around it, two objects, a list, a repeated key, a
    number JSON does not allow.
    """
    body = text.strip()
    fenced = _FENCED.fullmatch(body)
    if fenced is not None:
        body = fenced.group("body").strip()
    if not body.startswith("{"):
        raise VerdictError("the reply must be one JSON object and nothing else")
    try:
        value, end = _decoder().raw_decode(body)
    except VerdictError:
        raise
    except ValueError as error:
        raise VerdictError(f"the reply is not valid JSON ({error})") from error
    if body[end:].strip():
        raise VerdictError("the reply must hold the JSON object only, with nothing after it")
    if not isinstance(value, dict):
        raise VerdictError("the reply must be a JSON object")
    return value


def check_schema(value: dict[str, Any], schema: ResponseSchema) -> dict[str, Any]:
    """`value` if it matches the verdict schema exactly; else VerdictError naming the field."""
    definition = schema.json_schema.model_dump(exclude_none=True)
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(definition).iter_errors(value)
    )
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path)
        raise VerdictError(f"{where + ': ' if where else ''}{error.message}")
    return value


def submit_tool(schema: ResponseSchema) -> ToolInfo:
    """The one tool of the `tool` channel: its parameters are the verdict's fields."""
    return ToolInfo(
        name=SUBMIT_TOOL,
        description="Submit your verdict. The arguments of this call are your verdict.",
        parameters=ToolParams(
            properties=dict(schema.json_schema.properties or {}),
            required=list(schema.json_schema.required or []),
        ),
    )


FORCED_TOOL = ToolFunction(SUBMIT_TOOL)


def read_verdict(output: ModelOutput, channel: VerdictChannel, schema: ResponseSchema) -> Any:
    """The verdict object of a grader's reply in `channel`, checked against `schema`."""
    if channel == "tool":
        calls = [c for c in output.message.tool_calls or [] if c.function == SUBMIT_TOOL]
        if len(calls) != 1:
            raise VerdictError(f"call the {SUBMIT_TOOL} tool exactly once (got {len(calls)})")
        if calls[0].parse_error:
            raise VerdictError(
                f"the tool call's arguments are not valid JSON ({calls[0].parse_error})"
            )
        return check_schema(dict(calls[0].arguments), schema)
    return check_schema(whole_object(output.completion), schema)
