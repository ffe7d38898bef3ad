"""`heedbench/prefdisco`: does a model discover a new user's preferences by asking?"""

from collections.abc import Sequence
from pathlib import Path
from typing import get_args

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from heedbench import params
from heedbench.evals.prefdisco.dataset import (
    FIVE_K_SOURCES,
    PrefDiscoDataError,
    PrefDiscoRecord,
    Variant,
    record_index,
    release_path,
)
from heedbench.evals.prefdisco.sources import SOURCES
from heedbench.paths import shipped_data_dir
from heedbench.roles import check_roles_at_build
from heedbench.scorers.prefdisco.correctness import CorrectnessMode
from heedbench.scorers.prefdisco.judge import JudgeMode
from heedbench.scorers.prefdisco.scorer import prefdisco_scorer
from heedbench.solvers.prefdisco.prompts import TASK_REQUEST, UserType
from heedbench.solvers.prefdisco.solver import prefdisco_solver

CONDITIONS = ("baseline", "discovery", "oracle")
MAX_FIXED_QUESTIONS = 20
MAX_TURNS = 50


def resolve_conditions(condition: str) -> tuple[str, ...]:
    """The conditions a run covers: one, or all three on the same records."""
    params.one_of("condition", condition, (*CONDITIONS, "all"))
    return CONDITIONS if condition == "all" else (condition,)


def resolve_sources(source: str, variant: str, data: str | None) -> tuple[str, ...]:
    """`all` → every source present where the data lives (shipped sample, folder or hub)."""
    if source != "all":
        params.one_of("source", source, (*SOURCES, "all"))
        return (source,)
    candidates = FIVE_K_SOURCES if variant == "5k" else SOURCES
    if data == "hub":
        return candidates
    if data is not None and not Path(data).is_dir():
        raise ValueError("source=all needs a release-layout folder, the shipped sample or hub")
    root = shipped_data_dir("prefdisco") if data is None else Path(data)
    present = tuple(s for s in candidates if (root / release_path(s, variant)).is_file())  # type: ignore[arg-type]
    if not present:
        raise PrefDiscoDataError(f"no {variant} source files under {root}")
    return present


def samples(records: Sequence[PrefDiscoRecord], conditions: Sequence[str], user_type: str,
            prefix_source: bool) -> list[Sample]:  # fmt: skip
    """One sample per record × condition, record-major so `--limit 3k` keeps whole triples."""
    out = []
    for record in records:
        persona_id = str(record.persona.get("id") or record.problem_id)
        for condition in conditions:
            stem = f"{record.source}/{record.problem_id}" if prefix_source else record.problem_id
            out.append(
                Sample(
                    id=f"{stem}/{condition}",
                    input=TASK_REQUEST.format(task=record.problem.task_text()),
                    target=record.problem.answer or "",
                    metadata={
                        "problem_id": record.problem_id,
                        "source": record.source,
                        "condition": condition,
                        "persona_id": persona_id,
                        "user_type": user_type,
                        "answer_kind": record.problem.kind,
                    },
                )
            )
    return out


@task
def prefdisco(
    *,
    condition: str = "all",
    source: str = "math",
    variant: str = "1k",
    data: str | None = None,
    revision: str | None = None,
    max_turns: int = 5,
    user_type: str = "passive",
    fixed_questions: int | None = None,
    judge: str = "batched",
    correctness: str = "deterministic",
    allow_self_roles: bool = False,
) -> Task:
    """PrefDisco: proactive preference discovery, judged by PrefAlign and correctness.

    Args:
        condition: baseline (task alone), discovery (may ask the simulated user first),
            oracle (profile given up front) or all (the three on the same records, which gives
            normalized alignment).
        source: one of math, aime, medqa, commonsenseqa, socialiqa, logiqa, simpleqa, mascqa,
            scienceqa, mmlu, or all (every source present in the data).
        variant: 1k or 5k (the public release's two sizes; 5k covers aime, commonsenseqa,
            medqa, socialiqa).
        data: unset for the shipped offline sample; a JSONL file or a release-layout folder;
            or "hub" for stellalisy/prefq-bench (needs revision).
        revision: hub commit to pin (required with data=hub).
        max_turns: questions the model may ask in discovery before the answer is requested.
        user_type: passive (minimal answers, a preference only when asked about it) or
            collaborative (volunteers relevant context).
        fixed_questions: make the model ask exactly this many questions (the paper uses 2, 4,
            8); overrides max_turns.
        judge: PrefAlign grading: batched (all criteria in one grader call; default, about 20
            times fewer calls) or per_criterion (one call per criterion, as in the paper).
        correctness: deterministic (default: the answer is read without a grader where the
            response commits to one answer unambiguously, graded otherwise) or grader (the
            grader judges every answer, as the reference evaluator does).
        allow_self_roles: let the evaluated model play an unbound user/grader role itself.
    """
    conditions = resolve_conditions(condition)
    params.one_of("variant", variant, get_args(Variant))
    params.one_of("user_type", user_type, get_args(UserType))
    params.one_of("judge", judge, get_args(JudgeMode))
    params.one_of("correctness", correctness, get_args(CorrectnessMode))
    max_turns = params.integer("max_turns", max_turns, low=1, high=MAX_TURNS)
    fixed_questions = params.optional_integer(
        "fixed_questions", fixed_questions, low=1, high=MAX_FIXED_QUESTIONS
    )
    allow_self_roles = params.flag("allow_self_roles", allow_self_roles)
    data = params.optional_text("data", data)
    revision = params.optional_text("revision", revision)
    if data == "hub" and not revision:
        raise params.ParameterError("-T data=hub needs a pinned revision: -T revision=<commit sha>")
    if revision is not None and data != "hub":
        raise params.ParameterError("-T revision: pins the hub release, so it needs -T data=hub")
    roles = ("user", "grader") if "discovery" in conditions else ("grader",)
    check_roles_at_build(roles, allow_self_roles)
    sources = resolve_sources(source, variant, data)
    load = {"sources": list(sources), "variant": variant, "data": data, "revision": revision}
    records = list(record_index(**load).values())  # type: ignore[arg-type]
    return Task(
        dataset=MemoryDataset(
            samples(records, conditions, user_type, prefix_source=len(sources) > 1),
            name=f"prefdisco-{source}-{variant}",
        ),
        solver=prefdisco_solver(
            **load,  # type: ignore[arg-type]
            roles=roles,
            max_turns=max_turns,
            user_type=user_type,
            fixed_questions=fixed_questions,
            allow_self_roles=allow_self_roles,
        ),
        scorer=prefdisco_scorer(
            **load,  # type: ignore[arg-type]
            judge_mode=judge,  # type: ignore[arg-type]
            correctness_mode=correctness,  # type: ignore[arg-type]
            allow_self_roles=allow_self_roles,
        ),
        version="1.0.0",
        metadata={
            "family": "prefdisco",
            "conditions": list(conditions),
            "sources": list(sources),
            "variant": variant,
            "user_type": user_type,
            "max_turns": max_turns,
            "fixed_questions": fixed_questions,
            "judge": judge,
            "correctness": correctness,
        },
    )
