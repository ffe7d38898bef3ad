"""The annotation CSVs: written for a spreadsheet, read back whatever the spreadsheet saved.

One place for the conventions every export and import shares: UTF-8 out, a byte-order mark
tolerated on the way back in (spreadsheets add one), missing cells written empty.
"""

import csv
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

YES = frozenset({"yes", "y", "true", "1"})
"""What a filled yes/no cell may say for yes (lower-cased)."""
NO = frozenset({"no", "n", "false", "0"})
"""What a filled yes/no cell may say for no (lower-cased)."""
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""A cell starting with one of these is a formula to a spreadsheet: model text is untrusted."""


def inert(text: str) -> str:
    """Text a spreadsheet shows as text: a leading apostrophe before a formula start."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def write_rows(path: Path, columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> int:
    """Write the rows under `columns` (a missing cell empty); return how many were written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns))
        writer.writeheader()
        for row in rows:
            writer.writerow({column: row.get(column, "") for column in columns})
            count += 1
    return count


def read_rows(path: Path, error: type[Exception]) -> tuple[set[str], list[dict[str, str]]]:
    """The file's column names and rows; an unreadable file raises `error` naming it."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            return set(reader.fieldnames or ()), list(reader)
    except OSError as problem:
        raise error(f"cannot read {path}: {problem}") from problem


def parse_cell(text: str, yes_no: bool, where: str, error: type[Exception]) -> float | None:
    """A filled cell: yes = 1 / no = 0, or a whole number 1–5; None when blank.

    Anything else raises `error` naming `where` (file, row and column).
    """
    value = text.strip().lower()
    if not value:
        return None
    if yes_no:
        if value in YES or value in NO:
            return float(value in YES)
        raise error(f"{where}: expected yes or no, got {text!r}")
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not number.is_integer() or not 1 <= number <= 5:
        raise error(f"{where}: expected a whole number 1-5, got {text!r}")
    return number
