"""The `carryon` task family: the task, its data and samples."""

from heedbench.evals.carryon.dataset import (
    CarryOnDataError,
    CarryOnQuery,
    ChecklistItem,
    load_queries,
    parse_query,
)
from heedbench.evals.carryon.samples import CONDITIONS, carryon_samples, parse_conditions
from heedbench.evals.carryon.task import carryon

__all__ = [
    "CONDITIONS",
    "CarryOnDataError",
    "CarryOnQuery",
    "ChecklistItem",
    "carryon",
    "carryon_samples",
    "load_queries",
    "parse_conditions",
    "parse_query",
]
