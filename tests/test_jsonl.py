"""Reading data files: every failure names the file and the record, for all three loaders."""

import json
from pathlib import Path

import pytest

from heedbench.evals.carryon.dataset import CarryOnDataError, load_queries
from heedbench.evals.choice.dataset import ChoiceDataError, load_contexts
from heedbench.evals.prefdisco.dataset import PrefDiscoDataError, load_records
from heedbench.jsonl import MAX_RECORD_BYTES, jsonl_records


def _loaders(path: Path) -> list[tuple[type[ValueError], object]]:
    return [
        (CarryOnDataError, lambda: load_queries(str(path))),
        (ChoiceDataError, lambda: load_contexts(path, ["a", "b"])),
        (PrefDiscoDataError, lambda: load_records("math", data=str(path))),
    ]


def test_non_utf8_names_file_and_record(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes('{"id": "café"}\n'.encode("latin-1"))
    for error, load in _loaders(path):
        with pytest.raises(error, match=rf"{path.name}: record 1: not UTF-8"):
            load()  # type: ignore[operator]


def test_empty_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n  \n", encoding="utf-8")
    for error, load in _loaders(path):
        with pytest.raises(error, match=rf"{path.name}: the file holds no records"):
            load()  # type: ignore[operator]


def test_oversized_record_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps({"id": "x", "query": "a" * MAX_RECORD_BYTES}) + "\n")
    with pytest.raises(ValueError, match=r"record 1: .* over the limit"):
        list(jsonl_records(path, ValueError))


def test_a_byte_order_mark_is_not_an_error(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b'{"id": "x"}\n')
    assert [record for _, _, record in jsonl_records(path, ValueError)] == [{"id": "x"}]
