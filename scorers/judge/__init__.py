"""What every heedbench judge shares: fenced blocks, verdict reading, retry-then-unscored, roles.

Built for the Ben-Util, harm and PrefAlign judges of `carryon` and `prefdisco`, their
correctness check, and the judge-check meta-evaluations.
"""

from heedbench.roles import RoleNotBoundError, role_model
from heedbench.scorers.judge.blocks import Fence, neutralise, read_blocks
from heedbench.scorers.judge.call import JudgeResult, judge, verdict_schema
from heedbench.scorers.judge.rubric import RubricJudgement, judge_each, judge_table
from heedbench.scorers.judge.verdict import AmbiguousVerdictError, find_verdict

__all__ = [
    "AmbiguousVerdictError",
    "Fence",
    "JudgeResult",
    "RoleNotBoundError",
    "RubricJudgement",
    "find_verdict",
    "judge",
    "judge_each",
    "judge_table",
    "neutralise",
    "read_blocks",
    "role_model",
    "verdict_schema",
]
