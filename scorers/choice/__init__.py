"""Alignment of an LLM choice function with a user's weak order."""

from heedbench.scorers.choice.metrics import (
    kendall_penalty,
    normalised_kendall_penalty,
    spo,
    spo_of_relation,
)
from heedbench.scorers.choice.scorer import choice_alignment

__all__ = [
    "choice_alignment",
    "kendall_penalty",
    "normalised_kendall_penalty",
    "spo",
    "spo_of_relation",
]
