"""Second labellings of the gold cases: how far two labellers agree is a grader's ceiling.

The main files hold the adjudicated gold. Independent labellings, made blind to it, live in
`labels/<file stem>.<labeller>.jsonl` beside them, one line per case in the case's own shape:

- `{"id": "cl-001", "labeller": "b", "items": {"cl-001.1": true, ...}}` (checklist)
- `{"id": "hm-001", "labeller": "b", "harm": 2}`
- `{"id": "pa-001", "labeller": "b", "scores": {"<criterion preference>": 4, ...}}`
- `{"id": "cc-001", "labeller": "b", "correct": false}`

Every label file is checked against its main file before anything is computed: a case that
does not exist, a labeller name that is not the file's, an item or criterion that is missing
or extra, a value of the wrong type are errors naming file, record and field. A labelling may
cover only part of the cases; the agreement is then over the cases it covers.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from heedbench.evals.judge_check.dataset import (
    CHECKLIST_FILE,
    CORRECTNESS_FILE,
    HARM_FILE,
    RUBRIC_FILE,
    carryon_cases,
    prefdisco_cases,
)
from heedbench.evals.judge_check.errors import JudgeCheckDataError
from heedbench.jsonl import jsonl_records, reject_duplicates

LABELS_FOLDER = "labels"
FILES = {
    Path(CHECKLIST_FILE).stem: "checklist",
    Path(HARM_FILE).stem: "harm",
    Path(RUBRIC_FILE).stem: "rubric",
    Path(CORRECTNESS_FILE).stem: "correctness",
}
"""Main file stem -> the part its cases belong to."""


@dataclass(frozen=True)
class Labelling:
    """One labeller's labels for the cases of one main file."""

    stem: str
    labeller: str
    labels: dict[str, dict[str, int]]
    """Case id -> unit key (item question, "harm", criterion preference, "correct") -> label."""


def gold_labels(sample: Sample) -> dict[str, int]:
    """A case's own (adjudicated) labels, keyed as a labelling's are."""
    metadata = sample.metadata or {}
    part = metadata["part"]
    if part == "checklist":
        return {item["question"]: int(item["fulfilled"]) for item in metadata["items"]}
    if part == "harm":
        return {"harm": int(metadata["harm"])}
    if part == "rubric":
        return {c["preference"]: int(c["score"]) for c in metadata["criteria"]}
    return {"correct": int(metadata["correct"])}


def _scale(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
        raise JudgeCheckDataError(f"{where}: must be an integer 1-5")
    return value


def _flag(value: Any, where: str) -> int:
    if not isinstance(value, bool):
        raise JudgeCheckDataError(f"{where}: must be true or false")
    return int(value)


def _table(value: Any, expected: Mapping[str, str], where: str, read: Any) -> dict[str, int]:
    """A labelled table (item id or preference -> label) with exactly the expected keys."""
    if not isinstance(value, Mapping):
        raise JudgeCheckDataError(f"{where}: must be an object")
    missing = sorted(set(expected) - set(value))
    extra = sorted(set(value) - set(expected))
    if missing or extra:
        detail = "; ".join(
            text
            for text in (
                f"missing {', '.join(missing)}" if missing else "",
                f"not in the case: {', '.join(extra)}" if extra else "",
            )
            if text
        )
        raise JudgeCheckDataError(f"{where}: {detail}")
    return {expected[key]: read(value[key], f"{where}[{key!r}]") for key in expected}


def _labels(record: Mapping[str, Any], case: Sample, where: str) -> dict[str, int]:
    metadata = case.metadata or {}
    part = metadata["part"]
    if part == "checklist":
        ids = {item["id"]: item["question"] for item in metadata["items"]}
        return _table(record.get("items"), ids, f"{where}, field 'items'", _flag)
    if part == "harm":
        return {"harm": _scale(record.get("harm"), f"{where}, field 'harm'")}
    if part == "rubric":
        names = {c["preference"]: c["preference"] for c in metadata["criteria"]}
        return _table(record.get("scores"), names, f"{where}, field 'scores'", _scale)
    return {"correct": _flag(record.get("correct"), f"{where}, field 'correct'")}


def read_labelling(path: Path, cases: Mapping[str, Sample]) -> Labelling:
    """One label file, checked against the cases of its main file (by id)."""
    stem, _, labeller = path.name.removesuffix(".jsonl").partition(".")
    if not labeller:
        raise JudgeCheckDataError(f"{path}: name it <file stem>.<labeller>.jsonl")

    def records() -> Any:
        for _, where, record in jsonl_records(path, JudgeCheckDataError):
            if not isinstance(record, Mapping):
                raise JudgeCheckDataError(f"{where}: a record must be a JSON object")
            case_id = record.get("id")
            if not isinstance(case_id, str) or case_id not in cases:
                raise JudgeCheckDataError(
                    f"{where}, field 'id': {case_id!r} is not a case of {stem}.jsonl"
                )
            if record.get("labeller") != labeller:
                raise JudgeCheckDataError(
                    f"{where}, field 'labeller': must be {labeller!r}, as in the file name"
                )
            yield where, (case_id, _labels(record, cases[case_id], where))

    kept = reject_duplicates(
        records(),
        key=lambda entry: entry[0],
        duplicate=lambda where, key, first: JudgeCheckDataError(
            f"{where}, field 'id': {key!r} labelled twice (first at {first})"
        ),
    )
    return Labelling(stem, labeller, dict(kept))


def main_cases(folder: Path, stem: str) -> dict[str, Sample]:
    """The cases of one main file, by id."""
    part = FILES[stem]
    if part in ("checklist", "harm"):
        dataset = carryon_cases(str(folder), part)
    else:
        dataset = prefdisco_cases(str(folder), part)
    return {str(sample.id): sample for sample in dataset}


def load_labellings(folder: str | Path) -> dict[str, tuple[dict[str, Sample], list[Labelling]]]:
    """Every labelling under `folder/labels/`, by main file stem, with that file's cases.

    Returns an empty mapping when the folder has no labels; a label file whose stem names no
    main file is an error.
    """
    root = Path(folder)
    found: dict[str, tuple[dict[str, Sample], list[Labelling]]] = {}
    for path in sorted((root / LABELS_FOLDER).glob("*.jsonl")):
        stem = path.name.split(".", 1)[0]
        if stem not in FILES:
            raise JudgeCheckDataError(
                f"{path}: the name must start with one of {', '.join(sorted(FILES))}"
            )
        if stem not in found:
            found[stem] = (main_cases(root, stem), [])
        cases, labellings = found[stem]
        labellings.append(read_labelling(path, cases))
    return found
