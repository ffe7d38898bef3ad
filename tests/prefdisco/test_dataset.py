"""PrefDisco records: the public schema validated, errors naming file, record and field."""

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from heedbench.evals.prefdisco import PrefDiscoDataError, load_records
from heedbench.evals.prefdisco.dataset import draw_records, read_source

DATA = Path(__file__).parent / "data"


def criterion(name: str, weight: float | None) -> dict[str, Any]:
    levels = [{"score": s, "description": f"level {s}"} for s in (1, 3, 5)]
    return {"preference": name, "description": name, "weight": weight, "levels": levels}


def preference(value: int | None, importance: int) -> dict[str, Any]:
    return {
        "value": value,
        "local_importance": importance,
        "justification": "because",
        "type": "personal",
    }


def record(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "type": "personalized_problem",
        "problem_id": "problem_0_doe_12345678",
        "original_problem": {"question": "2+2?", "choices": ["3", "4"], "answer": 1},
        "persona": {"name": "Jo Doe"},
        "persona_preferences": {"Depth": preference(4, 3), "Tone": preference(2, 1)},
        "evaluation_rubric": {
            "evaluation_criteria": [criterion("Depth", 0.75), criterion("Tone", 0.25)]
        },
    }
    base.update(overrides)
    return base


def write(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    path = tmp_path / "train.jsonl"
    lines = [json.dumps({"type": "metadata", "dataset": "mmlu"})] + [json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_valid_record_loads_and_the_metadata_line_is_skipped(tmp_path: Path) -> None:
    (loaded,) = load_records("mmlu", data=write(tmp_path, [record()]))
    assert loaded.problem.answer == "B"
    assert [(c.preference, c.weight) for c in loaded.criteria] == [("Depth", 0.75), ("Tone", 0.25)]


ERR = r"Input should be a valid dictionary"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"type": "problem"}, r"record 2 \(problem_id '\w+'\), field 'type': Input should be"),
        ({"persona": "Jo Doe"}, rf"field 'persona': {ERR}"),
        ({"persona": 7}, rf"field 'persona': {ERR}"),
        ({"persona_preferences": ["Depth"]}, rf"field 'persona_preferences': {ERR}"),
        ({"original_problem": "2+2?"}, rf"field 'original_problem': {ERR}"),
        (
            {"persona_preferences": {"Depth": "deep", "Tone": preference(2, 1)}},
            rf"field 'persona_preferences.Depth': {ERR}",
        ),
        (
            {"evaluation_rubric": {"evaluation_criteria": [{"weight": 1.0}]}},
            r"field 'evaluation_rubric.evaluation_criteria.0.preference': Field required",
        ),
        (
            {"evaluation_rubric": {"evaluation_criteria": [criterion("Depth", -0.5)]}},
            r"criteria.0.weight': Input should be greater than or equal to 0",
        ),
        (
            {"evaluation_rubric": {"evaluation_criteria": [criterion("Depth", "0.5")]}},  # type: ignore[arg-type]
            r"criteria.0.weight': Input should be a valid number",
        ),
        (
            {
                "original_problem": {
                    "question": "?",
                    "choices": {"label": ["A", "B"], "text": ["x"]},
                }
            },
            r"field 'original_problem.choices': 'label' and 'text' must be lists of the same length",
        ),
        ({"problem_id": ""}, r"record 2 .*, field 'problem_id': Value error, must be a non-empty"),
    ],
)
def test_records_outside_the_schema_are_errors(
    tmp_path: Path, overrides: dict[str, Any], message: str
) -> None:
    path = write(tmp_path, [record(**overrides)])
    for strict in (False, True):
        with pytest.raises(PrefDiscoDataError, match=message) as error:
            load_records("mmlu", data=path, strict=strict)
        assert str(path) in str(error.value)


@pytest.mark.parametrize(
    ("source", "overrides", "reason", "message"),
    [
        (
            "mmlu",
            {"evaluation_rubric": {"evaluation_criteria": []}},
            "no rubric",
            r"record 3 \(problem_id 'problem_1_doe_12345678'\), "
            r"field 'evaluation_rubric.evaluation_criteria': missing or empty rubric",
        ),
        (
            "mmlu",
            {"evaluation_rubric": {"evaluation_criteria": [criterion("Humour", 1.0)]}},
            "criterion without a preference entry",
            r"\[0\]: preference 'Humour' has no entry in 'persona_preferences'",
        ),
        (
            "mmlu",
            {"persona_preferences": {"Depth": preference(None, 3), "Tone": preference(2, 1)}},
            "preference without a value",
            r"field 'persona_preferences'\['Depth'\], field 'value': missing",
        ),
        (
            "medqa",
            {
                "original_problem": {
                    "questoin": "Which drug?",
                    "options": {"A": "x", "B": "y"},
                    "answer_idx": "A",
                }
            },
            "no problem text",
            r"field 'original_problem.question': missing or empty \(no problem text",
        ),
        (
            "mmlu",
            {"original_problem": {"question": "2+2?", "answer": 1}},
            "no options",
            r"field 'original_problem.choices': missing or empty \(mmlu is multiple choice\)",
        ),
        (
            "mmlu",
            {"original_problem": {"question": "2+2?", "choices": ["3", "4"], "answer": 7}},
            "gold answer not among the options",
            r"field 'original_problem.answer': gold answer 'H' is not one of the options A, B",
        ),
        (
            "math",
            {"original_problem": {"problem": "Compute $1+1$.", "solution": "2"}},
            "no gold answer",
            r"field 'original_problem.answer': no gold answer",
        ),
    ],
)
def test_records_that_cannot_be_run_are_skipped_and_counted(
    tmp_path: Path, source: str, overrides: dict[str, Any], reason: str, message: str
) -> None:
    good = (
        record(original_problem={"problem": "1+1?", "answer": "2"})
        if source == "math"
        else record()
    )
    bad = record(
        problem_id="problem_1_doe_12345678",
        **{"original_problem": good["original_problem"], **overrides},
    )
    path = write(tmp_path, [good, bad])
    records, report = read_source(source, data=path)
    assert [r.problem_id for r in records] == ["problem_0_doe_12345678"]
    assert (report.records, report.loaded, dict(report.skipped)) == (2, 1, {reason: 1})
    assert report.first_skip is not None and re.search(message, report.first_skip)
    with pytest.raises(PrefDiscoDataError, match=message + ".*strict=true") as error:
        load_records(source, data=path, strict=True)
    assert str(path) in str(error.value)


def test_a_file_of_unrunnable_records_is_an_error_with_the_summary(tmp_path: Path) -> None:
    path = write(tmp_path, [record(evaluation_rubric={})])
    with pytest.raises(PrefDiscoDataError, match=r"no PrefDisco records for source 'mmlu' in .*"
                       r"skipped \{'no rubric': 1\}, first: .*record 2"):  # fmt: skip
        load_records("mmlu", data=path)


def test_commonsenseqa_without_gold_labels_loads_with_no_answer(tmp_path: Path) -> None:
    row = {"question": "Where?", "choices": {"label": ["A", "B"], "text": ["home", "park"]},
           "answerKey": ""}  # fmt: skip
    (loaded,) = load_records("commonsenseqa", data=write(tmp_path, [record(original_problem=row)]))
    assert loaded.problem.answer is None


def test_a_lowercase_gold_letter_is_read_as_its_option(tmp_path: Path) -> None:
    row = {"question": "Which drug?", "options": {"A": "x", "B": "y"}, "answer_idx": "b"}
    (loaded,) = load_records("medqa", data=write(tmp_path, [record(original_problem=row)]))
    assert loaded.problem.answer == "B"


def test_weights_off_by_more_than_the_tolerance_are_normalised(tmp_path: Path) -> None:
    rubric = {"evaluation_criteria": [criterion("Depth", 0.75), criterion("Tone", 0.5)]}
    records, report = read_source("mmlu", data=write(tmp_path, [record(evaluation_rubric=rubric)]))
    assert [c.weight for c in records[0].criteria] == pytest.approx([0.6, 0.4])
    assert report.repairs == {"weights_normalised": 1}


def test_missing_importance_and_justification_are_counted(tmp_path: Path) -> None:
    preferences = {"Depth": {"value": 3}, "Tone": preference(2, 1)}
    records, report = read_source(
        "mmlu", data=write(tmp_path, [record(persona_preferences=preferences)])
    )
    assert records[0].preferences["Depth"] == {"value": 3}
    assert report.repairs == {"importance_missing": 1, "justification_empty": 1}


def test_weights_within_tolerance_are_accepted(tmp_path: Path) -> None:
    rubric = {"evaluation_criteria": [criterion("Depth", 0.74), criterion("Tone", 0.30)]}
    records, report = read_source("mmlu", data=write(tmp_path, [record(evaluation_rubric=rubric)]))
    assert sum(c.weight for c in records[0].criteria) == pytest.approx(1.0)
    assert report.clean


def test_duplicate_problem_ids_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(PrefDiscoDataError, match=r"record 3.*duplicate 'problem_0_doe_12345678'"):
        load_records("mmlu", data=write(tmp_path, [record(), record()]))


def test_unknown_source_and_variant_mismatch() -> None:
    with pytest.raises(PrefDiscoDataError, match="unknown source 'gsm8k'; use one of math, aime"):
        load_records("gsm8k")
    with pytest.raises(PrefDiscoDataError, match="the 5k variant covers only"):
        load_records("math", variant="5k")


def test_hub_download_needs_a_pinned_revision() -> None:
    with pytest.raises(PrefDiscoDataError, match="pinned revision"):
        load_records("math", data="hub")


def test_a_folder_in_the_release_layout(tmp_path: Path) -> None:
    folder = tmp_path / "benchmark_1k" / "mmlu"
    folder.mkdir(parents=True)
    write(folder, [record()])
    assert len(load_records("mmlu", data=tmp_path)) == 1


@pytest.mark.parametrize("source", ["math", "medqa", "socialiqa", "mmlu"])
def test_shipped_sample(source: str) -> None:
    records = load_records(source)
    assert len(records) == 30
    assert len({r.problem_id for r in records}) == 30
    for r in records:
        assert r.problem.answer
        assert abs(sum(c.weight for c in r.criteria) - 1) <= 0.05
        assert {c.preference for c in r.criteria} == set(r.preferences)
        if source != "math":
            assert r.problem.answer in r.problem.options


@pytest.mark.parametrize("source", ["math", "medqa", "socialiqa", "mmlu"])
def test_shipped_sample_needs_no_repair(source: str) -> None:
    _, report = read_source(source)
    assert report.clean and report.records == report.loaded == 30


def test_release_quirks_load_with_counted_repairs() -> None:
    records, report = read_source("math", data=DATA / "release_quirks.jsonl")
    assert (report.records, report.loaded, dict(report.skipped)) == (5, 5, {})
    assert report.repairs == {
        "weights_normalised": 1, "weight_missing": 1, "levels_nonstandard": 1,
        "justification_empty": 1,
    }  # fmt: skip
    for r in records:
        assert sum(c.weight for c in r.criteria) == pytest.approx(1.0)
    assert [c.weight for c in records[1].criteria] == pytest.approx(
        [0.5 / 0.93, 0.3 / 0.93, 0.13 / 0.93]
    )
    missing = records[2].criteria[1]
    assert missing.weight == pytest.approx((1 / 3) / (0.5 + 1 / 3 + 0.1667))
    assert sorted(records[3].criteria[1].levels) == [1, 2, 4, 5]
    assert records[4].preferences["Explanation Depth"]["justification"] == ""


def test_unrunnable_records_are_skipped_with_the_count_or_stop_a_strict_load() -> None:
    path = DATA / "unrunnable.jsonl"
    records, report = read_source("math", data=path)
    assert [r.position for r in records] == [0, 4]
    assert report.summary()["skipped"] == {
        "no problem text": 1,
        "no rubric": 1,
        "no gold answer": 1,
    }
    assert (report.records, report.loaded) == (5, 2)
    with pytest.raises(PrefDiscoDataError, match=rf"{path}: record 3 \(problem_id "
                       r"'problem_0_berg_[0-9a-f]{8}'\), field 'original_problem.problem': "
                       r"missing or empty \(no problem text.*strict=true"):  # fmt: skip
        read_source("math", data=path, strict=True)


def test_the_seeded_draw_picks_the_records_the_reference_picks() -> None:
    records = load_records("mmlu")
    random.seed(42)
    reference = random.sample(records, 7)  # the reference: random.seed(seed); random.sample
    assert draw_records(records, len(records), 7, seed=42) == reference
    assert draw_records(records, len(records), 7, seed=1) != reference
    assert sorted(draw_records(records, len(records), 99), key=lambda r: r.position) == records


def test_the_draw_leaves_out_a_skipped_record() -> None:
    records, report = read_source("math", data=DATA / "unrunnable.jsonl")
    drawn = draw_records(records, report.records, 5, seed=42)
    assert sorted(r.position for r in drawn) == [0, 4]
