"""CarryOnBench measurements: Ben-Util arithmetic, judges, failure modes."""

from heedbench.scorers.carryon.failure_modes import (
    FAILURE_MODES,
    ConditionMeans,
    FailureFlag,
    FailureThresholds,
    failure_modes,
)
from heedbench.scorers.carryon.utility import cumulative_utility, redundancy, turn_utility

__all__ = [
    "FAILURE_MODES",
    "ConditionMeans",
    "FailureFlag",
    "FailureThresholds",
    "cumulative_utility",
    "failure_modes",
    "redundancy",
    "turn_utility",
]
