"""PrefDisco measurements: PrefAlign arithmetic and judging (the Inspect scorer is to come)."""

from heedbench.scorers.prefdisco.alignment import normalized_alignment, prefalign
from heedbench.scorers.prefdisco.judge import JudgeMode, score_criteria

__all__ = ["JudgeMode", "normalized_alignment", "prefalign", "score_criteria"]
