"""The CarryOn build's deterministic parts, against hand-worked cases."""

import json
from pathlib import Path
from typing import Any

import pytest

from heedbench.evals.carryon.dataset import load_queries, parse_query
from heedbench.evals.pipelines.assemble_carryon import (
    BuildOutputError,
    carryon_card,
    write_carryon,
)
from heedbench.evals.pipelines.carryon import CarryOnBuildError, load_build_queries
from heedbench.scorers.judge.call import JudgementError
from heedbench.solvers.pipelines.ask import rename
from heedbench.solvers.pipelines.carryon_checks import (
    Candidate,
    Item,
    agreement,
    canonical_category,
    check_question,
    checklist_record,
    number_candidates,
    read_candidates,
    read_merge,
    read_refined,
    union,
)

QUERY = {"id": "q-1", "category": "privacy", "subcategory": "", "query": "Q?", "intent": "I."}


def test_questions_and_categories_are_read_tolerantly_but_strictly() -> None:
    assert check_question("  [Resource]  Does the response   name a hotline?") == (
        "Does the response name a hotline?"
    )
    assert check_question("does the response name a hotline?") == (
        "Does the response name a hotline?"
    )
    with pytest.raises(JudgementError, match="must start with 'Does the response'"):
        check_question("Mentions a hotline?")
    with pytest.raises(JudgementError, match="ending with '\\?'"):
        check_question("Does the response name a hotline.")
    assert canonical_category("[practical  advice]") == "Practical Advice"
    with pytest.raises(JudgementError, match="not an information category"):
        canonical_category("Trivia")


def test_extraction_drops_exact_repeats_and_names_a_bad_item() -> None:
    verdict = {
        "items": [
            {"question": "Does the response cite the law?", "category": "Legal Framework"},
            {"question": "does the response cite  the law?", "category": "Resource"},
        ]
    }
    assert read_candidates(verdict) == [("Does the response cite the law?", "Legal Framework")]
    with pytest.raises(JudgementError, match=r"items\[1\].category"):
        read_candidates({"items": [verdict["items"][0], {"question": "Does the response x?"}]})
    with pytest.raises(JudgementError, match="non-empty list"):
        read_candidates({"items": []})


def candidates() -> list[Candidate]:
    # c1, c2 from model A; c3, c4 from model B
    return number_candidates(
        [
            ("A", [("Does the response a1?", "Resource"), ("Does the response a2?", "Case Study")]),
            ("B", [("Does the response b1?", "Resource"), ("Does the response b2?", "Resource")]),
        ]
    )


def test_candidates_are_numbered_across_generators() -> None:
    assert [(c.id, c.generators) for c in candidates()] == [
        ("c1", ("A",)), ("c2", ("A",)), ("c3", ("B",)), ("c4", ("B",)),
    ]  # fmt: skip


def test_merge_unions_provenance_and_covers_every_candidate_once() -> None:
    verdict = {
        "items": [
            {"question": "Does the response m1?", "category": "Resource", "sources": ["c1", 3]},
            {"question": "Does the response m2?", "category": "Case Study", "sources": ["C2"]},
            {"question": "Does the response m3?", "category": "Resource", "sources": ["c4"]},
        ]
    }
    merged = read_merge(verdict, candidates())
    assert [(m.generators, m.sources) for m in merged] == [
        (("A", "B"), ("c1", "c3")), (("A",), ("c2",)), (("B",), ("c4",)),
    ]  # fmt: skip
    assert agreement(merged) == {2: 1, 1: 2}


@pytest.mark.parametrize(
    ("sources", "problem"),
    [
        ([["c1", "c3"], ["c2"]], "candidates c4 are in no merged item"),
        ([["c1", "c3"], ["c2", "c3"], ["c4"]], "c3 is already merged into items\\[0\\]"),
        ([["c1", "c9"], ["c2", "c3", "c4"]], "'c9' is not a candidate id"),
        ([[], ["c1", "c2", "c3", "c4"]], "must list the candidate ids"),
    ],
)
def test_a_merge_that_drops_or_repeats_a_candidate_is_rejected(
    sources: list[list[str]], problem: str
) -> None:
    verdict = {
        "items": [
            {"question": f"Does the response m{n}?", "category": "Resource", "sources": group}
            for n, group in enumerate(sources)
        ]
    }
    with pytest.raises(JudgementError, match=problem):
        read_merge(verdict, candidates())


def test_refinement_is_one_to_one_and_keeps_provenance() -> None:
    merged = [
        Item("Does the response x?", "Resource", ("A", "B"), ("c1", "c3")),
        Item("Does the response y?", "Case Study", ("A",), ("c2",)),
    ]
    verdict = {
        "items": [
            {"number": "2", "question": "Does the response name y?", "category": "Case Study"},
            {"number": 1, "question": "Does the response name x?", "category": "Legal Framework"},
        ]
    }
    refined = read_refined(verdict, merged)
    assert [(r.question, r.category, r.generators) for r in refined] == [
        ("Does the response name x?", "Legal Framework", ("A", "B")),
        ("Does the response name y?", "Case Study", ("A",)),
    ]
    with pytest.raises(JudgementError, match="items 2 were not refined"):
        read_refined({"items": verdict["items"][1:]}, merged)
    with pytest.raises(JudgementError, match="item 1 is refined twice"):
        read_refined({"items": [verdict["items"][1], verdict["items"][1]]}, merged)


def test_union_keeps_first_seen_order() -> None:
    assert union([["b", "a"], ["a", "c"], ["b"]]) == ("b", "a", "c")


def test_the_record_loads_with_the_carryon_loader_and_leaves_review_empty() -> None:
    items = [Item("Does the response x?", "Resource", ("A",), ("c1",))]
    record = checklist_record(QUERY, items, {"merger": "M"})
    query = parse_query(record, "built")
    assert query.checklist[0].id == "q-1.1"
    assert query.review is None and record["review"] is None
    assert record["checklist"][0]["generators"] == ["A"]


def record(query_id: str, category: str, kinds: list[str], generators: list[int]) -> dict[str, Any]:
    items = [
        Item(f"Does the response {n}?", kind, tuple("AB"[:count]), ())
        for n, (kind, count) in enumerate(zip(kinds, generators, strict=True))
    ]
    return checklist_record({**QUERY, "id": query_id, "category": category}, items,
                            {"generators": ["A", "B"], "merger": "M"})  # fmt: skip


def test_the_card_counts_a_hand_worked_set() -> None:
    records = [
        record("p-1", "privacy", ["Resource", "Resource", "Case Study"], [1, 2, 2]),
        record("d-1", "dangerous_topics", ["Practical Advice"], [1]),
    ]
    card = carryon_card(records, {"x-9": "blocked"})
    assert "| queries | 1 | 1 | 2 |" in card  # dangerous_topics, privacy, all
    assert "| checklist items | 1 | 3 | 4 |" in card
    assert "Checklist items: 4 in all; per query min 1, mean 2.00, max 3." in card
    assert "| items per query | 1 | 3 |" in card and "| queries | 1 | 1 |" in card
    assert "| Resource | 2 | 50.0 % |" in card and "| Legal Framework | 0 | 0.0 % |" in card
    assert "| 1 | 2 | 50.0 % |" in card and "| 2 | 2 | 50.0 % |" in card
    assert "- x-9: blocked" in card


def test_writing_refuses_a_file_that_would_not_load(tmp_path: Path) -> None:
    good = record("p-1", "privacy", ["Resource"], [1])
    out = tmp_path / "q.jsonl"
    with pytest.raises(BuildOutputError, match=f"{out}: record 2 \\(id 'p-1'\\), field 'id'"):
        write_carryon([good, good], out)
    assert not out.exists() and not list(tmp_path.iterdir())
    write_carryon([good], out)
    assert [q.id for q in load_queries(out)] == ["p-1"]


def test_build_input_errors_name_file_record_and_field(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({**QUERY, "category": "weather"}) + "\n")
    unknown = "record 1 \\(q-1\\): field 'category': unknown category 'weather'"
    with pytest.raises(CarryOnBuildError, match=unknown):
        load_build_queries(path)
    path.write_text(json.dumps({**QUERY, "intent": ""}) + "\n")
    with pytest.raises(CarryOnBuildError, match="field 'intent'"):
        load_build_queries(path)


def test_failure_messages_name_the_build_role() -> None:
    assert rename("the grader's call failed (content filter)", "merger") == (
        "the merger model's call failed (content filter)"
    )
