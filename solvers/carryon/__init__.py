"""CarryOnBench conversations: flows and their sampler, the simulated user, the solver loop."""

from heedbench.solvers.carryon.flows import (
    CONTENTFUL_MOVES,
    INTENT_REVEALING_MOVES,
    MOVES,
    NON_CONTENTFUL_MOVES,
    flow_condition,
    is_valid_flow,
    valid_flows,
)
from heedbench.solvers.carryon.prompts import follow_up_prompt
from heedbench.solvers.carryon.sampling import flow_strata, sample_flows
from heedbench.solvers.carryon.solver import CarryOnRun, carryon_solver
from heedbench.solvers.carryon.user_text import clean_user_text

__all__ = [
    "CONTENTFUL_MOVES",
    "INTENT_REVEALING_MOVES",
    "MOVES",
    "NON_CONTENTFUL_MOVES",
    "CarryOnRun",
    "carryon_solver",
    "clean_user_text",
    "flow_condition",
    "flow_strata",
    "follow_up_prompt",
    "is_valid_flow",
    "sample_flows",
    "valid_flows",
]
