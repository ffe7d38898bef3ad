"""The judge-check protocol: the model under test judges gold-labelled cases as a grader."""

from heedbench.solvers.judge_check.solver import JudgeCheckRun, judge_check_solver

__all__ = ["JudgeCheckRun", "judge_check_solver"]
