"""The annotation CSVs: written for a spreadsheet, read back whatever the spreadsheet saved.

One place for the conventions every export and import shares: UTF-8 out, a byte-order mark
tolerated on the way back in (spreadsheets add one), missing cells written empty.
"""

import csv
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any


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
