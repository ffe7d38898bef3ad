"""The `prefdisco` task family: data loading (the task is in `heedbench.evals.prefdisco.task`)."""

from heedbench.evals.prefdisco.dataset import (
    PrefDiscoDataError,
    PrefDiscoRecord,
    load_records,
)
from heedbench.evals.prefdisco.sources import SOURCES, Problem, normalise_problem

__all__ = [
    "SOURCES",
    "PrefDiscoDataError",
    "PrefDiscoRecord",
    "Problem",
    "load_records",
    "normalise_problem",
]
