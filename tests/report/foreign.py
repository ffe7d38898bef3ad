"""A task from another suite (no heedbench family metadata): the report lists and skips it."""

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver


@solver
def _answer() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await generate(state)

    return solve


@scorer(metrics=[mean()], name="outsider")
def _one() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=1.0)

    return score


@task
def other_suite() -> Task:
    """One sample, scored 1."""
    return Task(dataset=MemoryDataset([Sample(id="a", input="hi")]), solver=_answer(),
                scorer=_one())  # fmt: skip
