"""Reading JSONL data files with errors that say where: shared by every family's loader."""

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ValidationError
from pydantic_core import PydanticCustomError

T = TypeVar("T")


MAX_RECORD_BYTES = 2_000_000
"""A record (one JSONL line) larger than this is refused: a benchmark record is kilobytes,
and a multi-megabyte field is a broken file or an attempt to blow up prompts and bills."""


def jsonl_records(path: Path, error: type[ValueError]) -> Iterator[tuple[int, str, Any]]:
    """Yield `(line number, "<path>: record <n>", parsed JSON)` for each non-blank line.

    Raises:
        error: the file cannot be read, holds no record, or a line is not UTF-8, not JSON or
            larger than `MAX_RECORD_BYTES`; the message names file and record.
    """
    try:
        lines = path.read_bytes().splitlines()
    except OSError as problem:
        raise error(f"{path}: cannot read: {problem}") from problem
    found = False
    for number, raw in enumerate(lines, start=1):
        where = f"{path}: record {number}"
        if len(raw) > MAX_RECORD_BYTES:
            raise error(
                f"{where}: {len(raw):,} bytes, over the limit of {MAX_RECORD_BYTES:,} per record"
            )
        try:
            line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as problem:
            raise error(
                f"{where}: not UTF-8 text (byte {problem.start + 1} of the line); "
                "save the file as UTF-8"
            ) from problem
        if not line.strip():
            continue
        found = True
        try:
            yield number, where, json.loads(line)
        except json.JSONDecodeError as problem:
            raise error(f"{where}: not valid JSON ({problem.msg})") from problem
    if not found:
        raise error(f"{path}: the file holds no records")


def reject_duplicates(
    items: Iterable[tuple[str, T]],
    key: Callable[[T], str],
    duplicate: Callable[[str, str, str], ValueError],
) -> list[T]:
    """The items in order, raising on a repeated key.

    Args:
        items: `(where, item)` pairs, `where` naming file and record.
        key: the item's id.
        duplicate: builds the error from (where, id, where of the first).
    """
    first_seen: dict[str, str] = {}
    kept: list[T] = []
    for where, item in items:
        item_key = key(item)
        if item_key in first_seen:
            raise duplicate(where, item_key, first_seen[item_key])
        first_seen[item_key] = where
        kept.append(item)
    return kept


M = TypeVar("M", bound=BaseModel)


def _non_blank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("blank", "must be a non-empty string")
    return value


Text = Annotated[str, AfterValidator(_non_blank)]
"""A string with something in it: the text fields of every data file's model."""


def first_problem(error: ValidationError) -> str:
    """`field: message` for the first problem pydantic found (the field path dotted)."""
    detail = error.errors()[0]
    where = ".".join(str(part) for part in detail["loc"])
    return f"field '{where}': {detail['msg']}" if where else detail["msg"]


def read_models(
    path: Path, model: type[M], error: type[ValueError], context: Any = None
) -> list[M]:
    """Every record of a JSONL file validated as `model`, ids unique where it has an `id`.

    `context` is pydantic's validation context (what the validators check against).

    Raises:
        error: as `jsonl_records`, or a record that breaks the schema, in one line naming
            file, record (and its id when it has one) and field.
    """
    records: list[tuple[str, M]] = []
    for _, where, value in jsonl_records(path, error):
        named = f"{where} ({value['id']})" if isinstance(value, dict) and "id" in value else where
        try:
            records.append((named, model.model_validate(value, context=context)))
        except ValidationError as problem:
            raise error(f"{named}: {first_problem(problem)}") from None
    if "id" not in model.model_fields:
        return [record for _, record in records]
    return reject_duplicates(
        records,
        key=lambda record: str(record.id),  # type: ignore[attr-defined]
        duplicate=lambda where, key, first: error(
            f"{where}: duplicate id {key!r} (first at {first})"
        ),
    )
