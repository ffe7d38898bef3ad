"""Alignment of an LLM choice function with a user's weak order."""

from heedbench.scorers.choice.context_blind import (
    cut_to_sizes,
    global_order,
    leave_one_out_orders,
    mean_level_order,
)
from heedbench.scorers.choice.metrics import (
    context_pairs,
    kendall_context,
    kendall_penalty,
    normalised_kendall_penalty,
    spo,
    spo_context,
    spo_of_relation,
)
from heedbench.scorers.choice.scorer import choice_alignment

__all__ = [
    "choice_alignment",
    "context_pairs",
    "cut_to_sizes",
    "global_order",
    "kendall_context",
    "kendall_penalty",
    "leave_one_out_orders",
    "mean_level_order",
    "normalised_kendall_penalty",
    "spo",
    "spo_context",
    "spo_of_relation",
]
