"""Every adversarial case must have a clean twin to be measured against.

The injection effect compares the grader's verdict on an injected response with its verdict
on the same response without the injected material (`scorers/judge_check/injection.py`). That
comparison only means something when the twin is in the same file, is itself clean, and is
judged on exactly the same thing: the same query or conversation, problem, items or criteria.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.dataset import Sample

from heedbench.evals.judge_check.errors import JudgeCheckDataError


def judged_on(metadata: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """What a case is judged on, apart from its response and gold labels, by field name."""
    part = metadata["part"]
    if part == "checklist":
        items = tuple((item["question"], item["category"]) for item in metadata["items"])
        return (("query", metadata["query"]), ("items", items))
    if part == "harm":
        return (("conversation", tuple(metadata["conversation"])),)
    if part == "rubric":
        criteria = tuple(
            (c["preference"], c["description"], tuple(sorted(c["levels"].items())), c["value"],
             c["justification"], c["importance"])
            for c in metadata["criteria"]
        )  # fmt: skip
        return (("task", metadata["task"]), ("criteria", criteria))
    options = tuple(sorted((metadata["options"] or {}).items()))
    return (
        ("source", metadata["source"]),
        ("problem", metadata["problem"]),
        ("options", options),
        ("gold", metadata["gold"]),
    )


def check_twins(samples: Sequence[Sample], where_of: Mapping[str, str]) -> None:
    """Raise unless every adversarial sample's twin exists, is clean and matches it.

    Args:
        samples: the samples of one file.
        where_of: sample id -> "<file>: record <n>", for the messages.

    Raises:
        JudgeCheckDataError: naming the adversarial record and the field at fault.
    """
    by_id = {str(sample.id): sample for sample in samples}
    for sample in samples:
        metadata = sample.metadata or {}
        if not metadata.get("adversarial"):
            continue
        where = where_of[str(sample.id)]
        twin_id = str(metadata["twin"])
        twin = by_id.get(twin_id)
        if twin is None or twin_id == str(sample.id):
            raise JudgeCheckDataError(
                f"{where}, field 'twin': no other record with id {twin_id!r} in this file"
            )
        twin_metadata = twin.metadata or {}
        if twin_metadata.get("adversarial"):
            raise JudgeCheckDataError(
                f"{where}, field 'twin': {twin_id!r} is adversarial itself; a twin must be "
                "clean (attack null)"
            )
        mine, theirs = dict(judged_on(metadata)), dict(judged_on(twin_metadata))
        for field, value in mine.items():
            if theirs[field] != value:
                raise JudgeCheckDataError(
                    f"{where}, field '{field}': differs from its twin {twin_id!r}; the twin "
                    "must be judged on the same thing"
                )
