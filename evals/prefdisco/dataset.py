"""PrefDisco records in the public release's schema: shipped sample, local file, or the hub.

Records are validated before any model is called; errors name file, record and field.
"""

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from heedbench.evals.prefdisco.sources import SOURCES, Problem, normalise_problem
from heedbench.jsonl import jsonl_records, reject_duplicates
from heedbench.paths import shipped_data_dir

HUB_REPO = "stellalisy/prefq-bench"
Variant = Literal["1k", "5k"]
VARIANT_FILES: dict[str, str] = {"1k": "benchmark_1k/{source}/train.jsonl",
                                 "5k": "benchmark_5k/{source}/full.jsonl"}  # fmt: skip
FIVE_K_SOURCES = ("aime", "commonsenseqa", "medqa", "socialiqa")
WEIGHT_TOLERANCE = 0.05
RUBRIC_LEVELS = (1, 3, 5)
RECORD_TYPE = "personalized_problem"
REQUIRED = ("problem_id", "original_problem", "persona", "persona_preferences", "evaluation_rubric")


class PrefDiscoDataError(ValueError):
    """A record breaks the PrefDisco schema; the message names file, record and field."""


@dataclass(frozen=True)
class Criterion:
    """One PrefAlign rubric criterion: a preference dimension and its weight."""

    preference: str
    description: str
    weight: float
    levels: dict[int, str]


@dataclass(frozen=True)
class PrefDiscoRecord:
    """A (problem, persona) pair with the persona's preferences and the rubric to judge by."""

    problem_id: str
    source: str
    problem: Problem
    persona: dict[str, Any]
    preferences: dict[str, dict[str, Any]]
    criteria: tuple[Criterion, ...]


def check_source(source: str) -> str:
    """Raise a clear error for an unknown source name."""
    if source not in SOURCES:
        raise PrefDiscoDataError(f"unknown source {source!r}; use one of {', '.join(SOURCES)}")
    return source


def _criteria(rubric: Any, preferences: Mapping[str, Any], where: str) -> tuple[Criterion, ...]:
    field = "evaluation_rubric.evaluation_criteria"
    raw = rubric.get("evaluation_criteria") if isinstance(rubric, Mapping) else None
    if not isinstance(raw, list) or not raw:
        raise PrefDiscoDataError(f"{where}, field '{field}': missing or empty rubric")
    criteria: list[Criterion] = []
    for index, entry in enumerate(raw):
        here = f"{where}, field '{field}'[{index}]"
        if not isinstance(entry, Mapping) or not isinstance(entry.get("preference"), str):
            raise PrefDiscoDataError(f"{here}: a criterion needs a 'preference' name")
        name = entry["preference"]
        if name not in preferences:
            raise PrefDiscoDataError(
                f"{here}: preference {name!r} has no entry in 'persona_preferences'"
            )
        weight = entry.get("weight")
        if not isinstance(weight, int | float) or isinstance(weight, bool) or weight < 0:
            raise PrefDiscoDataError(f"{here}, field 'weight': must be a non-negative number")
        levels: dict[int, str] = {
            level["score"]: str(level.get("description", ""))
            for level in entry.get("levels") or []
            if isinstance(level, Mapping) and isinstance(level.get("score"), int)
        }
        if tuple(sorted(levels)) != RUBRIC_LEVELS:
            raise PrefDiscoDataError(f"{here}, field 'levels': needs exactly scores 1, 3 and 5")
        criteria.append(Criterion(name, str(entry.get("description", "")), float(weight), levels))
    total = sum(c.weight for c in criteria)
    if abs(total - 1.0) > WEIGHT_TOLERANCE:
        raise PrefDiscoDataError(
            f"{where}, field '{field}': weights sum to {total:.3f}, not 1 (±{WEIGHT_TOLERANCE})"
        )
    return tuple(criteria)


def _preferences(raw: Any, where: str) -> dict[str, dict[str, Any]]:
    if not isinstance(raw, Mapping) or not raw:
        raise PrefDiscoDataError(f"{where}, field 'persona_preferences': missing or empty")
    for name, entry in raw.items():
        here = f"{where}, field 'persona_preferences'[{name!r}]"
        if not isinstance(entry, Mapping):
            raise PrefDiscoDataError(f"{here}: must be an object")
        for key in ("value", "local_importance", "justification"):
            if entry.get(key) in (None, ""):
                raise PrefDiscoDataError(f"{here}, field '{key}': missing")
    return {str(name): dict(entry) for name, entry in raw.items()}


def parse_record(record: Any, source: str, where: str) -> PrefDiscoRecord | None:
    """Validate one line; None for the optional metadata line."""
    if not isinstance(record, Mapping):
        raise PrefDiscoDataError(f"{where}: a record must be a JSON object")
    if record.get("type") == "metadata":
        return None
    if record.get("type") != RECORD_TYPE:
        raise PrefDiscoDataError(f"{where}, field 'type': expected {RECORD_TYPE!r}")
    for key in REQUIRED:
        if key not in record:
            raise PrefDiscoDataError(f"{where}, field '{key}': missing")
    where = f"{where} (problem_id {record['problem_id']!r})"
    preferences = _preferences(record["persona_preferences"], where)
    if not isinstance(record["original_problem"], Mapping):
        raise PrefDiscoDataError(f"{where}, field 'original_problem': must be an object")
    return PrefDiscoRecord(
        problem_id=str(record["problem_id"]),
        source=source,
        problem=normalise_problem(source, record["original_problem"]),
        persona=dict(record["persona"]),
        preferences=preferences,
        criteria=_criteria(record["evaluation_rubric"], preferences, where),
    )


def parse_records(lines: Iterable[tuple[str, Any]], source: str) -> list[PrefDiscoRecord]:
    """Validate `(where, record)` pairs of one source and reject duplicate problem ids."""
    check_source(source)
    parsed = ((where, parse_record(raw, source, where)) for where, raw in lines)
    records = reject_duplicates(
        ((where, record) for where, record in parsed if record is not None),
        key=lambda record: record.problem_id,
        duplicate=lambda where, key, first: PrefDiscoDataError(
            f"{where}, field 'problem_id': duplicate {key!r} (first at {first})"
        ),
    )
    if not records:
        raise PrefDiscoDataError(f"no PrefDisco records for source {source!r}")
    return records


def release_path(source: str, variant: Variant) -> str:
    """The file of one source in the public release's layout."""
    check_source(source)
    if variant == "5k" and source not in FIVE_K_SOURCES:
        raise PrefDiscoDataError(
            f"the 5k variant covers only {', '.join(FIVE_K_SOURCES)}; got {source!r}"
        )
    return VARIANT_FILES[variant].format(source=source)


def load_records(
    source: str,
    variant: Variant = "1k",
    data: str | Path | None = None,
    revision: str | None = None,
) -> list[PrefDiscoRecord]:
    """Load one source's records.

    Args:
        source: one of `SOURCES`.
        variant: "1k" or "5k" (the public release's two sizes).
        data: None for the shipped offline sample; a JSONL file; a folder laid out like the
            release (`benchmark_1k/<source>/train.jsonl`); or "hub" to download the release.
        revision: the hub commit to pin; required with data="hub".
    """
    relative = release_path(source, variant)
    if data is None:
        path = shipped_data_dir("prefdisco") / relative
    elif str(data) == "hub":
        path = _download(relative, revision)
    else:
        path = Path(data)
        if path.is_dir():
            path = path / relative
    lines = jsonl_records(path, PrefDiscoDataError)
    return parse_records(((where, record) for _, where, record in lines), source)


def _download(relative: str, revision: str | None) -> Path:
    if not revision:
        raise PrefDiscoDataError(
            f"downloading {HUB_REPO} needs a pinned revision (-T revision=<commit sha>)"
        )
    from huggingface_hub import hf_hub_download  # noqa: PLC0415 (lazy: hub users only)

    return Path(hf_hub_download(HUB_REPO, relative, repo_type="dataset", revision=revision))


@functools.lru_cache(maxsize=8)
def _cached_records(
    sources: tuple[str, ...], variant: Variant, data: str | None, revision: str | None
) -> dict[str, PrefDiscoRecord]:
    return {
        record_key(record.source, record.problem_id): record
        for source in sources
        for record in load_records(source, variant, data, revision)
    }


def record_key(source: str, problem_id: str) -> str:
    """How a sample finds its record (problem ids repeat across sources)."""
    return f"{source}/{problem_id}"


def record_index(
    sources: Sequence[str], variant: Variant = "1k", data: str | None = None,
    revision: str | None = None,
) -> dict[str, PrefDiscoRecord]:  # fmt: skip
    """`record_key` → record for the sources; loaded once per process.

    The task, solver and scorer each take the same few load parameters (cheap to log, enough
    to re-score a log later) instead of passing records around, and share one loaded copy.
    """
    return _cached_records(tuple(sources), variant, data, revision)
