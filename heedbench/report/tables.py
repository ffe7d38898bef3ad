"""Tables declared as columns: each header beside how one row's cell reads.

A family's section builds every table with `table`, so a column's header and its cells are
written once, side by side, and cannot drift apart.
"""

from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

from heedbench.report.document import Table

R = TypeVar("R")


def table(
    caption: str, columns: Mapping[str, Callable[[R], str]], items: Iterable[R], note: str = ""
) -> Table:
    """A `Table` of one row per item: `columns` maps each header to the cell it shows."""
    rows = [[cell(item) for cell in columns.values()] for item in items]
    return Table(caption=caption, columns=list(columns), rows=rows, note=note)
