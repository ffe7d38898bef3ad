"""PrefDisco records: the public schema validated, errors naming file, record and field."""

import json
from pathlib import Path
from typing import Any

import pytest

from heedbench.evals.prefdisco import PrefDiscoDataError, load_records


def criterion(name: str, weight: float) -> dict[str, Any]:
    levels = [{"score": s, "description": f"level {s}"} for s in (1, 3, 5)]
    return {"preference": name, "description": name, "weight": weight, "levels": levels}


def preference(value: int, importance: int) -> dict[str, Any]:
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


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            {"evaluation_rubric": {"evaluation_criteria": []}},
            r"record 2 \(problem_id 'problem_0_doe_12345678'\), field 'evaluation_rubric.evaluation_criteria': missing or empty rubric",
        ),
        (
            {
                "evaluation_rubric": {
                    "evaluation_criteria": [criterion("Depth", 0.75), criterion("Tone", 0.5)]
                }
            },
            r"weights sum to 1.250, not 1",
        ),
        (
            {
                "evaluation_rubric": {
                    "evaluation_criteria": [criterion("Depth", 0.5), criterion("Humour", 0.5)]
                }
            },
            r"\[1\]: preference 'Humour' has no entry in 'persona_preferences'",
        ),
        (
            {"persona_preferences": {"Depth": {"value": 3}, "Tone": preference(2, 1)}},
            r"field 'persona_preferences'\['Depth'\], field 'local_importance': missing",
        ),
        ({"type": "problem"}, r"record 2, field 'type'"),
    ],
)
def test_malformed_records_are_rejected(
    tmp_path: Path, overrides: dict[str, Any], message: str
) -> None:
    path = write(tmp_path, [record(**overrides)])
    with pytest.raises(PrefDiscoDataError, match=message) as error:
        load_records("mmlu", data=path)
    assert str(path) in str(error.value)


def test_weights_within_tolerance_are_accepted(tmp_path: Path) -> None:
    rubric = {"evaluation_criteria": [criterion("Depth", 0.74), criterion("Tone", 0.30)]}
    assert load_records("mmlu", data=write(tmp_path, [record(evaluation_rubric=rubric)]))


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
