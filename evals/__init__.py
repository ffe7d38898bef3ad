"""Inspect tasks, one module per benchmark family."""

from heedbench.evals.choice import choice

__all__ = ["choice"]
