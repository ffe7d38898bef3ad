"""What every heedbench judge shares: data blocks, parsing, retry-then-unscored, role models.

Built for the Ben-Util, harm and PrefAlign judges of `carryon` and `prefdisco`.
"""

from heedbench.roles import RoleNotBoundError, role_model
from heedbench.scorers.judge.blocks import data_block, untrusted
from heedbench.scorers.judge.call import JudgeResult, judge
from heedbench.scorers.judge.rubric import RubricJudgement, judge_each, judge_table

__all__ = [
    "JudgeResult",
    "RoleNotBoundError",
    "RubricJudgement",
    "data_block",
    "judge",
    "judge_each",
    "judge_table",
    "role_model",
    "untrusted",
]
