"""Loading and validating `choice` contexts; malformed data fails before any model call."""

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from heedbench import params
from heedbench.jsonl import jsonl_records, reject_duplicates
from heedbench.paths import shipped_data_dir
from heedbench.preference import WeakOrder, restrict

OBJECTS_FILE = "objects.json"
CONTEXTS_FILE = "contexts.jsonl"
REQUIRED_FIELDS = ("id", "context", "preference")


class ChoiceDataError(ValueError):
    """A data file breaks the `choice` schema; the message names file, record and field."""


@dataclass(frozen=True)
class ChoiceContext:
    """One context and the model user's weak order over the objects in it."""

    id: str
    context: str
    order: WeakOrder
    """Listed indifference sets, then the irrelevant objects as the last set (if any)."""
    destination: str = ""
    condition: str = ""
    rationale: str = ""


def default_data_dir() -> Path:
    """The shipped data, `datasets/choice/`."""
    return shipped_data_dir("choice")


def load_objects(path: Path) -> list[str]:
    """Read `objects.json`: `{"objects": [name, ...]}` with unique, comma-free names."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as error:
        raise ChoiceDataError(f"{path}: not UTF-8 text; save the file as UTF-8") from error
    except (OSError, json.JSONDecodeError) as error:
        raise ChoiceDataError(f"{path}: cannot read objects: {error}") from error
    objects = raw.get("objects") if isinstance(raw, dict) else None
    if not isinstance(objects, list) or not objects:
        raise ChoiceDataError(f"{path}: field 'objects' must be a non-empty list of names")
    seen: set[str] = set()
    for index, name in enumerate(objects):
        where = f"{path}: objects[{index}]"
        if not isinstance(name, str) or not name.strip():
            raise ChoiceDataError(f"{where}: an object name must be a non-empty string")
        if "," in name:
            raise ChoiceDataError(f"{where}: object {name!r} contains a comma")
        if name in seen:
            raise ChoiceDataError(f"{where}: object {name!r} is listed twice")
        seen.add(name)
    return list(objects)


def _check_order(
    where: str, field: str, order: Any, objects: set[str], seen: set[str]
) -> list[list[str]]:
    if not isinstance(order, list):
        raise ChoiceDataError(f"{where}, field '{field}': must be a list of lists of objects")
    for level, indifference_set in enumerate(order):
        if not isinstance(indifference_set, list) or not indifference_set:
            raise ChoiceDataError(
                f"{where}, field '{field}'[{level}]: an indifference set must be a non-empty list"
            )
        for obj in indifference_set:
            if obj not in objects:
                raise ChoiceDataError(f"{where}, field '{field}'[{level}]: unknown object {obj!r}")
            if obj in seen:
                raise ChoiceDataError(
                    f"{where}, field '{field}'[{level}]: object {obj!r} appears more than once"
                )
            seen.add(obj)
    return order


def parse_context(record: Any, where: str, objects: list[str]) -> ChoiceContext:
    """Validate one JSONL record against the object list.

    `preference` lists the relevant indifference sets, most relevant first. Unlisted objects
    form the last, irrelevant set; a record may instead list them in `irrelevant`, in which
    case every object must appear exactly once.
    """
    if not isinstance(record, dict):
        raise ChoiceDataError(f"{where}: a record must be a JSON object")
    for field in REQUIRED_FIELDS:
        if field not in record:
            raise ChoiceDataError(f"{where}, field '{field}': missing")
    if not isinstance(record["id"], str) or not record["id"].strip():
        raise ChoiceDataError(f"{where}, field 'id': must be a non-empty string")
    if not isinstance(record["context"], str) or not record["context"].strip():
        raise ChoiceDataError(f"{where}, field 'context': must be a non-empty string")
    where = f"{where} (id {record['id']!r})"
    known = set(objects)
    seen: set[str] = set()
    order = _check_order(where, "preference", record["preference"], known, seen)
    if not order:
        raise ChoiceDataError(f"{where}, field 'preference': lists no indifference set")
    if "irrelevant" in record:
        irrelevant = _check_order(where, "irrelevant", [record["irrelevant"]], known, seen)[0]
        missing = [obj for obj in objects if obj not in seen]
        if missing:
            raise ChoiceDataError(
                f"{where}, field 'irrelevant': objects missing from the order: {missing}"
            )
    else:
        irrelevant = [obj for obj in objects if obj not in seen]
    full_order = [list(level) for level in order] + ([irrelevant] if irrelevant else [])
    return ChoiceContext(
        id=record["id"],
        context=record["context"],
        order=full_order,
        destination=str(record.get("destination", "")),
        condition=str(record.get("condition", "")),
        rationale=str(record.get("rationale", "")),
    )


def load_contexts(path: Path, objects: list[str]) -> list[ChoiceContext]:
    """Read and validate `contexts.jsonl`, one context per line."""
    contexts = reject_duplicates(
        ((where, parse_context(record, where, objects))
         for _, where, record in jsonl_records(path, ChoiceDataError)),
        key=lambda context: context.id,
        duplicate=lambda where, key, first: ChoiceDataError(
            f"{where}, field 'id': duplicate context id {key!r} (first at {first})"
        ),
        first_label=lambda where: where.rsplit(": ", 1)[-1],
    )  # fmt: skip
    if not contexts:
        raise ChoiceDataError(f"{path}: no contexts")
    return contexts


def select_objects(objects: list[str], n: int | None, seed: int) -> list[str]:
    """A seeded subset of `n` objects (all when n is None), kept in file order."""
    if n is None or n == len(objects):
        return list(objects)
    params.integer("n", n, low=2, high=len(objects))
    chosen = set(random.Random(seed).sample(objects, n))
    return [obj for obj in objects if obj in chosen]


def choice_dataset(
    data_dir: str | Path | None = None, n: int | None = None, seed: int = 0
) -> MemoryDataset:
    """One sample per context; the sample id is the context id.

    Args:
        data_dir: folder holding `objects.json` and `contexts.jsonl` (default: shipped data).
        n: use a seeded subset of n objects in every context.
        seed: seed for the subset.
    """
    folder = Path(data_dir) if data_dir is not None else default_data_dir()
    all_objects = load_objects(folder / OBJECTS_FILE)
    contexts = load_contexts(folder / CONTEXTS_FILE, all_objects)
    objects = select_objects(all_objects, n, seed)
    samples = [
        Sample(
            id=context.id,
            input=context.context,
            target=json.dumps(restrict(context.order, objects)),
            metadata={
                "context": context.context,
                "destination": context.destination,
                "condition": context.condition,
                "objects": objects,
                "user_order": restrict(context.order, objects),
            },
        )
        for context in contexts
    ]
    return MemoryDataset(samples, name="choice", location=str(folder))
