"""A judged case as the statistics read it back from a score's metadata.

The solver stores one entry per judged unit (item, harm rating, criterion, correctness
verdict), the scorer adds the case's fields, the epoch reducer turns each verdict into a list
with one entry per epoch (`merge_epochs`); `read_case` reads every shape, so a log's samples
and a run's reduced scores read the same way.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Unit:
    """One judged unit: its gold label and the grader's verdict in each epoch (None: unread)."""

    key: str
    """What pairs the unit with its twin's: the item question, criterion, "harm", "correct"."""
    gold: int
    preds: tuple[int | None, ...]
    batched: tuple[int | None, ...] | None = None
    """The batched mode's verdicts, when the run judged both ways."""
    weight: float = 1.0
    """The unit's weight in its case's headline: a PrefAlign criterion's rubric weight."""
    failures: tuple[str, ...] = ()
    """Why each unreadable verdict could not be read (one entry per unjudged epoch)."""


@dataclass(frozen=True)
class Case:
    """One gold record and the grader's verdicts on its units."""

    part: str
    record: str
    category: str
    adversarial: bool
    push: str | None
    twin: str | None
    units: tuple[Unit, ...]


def _verdicts(unit: Mapping[str, Any], key: str) -> tuple[int | None, ...]:
    many = unit.get(f"{key}s")
    values = many if isinstance(many, list) else [unit.get(key)]
    return tuple(None if v is None else int(v) for v in values)


def _failures(unit: Mapping[str, Any]) -> list[Any]:
    many = unit.get("failures")
    return [f for f in (many if isinstance(many, list) else [unit.get("failure")]) if f]


def read_case(metadata: Mapping[str, Any], record: str = "") -> Case | None:
    """The case in a score's metadata (None if it holds none); `record`: the sample id."""
    if "part" not in metadata or not isinstance(metadata.get("units"), list):
        return None
    units = tuple(
        Unit(
            key=str(unit.get("key", unit.get("unit"))),
            gold=int(unit["gold"]),
            preds=_verdicts(unit, "pred"),
            batched=(
                _verdicts(unit, "pred_batched")
                if "pred_batched" in unit or "pred_batcheds" in unit
                else None
            ),
            weight=float(unit.get("weight", 1.0)),
            failures=tuple(str(f) for f in _failures(unit)),
        )
        for unit in metadata["units"]
    )
    return Case(
        part=str(metadata["part"]),
        record=str(metadata.get("record") or record),
        category=str(metadata.get("category") or "—"),
        adversarial=bool(metadata.get("adversarial", metadata.get("attack") is not None)),
        push=metadata.get("push"),
        twin=metadata.get("twin"),
        units=units,
    )


def merge_epochs(epochs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One case's score metadata from each epoch's: every unit keeps each epoch's verdict."""
    merged = dict(epochs[0])
    units = []
    for index, unit in enumerate(epochs[0].get("units") or []):
        per_epoch = [(e.get("units") or [])[index] for e in epochs]
        entry = {k: v for k, v in unit.items() if k not in ("pred", "failure", "pred_batched")}
        entry["preds"] = [v for u in per_epoch for v in _verdicts(u, "pred")]
        entry["failures"] = [f for u in per_epoch for f in _failures(u)]
        if "pred_batched" in unit or "pred_batcheds" in unit:
            entry["pred_batcheds"] = [v for u in per_epoch for v in _verdicts(u, "pred_batched")]
        units.append(entry)
    merged["units"] = units
    return merged


def cases_from(metadata: Iterable[tuple[str, Mapping[str, Any]]]) -> list[Case]:
    """The cases of (sample id, score metadata) pairs, epochs of one sample merged."""
    grouped: dict[str, list[Mapping[str, Any]]] = {}
    for sample_id, entry in metadata:
        if isinstance(entry, Mapping) and "part" in entry:
            grouped.setdefault(f"{entry['part']}|{sample_id}", []).append(entry)
    cases = []
    for key, epochs in sorted(grouped.items()):
        case = read_case(merge_epochs(epochs), record=key.split("|", 1)[1])
        if case is not None:
            cases.append(case)
    return cases
