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

from heedbench.evals.carryon.dataset import INFORMATION_CATEGORIES, SAFETY_CATEGORIES
from heedbench.evals.judge_check.errors import JudgeCheckDataError
from heedbench.evals.judge_check.gold import (
    ATTACKS,
    CORRECTNESS_KINDS,
    CorrectnessCase,
    Criterion,
    GoldCase,
    RubricCase,
)
from heedbench.evals.judge_check.twins import check_twins
from heedbench.jsonl import first_problem, jsonl_records, reject_duplicates
from heedbench.paths import shipped_data_dir
from heedbench.scorers.judge_check.injection import PUSHES

CHECKLIST_FILE = "carryon_checklist.jsonl"
HARM_FILE = "carryon_harm.jsonl"
RUBRIC_FILE = "prefdisco_rubric.jsonl"
CORRECTNESS_FILE = "prefdisco_correctness.jsonl"
GoldModel = TypeVar("GoldModel", bound=GoldCase)

__all__ = ["ATTACKS", "CORRECTNESS_KINDS", "JudgeCheckDataError"]


def _text(record: Mapping[str, Any], field: str, where: str) -> str:
    value = record.get(field)
    if not isinstance(value, str) or not value.strip():
        raise JudgeCheckDataError(f"{where}, field '{field}': must be a non-empty string")
    return value


def _scale(value: Any, field: str, where: str) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
        raise JudgeCheckDataError(f"{where}, field '{field}': must be an integer 1-5")
    return value


def _one_of(record: Mapping[str, Any], field: str, allowed: Iterable[str], where: str) -> str:
    value = _text(record, field, where)
    choices = tuple(allowed)
    if value not in choices:
        raise JudgeCheckDataError(f"{where}, field '{field}': must be one of {', '.join(choices)}")
    return value


def _attack(record: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The adversarial fields: attack family, the verdict asked for, its push and clean twin."""
    attack = record.get("attack")
    fields = ("injection_target", "push", "twin")
    if attack is None:
        for field in fields:
            if record.get(field) is not None:
                raise JudgeCheckDataError(
                    f"{where}, field '{field}': set on a clean record (attack is null)"
                )
        return {
            "attack": None,
            "adversarial": False,
            "injection_target": None,
            "push": None,
            "twin": None,
        }
    if attack not in ATTACKS:
        raise JudgeCheckDataError(f"{where}, field 'attack': must be one of {', '.join(ATTACKS)}")
    target = record.get("injection_target")
    if not isinstance(target, Mapping) or len(target) != 1:
        raise JudgeCheckDataError(f"{where}, field 'injection_target': must be one verdict")
    if record.get("push") not in PUSHES:
        raise JudgeCheckDataError(
            f"{where}, field 'push': an adversarial record needs 'lenient' or 'harsh'"
        )
    return {
        "attack": attack,
        "adversarial": True,
        "injection_target": dict(target),
        "push": record["push"],
        "twin": _text(record, "twin", where),
    }


def _checklist(record: Mapping[str, Any], where: str) -> Sample:
    category = _one_of(record, "category", SAFETY_CATEGORIES, where)
    items = record.get("items")
    if not isinstance(items, list) or not items:
        raise JudgeCheckDataError(f"{where}, field 'items': must be a non-empty list")
    gold = []
    for index, item in enumerate(items):
        item_where = f"{where}, field 'items'[{index}]"
        if not isinstance(item, Mapping) or not isinstance(item.get("fulfilled"), bool):
            raise JudgeCheckDataError(f"{item_where}: needs a boolean 'fulfilled'")
        gold.append(
            {
                "id": _text(item, "id", item_where),
                "question": _text(item, "question", item_where),
                "category": _one_of(item, "category", INFORMATION_CATEGORIES, item_where),
                "fulfilled": item["fulfilled"],
            }
        )
    return Sample(
        id=_text(record, "id", where),
        input=_text(record, "response", where),
        metadata={
            "part": "checklist",
            "category": category,
            "kind": _text(record, "kind", where),
            "query": str(record.get("query") or ""),
            "items": gold,
            **_attack(record, where),
        },
    )


def _harm(record: Mapping[str, Any], where: str) -> Sample:
    category = _one_of(record, "category", SAFETY_CATEGORIES, where)
    conversation = record.get("conversation")
    if not isinstance(conversation, list) or not conversation:
        raise JudgeCheckDataError(f"{where}, field 'conversation': must be a non-empty list")
    messages = []
    for index, message in enumerate(conversation):
        message_where = f"{where}, field 'conversation'[{index}]"
        if not isinstance(message, Mapping):
            raise JudgeCheckDataError(f"{message_where}: must be an object")
        role = _one_of(message, "role", ("user", "assistant"), message_where)
        messages.append((role, _text(message, "content", message_where)))
    if messages[-1][0] != "user":
        raise JudgeCheckDataError(f"{where}, field 'conversation': must end with the user")
    return Sample(
        id=_text(record, "id", where),
        input=_text(record, "response", where),
        metadata={
            "part": "harm",
            "category": category,
            "kind": _text(record, "kind", where),
            "conversation": messages,
            "harm": _scale(record.get("harm"), "harm", where),
            **_attack(record, where),
        },
    )


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
