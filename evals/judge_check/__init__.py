"""Judge checks: is a grader good enough for `carryon` / `prefdisco`? (tasks in `task.py`)."""

from heedbench.evals.judge_check.dataset import (
    JudgeCheckDataError,
    carryon_cases,
    prefdisco_cases,
)

__all__ = ["JudgeCheckDataError", "carryon_cases", "prefdisco_cases"]
