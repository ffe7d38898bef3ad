"""Querying designs that implement a choice function with an LLM."""

from heedbench.solvers.choice.methods import CHOICE_METHODS, ChoiceMethod, ChoiceResult
from heedbench.solvers.choice.relation import (
    compare,
    is_complete,
    order_consistency,
    pairwise_scc_order,
    pairwise_score_order,
    pairwise_scores,
)
from heedbench.solvers.choice.solver import ChoiceRun, choice_solver
from heedbench.solvers.choice.sort import tie_aware_merge_sort

__all__ = [
    "CHOICE_METHODS",
    "ChoiceMethod",
    "ChoiceResult",
    "ChoiceRun",
    "choice_solver",
    "compare",
    "is_complete",
    "order_consistency",
    "pairwise_scc_order",
    "pairwise_score_order",
    "pairwise_scores",
    "tie_aware_merge_sort",
]
