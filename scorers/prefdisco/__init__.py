"""PrefDisco measurements: PrefAlign, correctness, normalized alignment and the scorer."""

from heedbench.scorers.prefdisco.alignment import normalized_alignment, prefalign
from heedbench.scorers.prefdisco.answers import deterministic_verdict, math_equal, read_answer
from heedbench.scorers.prefdisco.judge import JudgeMode, score_criteria
from heedbench.scorers.prefdisco.scorer import prefdisco_scorer

__all__ = [
    "JudgeMode",
    "deterministic_verdict",
    "math_equal",
    "normalized_alignment",
    "prefalign",
    "prefdisco_scorer",
    "read_answer",
    "score_criteria",
]
