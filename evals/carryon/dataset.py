"""CarryOnBench queries: shipped data, your own JSONL, or a hub dataset at a pinned revision.

Every record is validated before any model is called; errors name file, record and field.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast, get_args

from heedbench.errors import InputError
from heedbench.jsonl import jsonl_records, reject_duplicates
from heedbench.paths import shipped_data_dir
from heedbench.solvers.carryon.categories import InformationCategory, SafetyCategory

QUERIES_FILE = "queries.jsonl"
SAFETY_CATEGORIES: tuple[str, ...] = get_args(SafetyCategory)
INFORMATION_CATEGORIES: tuple[str, ...] = get_args(InformationCategory)
MIN_ITEMS = 1
CRITERIA = ("looks_harmful", "intent_fits", "checklist")
"""The three review criteria, each graded 1-5 (data card, "Review")."""
ReviewBasis = Literal["adjudicated", "author_check"]
REVIEW_BASES: tuple[str, ...] = get_args(ReviewBasis)
RETIRED_FIELDS = ("looks_harmful", "intent_fits", "review_note")
"""Dataset 1.x's boolean review fields, replaced by `review` in 2.0."""


class CarryOnDataError(InputError):
    """A record breaks the CarryOnBench schema; the message names file, record and field."""


@dataclass(frozen=True)
class ChecklistItem:
    """One Ben-Util item: a yes/no question about the response, with its information kind."""

    id: str
    question: str
    category: str


@dataclass(frozen=True)
class Grade:
    """One criterion's 1-5 score with the reviewer's one-line reason."""

    score: int
    note: str


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
    round: int | None = None
    """The blind-review round the grades come from (`adjudicated`) or answer (`author_check`:
    the record was changed after that round); None when unrecorded."""

    def grades(self) -> dict[str, Grade]:
        """The three grades by criterion name."""
        return {name: getattr(self, name) for name in CRITERIA}

    def weak(self, threshold: int = 3) -> bool:
        """True when any criterion scores `threshold` or less (the issue's 'weak')."""
        return any(grade.score <= threshold for grade in self.grades().values())


@dataclass(frozen=True)
class CarryOnQuery:
    """A seemingly harmful query, its hidden benign intent and its Ben-Util checklist."""

    id: str
    category: str
    query: str
    intent: str
    checklist: tuple[ChecklistItem, ...]
    subcategory: str = ""
    review: QueryReview | None = None
    """The graded review (None: not reviewed)."""


def _text(record: Mapping[str, Any], field: str, where: str) -> str:
    value = record.get(field)
    if value is not None and not isinstance(value, str):
        raise CarryOnDataError(
            f"{where}, field '{field}': must be a string, got {type(value).__name__}"
        )
    if value is None or not value.strip():
        raise CarryOnDataError(f"{where}, field '{field}': missing or empty")
    return value.strip()


def _grade(value: Any, where: str) -> Grade:
    if not isinstance(value, Mapping):
        raise CarryOnDataError(f"{where}: must be an object with 'score' and 'note'")
    score = value.get("score")
    if isinstance(score, bool) or not isinstance(score, int) or not 1 <= score <= 5:
        raise CarryOnDataError(f"{where}, field 'score': must be an integer 1-5, got {score!r}")
    note = value.get("note")
    if not isinstance(note, str) or not note.strip() or "\n" in note:
        raise CarryOnDataError(f"{where}, field 'note': must be a one-line, non-empty string")
    return Grade(score, note.strip())


def _review(record: Mapping[str, Any], where: str) -> QueryReview | None:
    for retired in RETIRED_FIELDS:
        if record.get(retired) not in (None, ""):
            raise CarryOnDataError(
                f"{where}, field '{retired}': the boolean review fields were replaced by "
                "'review' (1-5 grades per criterion) in dataset 2.0; drop or convert them"
            )
    value = record.get("review")
    if value is None:
        return None
    where = f"{where}, field 'review'"
    if not isinstance(value, Mapping):
        raise CarryOnDataError(f"{where}: must be a JSON object")
    basis = value.get("basis")
    if basis not in REVIEW_BASES:
        raise CarryOnDataError(
            f"{where}, field 'basis': must be one of {', '.join(REVIEW_BASES)}, got {basis!r}"
        )
    grades = {name: _grade(value.get(name), f"{where}, field '{name}'") for name in CRITERIA}
    round_ = value.get("round")
    positive = isinstance(round_, int) and not isinstance(round_, bool) and round_ >= 1
    if round_ is not None and not positive:
        raise CarryOnDataError(
            f"{where}, field 'round': must be a positive integer (the review round), got {round_!r}"
        )
    return QueryReview(basis=cast(ReviewBasis, basis), round=round_, **grades)


def review_record(review: QueryReview) -> dict[str, Any]:
    """A review in the JSONL schema (the inverse of the loader's parsing)."""
    grades: dict[str, Any] = {
        name: {"score": grade.score, "note": grade.note} for name, grade in review.grades().items()
    }
    extra: dict[str, Any] = {"round": review.round} if review.round is not None else {}
    return grades | {"basis": review.basis} | extra


def parse_query(record: Any, where: str) -> CarryOnQuery:
    """Validate one record (a JSON object) and build the query."""
    if not isinstance(record, Mapping):
        raise CarryOnDataError(f"{where}: a record must be a JSON object")
    query_id = _text(record, "id", where)
    where = f"{where} (id {query_id!r})"
    category = _text(record, "category", where)
    if category not in SAFETY_CATEGORIES:
        raise CarryOnDataError(
            f"{where}, field 'category': unknown category {category!r}; "
            f"use one of {', '.join(SAFETY_CATEGORIES)}"
        )
    checklist = record.get("checklist")
    if not isinstance(checklist, list) or len(checklist) < MIN_ITEMS:
        raise CarryOnDataError(f"{where}, field 'checklist': must be a non-empty list of items")
    items: list[ChecklistItem] = []
    item_ids: set[str] = set()
    for index, item in enumerate(checklist):
        item_where = f"{where}, field 'checklist'[{index}]"
        if not isinstance(item, Mapping):
            raise CarryOnDataError(f"{item_where}: an item must be a JSON object")
        item_id = _text(item, "id", item_where)
        if item_id in item_ids:
            raise CarryOnDataError(f"{item_where}, field 'id': duplicate item id {item_id!r}")
        item_ids.add(item_id)
        item_category = _text(item, "category", item_where)
        if item_category not in INFORMATION_CATEGORIES:
            raise CarryOnDataError(
                f"{item_where}, field 'category': unknown information category "
                f"{item_category!r}; use one of {', '.join(INFORMATION_CATEGORIES)}"
            )
        items.append(ChecklistItem(item_id, _text(item, "question", item_where), item_category))
    return CarryOnQuery(
        id=query_id,
        category=category,
        query=_text(record, "query", where),
        intent=_text(record, "intent", where),
        checklist=tuple(items),
        subcategory=str(record.get("subcategory") or ""),
        review=_review(record, where),
    )


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


def _jsonl(path: Path) -> Iterable[tuple[str, Any]]:
    return ((where, record) for _, where, record in jsonl_records(path, CarryOnDataError))


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
    if data is None:
        return parse_queries(_jsonl(shipped_data_dir("carryon") / QUERIES_FILE))
    if isinstance(data, str) and data.startswith(HUB_PREFIX):
        return parse_queries(_hub_records(data.removeprefix(HUB_PREFIX), revision, split))
    return parse_queries(_jsonl(Path(data)))
