"""The model-driven steps of the PrefDisco build, as Inspect solvers (role `generator`).

`write_persona` (task `prefdisco_personas`): one persona from a seeded starting point.
`profile_and_rubric` (task `prefdisco_profiles`): for one problem × persona, a sparse
preference profile, then a rubric with levels 1/3/5 for every dimension; weights are
computed (importance / total), never asked for.

Products go to the sample's store under `PRODUCT`; a blocked call or a reply still unusable
after the retries is recorded under `failure`; a call that keeps glitching errors the sample
(`inspect eval-retry` runs it again).
"""

from functools import partial
from typing import Any

from inspect_ai.model import GenerateConfig
from inspect_ai.solver import Generate, Solver, TaskState, solver

from heedbench.evals.prefdisco.sources import SOURCES, normalise_problem
from heedbench.roles import role_model
from heedbench.scorers.judge import DEFAULT_CHANNEL, VerdictChannel
from heedbench.solvers.pipelines.ask import PRODUCT, StepFailed, ask_json, model_name, summary
from heedbench.solvers.pipelines.prefdisco_checks import (
    evaluation_rubric,
    personalized_record,
    preferences,
    read_persona,
    read_profile,
    read_rubric,
)
from heedbench.solvers.pipelines.prefdisco_prompts import (
    PERSONA_SCHEMA,
    PROFILE_SCHEMA,
    RUBRIC_SCHEMA,
    persona_prompt,
    profile_prompt,
    rubric_prompt,
)

GENERATOR = "generator"
PERSONA_CONFIG = GenerateConfig(temperature=0.9, max_tokens=3000)
PROFILE_CONFIG = GenerateConfig(temperature=0.7, max_tokens=6000)
RUBRIC_RETRIES = 2
"""Extra attempts at a rubric whose names do not match the profile (the release tries 3 times)."""


@solver
def write_persona(channel: VerdictChannel = DEFAULT_CHANNEL) -> Solver:
    """The generator writes one persona in the release's schema from the sample's brief."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        brief: dict[str, Any] = state.metadata["brief"]
        model = role_model(GENERATOR, config=PERSONA_CONFIG)
        product: dict[str, Any] = {"brief": brief, "generator": model_name(model)}
        try:
            product["persona"] = await ask_json(
                model, persona_prompt(brief), read_persona, schema=PERSONA_SCHEMA,
                channel=channel, role=GENERATOR, step="persona",
            )  # fmt: skip
        except StepFailed as failure:
            product["failure"] = str(failure)
        state.store.set(PRODUCT, product)
        persona = product.get("persona")
        summary(state, persona["id"] if persona else f"failed: {product['failure']}")
        return state

    return solve


@solver
def profile_and_rubric(
    dimensions: int, expertise: tuple[int, int], channel: VerdictChannel = DEFAULT_CHANNEL
) -> Solver:
    """The generator writes a sparse profile for the sample's problem × persona, then its rubric.

    Args:
        dimensions: dimensions per profile (the release: 20).
        expertise: (fewest, most) dimensions of type expertise (the release: 2, 3).
        channel: the reply channel (`-T verdict`: schema, tool or text).
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        source, row, persona = meta["source"], meta["row"], meta["persona"]
        problem = normalise_problem(source, row)
        model = role_model(GENERATOR, config=PROFILE_CONFIG)
        product: dict[str, Any] = {"source": source, "generator": model_name(model)}
        state.store.set(PRODUCT, product)
        ask = partial(ask_json, model, channel=channel, role=GENERATOR)
        try:
            entries = await ask(profile_prompt(problem, persona, dimensions, expertise),
                                lambda verdict: read_profile(verdict, dimensions, expertise),
                                schema=PROFILE_SCHEMA, step="preference profile")  # fmt: skip
            profile = preferences(entries, SOURCES[source].context)
            criteria = await ask(rubric_prompt(problem, profile),
                                 lambda verdict: read_rubric(verdict, list(profile)),
                                 schema=RUBRIC_SCHEMA, step="rubric",
                                 retries=RUBRIC_RETRIES)  # fmt: skip
        except StepFailed as failure:
            product["failure"] = str(failure)
            state.store.set(PRODUCT, product)
            summary(state, f"failed: {failure}")
            return state
        product["record"] = personalized_record(
            meta["index"], row, persona, profile, evaluation_rubric(profile, criteria)
        )
        state.store.set(PRODUCT, product)
        summary(state, f"{len(profile)} dimensions and their rubric")
        return state

    return solve
