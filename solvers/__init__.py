"""Interaction protocols: how each benchmark talks to the evaluated model."""

from heedbench.solvers.carryon import carryon_solver, is_valid_flow, valid_flows
from heedbench.solvers.choice import (
    choice_solver,
    pairwise_scc_order,
    pairwise_score_order,
    tie_aware_merge_sort,
)
from heedbench.solvers.prefdisco import parse_turn, prefdisco_solver

__all__ = [
    "carryon_solver",
    "choice_solver",
    "is_valid_flow",
    "pairwise_scc_order",
    "pairwise_score_order",
    "parse_turn",
    "prefdisco_solver",
    "tie_aware_merge_sort",
    "valid_flows",
]
