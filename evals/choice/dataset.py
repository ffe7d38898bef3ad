"""Loading and validating `choice` contexts; malformed data fails before any model call.

Every sample also carries the context-blind order it is measured against: the mean level of
each object over all the *other* contexts of the data file (leave one context out), so that
a context's `spo_context` does not depend on which other contexts a run scored. A split of
the shipped data (`contrast`) is measured against the default data instead: its contexts are
twins of each other, so leaving one out would still show the scored context's twin.
"""

import json
import random
from pathlib import Path
from typing import Annotated, Any

from inspect_ai.dataset import MemoryDataset, Sample
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from heedbench import params
from heedbench.errors import InputError
from heedbench.jsonl import Text, first_problem, read_models
from heedbench.paths import shipped_data_dir
from heedbench.preference import WeakOrder, restrict
from heedbench.scorers.choice.context_blind import (
    BLIND_ORDER,
    leave_one_out_orders,
    mean_level_order,
)

OBJECTS_FILE = "objects.json"
CONTEXTS_FILE = "contexts.jsonl"
MIN_SETS = 2
PREVIOUS_VERSIONS = ("v3", "v2")
"""Earlier shipped data, loadable by name with `-T data=<name>` (subfolders of the data)."""
SPLITS = ("contrast",)
"""Shipped splits scored against choosers learnt on the default data (`-T data=<name>`)."""


class ChoiceDataError(InputError):
    """A data file breaks the `choice` schema; the message names file, record and field."""


def _problem(message: str) -> PydanticCustomError:
    return PydanticCustomError("contract", message)


def _object_name(name: str) -> str:
    if "," in name:
        raise _problem(f"object {name!r} contains a comma")
    return name


def _twin_ids(value: Any) -> dict[str, str]:
    if not isinstance(value, list) or not all(isinstance(twin, str) for twin in value):
        raise _problem("must be a list of context ids")
    return dict.fromkeys(value, "")


def _no_irrelevant(value: Any) -> None:
    raise _problem(
        "no longer read; put those objects in the last set of 'preference', which must hold "
        "every object"
    )


def _levels(value: Any) -> Any:
    if value is not None and not isinstance(value, list):
        raise _problem("must be a list of level names")
    return value or ()


class ObjectList(BaseModel):
    """`objects.json`: `{"objects": [name, ...]}`, names unique and free of commas."""

    objects: list[Annotated[Text, AfterValidator(_object_name)]] = Field(min_length=1)

    @field_validator("objects")
    @classmethod
    def _unique(cls, objects: list[str]) -> list[str]:
        for index, name in enumerate(objects):
            if name in objects[:index]:
                raise _problem(f"object {name!r} is listed twice (objects[{index}])")
        return objects


class ChoiceContext(BaseModel):
    """A `contexts.jsonl` record: one context and the model user's weak order over every object.

    `preference` (read into `order`) is the whole weak order: indifference sets, most relevant
    first, that together hold every object of `objects.json` exactly once (validated against
    the objects passed as the validation context). An object left out is an error, never an
    implicit last set.
    """

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    id: Text
    context: Text
    irrelevant: Annotated[None, BeforeValidator(_no_irrelevant)] = None
    """Read by version 1; refused with what to do instead."""
    order: list[list[str]] = Field(alias="preference")
    """Indifference sets, most relevant first; together they hold each object exactly once."""
    destination: Annotated[str, BeforeValidator(str)] = ""
    condition: Annotated[str, BeforeValidator(str)] = ""
    rationale: Annotated[str, BeforeValidator(str)] = ""
    levels: Annotated[tuple[Text, ...], BeforeValidator(_levels)] = ()
    """Optional names of the sets' levels (e.g. essential, useful, incidental, no role)."""
    factors: dict[str, Text] = {}
    """What the context is made of, factor by factor (destination, companion, sky, ...)."""
    twins: Annotated[dict[str, str], BeforeValidator(_twin_ids)] = {}
    """Earlier contexts this one is a minimal twin of, each with the one factor they differ in
    (filled in by `load_contexts`)."""

    @field_validator("order")
    @classmethod
    def _partition(cls, order: WeakOrder, info: ValidationInfo) -> WeakOrder:
        if len(order) < MIN_SETS:
            raise _problem(
                f"{len(order)} indifference set(s); a preference needs at least {MIN_SETS} "
                "(one set would state no strict preference at all)"
            )
        objects: list[str] = (info.context or {})["objects"]
        seen: set[str] = set()
        for level, indifference_set in enumerate(order):
            if not indifference_set:
                raise _problem(f"set {level}: an indifference set must be a non-empty list")
            for obj in indifference_set:
                if obj not in objects:
                    raise _problem(f"set {level}: unknown object {obj!r}")
                if obj in seen:
                    raise _problem(f"set {level}: object {obj!r} appears more than once")
                seen.add(obj)
        missing = [obj for obj in objects if obj not in seen]
        if missing:
            raise _problem(f"every object must be placed in one set; missing: {', '.join(missing)}")
        return order

    @field_validator("levels")
    @classmethod
    def _one_name_per_set(cls, levels: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        sets = len(info.data.get("order", ()))
        if levels and len(levels) != sets:
            raise _problem(f"{len(levels)} name(s) for {sets} indifference sets")
        return levels


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


def load_objects(path: Path) -> list[str]:
    """Read `objects.json` (`ObjectList`)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8-sig"))
    except UnicodeDecodeError as error:
        raise ChoiceDataError(f"{path}: not UTF-8 text; save the file as UTF-8") from error
    except (OSError, json.JSONDecodeError) as error:
        raise ChoiceDataError(f"{path}: cannot read objects: {error}") from error
    try:
        return ObjectList.model_validate(raw).objects
    except ValidationError as error:
        raise ChoiceDataError(f"{path}: {first_problem(error)}") from None


def _check_factors(path: Path, contexts: list[ChoiceContext]) -> None:
    """Every context names the same factors (or none does); each twin differs in exactly one.

    Fills in each twin's differing factor.
    """
    names = sorted(contexts[0].factors)
    by_id = {context.id: context for context in contexts}
    for line, context in enumerate(contexts, start=1):
        where = f"{path}: record {line} ({context.id}): field"
        if sorted(context.factors) != names:
            raise ChoiceDataError(
                f"{where} 'factors': names {', '.join(sorted(context.factors)) or 'none'}; "
                f"the first record names {', '.join(names) or 'none'}"
            )
        for twin in context.twins:
            other = by_id.get(twin)
            if other is None or other is context:
                raise ChoiceDataError(f"{where} 'twins': {twin!r} is not another context")
            differing = [name for name in names if context.factors[name] != other.factors[name]]
            if len(differing) != 1:
                raise ChoiceDataError(
                    f"{where} 'twins': a twin differs in exactly one factor; {twin!r} "
                    f"differs in {len(differing)} ({', '.join(differing) or 'none'})"
                )
            context.twins[twin] = differing[0]


def load_contexts(path: Path, objects: list[str]) -> list[ChoiceContext]:
    """Read and validate `contexts.jsonl` (`ChoiceContext`), one context per line."""
    contexts = read_models(path, ChoiceContext, ChoiceDataError, context={"objects": objects})
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
