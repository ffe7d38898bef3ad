"""The shipped data and the loader's refusals, each naming file, record and field."""

import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from heedbench.evals.choice import ChoiceDataError, choice_dataset
from heedbench.evals.choice.dataset import (
    default_data_dir,
    load_contexts,
    load_objects,
    resolve_data_dir,
)
from heedbench.evals.choice.task import choice
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
        assert 3 <= len(order) <= 4, sample.id
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
            r"record 1 \(rain\): field 'preference': set 1: object 'umbrella' appears more than once",
        ),
        (
            [record(preference=[["umbrella", "towel"], ["raincoat", "sunglasses", "keys"]])],
            r"record 1 \(rain\): field 'preference': set 0: unknown object 'towel'",
        ),
        (
            [record(preference=[["umbrella", "raincoat"], ["sunglasses"]])],
            r"record 1 \(rain\): field 'preference': every object must be placed in one "
            r"set; missing: keys",
        ),
        (
            [record(preference=[["umbrella"], [], ["raincoat", "sunglasses", "keys"]])],
            r"field 'preference': set 1: an indifference set must be a non-empty list",
        ),
        (
            [record(preference=[["umbrella", "raincoat", "sunglasses", "keys"]])],
            r"field 'preference': 1 indifference set\(s\); a preference needs at least 2",
        ),
        ([record(preference=[])], r"field 'preference': 0 indifference set\(s\)"),
        (
            [record(preference={"top": ["umbrella"]})],
            r"field 'preference': Input should be a valid list",
        ),
        (
            [record(), record()],
            r"record 2 \(rain\): duplicate id 'rain' \(first at .*record 1 \(rain\)\)",
        ),
        (
            [record(preference=[["umbrella", "raincoat"]], irrelevant=["sunglasses", "keys"])],
            r"record 1 \(rain\): field 'irrelevant': no longer read; put those objects in "
            r"the last set of 'preference'",
        ),
        ([{"id": "x", "context": "c"}], r"record 1 \(x\): field 'preference': Field required"),
        (["{not json"], r"record 1: not valid JSON"),
        (
            [record(levels=["essential"])],
            r"record 1 \(rain\): field 'levels': 1 name\(s\) for 2 indifference sets",
        ),
        (
            [record(levels="essential, no role")],
            r"record 1 \(rain\): field 'levels': must be a list of level names",
        ),
        (
            [record(factors=["rain"])],
            r"record 1 \(rain\): field 'factors': Input should be a valid dictionary",
        ),
        (
            [record(factors={"sky": "rain"}), record(id="sun", factors={"weather": "sun"})],
            r"record 2 \(sun\): field 'factors': names weather; the first record names sky",
        ),
        (
            [
                record(factors={"sky": "rain"}),
                record(id="sun", factors={"sky": "sun"}, twins=["moon"]),
            ],
            r"record 2 \(sun\): field 'twins': 'moon' is not another context",
        ),
        (
            [
                record(factors={"sky": "rain", "companion": "dog"}),
                record(id="sun", factors={"sky": "sun", "companion": "alone"}, twins=["rain"]),
            ],
            r"record 2 \(sun\): field 'twins': a twin differs in exactly one factor; "
            r"'rain' differs in 2 \(companion, sky\)",
        ),
    ],
)
def test_malformed_records_are_rejected(tmp_path: Path, records: list[Any], message: str) -> None:
    folder = write_data(tmp_path, records)
    with pytest.raises(ChoiceDataError, match=message) as error:
        choice_dataset(folder)
    assert "contexts.jsonl" in str(error.value)


def test_malformed_object_lists_are_rejected(tmp_path: Path) -> None:
    twice = r"field 'objects': object 'umbrella' is listed twice \(objects\[2\]\)"
    with pytest.raises(ChoiceDataError, match=twice):
        choice_dataset(write_data(tmp_path, [record()], ["umbrella", "raincoat", "umbrella"]))
    with pytest.raises(ChoiceDataError, match=r"field 'objects.1': object 'a, b' contains a comma"):
        choice_dataset(write_data(tmp_path, [record()], ["umbrella", "a, b", "raincoat"]))


def test_both_files_may_start_with_a_byte_order_mark(tmp_path: Path) -> None:
    folder = write_data(tmp_path, [record()])
    for name in ("objects.json", "contexts.jsonl"):
        path = folder / name
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert [sample.id for sample in choice_dataset(folder)] == ["rain"]


def test_named_levels_load_with_the_context(tmp_path: Path) -> None:
    folder = write_data(tmp_path, [record(levels=["essential", "no role"])])
    contexts = load_contexts(folder / "contexts.jsonl", OBJECTS)
    assert contexts[0].levels == ("essential", "no role")


def test_version_2_still_loads_by_name_beside_the_shipped_data(tmp_path: Path) -> None:
    old, new = choice_dataset("v2"), choice_dataset()
    assert [s.id for s in old] == [s.id for s in new]  # the same 23 contexts
    strict = [len(strict_pairs(s.metadata["user_order"])) for s in old if s.metadata]
    assert statistics.fmean(strict) == pytest.approx(543.5, abs=0.05)  # version 2's figure
    assert old[0].metadata != new[0].metadata
    assert choice(data="v2", n=5).dataset[0].metadata == choice_dataset("v2", n=5)[0].metadata
    assert resolve_data_dir("v2") == default_data_dir() / "v2"
    assert resolve_data_dir("./v2") == Path("./v2")  # a local folder of that name
    assert resolve_data_dir(str(tmp_path)) == tmp_path


def test_every_sample_carries_its_leave_one_out_order_and_a_single_context_none(
    tmp_path: Path,
) -> None:
    for sample in choice_dataset(n=6):
        assert sample.metadata is not None
        blind = sample.metadata["context_blind_order"]
        assert sorted(obj for level in blind for obj in level) == sorted(sample.metadata["objects"])
    alone = choice_dataset(write_data(tmp_path, [record()]))
    assert alone[0].metadata is not None
    assert alone[0].metadata["context_blind_order"] is None  # nothing left to learn from


def test_twins_differ_in_one_factor_and_know_which(tmp_path: Path) -> None:
    folder = write_data(
        tmp_path,
        [
            record(factors={"sky": "rain", "companion": "dog"}),
            record(id="sun", factors={"sky": "sun", "companion": "dog"}, twins=["rain"]),
        ],
    )
    sun = choice_dataset(folder)[1]
    assert sun.metadata is not None
    assert sun.metadata["factors"] == {"sky": "sun", "companion": "dog"}
    assert sun.metadata["twins"] == {"rain": "sky"}


def test_the_contrast_split_pairs_minimal_twins_over_every_factor() -> None:
    objects = load_objects(default_data_dir() / "objects.json")
    contrast = choice_dataset("contrast")
    factors = {f for s in choice_dataset() if s.metadata for f in s.metadata["factors"]}
    assert len(factors) == 6
    pairs = [
        (str(s.id), twin, factor)
        for s in contrast
        if s.metadata
        for twin, factor in s.metadata["twins"].items()
    ]
    assert len(pairs) >= 12
    per_factor = {factor: sum(1 for *_, f in pairs if f == factor) for factor in factors}
    assert min(per_factor.values()) >= 2, per_factor
    for sample in contrast:
        assert sample.metadata is not None
        order = sample.metadata["user_order"]
        assert sorted(o for level in order for o in level) == sorted(objects)  # all 40
        assert 2 <= len(order) <= 4
        assert set(sample.metadata["factors"]) == factors
    # scored against the default data: every contrast context shares its blind order
    blind = {json.dumps(s.metadata["context_blind_order"]) for s in contrast if s.metadata}
    assert len(blind) == 1
    assert resolve_data_dir("contrast") == default_data_dir() / "contrast"
