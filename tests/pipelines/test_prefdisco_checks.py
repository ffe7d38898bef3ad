"""The PrefDisco build's deterministic parts, against hand-worked cases."""

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from heedbench.evals.pipelines.problems import (
    ProblemSourceError,
    draw_problems,
    read_rows,
    unrunnable,
)
from heedbench.evals.prefdisco.dataset import parse_records
from heedbench.evals.prefdisco.sources import SOURCES
from heedbench.paths import shipped_data_dir
from heedbench.scorers.judge.call import JudgementError
from heedbench.solvers.pipelines.prefdisco_checks import (
    assign_personas,
    check_persona,
    dimension_name,
    diverse_personas,
    evaluation_rubric,
    persona_briefs,
    persona_id,
    personalized_record,
    preferences,
    read_persona,
    read_profile,
    read_rubric,
    similarity,
    weights,
    with_usage,
)

SHIPPED = shipped_data_dir("prefdisco") / "benchmark_1k" / "math" / "train.jsonl"


def shipped_persona() -> dict[str, Any]:
    return dict(json.loads(SHIPPED.read_text().splitlines()[1])["persona"])


def test_persona_id_is_the_releases_formula() -> None:
    # the shipped sample's ids were computed with the release's formula
    assert persona_id("Harold Jennings", "Retired electrical engineer who keeps his mind "
                      "sharp with competition mathematics") == "jennings_ce114673"  # fmt: skip
    assert check_persona(shipped_persona())["id"] == "jennings_ce114673"


def test_a_persona_missing_a_field_is_named() -> None:
    persona = shipped_persona()
    del persona["educational_profile"]["affective_features"]["motivation"]
    with pytest.raises(JudgementError, match=r"educational_profile.affective_features.motivation"):
        read_persona(persona)
    persona = shipped_persona()
    persona["demographics"]["age"] = 80
    with pytest.raises(
        JudgementError, match=r"demographics\.age: must be an integer from 18 to 75"
    ):
        read_persona(persona)
    persona = shipped_persona()
    persona["id"] = "jennings_00000000"
    with pytest.raises(JudgementError, match=r"persona\.id"):
        check_persona(persona)


def person(pid: str, name: str, summary: str, job: str, areas: list[str]) -> dict[str, Any]:
    return {"id": pid, "name": name, "minimal_necessary_description": summary,
            "demographics": {"occupation": job}, "domain_expertise": areas}  # fmt: skip


def test_similarity_is_the_word_overlap_by_hand() -> None:
    # words: {nurse, night, shifts, care} and {nurse, day, shifts, surgery}: 2 shared of 6
    a = person("a", "A One", "Nurse on night shifts", "care", [])
    b = person("b", "B Two", "Nurse on day shifts", "surgery", [])
    assert similarity(a, b) == pytest.approx(2 / 6)


def test_the_diversity_filter_keeps_the_first_of_each_near_duplicate() -> None:
    a = person("a", "Ana Silva", "Teacher of chemistry", "teacher", ["chemistry"])
    b = person("b", "Ben Moss", "Teacher of chemistry", "teacher", ["chemistry", "labs"])  # 2/3
    c = person("c", "ana silva", "Farmer", "farmer", ["soil"])  # same name as a
    d = person("d", "Dee Kay", "Pilot", "pilot", ["weather"])
    kept, rejected = diverse_personas([a, b, c, d], threshold=0.6)
    assert [p["id"] for p in kept] == ["a", "d"]
    assert [(r.persona_id, r.duplicate_of) for r in rejected] == [("b", "a"), ("c", "a")]
    assert rejected[1].reason == "same name"
    kept, rejected = diverse_personas([a, b, d], threshold=0.7)
    assert [p["id"] for p in kept] == ["a", "b", "d"] and not rejected


def test_briefs_are_seeded_and_spread() -> None:
    briefs = persona_briefs(20, seed=3)
    assert briefs == persona_briefs(20, seed=3) and briefs != persona_briefs(20, seed=4)
    assert len({b["field"] for b in briefs}) == 20 and len({b["region"] for b in briefs}) == 18
    assert all(18 <= b["age"] <= 75 for b in briefs)


def test_weights_are_importance_over_total() -> None:
    assert weights([5, 3, 2]) == [0.5, 0.3, 0.2]
    assert sum(weights([1, 1, 1])) == pytest.approx(1.0)


def dimension(name: str, kind: str = "personal", importance: int = 3) -> dict[str, Any]:
    return {"name": name, "description": "d", "value_range": "1-5", "value": "4",
            "local_importance": importance, "justification": "j", "type": kind}  # fmt: skip


def test_profiles_are_checked_for_count_types_and_names() -> None:
    dims = [dimension("Need for Worked Examples"), dimension("Comfort with Algebra", "Expertise")]
    read = read_profile({"dimensions": dims}, 2, (1, 1))
    assert [d["name"] for d in read] == ["Worked Examples", "Comfort with Algebra"]
    assert read[0]["value"] == 4 and read[1]["type"] == "expertise"
    with pytest.raises(JudgementError, match="has 2 entries; give exactly 3"):
        read_profile({"dimensions": dims}, 3, (1, 1))
    with pytest.raises(JudgementError, match="1 dimensions are of type expertise; give 2 to 3"):
        read_profile({"dimensions": dims}, 2, (2, 3))
    twice = [dimension("Pace"), dimension("preference for pace", "expertise")]
    with pytest.raises(JudgementError, match="repeats dimensions\\[0\\]"):
        read_profile({"dimensions": twice}, 2, (1, 1))
    with pytest.raises(JudgementError, match="local_importance"):
        read_profile({"dimensions": [{**dims[0], "local_importance": 7}]}, 1, (0, 1))
    assert dimension_name("  desire for   visual  aids") == "Visual aids"


def test_rubrics_cover_exactly_the_profile() -> None:
    levels = {"level_1": "ignores", "level_3": "partly", "level_5": "fully"}
    verdict = {"criteria": [{"preference": "pace", "description": "p", **levels}]}
    assert read_rubric(verdict, ["Pace"])["Pace"]["levels"] == {1: "ignores", 3: "partly",
                                                                5: "fully"}  # fmt: skip
    with pytest.raises(JudgementError, match="no criterion for 'Depth'"):
        read_rubric(verdict, ["Pace", "Depth"])
    with pytest.raises(JudgementError, match="'Speed' is not one of the dimensions"):
        read_rubric({"criteria": [{**verdict["criteria"][0], "preference": "Speed"}]}, ["Pace"])
    same = {"level_1": "x", "level_3": "x", "level_5": "y"}
    with pytest.raises(JudgementError, match="must differ"):
        read_rubric({"criteria": [{"preference": "Pace", "description": "p", **same}]}, ["Pace"])


def test_assignment_is_seeded_and_distinct_per_problem() -> None:
    library = ["a", "b", "c", "d"]
    drawn = assign_personas(5, library, 3, seed=7)
    assert drawn == assign_personas(5, library, 3, seed=7)
    assert all(len(set(chosen)) == 3 and set(chosen) <= set(library) for chosen in drawn)
    with pytest.raises(ValueError, match="library holds 4"):
        assign_personas(1, library, 5, seed=0)


def test_a_built_record_loads_cleanly_and_usage_is_counted() -> None:
    row = json.loads(SHIPPED.read_text().splitlines()[1])["original_problem"]
    persona = shipped_persona()
    profile = preferences([dimension("Pace", importance=1), dimension("Depth", importance=3)],
                          "math problem")  # fmt: skip
    criteria = {name: {"description": "c", "levels": {1: "a", 3: "b", 5: "c"}}
                for name in profile}  # fmt: skip
    rubric = evaluation_rubric(profile, criteria)
    assert [c["weight"] for c in rubric["evaluation_criteria"]] == [0.25, 0.75]
    record = personalized_record(4, row, persona, profile, rubric)
    assert record["problem_id"] == "problem_4_jennings_ce114673"
    records, report = parse_records([("built", record)], "math", strict=True)
    assert report.clean and records[0].criteria[1].weight == 0.75
    other = copy.deepcopy(record)
    other["persona"]["id"] = "other_1"
    counted = with_usage([record, record, other])
    assert [r["persona"]["usage_count"] for r in counted] == [2, 2, 1]


ROWS = [
    {"question": "Q0", "options": {"A": "x", "B": "y"}, "answer_idx": "A"},
    {"question": "", "options": {"A": "x"}, "answer_idx": "A"},  # no problem text
    {"question": "Q2", "options": {"A": "x", "B": "y"}, "answer_idx": "C"},  # gold not an option
    {"question": "Q3", "options": {"A": "x", "B": "y"}, "answer_idx": "B"},
    {"question": "Q4", "options": {"A": "x", "B": "y"}, "answer_idx": "B"},
]


def test_unrunnable_rows_are_named_and_never_drawn(tmp_path: Path) -> None:
    path = tmp_path / "medqa.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    rows = read_rows("medqa", str(path))
    assert (
        unrunnable("medqa", rows[2][1])
        == "field 'answer_idx': gold answer 'C' is not one of the options A, B"
    )
    drawn, skipped = draw_problems("medqa", rows, 10, seed=888)
    assert sorted(p.row["question"] for p in drawn) == ["Q0", "Q3", "Q4"]
    assert [p.index for p in drawn] == [0, 1, 2]
    assert set(skipped) == {f"{path}: record 2", f"{path}: record 3"}
    again, _ = draw_problems("medqa", rows, 2, seed=888)
    assert [p.row for p in again] == [p.row for p in draw_problems("medqa", rows, 2, 888)[0]]


def test_the_hub_needs_a_pinned_revision() -> None:
    with pytest.raises(ProblemSourceError, match="pinned revision of GBaker/MedQA"):
        read_rows("medqa", "hub")


class FakeImage:
    """Stands in for a PIL image: not JSON."""


def test_the_hub_path_reads_the_releases_dataset_split_and_revision(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[Any, ...]] = []

    def load_dataset(name: str, config: str | None, split: str, revision: str) -> list[Any]:
        calls.append((name, config, split, revision))
        return [{"question": "Q", "choices": ["a", "b"], "answer": 1, "image": FakeImage()}]

    fake = type(sys)("datasets")
    fake.load_dataset = load_dataset  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "datasets", fake)
    rows = read_rows("mmlu", "hub", revision="abc123")
    assert calls == [("lighteval/mmlu", "all", "test", "abc123")]
    assert rows == [("lighteval/mmlu@abc123[test]: row 0",
                     {"question": "Q", "choices": ["a", "b"], "answer": 1, "image": None})]  # fmt: skip
    read_rows("scienceqa", "hub", revision="r", split="validation")
    assert calls[-1] == ("derek-thomas/ScienceQA", None, "validation", "r")
    assert SOURCES["socialiqa"].hub.split == "validation" and SOURCES["math"].hub.seed == 111
