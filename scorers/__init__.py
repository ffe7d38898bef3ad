"""Measurements: preference alignment, Ben-Util arithmetic, PrefAlign; shared judge toolkit."""

from heedbench.scorers.carryon import cumulative_utility, redundancy, turn_utility
from heedbench.scorers.choice import (
    choice_alignment,
    kendall_penalty,
    normalised_kendall_penalty,
    spo,
    spo_of_relation,
)
from heedbench.scorers.prefdisco import normalized_alignment, prefalign

__all__ = [
    "choice_alignment",
    "cumulative_utility",
    "kendall_penalty",
    "normalised_kendall_penalty",
    "normalized_alignment",
    "prefalign",
    "redundancy",
    "spo",
    "spo_of_relation",
    "turn_utility",
]
