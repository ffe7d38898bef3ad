"""Build tasks of the CarryOn Ben-Util checklist pipeline.

1. `heedbench/carryon_candidates` (one sample per query): every generator role answers the
   query with the benign intent known, and the `extractor` role lists the candidate items in
   each answer. Run it once with several generators (`-T generators=generator,generator_2`
   and a `--model-role` for each), or once per generator model.
2. `heedbench/carryon_checklist` (one sample per query): reads the candidate logs, and the
   `merger` role unions every generator's candidates (true duplicates merged) and refines
   them. `heedbench build carryon LOG... -o queries.jsonl` then writes the dataset.

The input is JSONL with `id`, `category` (a safety category), `query`, `intent` and an
optional `subcategory`; other fields (a checklist, review fields) are ignored, so the
shipped queries can be rebuilt too.
"""

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from pydantic import AfterValidator, BaseModel
from pydantic_core import PydanticCustomError

from heedbench import params
from heedbench.errors import InputError
from heedbench.evals.carryon.dataset import SAFETY_CATEGORIES
from heedbench.evals.pipelines.logs import BuiltSample, read_build_samples
from heedbench.jsonl import Text, read_models
from heedbench.roles import check_roles_at_build
from heedbench.scorers.judge import CHANNELS, DEFAULT_CHANNEL, VerdictChannel
from heedbench.scorers.pipelines.checks import candidates_built, checklist_built
from heedbench.solvers.pipelines.carryon_steps import (
    EXTRACTOR,
    MERGER,
    answer_and_extract,
    merge_and_refine,
)

CANDIDATES_TASK = "carryon_candidates"
CHECKLIST_TASK = "carryon_checklist"
CATEGORY_ALL = "all"


class CarryOnBuildError(InputError):
    """Build input that cannot be used; the message names file, record and field."""


Stripped = Annotated[Text, AfterValidator(str.strip)]


def _category(value: str) -> str:
    if value not in SAFETY_CATEGORIES:
        raise PydanticCustomError(
            "category", f"unknown category {value!r}; use one of {', '.join(SAFETY_CATEGORIES)}"
        )
    return value


class BuildQuery(BaseModel):
    """A query to build a checklist for; other fields of the record are ignored."""

    id: Stripped
    category: Annotated[Stripped, AfterValidator(_category)]
    query: Stripped
    intent: Stripped
    subcategory: str | None = None


def load_build_queries(path: str | Path) -> list[dict[str, str]]:
    """Queries to build checklists for, validated; errors name file, record and field."""
    queries = read_models(Path(path), BuildQuery, CarryOnBuildError)
    return [{**q.model_dump(), "subcategory": (q.subcategory or "").strip()} for q in queries]


def _split(name: str, value: Any) -> tuple[str, ...]:
    text = params.optional_text(name, value)
    return tuple(part.strip() for part in (text or "").split(",") if part.strip())


def role_list(name: str, value: Any) -> tuple[str, ...]:
    """Comma-separated role names (letters, digits, `_`, `-`), each once."""
    roles = _split(name, value)
    if not roles or any(not r.replace("_", "").replace("-", "").isalnum() for r in roles):
        raise params.ParameterError(
            f"-T {name}: must be role names separated by commas (e.g. generator,generator_2); "
            f"got {value!r}"
        )
    if len(set(roles)) != len(roles):
        raise params.ParameterError(f"-T {name}: a role is named twice in {value!r}")
    return roles


def path_list(name: str, value: Any) -> tuple[str, ...]:
    """Comma-separated log files or folders."""
    paths = _split(name, value)
    if not paths:
        raise params.ParameterError(f"-T {name}: must name log files or folders; got {value!r}")
    return paths


@task
def carryon_candidates(
    *,
    data: str | None = None,
    generators: str = "generator",
    category: str = CATEGORY_ALL,
    verdict: VerdictChannel = DEFAULT_CHANNEL,
    **unknown: Any,
) -> Task:
    """CarryOn build, step 1: generator answers (intent known) and their candidate items.

    Roles: each generator role named in `generators`, and `extractor`.

    Args:
        data: JSONL of queries (`id`, `category`, `query`, `intent`, optional `subcategory`).
        generators: comma-separated generator role names, each bound with
            `--model-role <name>=<provider/model>` (default: one role, `generator`).
        category: only queries of this safety category, or all.
        verdict: how the role model gives its JSON reply: schema (a strict response schema;
            default), tool (a forced submit_verdict tool call) or text (one JSON object).
        **unknown: refused: a parameter the task does not have is an error.
    """
    params.reject_unknown("carryon_candidates", unknown, carryon_candidates)
    data = params.optional_text("data", data)
    if data is None:
        raise params.ParameterError("-T data: name the JSONL file of queries to build for")
    roles = role_list("generators", generators)
    category = params.one_of("category", category, (*SAFETY_CATEGORIES, CATEGORY_ALL))
    channel = params.one_of("verdict", verdict, CHANNELS)
    check_roles_at_build(
        (*roles, EXTRACTOR), allow_evaluated_model=False, task="carryon_candidates"
    )
    queries = load_build_queries(data)
    if category != CATEGORY_ALL:
        queries = [q for q in queries if q["category"] == category]
        if not queries:
            raise CarryOnBuildError(f"{data}: no query of category {category!r}")
    samples = [Sample(id=q["id"], input=q["query"], metadata={"query": q}) for q in queries]
    return Task(
        dataset=MemoryDataset(samples, name="carryon_build_queries", location=data),
        solver=answer_and_extract(roles, channel),
        scorer=candidates_built(),
        version="1.0.0",
        metadata={"family": "build", "pipeline": "carryon", "step": "candidates",
                  "generators": list(roles)},
    )  # fmt: skip


def gather_extractions(
    samples: Iterable[BuiltSample],
) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """Per query: the query and every generator model's newest candidates; and what is missing.

    Returns:
        query id -> {"query", "extractions"} (one extraction per generator model, the newest
        log's), and query id -> why it has no candidates at all.

    Raises:
        CarryOnBuildError: two logs hold different query texts under one id.
    """
    gathered: dict[str, dict[str, Any]] = {}
    where: dict[str, str] = {}
    newest: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
    reasons: dict[str, str] = {}
    for sample in sorted(samples, key=lambda s: s.created):
        product = sample.product
        if sample.failure and (product is None or not product.get("generators")):
            reasons[sample.id] = sample.failure
            continue
        assert product is not None
        query = product["query"]
        if sample.id in gathered and gathered[sample.id]["query"] != query:
            raise CarryOnBuildError(
                f"{sample.log}: sample {sample.id!r}: the query differs from the one in "
                f"{where[sample.id]}; build each query id from one input"
            )
        gathered.setdefault(sample.id, {"query": query, "extractions": []})
        where.setdefault(sample.id, sample.log)
        for entry in product["generators"]:
            if "candidates" in entry:
                extraction = {
                    "model": entry["model"],
                    "role": entry["role"],
                    "extractor": product.get("extractor", ""),
                    "log": sample.log,
                    "candidates": entry["candidates"],
                }
                newest[(sample.id, entry["model"])] = (sample.created, extraction)
            else:
                reasons.setdefault(sample.id, entry.get("failure", "no candidates"))
    for (query_id, _), (_, extraction) in newest.items():
        gathered[query_id]["extractions"].append(extraction)
    usable = {qid: entry for qid, entry in gathered.items() if entry["extractions"]}
    missing = {qid: reasons.get(qid, "no candidates") for qid in {*gathered, *reasons}
               if qid not in usable}  # fmt: skip
    return usable, missing


@task
def carryon_checklist(
    *,
    candidates: str | None = None,
    verdict: VerdictChannel = DEFAULT_CHANNEL,
    **unknown: Any,
) -> Task:
    """CarryOn build, step 2: merge every generator's candidates and refine the checklist.

    Role: `merger`.

    Args:
        candidates: comma-separated `carryon_candidates` log files or folders (one run with
            several generators, or one run per generator model).
        verdict: how the role model gives its JSON reply: schema (a strict response schema;
            default), tool (a forced submit_verdict tool call) or text (one JSON object).
        **unknown: refused: a parameter the task does not have is an error.
    """
    params.reject_unknown("carryon_checklist", unknown, carryon_checklist)
    paths = path_list("candidates", candidates)
    channel = params.one_of("verdict", verdict, CHANNELS)
    check_roles_at_build((MERGER,), allow_evaluated_model=False, task="carryon_checklist")
    gathered, missing = gather_extractions(read_build_samples(paths, (CANDIDATES_TASK,)))
    if not gathered:
        raise CarryOnBuildError(
            f"no query has candidate items in {', '.join(paths)}: {first_reason(missing)}"
        )
    samples = [
        Sample(
            id=query_id,
            input=entry["query"]["query"],
            metadata={"query": entry["query"], "extractions": entry["extractions"]},
        )
        for query_id, entry in gathered.items()
    ]
    return Task(
        dataset=MemoryDataset(samples, name="carryon_build_candidates"),
        solver=merge_and_refine(channel),
        scorer=checklist_built(),
        version="1.0.0",
        metadata={"family": "build", "pipeline": "carryon", "step": "checklist",
                  "candidate_logs": list(paths), "left_out": missing},
    )  # fmt: skip


def first_reason(missing: Mapping[str, str], none: str = "no samples") -> str:
    """`id: reason` for the first thing left out, for an error that nothing is left."""
    return next((f"{key}: {reason}" for key, reason in missing.items()), none)
