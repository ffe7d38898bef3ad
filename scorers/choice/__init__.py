"""Alignment of an LLM choice function with a user's weak order."""

from heedbench.scorers.choice.context_blind import (
    additive_order,
    cut_to_sizes,
    factor_order,
    global_order,
    leave_one_out_orders,
    mean_level_order,
)
from heedbench.scorers.choice.metrics import (
    context_pairs,
    contrast,
    kendall_context,
    kendall_penalty,
    normalised_kendall_penalty,
    spo,
    spo_context,
    spo_of_relation,
)
from heedbench.scorers.choice.scorer import choice_alignment

__all__ = [
    "additive_order",
    "choice_alignment",
    "context_pairs",
    "contrast",
    "cut_to_sizes",
    "factor_order",
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
