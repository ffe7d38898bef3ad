"""What the gold-data tools share: the card's contract, collecting violations, the command line.

`tools/judge_check_stats.py` (the carryon files) and `tools/prefdisco_gold_stats.py` (the
PrefDisco files) report every problem of a file before they stop, where the task's own loader
stops at the first, and print the data card's statistics as markdown.
"""

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from heedbench.evals.judge_check.gold import ATTACKS, Attack
from heedbench.jsonl import Text
from heedbench.paths import shipped_data_dir
from heedbench.scorers.judge_check.injection import PUSHES

Record = dict[str, Any]
Data = TypeVar("Data")


class Problems:
    """Collects violations as 'file record n (id): field: message' lines."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, where: str, field: str, message: str) -> None:
        """Record one violation of `field` at `where`."""
        self.lines.append(f"{where}: {field}: {message}")


def where(name: str, index: int, record: Record) -> str:
    """How a message names a record: file, 1-based record number and id."""
    return f"{name} record {index + 1} ({record.get('id', '?')})"


def fail(message: str) -> PydanticCustomError:
    """A contract violation, as a card model's validators raise it."""
    return PydanticCustomError("contract", message)


class Card(BaseModel):
    """The card's contract on every gold record: every key present (null where clean)."""

    attack: Attack | None
    injection_target: dict[str, Any] | None
    push: Literal["lenient", "harsh"] | None
    twin: Text | None
    note: Text

    @field_validator("kind", check_fields=False)
    @classmethod
    def _adversarial(cls, kind: str, info: ValidationInfo) -> str:
        if "attack" in info.data and (info.data["attack"] is not None) != (kind == "adversarial"):
            raise fail("is 'adversarial' exactly when attack is set")
        return kind


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


def read_checked(
    folder: Path, name: str, model: type[BaseModel], problems: Problems
) -> tuple[list[Record], dict[int, Record]]:
    """A gold file's records, and by index those that pass its card model; ids unique."""
    records = read_jsonl(folder / name, problems)
    valid, seen = {}, set()
    for index, record in enumerate(records):
        at = where(name, index, record)
        try:
            model.model_validate(record)
            valid[index] = record
        except ValidationError as error:
            for detail in error.errors():
                problems.add(at, ".".join(map(str, detail["loc"])) or "-", detail["msg"])
        if record.get("id") in seen:
            problems.add(at, "id", f"duplicate id {record['id']}")
        seen.add(record.get("id"))
    return records, valid


def twin_of(
    at: str, record: Record, by_id: dict[Any, Record], same: Sequence[str], problems: Problems
) -> Record | None:
    """An adversarial record's twin, if it is a clean record sharing the `same` fields."""
    twin = by_id.get(record["twin"])
    if twin is None or twin["attack"] is not None:
        problems.add(at, "twin", f"{record['twin']!r} is not a clean record of this file")
        return None
    for field in same:
        if twin.get(field) != record.get(field):
            problems.add(at, field, f"differs from the twin {twin['id']}")
    return twin


def words(text: str) -> int:
    """A response's length in whitespace-separated words."""
    return len(text.split())


def table(header: Sequence[Any], rows: Iterable[Sequence[Any]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(map(str, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
    return "\n".join(lines)


LOOKALIKES: dict[str, Callable[[str], bool]] = {
    "two spaces": lambda text: "END  DATA" in text,
    "tab": lambda text: "END\tDATA" in text,
    "no-break space U+00A0": lambda text: "\u00a0" in text,
    "zero-width space U+200B": lambda text: "\u200b" in text,
    "full-width brackets": lambda text: "\uff3b" in text,
    "Greek Epsilon U+0395": lambda text: "\u0395" in text,
    "Cyrillic Ie U+0415": lambda text: "\u0415" in text,
    "hex nonce": lambda text: re.search(r"<<END-[0-9a-f]{6}>>", text) is not None,
}
"""How each look-alike delimiter variant is recognised in a response, for the statistics."""


def lookalike_table(records: Iterable[Record], empty: str = "") -> str:
    """Which look-alike delimiter records hold each variant."""
    found = [r for r in records if r["attack"] == "lookalike_delimiter"]
    rows = [
        [name, ", ".join(r["id"] for r in found if test(r["response"])) or empty]
        for name, test in LOOKALIKES.items()
    ]
    return table(["look-alike variant", "records"], rows)


def attack_push_rows(files: Sequence[Sequence[Record]]) -> list[list[Any]]:
    """Per attack, then over all: how many records of each file push each way."""

    def count(attacks: Sequence[str]) -> list[Any]:
        return [sum(r["attack"] in attacks and r["push"] == p for r in f)
                for f in files for p in PUSHES]  # fmt: skip

    return [*([attack, *count([attack])] for attack in ATTACKS), ["**all**", *count(ATTACKS)]]


def run_tool(
    doc: str | None,
    check: Callable[[Path, Problems], Data],
    report: Callable[[Path, Data], str],
    argv: Sequence[str] | None = None,
) -> int:
    """A gold tool's command line: check the folder; print the problems (exit 1) or the report."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--dir", type=Path, help="the judge_check folder (default: shipped)")
    args = parser.parse_args(argv)
    problems = Problems()
    folder = args.dir or shipped_data_dir("judge_check")
    data = check(folder, problems)
    if problems.lines:
        print("\n".join(problems.lines), file=sys.stderr)
        print(f"{len(problems.lines)} problem(s) found.", file=sys.stderr)
        return 1
    print(report(folder, data))
    return 0
