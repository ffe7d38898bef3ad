"""Judge checks: is a grader good enough for `carryon` / `prefdisco`?"""

from heedbench.evals.judge_check.dataset import (
    JudgeCheckDataError,
    carryon_cases,
    prefdisco_cases,
)
from heedbench.evals.judge_check.task import carryon_judge_check, prefdisco_judge_check

__all__ = [
    "JudgeCheckDataError",
    "carryon_cases",
    "carryon_judge_check",
    "prefdisco_cases",
    "prefdisco_judge_check",
]
