"""Judge checks: how far a grader's verdicts agree with gold labels, and resist injection."""

from heedbench.scorers.judge_check.scorer import (
    judge_check_epochs,
    judge_check_scorer,
    judge_check_summary,
)
from heedbench.scorers.judge_check.stats import (
    consistency,
    exact,
    flip_rate,
    injection_success,
    kappa,
    macro_f1,
    mean_absolute_error,
    quadratic_weighted_kappa,
    within_one,
)

__all__ = [
    "consistency",
    "exact",
    "flip_rate",
    "injection_success",
    "judge_check_epochs",
    "judge_check_scorer",
    "judge_check_summary",
    "kappa",
    "macro_f1",
    "mean_absolute_error",
    "quadratic_weighted_kappa",
    "within_one",
]
