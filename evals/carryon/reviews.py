"""The blind reviews of the shipped queries, round by round: raw reviews, agreement, adjudication.

Rounds 1-5 graded dataset 2.x: round 1 all 200 records, each later round the records changed
after the one before. Rounds 6-8 graded the whole set of dataset 3.0.0's drafts, each with two
fresh reviewers; round 8's records that either reviewer graded 3 or lower, or that they graded
two or more points apart, went to a third, deciding reviewer. Round 9 is one deciding reviewer
on the records changed after round 8. `datasets/carryon/reviews/` keeps, per round, the raw
reviews as they were written (`review_a.jsonl`, `review_b.jsonl`; later rounds:
`round2_review_a.jsonl`, ...; a deciding reviewer's: `round8_decisions.jsonl`, ...), the
adjudication where one settled the grades (`adjudicated.jsonl`, `round2_adjudicated.jsonl`, ...:
per record the scores, the adjudicated score, the rule that gave it and what was then done to
the record; rounds 6 and 7 have none: every record either reviewer graded 3 or lower was
revised) and the ids changed after the round (`changed_ids.txt`, `round2_changed_ids.txt`, ...).
The final round (`FINAL_ROUND`) changed nothing and has no such file.

The adjudication rule (`combine`): equal scores stand; scores one point apart give the lower
one, the conservative reading; scores two or more apart are settled by reading the record
against the anchors and both notes, and the adjudicated score must lie between the two. Where a
deciding reviewer graded the record (rule `third`), its grade stands on every criterion.
"""

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Generic, Literal, TypeVar, get_args

from pydantic import (
    BaseModel,
    Field,
    StrictStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from heedbench.evals.carryon.dataset import CRITERIA, CarryOnDataError, CarryOnQuery, Grade, Text
from heedbench.jsonl import first_problem, jsonl_records
from heedbench.paths import shipped_data_dir
from heedbench.scorers.judge.agreement import observed_agreement, weighted_kappa, within_one

REVIEW_DIR = "reviews"
REVIEWERS = ("a", "b")
ROUNDS = (1, 2, 3, 4, 5, 6, 7, 8, 9)
"""The blind review rounds held in the review folder, oldest first."""
DATASET_2_ROUNDS = (1, 2, 3, 4, 5)
"""The rounds that graded dataset 2.x, whose text dataset 3.0.0 replaced."""
WHOLE_SET_ROUNDS = (6, 7, 8)
"""Rounds in which two fresh reviewers graded all records."""
PAIRED_ROUNDS = ROUNDS[:-1]
"""Rounds with two raw reviews (round 9 had one deciding reviewer)."""
ADJUDICATED_ROUNDS = (1, 2, 3, 4, 5, 8, 9)
"""Rounds whose grades were settled record by record (rounds 6 and 7 only sent records back)."""
DECIDED_ROUNDS = (8, 9)
"""Rounds with a deciding reviewer's file."""
FINAL_ROUND = ROUNDS[-1]
"""The last round: what it found weak was kept as it is (the data card lists those records with
the reviewers' reasons), so nothing changed after it and it has no changed-ids file."""
CHANGED_FILE = "changed_ids.txt"
ADJUDICATED_FILE = "adjudicated.jsonl"
DECISIONS_FILE = "decisions.jsonl"
SCORES = (1, 2, 3, 4, 5)
G = TypeVar("G")
M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
Rule = Literal["agreed", "lower", "adjudicated", "third"]
RULES: tuple[str, ...] = get_args(Rule)
Action = Literal["kept", "rewritten", "replaced"]
ACTIONS: tuple[str, ...] = get_args(Action)
REVIEWED_FIELDS = ("category", "subcategory", "query", "intent", "checklist")
"""What the reviewers saw of each record; its hash ties a review to the text it graded."""


class ReviewDataError(CarryOnDataError):
    """A review file breaks its schema; the message names file, record and field."""


Score = Annotated[int, Field(strict=True, ge=1, le=5)]


class _Graded(BaseModel):
    """A `{score, note}` object of a review file (other keys kept)."""

    score: Score
    note: Text
    weak_items: list[StrictStr] = []


class Decision(BaseModel, frozen=True):
    """One criterion of one record: both reviewers' scores and the adjudicated one.

    `a` and `b` are None where no two reviewers graded the text (round 9's deciding reviewer).
    Checked against the adjudication rule when read from a file.
    """

    a: Score | None = None
    b: Score | None = None
    rule: Rule
    note: Text
    score: Score

    @field_validator("rule")
    @classmethod
    def _rule_fits(cls, rule: Rule, info: ValidationInfo) -> Rule:
        a, b = info.data.get("a"), info.data.get("b")
        if rule == "third":
            return rule
        if a is None or b is None:
            raise PydanticCustomError("pair", "needs both scores 'a' and 'b' (or rule 'third')")
        if rule != rule_for(a, b):
            raise PydanticCustomError("rule", f"scores {a} and {b} call for {rule_for(a, b)!r}")
        return rule

    @field_validator("score")
    @classmethod
    def _score_fits(cls, score: int, info: ValidationInfo) -> int:
        a, b, rule = info.data.get("a"), info.data.get("b"), info.data.get("rule")
        if rule in (None, "third") or a is None or b is None:
            return score
        try:
            expected = combine(a, b, score)
        except ValueError as error:
            raise PydanticCustomError("combine", str(error)) from None
        if score != expected:
            raise PydanticCustomError("rule", f"rule {rule!r} gives {expected}, not {score}")
        return score


@dataclass(frozen=True)
class RawReview:
    """One reviewer's grades of one record, with the checklist items they found weak."""

    id: str
    grades: dict[str, Grade]
    weak_items: tuple[str, ...]


@dataclass(frozen=True)
class Adjudication:
    """One record's adjudicated review and what was done to the record afterwards."""

    id: str
    decisions: dict[str, Decision]
    reviewed_sha256: str
    action: Action
    after: dict[str, Grade] | None
    """The author's own grades of a changed record; None when the record was kept or a later
    round graded its new text."""

    def weak(self, threshold: int = 3) -> bool:
        """True when the adjudicated score of any criterion is `threshold` or less."""
        return any(d.score <= threshold for d in self.decisions.values())


def rule_for(a: int, b: int) -> Rule:
    """Which rule settles two scores: agreed, the lower of one-apart scores, or a reading."""
    gap = abs(a - b)
    return "agreed" if gap == 0 else "lower" if gap == 1 else "adjudicated"


def needs_third(first: RawReview, second: RawReview, threshold: int = 3) -> bool:
    """True when a record goes to the deciding reviewer (round 8's rule).

    That is: any grade of `threshold` or lower, or a criterion's two grades two or more apart.
    """
    return any(
        min(first.grades[n].score, second.grades[n].score) <= threshold
        or abs(first.grades[n].score - second.grades[n].score) >= 2
        for n in CRITERIA
    )


def settle(
    first: RawReview, second: RawReview | None, third: RawReview | None
) -> dict[str, Decision]:
    """A record's decisions from its raw reviews.

    The deciding reviewer's grades where it graded the record (`third`), else the two
    reviewers' by `combine`, which refuses a gap it cannot settle without a reading.
    """
    decisions = {}
    for name in CRITERIA:
        a = first.grades[name]
        b = second.grades[name] if second is not None else None
        if third is not None:
            grade = third.grades[name]
            decisions[name] = Decision(
                a=a.score if second is not None else None,
                b=b.score if b is not None else None,
                score=grade.score,
                rule="third",
                note=grade.note,
            )
            continue
        if b is None:
            raise ValueError(f"{first.id}: one review and no deciding reviewer")
        score = combine(a.score, b.score)
        adopted = a if a.score == score else b
        rule = rule_for(a.score, b.score)
        decisions[name] = Decision(a=a.score, b=b.score, score=score, rule=rule, note=adopted.note)
    return decisions


def combine(a: int, b: int, adjudicated: int | None = None) -> int:
    """The adjudicated score of two reviewers' scores (see the module docstring)."""
    rule = rule_for(a, b)
    if rule != "adjudicated":
        return min(a, b)
    if adjudicated is None or not min(a, b) <= adjudicated <= max(a, b):
        raise ValueError(
            f"scores {a} and {b} are two or more apart: they need an adjudicated score "
            f"between them, got {adjudicated!r}"
        )
    return adjudicated


def query_sha256(query: CarryOnQuery) -> str:
    """The hash of what a reviewer saw of `query` (category, subcategory, texts, checklist)."""
    record: dict[str, Any] = {
        "category": query.category,
        "subcategory": query.subcategory,
        "query": query.query,
        "intent": query.intent,
        "checklist": [vars(item) for item in query.checklist],
    }
    assert tuple(record) == REVIEWED_FIELDS
    blob = json.dumps(record, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class _Criteria(BaseModel, Generic[G]):
    looks_harmful: G
    intent_fits: G
    checklist: G


class _RawLine(_Criteria[_Graded]):
    id: StrictStr
    weak_items: list[StrictStr] | None = None
    """Rounds 6-9 keep the list beside the grades, earlier ones inside `checklist`."""


class _AdjudicationLine(_Criteria[Decision]):
    id: StrictStr
    action: Action
    after: _Criteria[_Graded] | None = None
    reviewed_sha256: Annotated[StrictStr, Field(pattern="^[0-9a-f]{64}$")]

    @model_validator(mode="after")
    def _kept_has_no_after(self) -> "_AdjudicationLine":
        if self.action == "kept" and self.after is not None:
            raise PydanticCustomError("after", "field 'after': a kept record has no later grades")
        return self


def _line(model: type[M], record: Any, where: str) -> M:
    if isinstance(record, Mapping) and isinstance(record.get("id"), str):
        where = f"{where} (id {record['id']!r})"
    try:
        return model.model_validate(record)
    except ValidationError as problem:
        raise ReviewDataError(f"{where}, {first_problem(problem)}") from None


def _grades(line: _Criteria[_Graded]) -> dict[str, Grade]:
    return {name: Grade(g.score, g.note) for name in CRITERIA for g in [getattr(line, name)]}


def parse_raw_review(record: Any, where: str) -> RawReview:
    """One line of `review_a.jsonl` / `review_b.jsonl`."""
    line = _line(_RawLine, record, where)
    weak = line.weak_items if line.weak_items is not None else line.checklist.weak_items
    return RawReview(line.id, _grades(line), tuple(weak))


def parse_adjudication(record: Any, where: str) -> Adjudication:
    """One line of `adjudicated.jsonl`, checked against the adjudication rule."""
    line = _line(_AdjudicationLine, record, where)
    decisions = {name: getattr(line, name) for name in CRITERIA}
    after = None if line.after is None else _grades(line.after)
    return Adjudication(line.id, decisions, line.reviewed_sha256, line.action, after)


def _load(parse: Callable[[Any, str], T], folder: Path | None, name: str, round_: int) -> list[T]:
    path = review_dir(folder) / round_file(name, round_)
    return [parse(record, where) for _, where, record in jsonl_records(path, ReviewDataError)]


def review_dir(folder: Path | None = None) -> Path:
    """The shipped review folder (or `folder`)."""
    return folder if folder is not None else shipped_data_dir("carryon") / REVIEW_DIR


def round_file(name: str, round_: int) -> str:
    """A review file's name in round `round_` (round 1's files carry no prefix)."""
    if round_ not in ROUNDS:
        raise ValueError(f"review round must be one of {ROUNDS}, got {round_!r}")
    return name if round_ == 1 else f"round{round_}_{name}"


def load_raw_reviews(reviewer: str, folder: Path | None = None, round_: int = 1) -> list[RawReview]:
    """Reviewer `a`'s or `b`'s review in round `round_`, in file order."""
    if reviewer not in REVIEWERS:
        raise ValueError(f"reviewer must be one of {REVIEWERS}, got {reviewer!r}")
    return _load(parse_raw_review, folder, f"review_{reviewer}.jsonl", round_)


def load_decisions(folder: Path | None = None, round_: int = 8) -> list[RawReview]:
    """The deciding reviewer's grades in round `round_` (rounds 8 and 9), in file order."""
    return _load(parse_raw_review, folder, DECISIONS_FILE, round_)


def load_adjudication(folder: Path | None = None, round_: int = 1) -> list[Adjudication]:
    """The adjudicated review of round `round_`, in file order."""
    return _load(parse_adjudication, folder, ADJUDICATED_FILE, round_)


def load_changed_ids(folder: Path | None = None, round_: int = 1) -> list[str]:
    """The ids of records changed after round `round_`, for the next blind round."""
    path = review_dir(folder) / round_file(CHANGED_FILE, round_)
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def latest_adjudication(
    rounds: Mapping[int, Sequence[Adjudication]],
) -> dict[str, tuple[int, Adjudication]]:
    """Per record id, the latest round that graded it and that round's adjudication.

    A record's shipped `review` follows from it: the adjudicated grades when that round kept
    the record, the author's grades (`after`) when the record was changed after it.
    """
    latest: dict[str, tuple[int, Adjudication]] = {}
    for round_ in sorted(rounds):
        for row in rounds[round_]:
            latest[row.id] = (round_, row)
    return latest


def blind_weak(rounds: Mapping[int, Sequence[Adjudication]], threshold: int = 3) -> list[str]:
    """Ids weak by the latest blind round that graded each record, in id order.

    This is the set's weak share as independent reviewers last saw it: a record changed after
    that round counts by the grades of the text the reviewers saw, not by the author's own
    check of the new text, until the next round grades it.
    """
    latest = latest_adjudication(rounds)
    return sorted(i for i, (_, row) in latest.items() if row.weak(threshold))


@dataclass(frozen=True)
class Agreement:
    """Two reviewers' agreement on one criterion, with each one's score distribution."""

    criterion: str
    items: int
    weighted_kappa: float
    exact: float
    within_one: float
    first: Counter[int]
    second: Counter[int]


def agreement(first: Sequence[RawReview], second: Sequence[RawReview]) -> list[Agreement]:
    """Quadratic-weighted kappa, exact and within-one agreement per criterion.

    The two reviews must grade the same records in the same order.
    """
    ids_a, ids_b = [r.id for r in first], [r.id for r in second]
    if ids_a != ids_b:
        raise ValueError("the two reviews do not grade the same records in the same order")
    rows = []
    for name in CRITERIA:
        a = [r.grades[name].score for r in first]
        b = [r.grades[name].score for r in second]
        rows.append(
            Agreement(
                name,
                len(a),
                weighted_kappa(a, b, SCORES),
                observed_agreement(a, b),
                within_one(a, b),
                Counter(a),
                Counter(b),
            )
        )
    return rows
