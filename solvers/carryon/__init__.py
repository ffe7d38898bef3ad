"""CarryOnBench conversation flows (the simulated-user solver is still to come)."""

from heedbench.solvers.carryon.flows import (
    CONTENTFUL_MOVES,
    INTENT_REVEALING_MOVES,
    MOVES,
    NON_CONTENTFUL_MOVES,
    flow_condition,
    is_valid_flow,
    valid_flows,
)
from heedbench.solvers.carryon.sampling import flow_strata, sample_flows

__all__ = [
    "CONTENTFUL_MOVES",
    "INTENT_REVEALING_MOVES",
    "MOVES",
    "NON_CONTENTFUL_MOVES",
    "flow_condition",
    "flow_strata",
    "is_valid_flow",
    "sample_flows",
    "valid_flows",
]
