"""The `carryon` task family: data and samples (the task is in `heedbench.evals.carryon.task`)."""

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
