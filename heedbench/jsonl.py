"""Reading JSONL data files with errors that say where: shared by every family's loader."""

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def jsonl_records(path: Path, error: type[ValueError]) -> Iterator[tuple[int, str, Any]]:
    """Yield `(line number, "<path>: record <n>", parsed JSON)` for each non-blank line.

    Raises:
        error: the file cannot be read or a line is not JSON; the message names file and record.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as problem:
        raise error(f"{path}: cannot read: {problem}") from problem
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}: record {number}"
        try:
            yield number, where, json.loads(line)
        except json.JSONDecodeError as problem:
            raise error(f"{where}: not valid JSON ({problem.msg})") from problem


def reject_duplicates(
    items: Iterable[tuple[str, T]],
    key: Callable[[T], str],
    duplicate: Callable[[str, str, str], ValueError],
    first_label: Callable[[str], str] = lambda where: where,
) -> list[T]:
    """The items in order, raising on a repeated key.

    Args:
        items: `(where, item)` pairs, `where` naming file and record.
        key: the item's id.
        duplicate: builds the error from (where, id, first_label(where of the first)).
        first_label: how the first occurrence is named in the message.
    """
    first_seen: dict[str, str] = {}
    kept: list[T] = []
    for where, item in items:
        item_key = key(item)
        if item_key in first_seen:
            raise duplicate(where, item_key, first_seen[item_key])
        first_seen[item_key] = first_label(where)
        kept.append(item)
    return kept
