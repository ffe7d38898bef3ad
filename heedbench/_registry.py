"""Entry point for Inspect: importing this registers every heedbench task and model provider."""

from heedbench.evals import choice
from heedbench.evals.prefdisco.task import prefdisco
from heedbench.models.chance import ChanceModelAPI

__all__ = ["ChanceModelAPI", "choice", "prefdisco"]
