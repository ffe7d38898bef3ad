"""What every heedbench judge shares: fenced blocks, verdict channels, re-ask-then-unscored, roles.

Built for the Ben-Util, harm and PrefAlign judges of `carryon` and `prefdisco`, their
correctness check, the judge-check meta-evaluations and the build pipelines.
"""

from heedbench.roles import RoleNotBoundError, role_model
from heedbench.scorers.judge.blocks import Fence, read_blocks
from heedbench.scorers.judge.call import JudgeResult, judge, verdict_schema
from heedbench.scorers.judge.prompts import reply_instruction
from heedbench.scorers.judge.rubric import RubricJudgement, judge_each, judge_table
from heedbench.scorers.judge.verdict import (
    CHANNELS,
    DEFAULT_CHANNEL,
    VerdictChannel,
    VerdictError,
    read_verdict,
)

__all__ = [
    "CHANNELS",
    "DEFAULT_CHANNEL",
    "Fence",
    "JudgeResult",
    "RoleNotBoundError",
    "RubricJudgement",
    "VerdictChannel",
    "VerdictError",
    "judge",
    "judge_each",
    "judge_table",
    "read_blocks",
    "read_verdict",
    "reply_instruction",
    "role_model",
    "verdict_schema",
]
