"""Markdown tables as text, for score explanations, data cards and printed reference rows."""

from collections.abc import Iterable, Sequence
from typing import Any


def table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    """A Markdown table's lines: the header, its rule, one line per row (cells as `str`)."""
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(map(str, row)) + " |" for row in rows)]  # fmt: skip
