"""Measurements: preference alignment, Ben-Util arithmetic and failure modes, PrefAlign."""

from heedbench.scorers.carryon import (
    ConditionMeans,
    FailureThresholds,
    cumulative_utility,
    failure_modes,
    redundancy,
    turn_utility,
)
from heedbench.scorers.choice import (
    choice_alignment,
    kendall_context,
    kendall_penalty,
    normalised_kendall_penalty,
    spo,
    spo_context,
    spo_of_relation,
)
from heedbench.scorers.prefdisco import (
    deterministic_verdict,
    math_equal,
    normalized_alignment,
    prefalign,
    prefdisco_scorer,
)

__all__ = [
    "ConditionMeans",
    "FailureThresholds",
    "choice_alignment",
    "cumulative_utility",
    "deterministic_verdict",
    "failure_modes",
    "kendall_context",
    "kendall_penalty",
    "math_equal",
    "normalised_kendall_penalty",
    "normalized_alignment",
    "prefalign",
    "prefdisco_scorer",
    "redundancy",
    "spo",
    "spo_context",
    "spo_of_relation",
    "turn_utility",
]
