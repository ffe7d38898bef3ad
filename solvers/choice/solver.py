"""The `choice` solver: query the evaluated model with one design and keep the result."""

import json
import math
import random
from typing import Any

from inspect_ai.model import CachePolicy, ChatMessageAssistant, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel
from pydantic import Field

from heedbench.seeding import sample_seed
from heedbench.solvers.choice.methods import ChoiceResult, MethodRunner, method_runner
from heedbench.solvers.choice.prompts import TEMPLATES
from heedbench.solvers.choice.query import ChoiceQuerier
from heedbench.solvers.choice.relation import Validity

MAX_FAILURES_KEPT = 20
"""Failed-call reasons kept per context (the count is what matters; a few show the cause)."""


class ChoiceRun(StoreModel):
    """One context's outcome, kept in the sample store for the scorer and the log viewer."""

    method: str = ""
    template: str = ""
    validity: str = ""
    """The validity rule the run was played under (`lenient` or `strict`)."""
    presented: list[str] = Field(default_factory=list)
    chosen: list[list[str]] | None = None
    strict: list[tuple[str, str]] | None = None
    valid: bool = False
    queries: int = 0
    invalid_answers: int = 0
    undecided_pairs: int = 0
    half_answered_pairs: int = 0
    order_consistency: float | None = None
    invalid_examples: list[dict[str, Any]] = Field(default_factory=list)
    failed_calls: list[str] = Field(default_factory=list)
    """Calls that produced no answer (provider block, context overflow): the context is
    unscored, since its answers are incomplete through no choice of the model."""
    failed_call_count: int = 0
    stop_reasons: dict[str, int] = Field(default_factory=dict)
    completed: bool = False
    """Set last: a run that errored part-way is never scored (even with --score-on-error)."""

    def record(self, result: ChoiceResult, querier: ChoiceQuerier) -> None:
        """Keep what a design produced and what its queries cost."""
        self.chosen, self.strict, self.valid = result.chosen, result.strict, result.valid
        self.queries, self.invalid_answers = querier.queries, querier.invalid
        self.undecided_pairs = result.undecided_pairs
        self.half_answered_pairs = result.half_answered_pairs
        consistency = result.order_consistency
        self.order_consistency = None if math.isnan(consistency) else consistency
        self.invalid_examples = querier.invalid_examples
        self.failed_calls = querier.failed_calls[:MAX_FAILURES_KEPT]
        self.failed_call_count = len(querier.failed_calls)
        self.stop_reasons = dict(querier.stop_reasons)


async def play(
    runner: MethodRunner, querier: ChoiceQuerier, metadata: dict[str, Any], seed: int,
    sample_id: str | int,
) -> tuple[list[str], ChoiceResult]:  # fmt: skip
    """The sample's objects in their seeded presentation order, and what the design made of them."""
    rng = random.Random(sample_seed(seed, sample_id))
    objects: list[str] = list(metadata["objects"])
    presented = rng.sample(objects, len(objects))
    return presented, await runner(querier, presented, rng)


@solver
def choice_solver(
    *,
    method: str,
    template: str,
    score_low: int = 1,
    score_high: int = 5,
    seed: int = 0,
    cache: bool | CachePolicy = False,
    validity: Validity = "lenient",
) -> Solver:
    """Run one choice design on a context's objects; the objects' presentation order is seeded.

    Args:
        method: one of `CHOICE_METHODS`.
        template: a template id compatible with the method (T1–T13).
        score_low: lowest pointwise score.
        score_high: highest pointwise score.
        seed: seed for presentation order.
        cache: Inspect cache policy for the queries (True for the default policy).
        validity: `lenient` (the paper's) or `strict`: whether a pair answered in one
            presentation order and ⊥ in the other leaves the context valid.
    """
    runner = method_runner(method, validity)
    prompt = TEMPLATES[template]

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        querier = ChoiceQuerier(model, prompt, state.metadata["context"], score_low, score_high,
                                cache)  # fmt: skip
        presented, result = await play(runner, querier, state.metadata, seed, state.sample_id)
        run = state.store_as(ChoiceRun)
        run.method, run.template, run.presented = method, template, presented
        run.validity = validity
        run.record(result, querier)
        summary = json.dumps(
            {"valid": result.valid, "chosen": result.chosen}
            if result.strict is None
            else {"valid": result.valid, "strict_answers": len(result.strict)}
        )
        state.output = ModelOutput.from_content(model=str(model), content=summary)
        state.messages.append(ChatMessageAssistant(content=summary, model=str(model)))
        run.completed = True
        return state

    return solve
