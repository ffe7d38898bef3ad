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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast, get_args

from heedbench.evals.carryon.dataset import CRITERIA, CarryOnDataError, CarryOnQuery, Grade
from heedbench.jsonl import jsonl_records
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
Rule = Literal["agreed", "lower", "adjudicated", "third"]
RULES: tuple[str, ...] = get_args(Rule)
Action = Literal["kept", "rewritten", "replaced"]
ACTIONS: tuple[str, ...] = get_args(Action)
REVIEWED_FIELDS = ("category", "subcategory", "query", "intent", "checklist")
"""What the reviewers saw of each record; its hash ties a review to the text it graded."""


class ReviewDataError(CarryOnDataError):
    """A review file breaks its schema; the message names file, record and field."""


@dataclass(frozen=True)
class RawReview:
    """One reviewer's grades of one record, with the checklist items they found weak."""

    id: str
    grades: dict[str, Grade]
    weak_items: tuple[str, ...]


@dataclass(frozen=True)
class Decision:
    """One criterion of one record: both reviewers' scores and the adjudicated one.

    `a` and `b` are None where no two reviewers graded the text (round 9's deciding reviewer).
    """

    a: int | None
    b: int | None
    score: int
    rule: Rule
    note: str


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
                a.score if second is not None else None,
                b.score if b is not None else None,
                grade.score,
                "third",
                grade.note,
            )
            continue
        if b is None:
            raise ValueError(f"{first.id}: one review and no deciding reviewer")
        score = combine(a.score, b.score)
        adopted = a if a.score == score else b
        rule = rule_for(a.score, b.score)
        decisions[name] = Decision(a.score, b.score, score, rule, adopted.note)
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


def _score(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in SCORES:
        raise ReviewDataError(f"{where}: must be an integer 1-5, got {value!r}")
    return value


def _note(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ReviewDataError(f"{where}: must be a non-empty string")
    return value.strip()


def _object(record: Any, field: str, where: str) -> Mapping[str, Any]:
    value = record.get(field) if isinstance(record, Mapping) else None
    if not isinstance(value, Mapping):
        raise ReviewDataError(f"{where}, field '{field}': must be a JSON object")
    return value


def _id(record: Any, where: str) -> str:
    if not isinstance(record, Mapping) or not isinstance(record.get("id"), str):
        raise ReviewDataError(f"{where}, field 'id': missing or not a string")
    return str(record["id"])


def _grade(grade: Mapping[str, Any], field: str) -> Grade:
    """A `{score, note}` object; `field` names it in an error."""
    return Grade(
        _score(grade.get("score"), f"{field}.score"), _note(grade.get("note"), f"{field}.note")
    )


def parse_raw_review(record: Any, where: str) -> RawReview:
    """One line of `review_a.jsonl` / `review_b.jsonl`."""
    record_id = _id(record, where)
    where = f"{where} (id {record_id!r})"
    grades: dict[str, Grade] = {}
    for name in CRITERIA:
        grades[name] = _grade(_object(record, name, where), f"{where}, field '{name}'")
    nested = _object(record, "checklist", where).get("weak_items", [])
    weak = record.get("weak_items", nested)  # rounds 6-9 keep the list beside the grades
    if not isinstance(weak, list) or not all(isinstance(item, str) for item in weak):
        raise ReviewDataError(f"{where}, field 'checklist.weak_items': must be a list of ids")
    return RawReview(record_id, grades, tuple(weak))


def parse_adjudication(record: Any, where: str) -> Adjudication:
    """One line of `adjudicated.jsonl`, checked against the adjudication rule."""
    record_id = _id(record, where)
    where = f"{where} (id {record_id!r})"
    decisions: dict[str, Decision] = {}
    for name in CRITERIA:
        field = f"{where}, field '{name}'"
        entry = _object(record, name, where)
        score = _score(entry.get("score"), f"{field}.score")
        rule = entry.get("rule")
        if rule == "third":
            pair = [
                None if entry.get(k) is None else _score(entry.get(k), f"{field}.{k}")
                for k in ("a", "b")
            ]
            note = _note(entry.get("note"), f"{field}.note")
            decisions[name] = Decision(pair[0], pair[1], score, "third", note)
            continue
        a, b = _score(entry.get("a"), f"{field}.a"), _score(entry.get("b"), f"{field}.b")
        if rule != rule_for(a, b):
            raise ReviewDataError(f"{field}.rule: scores {a} and {b} call for {rule_for(a, b)!r}")
        try:
            expected = combine(a, b, score)
        except ValueError as error:
            raise ReviewDataError(f"{field}.score: {error}") from None
        if score != expected:
            raise ReviewDataError(f"{field}.score: rule {rule!r} gives {expected}, not {score}")
        note = _note(entry.get("note"), f"{field}.note")
        decisions[name] = Decision(a, b, score, cast(Rule, rule), note)
    action = record.get("action")
    if action not in ACTIONS:
        raise ReviewDataError(f"{where}, field 'action': must be one of {', '.join(ACTIONS)}")
    after_value = record.get("after")
    after: dict[str, Grade] | None = None
    if action == "kept" and after_value is not None:
        raise ReviewDataError(f"{where}, field 'after': a kept record has no later grades")
    if action != "kept" and after_value is not None:
        after_map = _object(record, "after", where)
        after = {}
        for name in CRITERIA:
            grade = _object(after_map, name, f"{where}, field 'after'")
            after[name] = _grade(grade, f"{where}, field 'after.{name}'")
    sha = record.get("reviewed_sha256")
    if not isinstance(sha, str) or len(sha) != 64:
        raise ReviewDataError(f"{where}, field 'reviewed_sha256': must be a sha256 hex digest")
    return Adjudication(record_id, decisions, sha, cast(Action, action), after)


def _records(path: Path) -> Iterable[tuple[str, Any]]:
    return ((where, record) for _, where, record in jsonl_records(path, ReviewDataError))


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
    path = review_dir(folder) / round_file(f"review_{reviewer}.jsonl", round_)
    return [parse_raw_review(record, where) for where, record in _records(path)]


def load_decisions(folder: Path | None = None, round_: int = 8) -> list[RawReview]:
    """The deciding reviewer's grades in round `round_` (rounds 8 and 9), in file order."""
    path = review_dir(folder) / round_file(DECISIONS_FILE, round_)
    return [parse_raw_review(record, where) for where, record in _records(path)]


def load_adjudication(folder: Path | None = None, round_: int = 1) -> list[Adjudication]:
    """The adjudicated review of round `round_`, in file order."""
    path = review_dir(folder) / round_file(ADJUDICATED_FILE, round_)
    return [parse_adjudication(record, where) for where, record in _records(path)]


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
