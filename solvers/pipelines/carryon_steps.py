"""The model-driven steps of the CarryOn checklist build, as Inspect solvers.

`answer_and_extract` (task `carryon_candidates`): each generator role answers the query with
the intent known, and the `extractor` role lists the candidate items in each answer.
`merge_and_refine` (task `carryon_checklist`): the `merger` role unions every generator's
candidates (true duplicates merged, nothing dropped) and then refines the merged items.

Each solver leaves its product in the sample's store under `PRODUCT` (logged with the
sample), where the build scorers check it and `heedbench build carryon` reads it. A step that
fails for a reason a retry would not fix (a blocked call, an unreadable reply after the
retries) is recorded under `failure`; a call that keeps glitching errors the sample, so that
`inspect eval-retry` runs it again.
"""

from collections.abc import Sequence
from functools import partial
from typing import Any

from inspect_ai.model import GenerateConfig
from inspect_ai.solver import Generate, Solver, TaskState, solver

from heedbench.roles import role_model
from heedbench.scorers.judge import DEFAULT_CHANNEL, VerdictChannel
from heedbench.solvers.pipelines.ask import (
    PRODUCT,
    StepFailed,
    ask_json,
    model_name,
    summary,
    write_text,
)
from heedbench.solvers.pipelines.carryon_checks import (
    checklist_record,
    number_candidates,
    read_candidates,
    read_merge,
    read_refined,
)
from heedbench.solvers.pipelines.carryon_prompts import (
    EXTRACT_SCHEMA,
    MERGE_SCHEMA,
    REFINE_SCHEMA,
    answer_prompt,
    extract_prompt,
    merge_prompt,
    refine_prompt,
)

ANSWER_CONFIG = GenerateConfig(temperature=0.7, max_tokens=3000)
EDIT_CONFIG = GenerateConfig(temperature=0.0, max_tokens=4096)
EXTRACTOR = "extractor"
MERGER = "merger"


@solver
def answer_and_extract(
    generators: Sequence[str], channel: VerdictChannel = DEFAULT_CHANNEL
) -> Solver:
    """Each generator answers the query (intent known); candidates are extracted per answer.

    Args:
        generators: the role names of the generator models, each bound with --model-role.
        channel: the extractor's reply channel (`-T verdict`: schema, tool or text).
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        query: dict[str, Any] = state.metadata["query"]
        extractor = role_model(EXTRACTOR, config=EDIT_CONFIG)
        models = {role: role_model(role, config=ANSWER_CONFIG) for role in generators}
        results: list[dict[str, Any]] = []
        for role, model in models.items():
            entry: dict[str, Any] = {"role": role, "model": model_name(model)}
            results.append(entry)
            try:
                answer, stop = await write_text(
                    model, answer_prompt(query), role=role, step=f"answer ({role})"
                )
                entry.update(answer=answer, stop_reason=stop)
                items = await ask_json(
                    extractor, extract_prompt(query, answer), read_candidates,
                    schema=EXTRACT_SCHEMA, channel=channel, role=EXTRACTOR,
                    step=f"extract ({role}'s answer)",
                )  # fmt: skip
            except StepFailed as failure:
                entry["failure"] = str(failure)
                continue
            entry["candidates"] = [{"question": q, "category": c} for q, c in items]
        state.store.set(
            PRODUCT, {"query": query, "extractor": model_name(extractor), "generators": results}
        )
        counts = ", ".join(
            f"{e['model']}: {len(e['candidates'])}"
            if "candidates" in e
            else f"{e['model']}: failed"
            for e in results
        )
        summary(state, f"candidate items per generator: {counts}")
        return state

    return solve


@solver
def merge_and_refine(channel: VerdictChannel = DEFAULT_CHANNEL) -> Solver:
    """The merger unions the candidates of every generator, then refines the merged items.

    Args:
        channel: the merger's reply channel (`-T verdict`: schema, tool or text).
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        query: dict[str, Any] = state.metadata["query"]
        extractions: list[dict[str, Any]] = state.metadata["extractions"]
        candidates = number_candidates(
            (e["model"], [(c["question"], c["category"]) for c in e["candidates"]])
            for e in extractions
        )
        merger = role_model(MERGER, config=EDIT_CONFIG)
        product: dict[str, Any] = {
            "query": query,
            "merger": model_name(merger),
            "generators": [e["model"] for e in extractions],
            "candidates": [{**vars(c), "generators": list(c.generators)} for c in candidates],
        }
        state.store.set(PRODUCT, product)
        ask = partial(ask_json, merger, channel=channel, role=MERGER)
        try:
            merged = await ask(merge_prompt(query, candidates),
                               lambda verdict: read_merge(verdict, candidates),
                               schema=MERGE_SCHEMA, step="merge")  # fmt: skip
            product["merged"] = [
                {**vars(i), "generators": list(i.generators), "sources": list(i.sources)}
                for i in merged
            ]
            refined = await ask(refine_prompt(query, merged),
                                lambda verdict: read_refined(verdict, merged),
                                schema=REFINE_SCHEMA, step="refine")  # fmt: skip
        except StepFailed as failure:
            product["failure"] = str(failure)
            state.store.set(PRODUCT, product)
            summary(state, f"failed: {failure}")
            return state
        build = {
            "generators": product["generators"],
            "extractors": sorted({e["extractor"] for e in extractions}),
            "merger": product["merger"],
            "candidates": len(candidates),
        }
        product["record"] = checklist_record(query, refined, build)
        state.store.set(PRODUCT, product)
        summary(state, f"{len(candidates)} candidates -> {len(merged)} merged -> checklist")
        return state

    return solve
