"""The `carryon` task family (the task itself is still to come; data loading is here)."""

from heedbench.evals.carryon.dataset import (
    CarryOnDataError,
    CarryOnQuery,
    ChecklistItem,
    load_queries,
    parse_query,
)

__all__ = ["CarryOnDataError", "CarryOnQuery", "ChecklistItem", "load_queries", "parse_query"]
