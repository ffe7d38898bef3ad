"""Build tasks of the PrefDisco pipeline (role `generator`).

1. `heedbench/prefdisco_personas` (one sample per persona): a persona from a seeded starting
   point (age, region, field of work, Big Five scores), in the release's persona schema.
2. `heedbench/prefdisco_profiles` (one sample per problem × persona): the persona library is
   read from step 1's logs (or a JSON list of personas) and near-duplicates are rejected;
   problems are drawn from one source (hub or local file); each problem gets
   `personas_per_problem` personas; each pair gets a sparse preference profile and a rubric.
   `heedbench build prefdisco LOG... -o folder/` then writes the release layout.
"""

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from heedbench import params
from heedbench.errors import InputError
from heedbench.evals.pipelines.carryon import first_reason, path_list
from heedbench.evals.pipelines.logs import newest, read_build_samples
from heedbench.evals.pipelines.problems import HUB, draw_problems, read_rows
from heedbench.evals.prefdisco.sources import SOURCES
from heedbench.roles import check_roles_at_build
from heedbench.scorers.judge import CHANNELS, DEFAULT_CHANNEL, VerdictChannel
from heedbench.scorers.judge.call import JudgementError
from heedbench.scorers.pipelines.checks import persona_built, profile_built
from heedbench.solvers.pipelines.prefdisco_checks import (
    assign_personas,
    check_persona,
    diverse_personas,
    persona_briefs,
    problem_id,
)
from heedbench.solvers.pipelines.prefdisco_steps import GENERATOR, profile_and_rubric, write_persona

PERSONAS_TASK = "prefdisco_personas"
PROFILES_TASK = "prefdisco_profiles"
DEFAULT_DIVERSITY = 0.5
"""Word overlap (Jaccard, summary + occupation + expertise) at which a persona is a
near-duplicate of one already in the library."""


class PrefDiscoBuildError(InputError):
    """Build input that cannot be used; the message names the file and what is wrong."""


@task
def prefdisco_personas(
    *, count: int = 10, seed: int = 0, verdict: VerdictChannel = DEFAULT_CHANNEL, **unknown: Any
) -> Task:
    """PrefDisco build, step 1: a persona library (role `generator`).

    Args:
        count: personas to write; ask for more than the library needs, since near-duplicates
            are rejected when step 2 reads them (the release's library holds 100).
        seed: seed of the starting points (age, region, field, Big Five scores).
        verdict: how the role model gives its JSON reply: schema (a strict response schema;
            default), tool (a forced submit_verdict tool call) or text (one JSON object).
        **unknown: refused: a parameter the task does not have is an error.
    """
    params.reject_unknown("prefdisco_personas", unknown, prefdisco_personas)
    count = params.integer("count", count, low=1)
    seed = params.integer("seed", seed)
    channel = params.one_of("verdict", verdict, CHANNELS)
    check_roles_at_build((GENERATOR,), allow_evaluated_model=False, task="prefdisco_personas")
    samples = [
        Sample(id=f"persona_s{seed}_{k:03d}", input=f"persona {k}", metadata={"brief": brief})
        for k, brief in enumerate(persona_briefs(count, seed))
    ]
    return Task(
        dataset=MemoryDataset(samples, name="prefdisco_build_personas"),
        solver=write_persona(channel),
        scorer=persona_built(),
        version="1.0.0",
        metadata={"family": "build", "pipeline": "prefdisco", "step": "personas"},
    )


def read_library(paths: Sequence[str]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Personas from `prefdisco_personas` logs or JSON files (a list of personas), in order.

    The logs' personas come in sample order, where the first log is named; an earlier persona
    is the one kept when a later one nearly duplicates it.

    Returns:
        The personas, and sample id -> why it has no persona (failed or errored samples).

    Raises:
        PrefDiscoBuildError: a JSON file that is not a list of valid personas.
    """
    personas: list[dict[str, Any]] = []
    missing: dict[str, str] = {}
    logs = [path for path in paths if not path.endswith(".json")]
    for path in paths:
        if path.endswith(".json"):
            personas.extend(_json_library(path))
        elif path == logs[0]:  # every log at once, so that a retry's log replaces its run's
            chosen = newest(read_build_samples(logs, (PERSONAS_TASK,)))
            for sample_id in sorted(chosen):
                sample = chosen[sample_id]
                if sample.failure is not None or sample.product is None:
                    missing[sample_id] = sample.failure or "no persona"
                    continue
                personas.append(sample.product["persona"])
    return personas, missing


def _json_library(path: str) -> list[dict[str, Any]]:
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise PrefDiscoBuildError(f"{path}: cannot read a persona list ({error})") from error
    if not isinstance(raw, list):
        raise PrefDiscoBuildError(f"{path}: must hold a JSON list of personas")
    personas = []
    for index, persona in enumerate(raw):
        try:
            personas.append(check_persona(persona))
        except JudgementError as error:
            raise PrefDiscoBuildError(f"{path}: persona {index + 1}, field {error}") from error
    return personas


@task
def prefdisco_profiles(
    *,
    personas: str | None = None,
    source: str | None = None,
    problems: str | None = None,
    revision: str | None = None,
    split: str | None = None,
    sample_size: int = 100,
    personas_per_problem: int = 10,
    dimensions: int = 20,
    expertise_min: int = 2,
    expertise_max: int = 3,
    seed: int | None = None,
    diversity: float = DEFAULT_DIVERSITY,
    verdict: VerdictChannel = DEFAULT_CHANNEL,
    **unknown: Any,
) -> Task:
    """PrefDisco build, step 2: preference profiles and rubrics per problem × persona.

    Role: `generator`.

    Args:
        personas: comma-separated `prefdisco_personas` log files or folders, or JSON files
            holding a list of personas.
        source: the source benchmark (a source of evals/prefdisco/sources.py).
        problems: a JSONL file of rows in the source's own schema, or `hub` to read the
            source's hub dataset (needs the network and -T revision).
        revision: the hub commit to pin (required with problems=hub).
        split: the hub split (default: the release's split for the source).
        sample_size: problems to draw (the release: 100).
        personas_per_problem: personas per problem (the release: 10 in benchmark_1k).
        dimensions: dimensions per profile (the release: 20).
        expertise_min: fewest dimensions of type expertise (the release: 2).
        expertise_max: most dimensions of type expertise (the release: 3).
        seed: seed of the problem draw and persona assignment (default: the release's seed
            for the source).
        diversity: word overlap at which a persona counts as a near-duplicate (0–1).
        verdict: how the role model gives its JSON reply: schema (a strict response schema;
            default), tool (a forced submit_verdict tool call) or text (one JSON object).
        **unknown: refused: a parameter the task does not have is an error.
    """
    params.reject_unknown("prefdisco_profiles", unknown, prefdisco_profiles)
    paths = path_list("personas", personas)
    source = params.one_of("source", source, SOURCES)
    problems = params.optional_text("problems", problems)
    if problems is None:
        raise params.ParameterError("-T problems: a JSONL file of source rows, or hub")
    revision = params.optional_text("revision", revision)
    if revision is not None and problems != HUB:
        raise params.ParameterError("-T revision: pins the hub dataset, so it needs problems=hub")
    split = params.optional_text("split", split)
    sample_size = params.integer("sample_size", sample_size, low=1)
    per_problem = params.integer("personas_per_problem", personas_per_problem, low=1)
    dimensions = params.integer("dimensions", dimensions, low=1)
    low = params.integer("expertise_min", expertise_min, low=0, high=dimensions)
    high = params.integer("expertise_max", expertise_max, low=low, high=dimensions)
    seed = SOURCES[source].hub.seed if seed is None else params.integer("seed", seed)
    diversity = params.number("diversity", diversity, low=0.0, high=1.0)
    channel = params.one_of("verdict", verdict, CHANNELS)
    check_roles_at_build((GENERATOR,), allow_evaluated_model=False, task="prefdisco_profiles")

    candidates, failed = read_library(paths)
    library, rejected = diverse_personas(candidates, diversity)
    if len(library) < per_problem:
        raise PrefDiscoBuildError(
            f"the persona library has {len(library)} personas after rejecting "
            f"{len(rejected)} near-duplicates (and {len(failed)} failed); "
            f"{per_problem} per problem need more: run prefdisco_personas with a larger count"
        )
    drawn, skipped = draw_problems(source, read_rows(source, problems, revision, split),
                                   sample_size, seed)  # fmt: skip
    if not drawn:
        raise PrefDiscoBuildError(
            f"{problems}: no runnable {source} row ({first_reason(skipped, 'no rows')})"
        )
    by_id = {persona["id"]: persona for persona in library}
    assignment = assign_personas(len(drawn), list(by_id), per_problem, seed)
    shared = {"source": source, "library_size": len(library), "per_problem": per_problem,
              "sample_size": len(drawn)}  # fmt: skip
    samples = [
        Sample(
            id=problem_id(problem.index, persona_key),
            input=problem.where,
            metadata={
                **shared,
                "index": problem.index,
                "slot": slot,
                "where": problem.where,
                "row": problem.row,
                "persona": by_id[persona_key],
            },
        )
        for problem, chosen in zip(drawn, assignment, strict=True)
        for slot, persona_key in enumerate(chosen)
    ]
    return Task(
        dataset=MemoryDataset(samples, name=f"prefdisco_build_{source}"),
        solver=profile_and_rubric(dimensions, (low, high), channel),
        scorer=profile_built(),
        version="1.0.0",
        metadata={
            "family": "build", "pipeline": "prefdisco", "step": "profiles", "source": source,
            "library": list(by_id), "rejected_personas": [vars(r) for r in rejected],
            "failed_personas": failed, "unrunnable_rows": len(skipped),
            "problems": [problem.where for problem in drawn],
        },
    )  # fmt: skip
