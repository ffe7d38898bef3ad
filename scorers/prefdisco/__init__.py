"""PrefDisco measurements: PrefAlign, correctness, normalized alignment and the scorer."""

from heedbench.scorers.prefdisco.alignment import normalized_alignment, prefalign
from heedbench.scorers.prefdisco.correctness import (
    CorrectnessMode,
    deterministic_verdict,
    extract_choice,
    extract_math,
)
from heedbench.scorers.prefdisco.equivalence import math_equal
from heedbench.scorers.prefdisco.judge import JudgeMode, score_criteria
from heedbench.scorers.prefdisco.scorer import prefdisco_scorer

__all__ = [
    "CorrectnessMode",
    "JudgeMode",
    "deterministic_verdict",
    "extract_choice",
    "extract_math",
    "math_equal",
    "normalized_alignment",
    "prefalign",
    "prefdisco_scorer",
    "score_criteria",
]
