"""The judge-check loaders: the data contract (twins, pushes, correctness cases, second labellings).

Every broken file must stop the run before any model is called, with one line naming file,
record and field. The fixture folder tests/judge_check/data follows the contract; each test
copies it and breaks one thing.
"""

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from heedbench.evals.judge_check import JudgeCheckDataError, carryon_cases, prefdisco_cases
from heedbench.evals.judge_check.labels import load_labellings
from heedbench.evals.judge_check.task import carryon_judge_check, prefdisco_judge_check
from heedbench.scorers.judge_check.ceiling import ADJUDICATED, labeller_agreement
from heedbench.solvers.judge_check.solver import correctness_problem

DATA = Path(__file__).parent / "data"
Record = dict[str, Any]


def broken(tmp_path: Path, name: str, change: Callable[[list[Record]], None]) -> str:
    """A copy of the fixture folder with one file's records changed."""
    folder = tmp_path / "data"
    shutil.copytree(DATA, folder)
    path = folder / name
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    change(records)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(folder)


def by_id(records: list[Record], record_id: str) -> Record:
    return next(r for r in records if r["id"] == record_id)


def test_the_fixture_follows_the_contract() -> None:
    carryon = list(carryon_cases(str(DATA)))
    prefdisco = list(prefdisco_cases(str(DATA), "all"))
    adversarial = [s.metadata for s in carryon + prefdisco if (s.metadata or {})["adversarial"]]
    assert len(carryon) == 29 and len(prefdisco) == 24 and len(adversarial) == 15
    assert all(m and m["push"] in ("lenient", "harsh") and m["twin"] for m in adversarial)
    assert {m["push"] for m in adversarial if m} == {"lenient", "harsh"}


BREAKS: list[tuple[str, Callable[[list[Record]], None], str]] = [
    ("carryon_checklist.jsonl", lambda r: by_id(r, "cl-10").pop("push"),
     r"carryon_checklist.jsonl: record 10, field 'push': an adversarial record needs"),
    ("carryon_checklist.jsonl", lambda r: by_id(r, "cl-10").update(twin="cl-99"),
     r"record 10, field 'twin': no other record with id 'cl-99'"),
    ("carryon_harm.jsonl", lambda r: by_id(r, "hm-14").update(twin="hm-13"),
     r"carryon_harm.jsonl: record 14, field 'twin': 'hm-13' is adversarial itself"),
    ("carryon_checklist.jsonl", lambda r: by_id(r, "cl-11")["items"].pop(),
     r"record 11, field 'items': differs from its twin 'cl-04'"),
    ("prefdisco_rubric.jsonl", lambda r: by_id(r, "pa-08")["criteria"][0].update(value="1"),
     r"prefdisco_rubric.jsonl: record 8, field 'criteria': differs from its twin 'pa-01'"),
    ("carryon_harm.jsonl", lambda r: by_id(r, "hm-01").update(push="lenient"),
     r"record 1, field 'push': set on a clean record"),
    ("carryon_harm.jsonl", lambda r: by_id(r, "hm-13").update(attack="flattery"),
     r"record 13, field 'attack': must be one of addresses_grader"),
    ("prefdisco_correctness.jsonl", lambda r: by_id(r, "cc-04").update(gold="E"),
     r"prefdisco_correctness.jsonl: record 4, field 'gold': must be one of the option letters"),
    ("prefdisco_correctness.jsonl", lambda r: by_id(r, "cc-05").update(options=None),
     r"record 5, field 'options': a multiple-choice source \(mmlu\) needs its options"),
    ("prefdisco_correctness.jsonl", lambda r: by_id(r, "cc-01").update(correct="yes"),
     r"record 1, field 'correct': Input should be a valid boolean"),
    ("prefdisco_correctness.jsonl", lambda r: by_id(r, "cc-01").update(kind="lucky"),
     r"record 1, field 'kind': Input should be 'plain'"),
    ("prefdisco_correctness.jsonl", lambda r: by_id(r, "cc-12").update(problem="Solve 3x = 9."),
     r"record 12, field 'problem': differs from its twin 'cc-09'"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "change", "message"), BREAKS)
def test_a_broken_case_names_file_record_and_field(
    tmp_path: Path, name: str, change: Callable[[list[Record]], None], message: str
) -> None:
    folder = broken(tmp_path, name, change)
    with pytest.raises(JudgeCheckDataError, match=message):
        if name.startswith("carryon"):
            carryon_cases(folder)
        else:
            prefdisco_cases(folder, "all")


def test_a_broken_file_stops_the_task_before_any_model_is_called(tmp_path: Path) -> None:
    folder = broken(tmp_path, "prefdisco_rubric.jsonl", lambda r: by_id(r, "pa-09").pop("twin"))
    with pytest.raises(JudgeCheckDataError, match="record 9, field 'twin'"):
        prefdisco_judge_check(data=folder)


def test_the_adversarial_subset_keeps_the_clean_twins() -> None:
    ids = {str(s.id) for s in carryon_judge_check(data=str(DATA), subset="adversarial").dataset}
    assert {"cl-10", "cl-02", "hm-14", "hm-01"} <= ids
    assert "cl-01" not in ids and "hm-02" not in ids
    clean = {str(s.id) for s in carryon_judge_check(data=str(DATA), subset="clean").dataset}
    assert "cl-10" not in clean and "cl-02" in clean


def test_a_correctness_problem_is_the_question_without_its_option_lines() -> None:
    case = next(s for s in prefdisco_cases(str(DATA), "correctness") if s.id == "cc-04")
    problem = correctness_problem(case.metadata or {})
    assert problem.question.endswith("Which is an appropriate first-line option?")
    assert problem.options["A"] == "Hydrochlorothiazide" and problem.answer == "A"
    assert problem.kind == "choice"
    free = next(s for s in prefdisco_cases(str(DATA), "correctness") if s.id == "cc-08")
    assert correctness_problem(free.metadata or {}).kind == "text"


def test_second_labellings_are_read_and_compared() -> None:
    found = load_labellings(DATA)
    assert sorted(found) == [
        "carryon_checklist", "carryon_harm", "prefdisco_correctness", "prefdisco_rubric",
    ]  # fmt: skip
    agreements = {(a.stem, a.first, a.second): a for a in labeller_agreement(DATA)}
    harm = agreements["carryon_harm", "b", "c"]
    # c labels the twelve clean cases; b and c differ on hm-02, -05, -07, -08, -09, -11
    assert harm.cases == 12
    exact = harm.summary.get("harm_exact")
    assert exact is not None and exact.value == pytest.approx(0.5)
    assert exact.low <= 0.5 <= exact.high
    single = agreements["prefdisco_correctness", ADJUDICATED, "b"]  # one labelling: vs gold
    accuracy = single.summary.get("correctness_accuracy")
    assert accuracy is not None and accuracy.value == pytest.approx(13 / 14)
    assert {category for _, category in single.categories} >= {"math", "medqa", "simpleqa"}


LABEL_BREAKS: list[tuple[str, Callable[[list[Record]], None], str]] = [
    ("labels/carryon_harm.b.jsonl", lambda r: r[0].update(id="hm-99"),
     r"carryon_harm.b.jsonl: record 1, field 'id': 'hm-99' is not a case of carryon_harm"),
    ("labels/carryon_harm.b.jsonl", lambda r: r[0].update(labeller="c"),
     r"record 1, field 'labeller': must be 'b'"),
    ("labels/carryon_harm.b.jsonl", lambda r: r[0].update(harm=7),
     r"record 1, field 'harm': must be an integer 1-5"),
    ("labels/carryon_checklist.b.jsonl", lambda r: r[0]["items"].pop("cl-01.2"),
     r"record 1, field 'items': missing cl-01.2"),
    ("labels/prefdisco_rubric.b.jsonl", lambda r: r[0]["scores"].update(Speed=3),
     r"record 1, field 'scores': not in the case: Speed"),
    ("labels/carryon_harm.b.jsonl", lambda r: r.append(dict(r[0])),
     r"record 17, field 'id': 'hm-01' labelled twice"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "change", "message"), LABEL_BREAKS)
def test_a_broken_labelling_names_file_record_and_field(
    tmp_path: Path, name: str, change: Callable[[list[Record]], None], message: str
) -> None:
    folder = broken(tmp_path, name, change)
    with pytest.raises(JudgeCheckDataError, match=message):
        load_labellings(folder)
