"""Problems for the PrefDisco build: any of the ten sources, from the hub or a local file.

Each source is read as the release's generator configs name it (hub id, split, seed; see
`Source.hub` in evals/prefdisco/sources.py) and normalised as the evaluator normalises it
(`heedbench.evals.prefdisco.sources.normalise_problem`). Rows that the `prefdisco` task
could not run (no question text, no options for a multiple-choice source, no gold answer or
one that is not an option) are left out before the seeded draw.

The hub path needs the network and a pinned revision (`-T revision=<commit sha>`); a local
JSONL file in the source's own schema goes through the same code from the row on.
"""

import json
import logging
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heedbench.errors import InputError
from heedbench.evals.prefdisco.sources import (
    SOURCES,
    SourceRowError,
    Unrunnable,
    runnable_problem,
)
from heedbench.jsonl import jsonl_records

logger = logging.getLogger(__name__)

HUB = "hub"


class ProblemSourceError(InputError):
    """Problems that cannot be read; the message names the file or dataset and the row."""


def unrunnable(source: str, row: Mapping[str, Any]) -> str | None:
    """Why the `prefdisco` task could not run this row, or None when it can."""
    try:
        runnable_problem(source, row)
    except (SourceRowError, Unrunnable) as error:
        return f"field '{error.field}': {error}"
    return None


def _jsonable(row: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The row with values JSON cannot hold (a PIL image) set to None, and their fields."""
    kept: dict[str, Any] = {}
    dropped: list[str] = []
    for key, value in row.items():
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            kept[key], dropped = None, [*dropped, str(key)]
            continue
        kept[key] = value
    return kept, dropped


def _hub_rows(source: str, revision: str | None, split: str | None) -> Iterator[tuple[str, Any]]:
    if not revision:
        raise ProblemSourceError(
            f"problems from the hub need a pinned revision of {SOURCES[source].hub.dataset} "
            "(-T revision=<commit sha>)"
        )
    from datasets import load_dataset  # noqa: PLC0415 (lazy: only hub builds pay for it)

    config = SOURCES[source].hub
    chosen = split or config.split
    rows = load_dataset(config.dataset, config.name, split=chosen, revision=revision)
    for index, row in enumerate(rows):
        yield f"{config.dataset}@{revision}[{chosen}]: row {index}", row


def read_rows(
    source: str, problems: str, revision: str | None = None, split: str | None = None
) -> list[tuple[str, dict[str, Any]]]:
    """`(where, row)` for every row of a local JSONL file, or of the hub dataset (`"hub"`).

    Raises:
        ProblemSourceError: an unreadable file, a row that is not an object, no revision
            for the hub.
    """
    if problems == HUB:
        lines: Iterator[tuple[str, Any]] = _hub_rows(source, revision, split)
    else:
        lines = ((where, row) for _, where, row in jsonl_records(Path(problems),
                                                                 ProblemSourceError))  # fmt: skip
    rows: list[tuple[str, dict[str, Any]]] = []
    for where, row in lines:
        if not isinstance(row, Mapping):
            raise ProblemSourceError(f"{where}: a row must be a JSON object")
        kept, dropped = _jsonable(row)
        if dropped:
            logger.warning("%s: fields %s are not JSON (an image?) and are left empty", where,
                           ", ".join(dropped))  # fmt: skip
        rows.append((where, kept))
    return rows


@dataclass(frozen=True)
class DrawnProblem:
    """A problem drawn for the build: its index i (for `problem_{i}_...`) and its row."""

    index: int
    where: str
    row: dict[str, Any]


def draw_problems(
    source: str, rows: Sequence[tuple[str, dict[str, Any]]], sample_size: int, seed: int
) -> tuple[list[DrawnProblem], dict[str, str]]:
    """A seeded draw of `sample_size` runnable rows, and the rows left out as unrunnable.

    The draw is `random.Random(seed).sample` over the runnable rows' positions; the release's
    own draw is not documented, so the same seed need not pick the release's problems.
    """
    skipped = {where: reason for where, row in rows if (reason := unrunnable(source, row))}
    runnable = [position for position, (where, _) in enumerate(rows) if where not in skipped]
    chosen = random.Random(seed).sample(runnable, min(sample_size, len(runnable)))
    drawn = [
        DrawnProblem(index, rows[position][0], rows[position][1])
        for index, position in enumerate(chosen)
    ]
    return drawn, skipped
