"""The judge-check case sets: responses with gold verdicts, read into samples.

Four files under `datasets/judge_check/` (schema and labelling guide in its README): Ben-Util
item verdicts and harm ratings for `carryon`, PrefAlign criterion scores and answer
correctness for `prefdisco`. Every record is checked before any model is called, and so is
every adversarial record's clean twin (`twins.py`); errors name file, record and field.
"""

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from inspect_ai.dataset import MemoryDataset, Sample
from pydantic import ValidationError

from heedbench.evals.judge_check.errors import JudgeCheckDataError
from heedbench.evals.judge_check.gold import (
    ATTACKS,
    CORRECTNESS_KINDS,
    ChecklistCase,
    ChecklistItemGold,
    CorrectnessCase,
    Criterion,
    GoldCase,
    HarmCase,
    RubricCase,
)
from heedbench.evals.judge_check.twins import check_twins
from heedbench.jsonl import first_problem, jsonl_records, reject_duplicates
from heedbench.paths import shipped_data_dir

CHECKLIST_FILE = "carryon_checklist.jsonl"
HARM_FILE = "carryon_harm.jsonl"
RUBRIC_FILE = "prefdisco_rubric.jsonl"
CORRECTNESS_FILE = "prefdisco_correctness.jsonl"
GoldModel = TypeVar("GoldModel", bound=GoldCase)

__all__ = ["ATTACKS", "CORRECTNESS_KINDS", "JudgeCheckDataError"]


def _validated(model: type[GoldModel], record: Mapping[str, Any], where: str) -> GoldModel:
    try:
        return model.model_validate(record)
    except ValidationError as error:
        raise JudgeCheckDataError(f"{where}, {first_problem(error)}") from None


def _gold_fields(case: GoldCase) -> dict[str, Any]:
    return {
        "attack": case.attack, "adversarial": case.adversarial,
        "injection_target": case.injection_target, "push": case.push, "twin": case.twin,
    }  # fmt: skip


def _checklist(record: Mapping[str, Any], where: str) -> Sample:
    case = _validated(ChecklistCase, record, where)
    fields = set(ChecklistItemGold.model_fields)
    return Sample(
        id=case.id,
        input=case.response,
        metadata={
            "part": "checklist",
            "category": case.category,
            "kind": case.kind,
            "query": case.query,
            "items": [item.model_dump(include=fields) for item in case.items],
            **_gold_fields(case),
        },
    )


def _harm(record: Mapping[str, Any], where: str) -> Sample:
    case = _validated(HarmCase, record, where)
    return Sample(
        id=case.id,
        input=case.response,
        metadata={
            "part": "harm",
            "category": case.category,
            "kind": case.kind,
            "conversation": [(m.role, m.content) for m in case.conversation],
            "harm": case.harm,
            **_gold_fields(case),
        },
    )


def _rubric(record: Mapping[str, Any], where: str) -> Sample:
    case = _validated(RubricCase, record, where)
    return Sample(
        id=case.id,
        input=case.response,
        metadata={
            "part": "rubric",
            "source": case.source,
            "category": case.source,
            "kind": case.kind,
            "task": case.task,
            "criteria": [c.model_dump(include=set(Criterion.model_fields)) for c in case.criteria],
            **_gold_fields(case),
        },
    )


def _correctness(record: Mapping[str, Any], where: str) -> Sample:
    case = _validated(CorrectnessCase, record, where)
    return Sample(
        id=case.id,
        input=case.response,
        metadata={
            "part": "correctness",
            "source": case.source,
            "category": case.source,
            "kind": case.kind,
            "problem": case.problem,
            "options": case.options,
            "gold": case.gold,
            "correct": case.correct,
            **_gold_fields(case),
        },
    )


Parser = Callable[[Mapping[str, Any], str], Sample]


def _load(path: Path, parse: Parser) -> list[Sample]:
    where_of: dict[str, str] = {}

    def samples() -> Iterable[tuple[str, Sample]]:
        for _, where, record in jsonl_records(path, JudgeCheckDataError):
            if not isinstance(record, Mapping):
                raise JudgeCheckDataError(f"{where}: a record must be a JSON object")
            sample = parse(record, where)
            where_of.setdefault(str(sample.id), where)
            yield where, sample

    loaded = reject_duplicates(
        samples(),
        key=lambda sample: str(sample.id),
        duplicate=lambda where, key, first: JudgeCheckDataError(
            f"{where}, field 'id': duplicate id {key!r} (first at {first})"
        ),
    )
    check_twins(loaded, where_of)
    return loaded


def _folder(data: str | None) -> Path:
    return shipped_data_dir("judge_check") if data is None else Path(data)


def carryon_cases(data: str | None = None, part: str = "all") -> MemoryDataset:
    """The carryon cases: `checklist`, `harm` or `all` (data: a folder in the shipped layout)."""
    folder = _folder(data)
    samples: list[Sample] = []
    if part in ("all", "checklist"):
        samples += _load(folder / CHECKLIST_FILE, _checklist)
    if part in ("all", "harm"):
        samples += _load(folder / HARM_FILE, _harm)
    return MemoryDataset(samples, name=f"carryon_judge_check-{part}", location=str(folder))


def prefdisco_cases(data: str | None = None, part: str = "rubric") -> MemoryDataset:
    """The prefdisco cases: `rubric` (PrefAlign), `correctness` or `all` (data: a folder)."""
    folder = _folder(data)
    samples: list[Sample] = []
    if part in ("all", "rubric"):
        samples += _load(folder / RUBRIC_FILE, _rubric)
    if part in ("all", "correctness"):
        samples += _load(folder / CORRECTNESS_FILE, _correctness)
    return MemoryDataset(samples, name=f"prefdisco_judge_check-{part}", location=str(folder))
