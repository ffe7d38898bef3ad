"""The `prefdisco` task family: data loading (the task is in `heedbench.evals.prefdisco.task`)."""

from heedbench.evals.prefdisco.dataset import PrefDiscoDataError, PrefDiscoRecord, load_records
from heedbench.evals.prefdisco.sources import SOURCES, Problem, Source, normalise_problem

__all__ = [
    "SOURCES",
    "PrefDiscoDataError",
    "PrefDiscoRecord",
    "Problem",
    "Source",
    "load_records",
    "normalise_problem",
]
