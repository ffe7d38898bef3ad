"""The shipped data and the loader's refusals, each naming file, record and field."""

import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from heedbench.evals.choice import ChoiceDataError, choice_dataset
from heedbench.evals.choice.dataset import default_data_dir, load_contexts, load_objects
from heedbench.preference import strict_pairs

OBJECTS = ["umbrella", "raincoat", "sunglasses", "keys"]


def test_shipped_data_has_the_papers_shape() -> None:
    # The paper: 23 contexts, 40 objects, at most four sets (3.56 on average), and inverting
    # the user scores K(p) 568 on average, which is the mean number of strict pairs.
    dataset = choice_dataset()
    assert len(dataset) == 23
    assert len({sample.id for sample in dataset}) == 23
    objects = load_objects(default_data_dir() / "objects.json")
    assert len(objects) == 40
    set_counts, strict_counts = [], []
    for sample in dataset:
        assert sample.metadata is not None
        order = sample.metadata["user_order"]
        placed = [obj for level in order for obj in level]
        assert sorted(placed) == sorted(objects), sample.id  # every object exactly once
        assert 2 <= len(order) <= 4, sample.id
        assert max(len(level) for level in order) <= 24, sample.id
        set_counts.append(len(order))
        strict_counts.append(len(strict_pairs(order)))
    assert 3.4 <= statistics.fmean(set_counts) <= 3.7
    assert 540 <= statistics.fmean(strict_counts) <= 600
    # strict pairs = C(40, 2) minus the pairs inside each set
    sample = dataset[0]
    assert sample.metadata is not None
    tied = sum(len(level) * (len(level) - 1) // 2 for level in sample.metadata["user_order"])
    assert strict_counts[0] == 780 - tied


def test_shipped_records_carry_a_rationale_and_the_card_lists_them() -> None:
    card = (default_data_dir() / "README.md").read_text(encoding="utf-8")
    objects = load_objects(default_data_dir() / "objects.json")
    contexts = load_contexts(default_data_dir() / "contexts.jsonl", objects)
    for context in contexts:
        assert len(context.rationale.split()) >= 20, context.id
        sizes = "/".join(str(len(level)) for level in context.order)
        pairs = len(strict_pairs(context.order))
        assert f"| `{context.id}` | {sizes} | {pairs} |" in card, context.id


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
        "preference": [["umbrella", "raincoat"], ["sunglasses", "keys"]],
    }
    base.update(overrides)
    return base


def test_a_full_partition_loads_as_the_user_order(tmp_path: Path) -> None:
    dataset = choice_dataset(write_data(tmp_path, [record()]))
    metadata = dataset[0].metadata
    assert metadata is not None
    assert metadata["user_order"] == [["umbrella", "raincoat"], ["sunglasses", "keys"]]


@pytest.mark.parametrize(
    ("records", "message"),
    [
        (
            [record(preference=[["umbrella", "raincoat"], ["umbrella", "sunglasses", "keys"]])],
            r"record 1 \(id 'rain'\), field 'preference'\[1\]: object 'umbrella' appears more than once",
        ),
        (
            [record(preference=[["umbrella", "towel"], ["raincoat", "sunglasses", "keys"]])],
            r"record 1 \(id 'rain'\), field 'preference'\[0\]: unknown object 'towel'",
        ),
        (
            [record(preference=[["umbrella", "raincoat"], ["sunglasses"]])],
            r"record 1 \(id 'rain'\), field 'preference': every object must be placed in one "
            r"set; missing: keys",
        ),
        (
            [record(preference=[["umbrella"], [], ["raincoat", "sunglasses", "keys"]])],
            r"field 'preference'\[1\]: an indifference set must be a non-empty list",
        ),
        (
            [record(preference=[["umbrella", "raincoat", "sunglasses", "keys"]])],
            r"field 'preference': 1 indifference set\(s\); a preference needs at least 2",
        ),
        ([record(preference=[])], r"field 'preference': 0 indifference set\(s\)"),
        ([record(preference={"top": ["umbrella"]})], r"field 'preference': must be a list"),
        (
            [record(), record()],
            r"record 2, field 'id': duplicate context id 'rain' \(first at record 1\)",
        ),
        (
            [record(preference=[["umbrella", "raincoat"]], irrelevant=["sunglasses", "keys"])],
            r"record 1 \(id 'rain'\), field 'irrelevant': no longer read; put those objects in "
            r"the last set of 'preference'",
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
