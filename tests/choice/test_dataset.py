"""The shipped data and the loader's refusals, each naming file, record and field."""

import json
from pathlib import Path
from typing import Any

import pytest

from heedbench.evals.choice import ChoiceDataError, choice_dataset
from heedbench.evals.choice.dataset import default_data_dir, load_objects

OBJECTS = ["umbrella", "raincoat", "sunglasses", "keys"]


def test_shipped_data_has_the_papers_shape() -> None:
    dataset = choice_dataset()
    assert len(dataset) == 23
    objects = load_objects(default_data_dir() / "objects.json")
    assert len(objects) == 40
    set_counts = []
    for sample in dataset:
        assert sample.metadata is not None
        order = sample.metadata["user_order"]
        assert sorted(obj for level in order for obj in level) == sorted(objects)
        assert 2 <= len(order) <= 4
        set_counts.append(len(order))
    assert 3.3 <= sum(set_counts) / len(set_counts) <= 3.8
    assert len({sample.id for sample in dataset}) == 23


def test_object_subset_is_seeded_and_shared_by_all_contexts() -> None:
    first = choice_dataset(n=7, seed=3)
    again = choice_dataset(n=7, seed=3)
    other = choice_dataset(n=7, seed=4)

    def objects(dataset: Any) -> list[list[str]]:
        return [s.metadata["objects"] for s in dataset if s.metadata]

    per_context = objects(first)
    assert all(len(o) == 7 and o == per_context[0] for o in per_context)
    assert objects(again)[0] == per_context[0]
    assert objects(other)[0] != per_context[0]


def write_data(tmp_path: Path, records: list[Any], objects: list[str] | None = None) -> Path:
    (tmp_path / "objects.json").write_text(json.dumps({"objects": objects or OBJECTS}))
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    (tmp_path / "contexts.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path


def record(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "rain",
        "context": "Driving to a park in the rain.",
        "preference": [["umbrella", "raincoat"]],
    }
    base.update(overrides)
    return base


def test_unlisted_objects_form_the_last_set(tmp_path: Path) -> None:
    dataset = choice_dataset(write_data(tmp_path, [record()]))
    metadata = dataset[0].metadata
    assert metadata is not None
    assert metadata["user_order"] == [["umbrella", "raincoat"], ["sunglasses", "keys"]]


@pytest.mark.parametrize(
    ("records", "message"),
    [
        (
            [record(preference=[["umbrella"], ["umbrella"]])],
            r"record 1 \(id 'rain'\), field 'preference'\[1\]: object 'umbrella' appears more than once",
        ),
        (
            [record(preference=[["umbrella", "towel"]])],
            r"record 1 \(id 'rain'\), field 'preference'\[0\]: unknown object 'towel'",
        ),
        (
            [record(preference=[["umbrella"], []])],
            r"field 'preference'\[1\]: an indifference set must be a non-empty list",
        ),
        ([record(preference=[])], r"field 'preference': lists no indifference set"),
        (
            [record(), record()],
            r"record 2, field 'id': duplicate context id 'rain' \(first at record 1\)",
        ),
        (
            [record(irrelevant=["keys"])],
            r"field 'irrelevant': objects missing from the order: \['sunglasses'\]",
        ),
        ([{"id": "x", "context": "c"}], r"record 1, field 'preference': missing"),
        (["{not json"], r"record 1: not valid JSON"),
    ],
)
def test_malformed_records_are_rejected(tmp_path: Path, records: list[Any], message: str) -> None:
    folder = write_data(tmp_path, records)
    with pytest.raises(ChoiceDataError, match=message) as error:
        choice_dataset(folder)
    assert "contexts.jsonl" in str(error.value)


def test_malformed_object_lists_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(ChoiceDataError, match=r"objects\[2\]: object 'umbrella' is listed twice"):
        choice_dataset(write_data(tmp_path, [record()], ["umbrella", "raincoat", "umbrella"]))
    with pytest.raises(ChoiceDataError, match=r"objects\[1\]: object 'a, b' contains a comma"):
        choice_dataset(write_data(tmp_path, [record()], ["umbrella", "a, b", "raincoat"]))
