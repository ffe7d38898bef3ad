"""Judge checks: how far a grader's verdicts agree with gold labels, and resist injection."""

from heedbench.scorers.judge_check.bootstrap import Interval, bootstrap
from heedbench.scorers.judge_check.scorer import (
    judge_check_epochs,
    judge_check_scorer,
    judge_check_summary,
)
from heedbench.scorers.judge_check.summary import Statistic, Summary, summarise

__all__ = [
    "Interval",
    "Statistic",
    "Summary",
    "bootstrap",
    "judge_check_epochs",
    "judge_check_scorer",
    "judge_check_summary",
    "summarise",
]
