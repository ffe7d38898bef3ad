"""Measurements: preference alignment, and (later) Ben-Util, harm and PrefAlign judges."""

from heedbench.scorers.choice import (
    choice_alignment,
    kendall_penalty,
    normalised_kendall_penalty,
    spo,
    spo_of_relation,
)

__all__ = [
    "choice_alignment",
    "kendall_penalty",
    "normalised_kendall_penalty",
    "spo",
    "spo_of_relation",
]
