"""PrefDisco measurements (the PrefAlign judge is still to come)."""

from heedbench.scorers.prefdisco.alignment import normalized_alignment, prefalign

__all__ = ["normalized_alignment", "prefalign"]
