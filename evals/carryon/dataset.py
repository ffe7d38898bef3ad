"""CarryOnBench queries: shipped data, your own JSONL, or a hub dataset at a pinned revision.

Every record is validated (one pydantic model) before any model is called; errors name file,
record and field in one line.
"""

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, BeforeValidator, Field, ValidationError
from pydantic.dataclasses import dataclass
from pydantic_core import PydanticCustomError

from heedbench.errors import InputError
from heedbench.jsonl import jsonl_records, reject_duplicates
from heedbench.paths import shipped_data_dir
from heedbench.solvers.carryon.categories import InformationCategory, SafetyCategory

QUERIES_FILE = "queries.jsonl"
SAFETY_CATEGORIES: tuple[str, ...] = get_args(SafetyCategory)
INFORMATION_CATEGORIES: tuple[str, ...] = get_args(InformationCategory)
CRITERIA = ("looks_harmful", "intent_fits", "checklist")
"""The three review criteria, each graded 1-5 (data card, "Review")."""
ReviewBasis = Literal["adjudicated", "author_check"]
RETIRED_FIELDS = ("looks_harmful", "intent_fits", "review_note")
"""Dataset 1.x's boolean review fields, replaced by `review` in 2.0."""


class CarryOnDataError(InputError):
    """A record breaks the CarryOnBench schema; the message names file, record and field."""


def _text(value: Any) -> Any:
    if value is not None and not isinstance(value, str):
        raise PydanticCustomError("text", f"must be a string, got {type(value).__name__}")
    if value is None or not value.strip():
        raise PydanticCustomError("text", "missing or empty")
    return value.strip()


def _one_line(value: str) -> str:
    if "\n" in value:
        raise PydanticCustomError("one_line", "must be a one-line, non-empty string")
    return value


Text = Annotated[str, BeforeValidator(_text)]
Score = Annotated[int, Field(strict=True, ge=1, le=5)]


@dataclass(frozen=True)
class ChecklistItem:
    """One Ben-Util item: a yes/no question about the response, with its information kind."""

    id: Text
    question: Text
    category: Annotated[Text, AfterValidator(lambda c: _member(c, INFORMATION_CATEGORIES))]


@dataclass(frozen=True)
class Grade:
    """One criterion's 1-5 score with the reviewer's one-line reason."""

    score: Score
    note: Annotated[Text, AfterValidator(_one_line)]


@dataclass(frozen=True)
class QueryReview:
    """A record's graded review of the three criteria, and whose grades they are.

    The criteria: (i) the query looks harmful, (ii) the intent fits it, (iii) the checklist
    rewards only real help. `basis` is `adjudicated` (the latest blind review round that saw
    the record as it is) or `author_check` (the author's own grades of a record changed after
    that round, until the next one).
    """

    looks_harmful: Grade
    intent_fits: Grade
    checklist: Grade
    basis: ReviewBasis
    round: Annotated[int, Field(strict=True, ge=1)] | None = None
    """The blind-review round the grades come from (`adjudicated`) or answer (`author_check`:
    the record was changed after that round); None when unrecorded."""

    def grades(self) -> dict[str, Grade]:
        """The three grades by criterion name."""
        return {name: getattr(self, name) for name in CRITERIA}

    def weak(self, threshold: int = 3) -> bool:
        """True when any criterion scores `threshold` or less (the issue's 'weak')."""
        return any(grade.score <= threshold for grade in self.grades().values())


def _member(value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise PydanticCustomError(
            "member", f"unknown category {value!r}; use one of {', '.join(allowed)}"
        )
    return value


def _unique_items(items: tuple[ChecklistItem, ...]) -> tuple[ChecklistItem, ...]:
    ids = [item.id for item in items]
    for index, item_id in enumerate(ids):
        if item_id in ids[:index]:
            raise PydanticCustomError(
                "duplicate", f"duplicate item id {item_id!r} (item [{index}])"
            )
    return items


@dataclass(frozen=True)
class CarryOnQuery:
    """A seemingly harmful query, its hidden benign intent and its Ben-Util checklist."""

    id: Text
    category: Annotated[Text, AfterValidator(lambda c: _member(c, SAFETY_CATEGORIES))]
    query: Text
    intent: Text
    checklist: Annotated[
        tuple[ChecklistItem, ...], Field(min_length=1), AfterValidator(_unique_items)
    ]
    subcategory: Annotated[str, BeforeValidator(lambda v: str(v or ""))] = ""
    review: QueryReview | None = None
    """The graded review (None: not reviewed)."""


def review_record(review: QueryReview) -> dict[str, Any]:
    """A review in the JSONL schema (the inverse of the loader's parsing)."""
    grades: dict[str, Any] = {
        name: {"score": grade.score, "note": grade.note} for name, grade in review.grades().items()
    }
    extra: dict[str, Any] = {"round": review.round} if review.round is not None else {}
    return grades | {"basis": review.basis} | extra


def parse_query(record: Any, where: str) -> CarryOnQuery:
    """Validate one record (a JSON object) and build the query."""
    if not isinstance(record, dict):
        raise CarryOnDataError(f"{where}: a record must be a JSON object")
    if isinstance(record.get("id"), str) and record["id"].strip():
        where = f"{where} (id {record['id'].strip()!r})"
    for retired in RETIRED_FIELDS:
        if record.get(retired) not in (None, ""):
            raise CarryOnDataError(
                f"{where}, field '{retired}': the boolean review fields were replaced by "
                "'review' (1-5 grades per criterion) in dataset 2.0; drop or convert them"
            )
    try:
        return CarryOnQuery(**{k: v for k, v in record.items() if k in _FIELDS})
    except ValidationError as problem:
        detail = problem.errors()[0]
        field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in detail["loc"])
        got = "" if detail["type"] in _OWN_ERRORS else f", got {detail['input']!r}"
        named = f", field '{field[1:]}'" if field else ""
        raise CarryOnDataError(f"{where}{named}: {detail['msg']}{got}") from None


_FIELDS = set(CarryOnQuery.__dataclass_fields__)
_OWN_ERRORS = {"text", "one_line", "member", "duplicate", "missing"}


def parse_queries(records: Iterable[tuple[str, Any]]) -> list[CarryOnQuery]:
    """Validate `(where, record)` pairs and reject duplicate query ids."""
    queries = reject_duplicates(
        ((where, parse_query(record, where)) for where, record in records),
        key=lambda query: query.id,
        duplicate=lambda where, key, first: CarryOnDataError(
            f"{where} (id {key!r}), field 'id': duplicate query id {key!r} (first at {first})"
        ),
    )
    if not queries:
        raise CarryOnDataError("no CarryOnBench records found")
    return queries


def _hub_records(dataset_id: str, revision: str | None, split: str) -> Iterable[tuple[str, Any]]:
    if not revision:
        raise CarryOnDataError(
            f"hub dataset {dataset_id!r} needs a pinned revision (-T revision=<commit sha>) "
            "so that runs are reproducible"
        )
    from datasets import load_dataset  # noqa: PLC0415 (lazy: only hub users pay for it)

    rows = load_dataset(dataset_id, revision=revision, split=split)
    for index, row in enumerate(rows):
        yield f"{dataset_id}@{revision}[{split}]: record {index + 1}", row


HUB_PREFIX = "hf:"


def load_queries(
    data: str | Path | None = None, revision: str | None = None, split: str = "train"
) -> list[CarryOnQuery]:
    """Load and validate CarryOnBench queries.

    Args:
        data: None for the shipped data; a path to a JSONL file in the same schema; or
            `hf:<owner>/<name>` for a hub dataset (then `revision` is required).
        revision: the hub revision (commit sha or tag) to pin.
        split: the hub split.
    """
    if isinstance(data, str) and data.startswith(HUB_PREFIX):
        return parse_queries(_hub_records(data.removeprefix(HUB_PREFIX), revision, split))
    path = shipped_data_dir("carryon") / QUERIES_FILE if data is None else Path(data)
    return parse_queries((where, rec) for _, where, rec in jsonl_records(path, CarryOnDataError))
