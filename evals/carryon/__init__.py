"""The `carryon` task family: its data and samples.

The task itself is in `heedbench.evals.carryon.task`, not imported here: the scorer reads
this package's data types, and importing the task here would make a cycle whenever the
scorer is the first module a program loads.
"""

from heedbench.evals.carryon.dataset import (
    CarryOnDataError,
    CarryOnQuery,
    ChecklistItem,
    load_queries,
    parse_query,
)
from heedbench.evals.carryon.samples import CONDITIONS, carryon_samples, parse_conditions

__all__ = [
    "CONDITIONS",
    "CarryOnDataError",
    "CarryOnQuery",
    "ChecklistItem",
    "carryon_samples",
    "load_queries",
    "parse_conditions",
    "parse_query",
]
