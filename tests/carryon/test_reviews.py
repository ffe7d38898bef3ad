"""The blind reviews of the shipped queries, round by round: the raw reviews, the adjudication
and the records match id for id; every adjudicated score follows the written rule (the deciding
reviewer's grade where one decided); rounds 1-5 re-grade what the round before changed, rounds
6-8 the whole set, round 9 what round 8 changed; weak records were fixed and listed for the
next round; each record carries the adjudicated grades of the latest blind round that saw it;
the data card's review tables, weak share and weak records are what the stats tool prints."""

import json
import math
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from heedbench.evals.carryon import CarryOnQuery, load_queries
from heedbench.evals.carryon.dataset import CRITERIA, Grade
from heedbench.evals.carryon.reviews import (
    ADJUDICATED_ROUNDS,
    CHANGED_FILE,
    DATASET_2_ROUNDS,
    DECIDED_ROUNDS,
    FINAL_ROUND,
    PAIRED_ROUNDS,
    ROUNDS,
    WHOLE_SET_ROUNDS,
    Adjudication,
    RawReview,
    ReviewDataError,
    agreement,
    blind_weak,
    combine,
    latest_adjudication,
    load_adjudication,
    load_changed_ids,
    load_decisions,
    load_raw_reviews,
    needs_third,
    parse_adjudication,
    query_sha256,
    review_dir,
    round_file,
    rule_for,
    settle,
)

ROOT = Path(__file__).resolve().parents[2]
WEAK_SHARE_TARGET = 0.10
"""The issue's target: at most 10 % of records weak on any criterion after the fixes."""
ROUND5_WEAK = ["off-042", "prv-014", "prv-031", "prv-039", "prv-047"]
"""The records the last round of dataset 2.x found weak and kept."""


@pytest.fixture(scope="module")
def queries() -> list[CarryOnQuery]:
    return load_queries()


@pytest.fixture(scope="module")
def adjudication() -> dict[int, list[Adjudication]]:
    return {round_: load_adjudication(round_=round_) for round_ in ADJUDICATED_ROUNDS}


@pytest.fixture(scope="module")
def raw() -> dict[int, dict[str, list[RawReview]]]:
    reviews = {r: {w: load_raw_reviews(w, round_=r) for w in ("a", "b")} for r in PAIRED_ROUNDS}
    for round_ in DECIDED_ROUNDS:
        reviews.setdefault(round_, {})["third"] = load_decisions(round_=round_)
    return reviews


# --- the rule, hand-worked ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "adjudicated", "rule", "score"),
    [(4, 4, None, "agreed", 4), (3, 4, None, "lower", 3), (5, 4, None, "lower", 4),
     (2, 4, 3, "adjudicated", 3), (5, 2, 2, "adjudicated", 2)],
)  # fmt: skip
def test_the_adjudication_rule(
    a: int, b: int, adjudicated: int | None, rule: str, score: int
) -> None:
    assert rule_for(a, b) == rule
    assert combine(a, b, adjudicated) == score


@pytest.mark.parametrize("adjudicated", [None, 1, 5])
def test_a_two_point_gap_needs_a_reading_between_the_scores(adjudicated: int | None) -> None:
    with pytest.raises(ValueError, match="two or more apart"):
        combine(2, 4, adjudicated)


def raw_review(record_id: str, scores: tuple[int, int, int]) -> RawReview:
    return RawReview(
        record_id, {n: Grade(s, "n") for n, s in zip(CRITERIA, scores, strict=True)}, ()
    )


def test_agreement_is_hand_worked() -> None:
    first = [raw_review(f"q{i}", (s, s, 3)) for i, s in enumerate((1, 2, 3, 4))]
    second = [raw_review(f"q{i}", (s, s + 1, 3)) for i, s in enumerate((1, 2, 3, 4))]
    looks, fits, items = agreement(first, second)
    assert (looks.weighted_kappa, looks.exact, looks.within_one) == (1.0, 1.0, 1.0)
    # B one point higher throughout: never exact, always within one; quadratic kappa =
    # 1 - 1 / (Var A + Var B + (mean gap)^2) = 1 - 1 / (1.25 + 1.25 + 1) = 0.714...
    assert (fits.exact, fits.within_one) == (0.0, 1.0)
    assert fits.weighted_kappa == pytest.approx(1 - 1 / 3.5)
    assert math.isnan(items.weighted_kappa)  # both gave 3 throughout: kappa undefined
    assert fits.second == {2: 1, 3: 1, 4: 1, 5: 1}
    with pytest.raises(ValueError, match="same records"):
        agreement(first, second[::-1])


def adjudicated_row(**overrides: Any) -> dict[str, Any]:
    entry = {"a": 3, "b": 4, "score": 3, "rule": "lower", "note": "A: a redirect item."}
    row: dict[str, Any] = {name: dict(entry) for name in CRITERIA}
    row |= {"id": "q1", "reviewed_sha256": "0" * 64, "action": "rewritten"}
    row["after"] = {name: {"score": 4, "note": "fixed"} for name in CRITERIA}
    return row | overrides


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"score": 4}, r"field 'looks_harmful.score': rule 'lower' gives 3, not 4"),
        ({"rule": "agreed"}, r"field 'looks_harmful.rule': scores 3 and 4 call for 'lower'"),
        ({"a": 1, "b": 4, "score": 5, "rule": "adjudicated"}, r"need an adjudicated score"),
        ({"note": " "}, r"field 'looks_harmful.note': missing or empty"),
    ],
)
def test_an_adjudication_that_breaks_the_rule_is_refused(
    change: dict[str, Any], message: str
) -> None:
    row = adjudicated_row()
    row["looks_harmful"] = row["looks_harmful"] | change
    with pytest.raises(ReviewDataError, match=message):
        parse_adjudication(row, "adjudicated.jsonl: record 1")


def test_round_files_are_named_by_round() -> None:
    assert round_file("adjudicated.jsonl", 1) == "adjudicated.jsonl"
    assert round_file("review_a.jsonl", 2) == "round2_review_a.jsonl"
    assert round_file("changed_ids.txt", 3) == "round3_changed_ids.txt"
    with pytest.raises(ValueError, match="review round must be one of"):
        round_file("adjudicated.jsonl", len(ROUNDS) + 1)


def test_the_latest_round_that_graded_a_record_wins() -> None:
    kept = parse_adjudication(adjudicated_row(id="q1", action="kept", after=None), "x")
    changed = parse_adjudication(adjudicated_row(id="q1"), "x")
    other = parse_adjudication(adjudicated_row(id="q2"), "x")
    latest = latest_adjudication({2: [kept], 1: [changed, other]})
    assert latest == {"q1": (2, kept), "q2": (1, other)}


def test_the_blind_weak_share_counts_each_record_by_its_latest_round() -> None:
    # q1 weak in round 1, fixed and passed by round 2: not weak. q2 passed round 1 and was
    # never re-graded: not weak. q3 passed round 1, was changed anyway and failed round 2:
    # weak, whatever the author then gave its new text.
    weak = {"a": 3, "b": 3, "score": 3, "rule": "agreed", "note": "weak"}
    fine = {"a": 4, "b": 4, "score": 4, "rule": "agreed", "note": "fine"}

    def row(record_id: str, entry: dict[str, Any], action: str) -> Adjudication:
        fields = {name: dict(entry) for name in CRITERIA}
        after = None if action == "kept" else {n: {"score": 5, "note": "fixed"} for n in CRITERIA}
        return parse_adjudication(
            adjudicated_row(id=record_id, action=action, after=after) | fields, "x"
        )

    first = [row("q1", weak, "rewritten"), row("q2", fine, "kept"), row("q3", fine, "rewritten")]
    second = [row("q1", fine, "kept"), row("q3", weak, "rewritten")]
    assert blind_weak({1: first}) == ["q1"]
    assert blind_weak({1: first, 2: second}) == ["q3"]
    assert blind_weak({1: first, 2: second}, threshold=2) == []


def test_kept_and_changed_records_carry_the_right_grades() -> None:
    with pytest.raises(ReviewDataError, match="a kept record has no later grades"):
        parse_adjudication(adjudicated_row(action="kept"), "x")
    with pytest.raises(ReviewDataError, match="field 'after': Input should be a valid dictionary"):
        parse_adjudication(adjudicated_row(after=[]), "x")
    kept = parse_adjudication(adjudicated_row(action="kept", after=None), "x")
    assert kept.after is None and kept.weak()
    # a changed record that a later round grades needs no author's grades
    assert parse_adjudication(adjudicated_row(after=None), "x").after is None


def test_a_record_goes_to_the_third_reviewer_on_a_low_grade_or_a_wide_gap() -> None:
    assert not needs_third(raw_review("q", (4, 5, 4)), raw_review("q", (5, 4, 5)))
    assert needs_third(raw_review("q", (4, 5, 3)), raw_review("q", (4, 5, 4)))
    assert needs_third(raw_review("q", (4, 5, 5)), raw_review("q", (4, 5, 3)))
    assert needs_third(raw_review("q", (4, 5, 4)), raw_review("q", (4, 5, 2)))


def test_the_third_reviewer_decides_every_criterion_whatever_the_two_gave() -> None:
    first, second = raw_review("q", (3, 5, 3)), raw_review("q", (4, 5, 5))
    third = raw_review("q", (4, 4, 2))  # outside the two's range on the checklist: allowed
    decided = settle(first, second, third)
    assert {n: (d.a, d.b, d.score, d.rule) for n, d in decided.items()} == {
        "looks_harmful": (3, 4, 4, "third"),
        "intent_fits": (5, 5, 4, "third"),
        "checklist": (3, 5, 2, "third"),
    }
    plain = settle(raw_review("q", (4, 5, 5)), raw_review("q", (5, 5, 4)), None)
    assert [(d.score, d.rule) for d in plain.values()] == [
        (4, "lower"),
        (5, "agreed"),
        (4, "lower"),
    ]
    with pytest.raises(ValueError, match="two or more apart"):
        settle(raw_review("q", (3, 5, 5)), raw_review("q", (5, 5, 5)), None)
    alone = settle(third, None, third)  # round 9: one deciding reviewer
    assert [(d.a, d.b, d.score) for d in alone.values()] == [(None, None, 4), (None, None, 4),
                                                             (None, None, 2)]  # fmt: skip


def test_a_third_reviewers_grade_needs_no_pair_and_no_range() -> None:
    row = adjudicated_row()
    row["checklist"] = {"a": 5, "b": 5, "score": 2, "rule": "third", "note": "two items."}
    assert parse_adjudication(row, "x").decisions["checklist"].score == 2
    row["checklist"] = {"a": None, "b": None, "score": 2, "rule": "third", "note": "alone."}
    assert parse_adjudication(row, "x").decisions["checklist"].a is None
    row["checklist"]["note"] = ""
    with pytest.raises(ReviewDataError, match="note': missing or empty"):
        parse_adjudication(row, "x")


# --- the shipped files --------------------------------------------------------------------


def test_reviews_adjudication_and_records_match_id_for_id(
    queries: list[CarryOnQuery],
    adjudication: dict[int, list[Adjudication]],
    raw: dict[int, dict[str, list[RawReview]]],
) -> None:
    ids = [q.id for q in queries]
    assert len(ids) == 200
    graded = ids  # round 1 graded every record; each later 2.x round, what the one before changed
    for round_ in DATASET_2_ROUNDS:
        assert [r.id for r in raw[round_]["a"]] == graded, round_
        assert [r.id for r in raw[round_]["b"]] == graded, round_
        assert [a.id for a in adjudication[round_]] == graded, round_
        if round_ != DATASET_2_ROUNDS[-1]:
            graded = load_changed_ids(round_=round_)
    assert len(load_changed_ids(round_=1)) == 189
    for round_ in WHOLE_SET_ROUNDS:  # dataset 3.0.0's drafts, the whole set each time
        assert [r.id for r in raw[round_]["a"]] == ids == [r.id for r in raw[round_]["b"]]
        changed = load_changed_ids(round_=round_)
        assert changed == [i for i in ids if i in set(changed)], round_
    assert [a.id for a in adjudication[8]] == ids
    sent = [a.id for a, b in zip(raw[8]["a"], raw[8]["b"], strict=True) if needs_third(a, b)]
    assert [r.id for r in raw[8]["third"]] == sent
    assert [r.id for r in raw[9]["third"]] == [a.id for a in adjudication[9]]
    assert [a.id for a in adjudication[9]] == load_changed_ids(round_=8)


@pytest.mark.parametrize("round_", ADJUDICATED_ROUNDS)
def test_the_adjudication_quotes_the_raw_reviews(
    round_: int,
    adjudication: dict[int, list[Adjudication]],
    raw: dict[int, dict[str, list[RawReview]]],
) -> None:
    deciding = {r.id: r for r in raw[round_].get("third", [])}
    first_all = raw[round_].get("a", [None] * len(adjudication[round_]))
    second_all = raw[round_].get("b", [None] * len(adjudication[round_]))
    for row, first, second in zip(adjudication[round_], first_all, second_all, strict=True):
        third = deciding.get(row.id)
        if round_ in DECIDED_ROUNDS:
            # the rule, applied to the raw files, gives the shipped adjudication
            reviewed = first or third
            assert reviewed is not None
            assert settle(reviewed, second, third) == row.decisions, row.id
        for name in CRITERIA:
            decision = row.decisions[name]
            pair = (
                (first.grades[name].score, second.grades[name].score) if first and second else None
            )
            assert (decision.a, decision.b) == (pair or (None, None)), (row.id, name)
            if decision.rule == "third":
                assert third is not None and third.grades[name] == Grade(
                    decision.score, decision.note
                )
            elif decision.rule != "adjudicated":
                # the note is the note of a reviewer who gave the adopted score
                assert first and second
                adopted = [r.grades[name] for r in (first, second)]
                assert Grade(decision.score, decision.note) in adopted, (row.id, name)


@pytest.mark.parametrize("round_", (*DATASET_2_ROUNDS, 8))
def test_every_gap_of_two_or_more_was_read_and_explained(
    round_: int, adjudication: dict[int, list[Adjudication]]
) -> None:
    rows = adjudication[round_]
    gaps = [(a.id, n) for a in rows for n, d in a.decisions.items() if abs(d.a - d.b) >= 2]  # type: ignore[operator]
    read = [
        (a.id, n)
        for a in rows
        for n, d in a.decisions.items()
        if d.rule in ("adjudicated", "third")
    ]
    assert set(gaps) <= set(read)
    if round_ in DATASET_2_ROUNDS:
        assert gaps == read
    # round 1's checklist reviewers often disagreed; round 2 had no gap above one point;
    # round 3 had two, both on a checklist (prv-023 and prv-044); round 4 two, prv-019's
    # checklist and prv-039's intent; round 5 none; round 8's went to the third reviewer
    assert len(gaps) == {1: 45, 2: 0, 3: 2, 4: 2, 5: 0, 8: len(gaps)}[round_]


def test_round_four_gaps_were_settled_for_the_concrete_reasons() -> None:
    # The lead read both two-point gaps of round 4 and took reviewer B's 3 each time: prv-019's
    # official-API items a refusal would also earn, prv-039's intent that only asked whether.
    rows = {a.id: a for a in load_adjudication(round_=4)}
    checklist, intent = (
        rows["prv-019"].decisions["checklist"],
        rows["prv-039"].decisions["intent_fits"],
    )
    assert (checklist.a, checklist.b, checklist.score) == (5, 3, 3)
    assert (intent.a, intent.b, intent.score) == (5, 3, 3)
    assert "refusal" in checklist.note and "whether" in intent.note


def test_each_record_carries_the_blind_grades_of_the_latest_round_that_saw_it(
    queries: list[CarryOnQuery], adjudication: dict[int, list[Adjudication]]
) -> None:
    # No record is left on an author's check: the latest blind round that graded each record
    # kept it, the text is the one the reviewers saw (by hash) and the grades are theirs,
    # adjudicated: round 8's whole-set review, or round 9 for the records changed after it.
    latest = latest_adjudication(adjudication)
    assert sorted(latest) == sorted(q.id for q in queries)
    for query in queries:
        round_, row = latest[query.id]
        review = query.review
        assert review is not None and review.round == round_, query.id
        assert row.action == "kept", query.id
        assert query_sha256(query) == row.reviewed_sha256, query.id
        assert review.basis == "adjudicated", query.id
        adjudicated = {n: Grade(d.score, d.note) for n, d in row.decisions.items()}
        assert review.grades() == adjudicated, query.id
    assert {q.review.round for q in queries if q.review} == {8, 9}


@pytest.mark.parametrize("round_", (1, 2, 3, 4, 8))
def test_changed_records_are_listed_for_the_next_round(
    round_: int, adjudication: dict[int, list[Adjudication]]
) -> None:
    changed = [a.id for a in adjudication[round_] if a.action != "kept"]
    assert changed == load_changed_ids(round_=round_)
    # a changed record without the author's grades is graded by the next round
    later = {a.id for a in adjudication.get(round_ + 1, [])}
    assert all(a.id in later for a in adjudication[round_] if a.action != "kept" and not a.after)


@pytest.mark.parametrize("round_", DATASET_2_ROUNDS[:-1])
def test_every_weak_record_was_fixed_or_replaced(
    round_: int, adjudication: dict[int, list[Adjudication]]
) -> None:
    rows = adjudication[round_]
    assert [a.id for a in rows if a.weak()], "each round found weak records"
    assert [a.id for a in rows if a.weak() and a.action == "kept"] == []


def test_round_eight_sent_back_every_record_weak_on_the_checklist(
    adjudication: dict[int, list[Adjudication]],
) -> None:
    # After the whole-set review only checklists were rewritten: every record whose checklist
    # it graded 3 or lower was changed and re-graded in round 9; the records weak on the first
    # two criteria alone were kept (the card lists them).
    rows = adjudication[8]
    weak_lists = [a.id for a in rows if a.decisions["checklist"].score <= 3]
    changed = load_changed_ids(round_=8)
    assert weak_lists and set(weak_lists) <= set(changed)


def test_the_final_round_changed_nothing(adjudication: dict[int, list[Adjudication]]) -> None:
    # The last round: no record was rewritten after it, so there is no changed-ids file; the
    # records it found weak stay as they are. Round 5 was dataset 2.x's last round.
    rows = adjudication[FINAL_ROUND]
    assert FINAL_ROUND == ROUNDS[-1] == 9
    assert {a.action for a in rows} == {"kept"}
    assert all(a.after is None for a in rows)
    assert not (review_dir() / round_file(CHANGED_FILE, FINAL_ROUND)).exists()
    assert sorted(a.id for a in adjudication[5] if a.weak()) == ROUND5_WEAK


@pytest.mark.parametrize("round_", (*DATASET_2_ROUNDS[1:], 9))
def test_a_later_round_graded_the_text_the_earlier_round_left(
    round_: int, adjudication: dict[int, list[Adjudication]]
) -> None:
    # A record round r-1 changed and round r kept is not the text round r-1 saw (by hash): so
    # round r graded round r-1's rewrites.
    before = {a.id: a for a in adjudication[max(r for r in adjudication if r < round_)]}
    kept = [a for a in adjudication[round_] if a.action == "kept"]
    assert kept
    for row in kept:
        assert row.reviewed_sha256 != before[row.id].reviewed_sha256, row.id


def test_the_weak_share_is_the_latest_blind_grades(
    queries: list[CarryOnQuery], adjudication: dict[int, list[Adjudication]]
) -> None:
    # Measured by the latest blind round that saw each record (no author's check counts); the
    # shipped grades are those blind grades, so they say the same. The 10 % target is
    # not met (the card says so); dataset 2.x's last round had met it on a lenient history.
    weak = blind_weak(adjudication)
    assert sorted(q.id for q in queries if q.review is None or q.review.weak()) == weak
    assert len(weak) > WEAK_SHARE_TARGET * len(queries)
    before = blind_weak({r: rows for r, rows in adjudication.items() if r <= 5})
    assert before == ROUND5_WEAK


# --- the data card ------------------------------------------------------------------------


def tables(text: str) -> Iterator[str]:
    """Each Markdown table (consecutive lines starting with '|') in `text`."""
    block: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            block.append(line)
        elif block:
            yield "\n".join(block)
            block = []


def test_the_data_card_shows_what_the_stats_tool_prints() -> None:
    # The card's command, run as written from the repository root.
    command = [sys.executable, "tools/carryon_stats.py"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    printed = result.stdout
    card = (ROOT / "datasets" / "carryon" / "README.md").read_text(encoding="utf-8")
    shown = list(tables(printed))
    assert len(shown) == 9
    for table in shown:
        assert table in card, table.splitlines()[0]
    flat = card.replace("\n", " ")
    for start in ("Weak records", "Floor units"):
        line = next(line for line in printed.splitlines() if line.startswith(start))
        assert line in flat, start


def test_the_data_card_names_each_remaining_weak_record_with_its_weak_grade(
    adjudication: dict[int, list[Adjudication]],
) -> None:
    # The card's table of weak records: one row per criterion graded 3 or lower by the latest
    # round that saw the record, with the scores the files hold.
    card = (ROOT / "datasets" / "carryon" / "README.md").read_text(encoding="utf-8")
    (table,) = [t for t in tables(card) if t.startswith("| record | round | criterion |")]
    shown = {}
    for line in table.splitlines()[2:]:
        record, round_, criterion, a, b, score, rule, note = (
            c.strip() for c in line.strip("|").split("|")
        )
        assert note, record
        shown[(record, criterion)] = (int(round_), a, b, int(score), rule)
    latest = latest_adjudication(adjudication)
    weak = {
        (record, name): (round_, str(d.a or "-"), str(d.b or "-"), d.score, d.rule)
        for record, (round_, row) in latest.items()
        for name, d in row.decisions.items()
        if d.score <= 3
    }
    assert shown == weak


@pytest.mark.parametrize("round_", ROUNDS)
def test_the_raw_reviews_are_kept_as_written(round_: int) -> None:
    # The reviewers' own fields, in their own order: nothing was added or normalised.
    fields = ["id", "looks_harmful", "intent_fits", "checklist"]
    names = [f"review_{who}.jsonl" for who in ("a", "b") if round_ in PAIRED_ROUNDS]
    names += ["decisions.jsonl"] if round_ in DECIDED_ROUNDS else []
    for name in names:
        path = ROOT / "datasets" / "carryon" / "reviews" / round_file(name, round_)
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            expected = fields if round_ in DATASET_2_ROUNDS else [*fields, "weak_items"]
            assert list(record) == expected
