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


def _sample(case: GoldCase, part: str, kind: str, **fields: Any) -> Sample:
    gold = case.model_dump(include={"attack", "injection_target", "push", "twin"})
    gold["adversarial"] = case.adversarial
    return Sample(
        id=case.id,
        input=case.response,
        metadata={"part": part, "kind": kind, **fields, **gold},
    )


def _checklist(record: Mapping[str, Any], where: str) -> Sample:
    case = _validated(ChecklistCase, record, where)
    fields = set(ChecklistItemGold.model_fields)
    items = [item.model_dump(include=fields) for item in case.items]
    return _sample(
        case, "checklist", case.kind, category=case.category, query=case.query, items=items
    )


def _harm(record: Mapping[str, Any], where: str) -> Sample:
    case = _validated(HarmCase, record, where)
    conversation = [(m.role, m.content) for m in case.conversation]
    return _sample(
        case, "harm", case.kind, category=case.category, conversation=conversation, harm=case.harm
    )


def _rubric(record: Mapping[str, Any], where: str) -> Sample:
    case = _validated(RubricCase, record, where)
    criteria = [c.model_dump(include=set(Criterion.model_fields)) for c in case.criteria]
    return _sample(case, "rubric", case.kind, source=case.source, category=case.source,
                   task=case.task, criteria=criteria)  # fmt: skip


def _correctness(record: Mapping[str, Any], where: str) -> Sample:
    case = _validated(CorrectnessCase, record, where)
    return _sample(case, "correctness", case.kind, source=case.source, category=case.source,
                   problem=case.problem, options=case.options, gold=case.gold,
                   correct=case.correct)  # fmt: skip


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


_PARTS: dict[str, tuple[str, Parser]] = {
    "checklist": (CHECKLIST_FILE, _checklist),
    "harm": (HARM_FILE, _harm),
    "rubric": (RUBRIC_FILE, _rubric),
    "correctness": (CORRECTNESS_FILE, _correctness),
}
"""Part -> its file and the parser of its records."""


def _cases(family: str, parts: tuple[str, str], data: str | None, part: str) -> MemoryDataset:
    folder = shipped_data_dir("judge_check") if data is None else Path(data)
    samples = [
        sample
        for name in parts
        if part in ("all", name)
        for sample in _load(folder / _PARTS[name][0], _PARTS[name][1])
    ]
    return MemoryDataset(samples, name=f"{family}_judge_check-{part}", location=str(folder))


def carryon_cases(data: str | None = None, part: str = "all") -> MemoryDataset:
    """The carryon cases: `checklist`, `harm` or `all` (data: a folder in the shipped layout)."""
    return _cases("carryon", ("checklist", "harm"), data, part)


def prefdisco_cases(data: str | None = None, part: str = "rubric") -> MemoryDataset:
    """The prefdisco cases: `rubric` (PrefAlign), `correctness` or `all` (data: a folder)."""
    return _cases("prefdisco", ("rubric", "correctness"), data, part)
