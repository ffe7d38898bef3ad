"""PrefDisco elicitation: baseline, oracle and discovery conditions with a simulated user."""

from heedbench.solvers.prefdisco.protocol import Turn, parse_turn
from heedbench.solvers.prefdisco.solver import PrefDiscoRun, prefdisco_solver

__all__ = ["PrefDiscoRun", "Turn", "parse_turn", "prefdisco_solver"]
