"""heedbench: does a language model serve what its user actually wants?

The task families live in `heedbench.evals`, their interaction protocols in `heedbench.solvers`
and their measurements in `heedbench.scorers`.
"""

__version__ = "0.1.0"
