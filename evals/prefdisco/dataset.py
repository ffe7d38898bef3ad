"""PrefDisco records in the public release's schema: shipped sample, local file, or the hub.

`ReleaseRecord` is the release's record schema; a line outside it is an error naming file,
record and field, and so is a repeated `problem_id`. What the release's generator lets through
is repaired and counted (`REPAIRS`: weights normalised or 1/n when missing, as the reference
scores them; non-standard or unreadable levels; empty justifications, missing importances,
repeated criteria); a record that cannot be run is skipped and counted by reason (an error with
`strict=True`). The counts (`LoadReport`) are logged once per source and go into the task's
metadata under `load_repairs` (evals/prefdisco/README.md, "Dataset").
"""

import functools
import logging
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError, field_validator

from heedbench.errors import InputError
from heedbench.evals.prefdisco.sources import (
    SOURCES,
    Problem,
    SourceRowError,
    Unrunnable,
    runnable_problem,
)
from heedbench.jsonl import first_problem, jsonl_records, reject_duplicates
from heedbench.paths import shipped_data_dir

logger = logging.getLogger(__name__)

HUB_REPO = "stellalisy/prefq-bench"
Variant = Literal["1k", "5k"]
VARIANT_FILES: dict[str, str] = {"1k": "benchmark_1k/{source}/train.jsonl",
                                 "5k": "benchmark_5k/{source}/full.jsonl"}  # fmt: skip
WEIGHT_TOLERANCE = 0.05
"""The generator's own tolerance: a rubric whose weights sum further from 1 is counted."""
RUBRIC_LEVELS = (1, 3, 5)
STRICT_NOTE = "(-T strict=true stops at a record that cannot be run)"
DEFAULT_SEED = 42
"""The reference evaluator's `random_seed` for drawing `max_problems` records."""
REPAIRS = (
    "weights_normalised", "weight_missing", "weights_all_zero", "levels_nonstandard",
    "level_unreadable", "justification_empty", "importance_missing", "criterion_repeated",
)  # fmt: skip
"""Repairs counted per source, each as the number of loaded records that needed it."""
RUBRIC = "evaluation_rubric.evaluation_criteria"


class PrefDiscoDataError(InputError):
    """A record breaks the PrefDisco schema; the message names file, record and field."""


# -- the release's record schema -------------------------------------------------------------------


class _Open(BaseModel):
    """A release object: the fields read here are checked, any others are kept."""

    model_config = ConfigDict(extra="allow")


class ReleasePreference(_Open):
    """One entry of `persona_preferences` (value, local_importance, justification, type, ...)."""

    value: Any = None
    local_importance: Any = None
    justification: Any = None


Weight = Annotated[float, Field(ge=0, allow_inf_nan=False, strict=True)]


class ReleaseCriterion(_Open):
    """One rubric criterion: the preference it judges, its weight and its score levels."""

    preference: StrictStr
    description: Any = ""
    weight: Weight | None = None
    levels: list[Any] | None = None


class ReleaseRubric(_Open):
    """`evaluation_rubric`."""

    evaluation_criteria: list[ReleaseCriterion] | None = None


class ReleaseRecord(_Open):
    """A `personalized_problem` line of the release (the optional metadata line is skipped)."""

    type: Literal["personalized_problem"]
    problem_id: Any
    original_problem: dict[str, Any]
    persona: dict[str, Any]
    persona_preferences: dict[str, ReleasePreference] | None
    evaluation_rubric: ReleaseRubric | None

    @field_validator("problem_id")
    @classmethod
    def _named(cls, value: Any) -> Any:
        blank = isinstance(value, str) and not value.strip()
        if blank or isinstance(value, bool) or not isinstance(value, str | int):
            raise ValueError("must be a non-empty string or an integer")
        return value


# -- what the task uses ----------------------------------------------------------------------------


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
    position: int = 0
    """0-based index among the file's records (what the reference's seeded draw picks from)."""


@dataclass
class LoadReport:
    """What loading one source's file repaired and skipped."""

    source: str
    path: str
    records: int = 0
    """`personalized_problem` records in the file."""
    loaded: int = 0
    repairs: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    first_skip: str | None = None
    """The full message of the first record skipped (what `strict=True` stops with)."""

    def summary(self) -> dict[str, Any]:
        """The counts as task metadata: every repair (zeros included) and skips by reason."""
        return {
            "file": self.path, "records": self.records, "loaded": self.loaded,
            **{name: self.repairs[name] for name in REPAIRS}, "skipped": dict(self.skipped),
        }  # fmt: skip

    @property
    def clean(self) -> bool:
        """Nothing repaired and nothing skipped."""
        return not self.repairs and not self.skipped

    def message(self) -> str:
        """One line for the log: file, counts, and the first skipped record."""
        text = f"{self.path}: {self.loaded} of {self.records} PrefDisco records loaded"
        if self.repairs:
            repaired = ", ".join(f"{name} {count}" for name, count in sorted(self.repairs.items()))
            text += f"; repaired (records): {repaired}"
        if self.skipped:
            skipped = ", ".join(f"{reason}: {count}" for reason, count in self.skipped.items())
            text += f"; skipped: {skipped} (first: {self.first_skip})"
        return text


class _Skip(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def check_source(source: str) -> str:
    """Raise a clear error for an unknown source name."""
    if source not in SOURCES:
        raise PrefDiscoDataError(f"unknown source {source!r}; use one of {', '.join(SOURCES)}")
    return source


# -- one record ------------------------------------------------------------------------------------


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _level_score(value: Any) -> int | None:
    """A level's score as an integer 1–5 (3, 3.0 and "3" alike), else None."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 5
    return value if ok else None


def _levels(raw: Sequence[Any], repairs: set[str]) -> dict[int, str]:
    levels: dict[int, str] = {}
    for entry in raw:
        score = _level_score(entry.get("score")) if isinstance(entry, Mapping) else None
        if score is None or score in levels:
            repairs.add("level_unreadable")
            continue
        levels[score] = str(entry.get("description", ""))
    if tuple(sorted(levels)) != RUBRIC_LEVELS:
        repairs.add("levels_nonstandard")
    return levels


def _criteria(
    raw: ReleaseRecord, preferences: Mapping[str, Any], where: str, repairs: set[str]
) -> tuple[Criterion, ...]:
    """The rubric's criteria with the reference's weights (1/n when missing), summing to 1."""
    entries = raw.evaluation_rubric.evaluation_criteria if raw.evaluation_rubric else None
    if not entries:
        raise _Skip("no rubric", f"{where}, field '{RUBRIC}': missing or empty rubric")
    kept: dict[str, ReleaseCriterion] = {}
    for index, entry in enumerate(entries):
        name = entry.preference
        if name not in preferences:
            raise _Skip(
                "criterion without a preference entry",
                f"{where}, field '{RUBRIC}'[{index}]: preference {name!r} has no entry in "
                "'persona_preferences'",
            )
        if _blank(preferences[name].get("value")):
            raise _Skip(
                "preference without a value",
                f"{where}, field 'persona_preferences'[{name!r}], field 'value': missing "
                "(the grader needs the preferred value)",
            )
        if name in kept:
            repairs.add("criterion_repeated")
        kept.setdefault(name, entry)
    if any(entry.weight is None for entry in kept.values()):
        repairs.add("weight_missing")
    weights = [1 / len(kept) if e.weight is None else e.weight for e in kept.values()]
    total = sum(weights)
    if total == 0:
        repairs.add("weights_all_zero")
        weights, total = [1.0] * len(kept), float(len(kept))
    elif abs(total - 1.0) > WEIGHT_TOLERANCE:
        repairs.add("weights_normalised")
    return tuple(
        Criterion(
            name, str(entry.description), weight / total, _levels(entry.levels or [], repairs)
        )
        for (name, entry), weight in zip(kept.items(), weights, strict=True)
    )


def parse_record(
    line: Any, source: str, where: str, position: int = 0, repairs: set[str] | None = None
) -> PrefDiscoRecord | None:
    """Validate and repair one line; None for the optional metadata line.

    Raises:
        PrefDiscoDataError: the line breaks the release's schema.
        _Skip: the record is in the schema but cannot be run.
    """
    repairs = set() if repairs is None else repairs
    if isinstance(line, Mapping) and line.get("type") == "metadata":
        return None
    if isinstance(line, Mapping) and isinstance(line.get("problem_id"), str | int):
        where = f"{where} (problem_id {line['problem_id']!r})"
    try:
        raw = ReleaseRecord.model_validate(line)
    except ValidationError as error:
        raise PrefDiscoDataError(f"{where}, {first_problem(error)}") from None
    preferences = {
        str(name): dict(entry) for name, entry in (line["persona_preferences"] or {}).items()
    }
    for entry in preferences.values():
        if _blank(entry.get("justification")):
            repairs.add("justification_empty")
        if entry.get("local_importance") is None:
            repairs.add("importance_missing")
    try:
        problem = runnable_problem(source, raw.original_problem)
    except SourceRowError as error:
        raise PrefDiscoDataError(
            f"{where}, field 'original_problem.{error.field}': {error}"
        ) from error
    except Unrunnable as skip:
        raise _Skip(
            skip.reason, f"{where}, field 'original_problem.{skip.field}': {skip}"
        ) from None
    return PrefDiscoRecord(
        problem_id=str(raw.problem_id),
        source=source,
        problem=problem,
        persona=raw.persona,
        preferences=preferences,
        criteria=_criteria(raw, preferences, where, repairs),
        position=position,
    )


def parse_records(
    lines: Iterable[tuple[str, Any]], source: str, path: str = "", strict: bool = False
) -> tuple[list[PrefDiscoRecord], LoadReport]:
    """Validate `(where, line)` pairs of one source: records, and what was repaired/skipped.

    Raises:
        PrefDiscoDataError: a schema error, a repeated problem id, no record left to run, or
            (with `strict`) the first record that cannot be run.
    """
    check_source(source)
    report = LoadReport(source, path)

    def parsed() -> Iterator[tuple[str, PrefDiscoRecord]]:
        for where, line in lines:
            repairs: set[str] = set()
            try:
                record = parse_record(line, source, where, report.records, repairs)
            except _Skip as skip:
                if strict:
                    raise PrefDiscoDataError(f"{skip} {STRICT_NOTE}") from None
                report.records += 1
                report.skipped[skip.reason] += 1
                report.first_skip = report.first_skip or str(skip)
                continue
            if record is not None:
                report.records += 1
                report.repairs.update(repairs)
                yield where, record

    records = reject_duplicates(
        parsed(),
        key=lambda record: record.problem_id,
        duplicate=lambda where, key, first: PrefDiscoDataError(
            f"{where}, field 'problem_id': duplicate {key!r} (first at {first})"
        ),
    )
    report.loaded = len(records)
    if not records:
        detail = f"; skipped {dict(report.skipped)}, first: {report.first_skip}"
        raise PrefDiscoDataError(
            f"no PrefDisco records for source {source!r}"
            + (f" in {path}" if path else "")
            + (detail if report.skipped else "")
        )
    return records, report


# -- files -----------------------------------------------------------------------------------------


def release_path(source: str, variant: Variant) -> str:
    """The file of one source in the public release's layout."""
    check_source(source)
    if variant == "5k" and not SOURCES[source].in_5k:
        covered = ", ".join(name for name, spec in SOURCES.items() if spec.in_5k)
        raise PrefDiscoDataError(f"the 5k variant covers only {covered}; got {source!r}")
    return VARIANT_FILES[variant].format(source=source)


def source_path(
    source: str, variant: Variant = "1k", data: str | Path | None = None,
    revision: str | None = None,
) -> Path:  # fmt: skip
    """Where one source's records are: the shipped sample, a file, a release folder or the hub."""
    relative = release_path(source, variant)
    if data is None:
        return shipped_data_dir("prefdisco") / relative
    if str(data) == "hub":
        if not revision:
            raise PrefDiscoDataError(
                f"downloading {HUB_REPO} needs a pinned revision (-T revision=<commit sha>)"
            )
        from huggingface_hub import hf_hub_download  # noqa: PLC0415 (lazy: hub users only)

        return Path(hf_hub_download(HUB_REPO, relative, repo_type="dataset", revision=revision))
    path = Path(data)
    return path / relative if path.is_dir() else path


def read_source(
    source: str, variant: Variant = "1k", data: str | Path | None = None,
    revision: str | None = None, strict: bool = False,
) -> tuple[list[PrefDiscoRecord], LoadReport]:  # fmt: skip
    """Load one source's records with the report of what was repaired and skipped.

    Args:
        source: one of `SOURCES`.
        variant: "1k" or "5k" (the public release's two sizes).
        data: None for the shipped offline sample; a JSONL file; a folder laid out like the
            release (`benchmark_1k/<source>/train.jsonl`); or "hub" to download the release.
        revision: the hub commit to pin; required with data="hub".
        strict: stop with an error at the first record that cannot be run.
    """
    path = source_path(source, variant, data, revision)
    lines = ((where, line) for _, where, line in jsonl_records(path, PrefDiscoDataError))
    return parse_records(lines, source, str(path), strict)


def load_records(
    source: str, variant: Variant = "1k", data: str | Path | None = None,
    revision: str | None = None, strict: bool = False,
) -> list[PrefDiscoRecord]:  # fmt: skip
    """Load one source's records (see `read_source`; repairs and skips are logged)."""
    records, report = read_source(source, variant, data, revision, strict)
    if not report.clean:
        logger.warning(report.message())
    return records


# -- one loaded copy per process -------------------------------------------------------------------


@functools.lru_cache(maxsize=32)
def _cached_source(
    source: str, variant: Variant, data: str | None, revision: str | None
) -> tuple[tuple[PrefDiscoRecord, ...], LoadReport]:
    records, report = read_source(source, variant, data, revision)
    if not report.clean:
        logger.warning(report.message())  # once per process: the load is cached
    return tuple(records), report


@functools.lru_cache(maxsize=8)
def _cached_records(
    sources: tuple[str, ...], variant: Variant, data: str | None, revision: str | None
) -> dict[str, PrefDiscoRecord]:
    return {
        record_key(record.source, record.problem_id): record
        for source in sources
        for record in _cached_source(source, variant, data, revision)[0]
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


def load_reports(
    sources: Sequence[str], variant: Variant = "1k", data: str | None = None,
    revision: str | None = None,
) -> dict[str, LoadReport]:  # fmt: skip
    """Source → what loading it repaired and skipped (the copy `record_index` uses)."""
    return {source: _cached_source(source, variant, data, revision)[1] for source in sources}


def check_strict(reports: Mapping[str, LoadReport]) -> None:
    """With `-T strict=true`: stop at the first record any source had to skip."""
    for report in reports.values():
        if report.first_skip is not None:
            raise PrefDiscoDataError(f"{report.first_skip} {STRICT_NOTE}")


def draw_records(
    records: Sequence[PrefDiscoRecord], population: int, count: int, seed: int = DEFAULT_SEED
) -> list[PrefDiscoRecord]:
    """The records the reference evaluator draws with `max_problems=count`, in its order.

    The reference runs `random.seed(seed); random.sample(problems, count)` over every
    `personalized_problem` record of the file (records, not distinct problems: a problem's
    persona variants are drawn independently). The draw here picks the same file positions;
    a drawn record that was skipped as unrunnable leaves the subset one short.
    """
    by_position = {record.position: record for record in records}
    drawn = random.Random(seed).sample(range(population), min(count, population))
    return [by_position[position] for position in drawn if position in by_position]
