"""Loading and validating `choice` contexts; malformed data fails before any model call.

Every sample also carries the context-blind order it is measured against: the mean level of
each object over all the *other* contexts of the data file (leave one context out), so that
a context's `spo_context` does not depend on which other contexts a run scored. A split of
the shipped data (`contrast`) is measured against the default data instead: its contexts are
twins of each other, so leaving one out would still show the scored context's twin.
"""

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from heedbench import params
from heedbench.errors import InputError
from heedbench.jsonl import jsonl_records, reject_duplicates
from heedbench.paths import shipped_data_dir
from heedbench.preference import WeakOrder, restrict
from heedbench.scorers.choice.context_blind import (
    BLIND_ORDER,
    leave_one_out_orders,
    mean_level_order,
)

OBJECTS_FILE = "objects.json"
CONTEXTS_FILE = "contexts.jsonl"
REQUIRED_FIELDS = ("id", "context", "preference")
MIN_SETS = 2
PREVIOUS_VERSIONS = ("v3", "v2")
"""Earlier shipped data, loadable by name with `-T data=<name>` (subfolders of the data)."""
SPLITS = ("contrast",)
"""Shipped splits scored against choosers learnt on the default data (`-T data=<name>`)."""


class ChoiceDataError(InputError):
    """A data file breaks the `choice` schema; the message names file, record and field."""


@dataclass(frozen=True)
class ChoiceContext:
    """One context and the model user's weak order over every object."""

    id: str
    context: str
    order: WeakOrder
    """Indifference sets, most relevant first; together they hold each object exactly once."""
    destination: str = ""
    condition: str = ""
    rationale: str = ""
    levels: tuple[str, ...] = ()
    """Optional names of the sets' levels (e.g. essential, useful, incidental, no role)."""
    factors: dict[str, str] = field(default_factory=dict)
    """What the context is made of, factor by factor (destination, companion, sky, ...)."""
    twins: dict[str, str] = field(default_factory=dict)
    """Earlier contexts this one is a minimal twin of, each with the one factor they differ in."""


def default_data_dir() -> Path:
    """The shipped data, `datasets/choice/`."""
    return shipped_data_dir("choice")


def resolve_data_dir(data: str | Path | None) -> Path:
    """The folder `-T data` names: the shipped data, an earlier shipped version, or a path.

    A bare name (`v3`, `v2`, `contrast`) selects that shipped version or split; write `./v2`
    for a local folder of that name.
    """
    if data is None:
        return default_data_dir()
    if str(data) in (*PREVIOUS_VERSIONS, *SPLITS):
        return default_data_dir() / str(data)
    return Path(data)


def _check_levels(where: str, levels: Any, sets: int) -> tuple[str, ...]:
    if not isinstance(levels, list) or not all(
        isinstance(name, str) and name.strip() for name in levels
    ):
        raise ChoiceDataError(f"{where}, field 'levels': must be a list of level names")
    if len(levels) != sets:
        raise ChoiceDataError(
            f"{where}, field 'levels': {len(levels)} name(s) for {sets} indifference sets"
        )
    return tuple(levels)


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


def _check_partition(where: str, order: Any, objects: list[str]) -> WeakOrder:
    """`preference` must place every object in exactly one of at least two sets."""
    field = f"{where}, field 'preference'"
    if not isinstance(order, list):
        raise ChoiceDataError(f"{field}: must be a list of indifference sets (lists of objects)")
    if len(order) < MIN_SETS:
        raise ChoiceDataError(
            f"{field}: {len(order)} indifference set(s); a preference needs at least "
            f"{MIN_SETS} (one set would state no strict preference at all)"
        )
    known = set(objects)
    seen: set[str] = set()
    for level, indifference_set in enumerate(order):
        if not isinstance(indifference_set, list) or not indifference_set:
            raise ChoiceDataError(
                f"{field}[{level}]: an indifference set must be a non-empty list of objects"
            )
        for obj in indifference_set:
            if obj not in known:
                raise ChoiceDataError(f"{field}[{level}]: unknown object {obj!r}")
            if obj in seen:
                raise ChoiceDataError(f"{field}[{level}]: object {obj!r} appears more than once")
            seen.add(obj)
    missing = [obj for obj in objects if obj not in seen]
    if missing:
        raise ChoiceDataError(
            f"{field}: every object must be placed in one set; missing: {', '.join(missing)}"
        )
    return [list(level) for level in order]


def parse_context(record: Any, where: str, objects: list[str]) -> ChoiceContext:
    """Validate one JSONL record against the object list.

    `preference` is the model user's whole weak order: indifference sets, most relevant
    first, that together hold every object of `objects.json` exactly once. An object left
    out is an error, never an implicit last set.
    """
    if not isinstance(record, dict):
        raise ChoiceDataError(f"{where}: a record must be a JSON object")
    for name in REQUIRED_FIELDS:
        if name not in record:
            raise ChoiceDataError(f"{where}, field '{name}': missing")
    if not isinstance(record["id"], str) or not record["id"].strip():
        raise ChoiceDataError(f"{where}, field 'id': must be a non-empty string")
    if not isinstance(record["context"], str) or not record["context"].strip():
        raise ChoiceDataError(f"{where}, field 'context': must be a non-empty string")
    where = f"{where} (id {record['id']!r})"
    if "irrelevant" in record:
        raise ChoiceDataError(
            f"{where}, field 'irrelevant': no longer read; put those objects in the last set "
            "of 'preference', which must hold every object"
        )
    order = _check_partition(where, record["preference"], objects)
    levels = record.get("levels")
    factors = record.get("factors", {})
    if not isinstance(factors, dict) or not all(
        isinstance(value, str) and value.strip() for value in factors.values()
    ):
        raise ChoiceDataError(f"{where}, field 'factors': must map each factor to a value")
    twins = record.get("twins", [])
    if not isinstance(twins, list) or not all(isinstance(twin, str) for twin in twins):
        raise ChoiceDataError(f"{where}, field 'twins': must be a list of context ids")
    return ChoiceContext(
        id=record["id"],
        context=record["context"],
        order=order,
        destination=str(record.get("destination", "")),
        condition=str(record.get("condition", "")),
        rationale=str(record.get("rationale", "")),
        levels=() if levels is None else _check_levels(where, levels, len(order)),
        factors=dict(factors),
        twins=dict.fromkeys(twins, ""),
    )


def _check_factors(path: Path, contexts: list[ChoiceContext]) -> None:
    """Every context names the same factors (or none does); each twin differs in exactly one.

    Fills in each twin's differing factor.
    """
    names = sorted(contexts[0].factors)
    by_id = {context.id: context for context in contexts}
    for line, context in enumerate(contexts, start=1):
        where = f"{path}: record {line} (id {context.id!r})"
        if sorted(context.factors) != names:
            raise ChoiceDataError(
                f"{where}, field 'factors': names {', '.join(sorted(context.factors)) or 'none'}; "
                f"the first record names {', '.join(names) or 'none'}"
            )
        for twin in context.twins:
            other = by_id.get(twin)
            if other is None or other is context:
                raise ChoiceDataError(f"{where}, field 'twins': {twin!r} is not another context")
            differing = [name for name in names if context.factors[name] != other.factors[name]]
            if len(differing) != 1:
                raise ChoiceDataError(
                    f"{where}, field 'twins': a twin differs in exactly one factor; {twin!r} "
                    f"differs in {len(differing)} ({', '.join(differing) or 'none'})"
                )
            context.twins[twin] = differing[0]


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
    _check_factors(path, contexts)
    return contexts


def select_objects(objects: list[str], n: int | None, seed: int) -> list[str]:
    """A seeded subset of `n` objects (all when n is None), kept in file order."""
    if n is None or n == len(objects):
        return list(objects)
    params.integer("n", n, low=2, high=len(objects))
    chosen = set(random.Random(seed).sample(objects, n))
    return [obj for obj in objects if obj in chosen]


def load_folder(folder: Path) -> tuple[list[str], list[ChoiceContext]]:
    """A data folder's objects and validated contexts."""
    objects = load_objects(folder / OBJECTS_FILE)
    return objects, load_contexts(folder / CONTEXTS_FILE, objects)


def pool_of(folder: Path) -> list[ChoiceContext] | None:
    """The contexts a split's reference choosers learn from: the default data.

    None when the folder's own contexts are the pool (left out one at a time).
    """
    if folder.parent == default_data_dir() and folder.name in SPLITS:
        return load_folder(default_data_dir())[1]
    return None


def context_blind_orders(
    contexts: list[ChoiceContext], objects: list[str], pool: list[ChoiceContext] | None = None
) -> dict[str, WeakOrder | None]:
    """Each context's context-blind order over `objects`.

    The mean level over `pool`, or over the other contexts when there is no pool (None for a
    single context).
    """
    if pool is not None:
        blind = mean_level_order([restrict(context.order, objects) for context in pool], objects)
        return {context.id: blind for context in contexts}
    orders = {context.id: restrict(context.order, objects) for context in contexts}
    if len(orders) < 2:
        return dict.fromkeys(orders)
    return dict(leave_one_out_orders(orders, objects))


def choice_dataset(
    data_dir: str | Path | None = None, n: int | None = None, seed: int = 0
) -> MemoryDataset:
    """One sample per context; the sample id is the context id.

    Args:
        data_dir: folder holding `objects.json` and `contexts.jsonl`, or the name of an
            earlier shipped version or split (`v3`, `v2`, `contrast`); default: the shipped
            data.
        n: use a seeded subset of n objects in every context.
        seed: seed for the subset.
    """
    folder = resolve_data_dir(data_dir)
    all_objects, contexts = load_folder(folder)
    objects = select_objects(all_objects, n, seed)
    blind = context_blind_orders(contexts, objects, pool_of(folder))
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
                BLIND_ORDER: blind[context.id],
                "factors": context.factors,
                "twins": context.twins,
            },
        )
        for context in contexts
    ]
    return MemoryDataset(samples, name="choice", location=str(folder))
