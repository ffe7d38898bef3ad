"""What the gold-data tools share: collecting violations, and reading JSONL leniently.

`tools/judge_check_stats.py` and `tools/prefdisco_gold_stats.py` report every problem of a file
before they stop, where the task's own loader stops at the first.
"""

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

Record = dict[str, Any]


class Problems:
    """Collects violations as 'file record n (id): field: message' lines."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, where: str, field: str, message: str) -> None:
        """Record one violation of `field` at `where`."""
        self.lines.append(f"{where}: {field}: {message}")


def schema_problems(model: type[BaseModel], record: Record, at: str, problems: Problems) -> bool:
    """Whether `record` validates against its file's loader model; each problem is reported."""
    try:
        model.model_validate(record)
    except ValidationError as error:
        for detail in error.errors():
            field = ".".join(str(part) for part in detail["loc"]) or "-"
            problems.add(at, field, detail["msg"])
        return False
    return True


def read_jsonl(path: Path, problems: Problems) -> list[Record]:
    """The records of a JSONL file; unreadable lines are reported and skipped."""
    if not path.is_file():
        problems.add(path.name, "-", "file not found")
        return []
    records: list[Record] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            problems.add(f"{path.name} record {number}", "-", f"invalid JSON ({error.msg})")
            continue
        if not isinstance(value, dict):
            problems.add(f"{path.name} record {number}", "-", "must be a JSON object")
            continue
        records.append(value)
    return records
