"""Scorers of the build tasks: 1 when a sample's product is complete and valid, else 0.

The product itself stays in the sample's store; the score says whether it can go into a
dataset, why not (the recorded failure, or the validator's message naming the field), and a
few counts. The mean is the share of samples built. Checklist records are checked by the
`carryon` loader and PrefDisco records by the `prefdisco` loader, so a sample scored 1
loads in the benchmark task.
"""

from collections import Counter
from collections.abc import Callable
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from heedbench.evals.carryon.dataset import CarryOnDataError, parse_query
from heedbench.evals.prefdisco.dataset import PrefDiscoDataError, parse_records
from heedbench.scorers.judge.call import JudgementError
from heedbench.solvers.pipelines.ask import PRODUCT
from heedbench.solvers.pipelines.prefdisco_checks import check_persona

Check = Callable[[dict[str, Any], str], dict[str, Any]]
"""product, sample id -> counts for the score's metadata; raises ValueError when invalid."""


def _built(check: Check) -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        return _scored(state, check)

    return score


def _scored(state: TaskState, check: Check) -> Score:
    product = state.store.get(PRODUCT)
    if not isinstance(product, dict):
        return Score(value=0, explanation="no build product (the solver did not run)")
    if product.get("failure"):
        return Score(value=0, explanation=f"failed: {product['failure']}")
    try:
        counts = check(product, str(state.sample_id))
    except (ValueError, KeyError) as error:
        return Score(value=0, explanation=f"invalid: {error}")
    return Score(value=1, explanation="built", metadata=counts)


def check_candidates(product: dict[str, Any], sample_id: str) -> dict[str, Any]:
    """At least one generator's answer yielded candidates."""
    generators = product.get("generators") or []
    counts = {e["model"]: len(e["candidates"]) for e in generators if "candidates" in e}
    failures = {e["model"]: e["failure"] for e in generators if "failure" in e}
    if not counts:
        raise ValueError("no generator produced candidates: " + "; ".join(failures.values()))
    return {"candidates": counts, "failures": failures}


def check_checklist(product: dict[str, Any], sample_id: str) -> dict[str, Any]:
    """The record loads with the `carryon` loader."""
    record = product.get("record")
    if record is None:
        raise ValueError("no checklist record")
    try:
        query = parse_query(record, f"sample {sample_id}")
    except CarryOnDataError as error:
        raise ValueError(str(error)) from error
    return {
        "items": len(query.checklist),
        "candidates": len(product.get("candidates", [])),
        "categories": dict(Counter(item.category for item in query.checklist)),
    }


def check_persona_product(product: dict[str, Any], sample_id: str) -> dict[str, Any]:
    """The persona has every field of the release's persona."""
    persona = product.get("persona")
    try:
        check_persona(persona)
    except JudgementError as error:
        raise ValueError(str(error)) from error
    assert isinstance(persona, dict)
    return {"persona_id": persona["id"]}


def check_profile(product: dict[str, Any], sample_id: str) -> dict[str, Any]:
    """The record loads with the `prefdisco` loader, with nothing repaired or skipped."""
    record = product.get("record")
    if record is None:
        raise ValueError("no record")
    try:
        records, report = parse_records(
            [(f"sample {sample_id}", record)], product["source"], strict=True
        )
    except PrefDiscoDataError as error:
        raise ValueError(str(error)) from error
    if not report.clean:
        raise ValueError(f"the loader would repair it: {report.message()}")
    preferences = records[0].preferences
    return {
        "dimensions": len(preferences),
        "expertise": sum(entry.get("type") == "expertise" for entry in preferences.values()),
    }


@scorer(metrics=[mean()])
def candidates_built() -> Scorer:
    """1 when at least one generator's answer yielded candidate items."""
    return _built(check_candidates)


@scorer(metrics=[mean()])
def checklist_built() -> Scorer:
    """1 when the merged, refined checklist record loads with the `carryon` loader."""
    return _built(check_checklist)


@scorer(metrics=[mean()])
def persona_built() -> Scorer:
    """1 when the persona has every field of the release's persona schema."""
    return _built(check_persona_product)


@scorer(metrics=[mean()])
def profile_built() -> Scorer:
    """1 when the personalised record loads with the `prefdisco` loader, unrepaired."""
    return _built(check_profile)
