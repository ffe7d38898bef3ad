"""PrefDisco records in the public release's schema: shipped sample, local file, or the hub.

The loader reads what the reference evaluator reads, repairs what the release's generator
lets through, and skips only what cannot be run. Every message names file, record and field.

- **Errors** (the file is not in the release's schema; the load stops): a line that is not a
  JSON object; a `type` other than `metadata` / `personalized_problem`; a missing required key;
  a field of the wrong JSON type (a `persona` that is a string or a number, a criterion without
  a preference name, a weight that is not a non-negative number, a choices table whose labels
  and texts differ in number); a repeated `problem_id`.
- **Repairs** (the reference loads these records; each is counted): rubric weights that do
  not sum to 1 are normalised (the generator only warns, and the reference divides by the sum
  anyway); a missing weight falls back to 1/n as in the reference's scorer; rubric levels other
  than 1/3/5 are kept as they are (any integer score 1–5); an unreadable level entry is dropped;
  an empty justification, a missing local importance and a repeated criterion are accepted.
- **Skips** (the record cannot be run or checked; counted by reason, or an error with
  `strict=True`): no problem text (say, a misspelled `question`); no rubric; a
  multiple-choice row without options; no gold answer (except CommonsenseQA, whose released test
  split has none: correctness is unscored there); a gold answer that is not one of the options;
  a criterion whose preference has no entry or no value.

Counts go into a `LoadReport` per source: logged once as a warning naming the file, and put
into the task's metadata under `load_repairs`.
"""

import functools
import logging
import math
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from heedbench.errors import InputError
from heedbench.evals.prefdisco.sources import (
    NO_GOLD_SOURCES,
    SOURCE_ANSWER_KIND,
    SOURCE_FIELDS,
    SOURCES,
    Problem,
    SourceRowError,
    normalise_problem,
)
from heedbench.jsonl import jsonl_records, reject_duplicates
from heedbench.paths import shipped_data_dir

logger = logging.getLogger(__name__)

HUB_REPO = "stellalisy/prefq-bench"
Variant = Literal["1k", "5k"]
VARIANT_FILES: dict[str, str] = {"1k": "benchmark_1k/{source}/train.jsonl",
                                 "5k": "benchmark_5k/{source}/full.jsonl"}  # fmt: skip
FIVE_K_SOURCES = ("aime", "commonsenseqa", "medqa", "socialiqa")
WEIGHT_TOLERANCE = 0.05
"""The generator's own tolerance: a rubric whose weights sum further from 1 is counted."""
RUBRIC_LEVELS = (1, 3, 5)
LEVEL_SCORES = range(1, 6)
RECORD_TYPE = "personalized_problem"
REQUIRED = ("problem_id", "original_problem", "persona", "persona_preferences", "evaluation_rubric")
STRICT_NOTE = "(-T strict=true stops at a record that cannot be run)"
DEFAULT_SEED = 42
"""The reference evaluator's `random_seed` for drawing `max_problems` records."""

REPAIRS = (
    "weights_normalised",
    "weight_missing",
    "weights_all_zero",
    "levels_nonstandard",
    "level_unreadable",
    "justification_empty",
    "importance_missing",
    "criterion_repeated",
)
"""Repairs counted per source, each as the number of loaded records that needed it."""


class PrefDiscoDataError(InputError):
    """A record breaks the PrefDisco schema; the message names file, record and field."""


class _Unrunnable(Exception):
    """A record that cannot be run: skipped and counted under `reason`, or an error if strict."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


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
    """0-based index among the file's `personalized_problem` records (what the reference
    evaluator's seeded draw picks from)."""


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
            "file": self.path,
            "records": self.records,
            "loaded": self.loaded,
            **{name: self.repairs[name] for name in REPAIRS},
            "skipped": dict(self.skipped),
        }

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


def check_source(source: str) -> str:
    """Raise a clear error for an unknown source name."""
    if source not in SOURCES:
        raise PrefDiscoDataError(f"unknown source {source!r}; use one of {', '.join(SOURCES)}")
    return source


# -- one record ------------------------------------------------------------------------------------


def _object(value: Any, where: str, name: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise PrefDiscoDataError(
            f"{where}, field '{name}': must be an object, got {type(value).__name__} {value!r:.60}"
        )
    return value


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _level_score(value: Any) -> int | None:
    """A level's score as an integer 1–5 (3, 3.0 and "3" alike), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return value if isinstance(value, int) and value in LEVEL_SCORES else None


def _levels(raw: Any, here: str, repairs: set[str]) -> dict[int, str]:
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise PrefDiscoDataError(f"{here}, field 'levels': must be a list")
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


def _weight(value: Any, here: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PrefDiscoDataError(f"{here}, field 'weight': must be a non-negative number")
    if not math.isfinite(value) or value < 0:
        raise PrefDiscoDataError(f"{here}, field 'weight': must be a non-negative number")
    return float(value)


def _criteria(
    rubric: Any, preferences: Mapping[str, Any], where: str, repairs: set[str]
) -> tuple[Criterion, ...]:
    name = "evaluation_rubric.evaluation_criteria"
    raw = _object(rubric, where, "evaluation_rubric").get("evaluation_criteria") if rubric else None
    if raw is None or raw == []:
        raise _Unrunnable("no rubric", f"{where}, field '{name}': missing or empty rubric")
    if not isinstance(raw, list):
        raise PrefDiscoDataError(f"{where}, field '{name}': must be a list of criteria")
    entries: list[tuple[str, str, float | None, dict[int, str]]] = []
    for index, entry in enumerate(raw):
        here = f"{where}, field '{name}'[{index}]"
        if not isinstance(entry, Mapping) or not isinstance(entry.get("preference"), str):
            raise PrefDiscoDataError(f"{here}: a criterion needs a 'preference' name")
        preference = entry["preference"]
        if preference not in preferences:
            raise _Unrunnable(
                "criterion without a preference entry",
                f"{here}: preference {preference!r} has no entry in 'persona_preferences'",
            )
        if _blank(preferences[preference].get("value")):
            raise _Unrunnable(
                "preference without a value",
                f"{where}, field 'persona_preferences'[{preference!r}], field 'value': missing "
                "(the grader needs the preferred value)",
            )
        if any(seen == preference for seen, *_ in entries):
            repairs.add("criterion_repeated")
            continue
        weight = _weight(entry.get("weight"), here)
        levels = _levels(entry.get("levels"), here, repairs)
        entries.append((preference, str(entry.get("description", "")), weight, levels))
    return _weighted(entries, repairs)


def _weighted(
    entries: Sequence[tuple[str, str, float | None, dict[int, str]]], repairs: set[str]
) -> tuple[Criterion, ...]:
    """Weights as the reference uses them (1/n when missing), normalised to sum to 1."""
    if any(weight is None for _, _, weight, _ in entries):
        repairs.add("weight_missing")
    weights = [1 / len(entries) if weight is None else weight for _, _, weight, _ in entries]
    total = sum(weights)
    if total == 0:
        repairs.add("weights_all_zero")
        weights, total = [1.0] * len(entries), float(len(entries))
    elif abs(total - 1.0) > WEIGHT_TOLERANCE:
        repairs.add("weights_normalised")
    return tuple(
        Criterion(preference, description, weight / total, levels)
        for (preference, description, _, levels), weight in zip(entries, weights, strict=True)
    )


def _preferences(raw: Any, where: str, repairs: set[str]) -> dict[str, dict[str, Any]]:
    if raw is None:
        return {}
    entries = _object(raw, where, "persona_preferences")
    for name, entry in entries.items():
        here = f"{where}, field 'persona_preferences'[{name!r}]"
        if not isinstance(entry, Mapping):
            raise PrefDiscoDataError(f"{here}: must be an object, got {type(entry).__name__}")
        if _blank(entry.get("justification")):
            repairs.add("justification_empty")
        if entry.get("local_importance") is None:
            repairs.add("importance_missing")
    return {str(name): dict(entry) for name, entry in entries.items()}


def _problem(source: str, row: Any, where: str) -> Problem:
    """The source row read and checked: a question, options where needed, a usable gold."""
    here = f"{where}, field 'original_problem"
    fields = SOURCE_FIELDS[source]
    try:
        problem = normalise_problem(source, _object(row, where, "original_problem"))
    except SourceRowError as error:
        raise PrefDiscoDataError(f"{here}.{error.field}': {error}") from error
    if not problem.question.strip():
        raise _Unrunnable(
            "no problem text",
            f"{here}.{fields.question}': missing or empty (no problem text: none of query, "
            f"question, problem, Question, prompt holds text)",
        )
    if SOURCE_ANSWER_KIND[source] == "choice" and not problem.options:
        raise _Unrunnable(
            "no options",
            f"{here}.{fields.options}': missing or empty ({source} is multiple choice)",
        )
    if problem.answer is None:
        if source in NO_GOLD_SOURCES:
            return problem
        raise _Unrunnable("no gold answer", f"{here}.{fields.answer}': no gold answer")
    if problem.options:
        labels = {label.upper(): label for label in problem.options}
        label = labels.get(problem.answer.upper())
        if label is None:
            raise _Unrunnable(
                "gold answer not among the options",
                f"{here}.{fields.answer}': gold answer {problem.answer!r} is not one of the "
                f"options {', '.join(problem.options)}",
            )
        return Problem(problem.question, problem.options, label, problem.kind)
    return problem


def parse_record(
    record: Any, source: str, where: str, position: int = 0, repairs: set[str] | None = None
) -> PrefDiscoRecord | None:
    """Validate and repair one line; None for the optional metadata line.

    Raises:
        PrefDiscoDataError: the line breaks the release's schema (see the module docstring).
        _Unrunnable: the record is in the schema but cannot be run.
    """
    repairs = set() if repairs is None else repairs
    if not isinstance(record, Mapping):
        raise PrefDiscoDataError(f"{where}: a record must be a JSON object")
    if record.get("type") == "metadata":
        return None
    if record.get("type") != RECORD_TYPE:
        raise PrefDiscoDataError(f"{where}, field 'type': expected {RECORD_TYPE!r}")
    for key in REQUIRED:
        if key not in record:
            raise PrefDiscoDataError(f"{where}, field '{key}': missing")
    if _blank(record["problem_id"]) or not isinstance(record["problem_id"], str | int):
        raise PrefDiscoDataError(f"{where}, field 'problem_id': must be a non-empty string")
    where = f"{where} (problem_id {record['problem_id']!r})"
    persona = _object(record["persona"], where, "persona")
    preferences = _preferences(record["persona_preferences"], where, repairs)
    problem = _problem(source, record["original_problem"], where)
    criteria = _criteria(record["evaluation_rubric"], preferences, where, repairs)
    return PrefDiscoRecord(
        problem_id=str(record["problem_id"]),
        source=source,
        problem=problem,
        persona=dict(persona),
        preferences=preferences,
        criteria=criteria,
        position=position,
    )


def parse_records(
    lines: Iterable[tuple[str, Any]], source: str, path: str = "", strict: bool = False
) -> tuple[list[PrefDiscoRecord], LoadReport]:
    """Validate `(where, record)` pairs of one source: records, and what was repaired/skipped.

    Raises:
        PrefDiscoDataError: a schema error, a repeated problem id, no record left to run, or
            (with `strict`) the first record that cannot be run.
    """
    check_source(source)
    report = LoadReport(source, path)

    def parsed() -> Iterator[tuple[str, PrefDiscoRecord]]:
        for where, raw in lines:
            is_record = isinstance(raw, Mapping) and raw.get("type") != "metadata"
            repairs: set[str] = set()
            try:
                record = parse_record(raw, source, where, report.records, repairs)
            except _Unrunnable as skip:
                if strict:
                    raise PrefDiscoDataError(f"{skip} {STRICT_NOTE}") from None
                report.records += 1
                report.skipped[skip.reason] += 1
                report.first_skip = report.first_skip or str(skip)
                continue
            report.records += int(is_record)
            if record is not None:
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
    if variant == "5k" and source not in FIVE_K_SOURCES:
        raise PrefDiscoDataError(
            f"the 5k variant covers only {', '.join(FIVE_K_SOURCES)}; got {source!r}"
        )
    return VARIANT_FILES[variant].format(source=source)


def source_path(
    source: str,
    variant: Variant = "1k",
    data: str | Path | None = None,
    revision: str | None = None,
) -> Path:
    """Where one source's records are: the shipped sample, a file, a release folder or the hub."""
    relative = release_path(source, variant)
    if data is None:
        return shipped_data_dir("prefdisco") / relative
    if str(data) == "hub":
        return _download(relative, revision)
    path = Path(data)
    return path / relative if path.is_dir() else path


def read_source(
    source: str,
    variant: Variant = "1k",
    data: str | Path | None = None,
    revision: str | None = None,
    strict: bool = False,
) -> tuple[list[PrefDiscoRecord], LoadReport]:
    """Load one source's records with the report of what was repaired and skipped.

    Args:
        source: one of `SOURCES`.
        variant: "1k" or "5k" (the public release's two sizes).
        data: None for the shipped offline sample; a JSONL file; a folder laid out like the
            release (`benchmark_1k/<source>/train.jsonl`); or "hub" to download the release.
        revision: the hub commit to pin; required with data="hub".
        strict: stop with an error at the first record that cannot be run, instead of
            skipping it.
    """
    path = source_path(source, variant, data, revision)
    lines = jsonl_records(path, PrefDiscoDataError)
    pairs = ((where, record) for _, where, record in lines)
    return parse_records(pairs, source, str(path), strict)


def load_records(
    source: str,
    variant: Variant = "1k",
    data: str | Path | None = None,
    revision: str | None = None,
    strict: bool = False,
) -> list[PrefDiscoRecord]:
    """Load one source's records (see `read_source`; repairs and skips are logged)."""
    records, report = read_source(source, variant, data, revision, strict)
    if not report.clean:
        logger.warning(report.message())
    return records


def _download(relative: str, revision: str | None) -> Path:
    if not revision:
        raise PrefDiscoDataError(
            f"downloading {HUB_REPO} needs a pinned revision (-T revision=<commit sha>)"
        )
    from huggingface_hub import hf_hub_download  # noqa: PLC0415 (lazy: hub users only)

    return Path(hf_hub_download(HUB_REPO, relative, repo_type="dataset", revision=revision))


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


# -- the reference's seeded draw -------------------------------------------------------------------


def draw_records(
    records: Sequence[PrefDiscoRecord], population: int, count: int, seed: int = DEFAULT_SEED
) -> list[PrefDiscoRecord]:
    """The records the reference evaluator draws with `max_problems=count`, in its order.

    The reference runs `random.seed(seed); random.sample(problems, count)` over every
    `personalized_problem` record of the file (records, not distinct problems: a problem's
    persona variants are drawn independently). The draw here picks the same file positions;
    a drawn record that was skipped as unrunnable leaves the subset one short.

    Args:
        records: the loaded records of one source (`position` set).
        population: the file's `personalized_problem` records (`LoadReport.records`).
        count: how many to draw (all of them, shuffled, when it exceeds the population).
        seed: the reference's `random_seed` (42 by default).
    """
    by_position = {record.position: record for record in records}
    drawn = random.Random(seed).sample(range(population), min(count, population))
    return [by_position[position] for position in drawn if position in by_position]
