"""Reading JSONL data files with errors that say where: shared by every family's loader."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


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
