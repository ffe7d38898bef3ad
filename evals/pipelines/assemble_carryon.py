"""`carryon_checklist` logs -> a `carryon` queries file, checked by the `carryon` loader.

Pure apart from reading logs and writing the file. Every record is validated by the loader
before anything is written, with the log file and sample named; then the whole file is
written beside its destination, loaded again with `load_queries`, and only then moved into
place, so a file that would not load is never left behind.
"""

import json
import os
import statistics
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from heedbench.evals.carryon.dataset import (
    INFORMATION_CATEGORIES,
    SAFETY_CATEGORIES,
    CarryOnDataError,
    load_queries,
    parse_query,
)
from heedbench.evals.pipelines.logs import newest, read_build_samples
from heedbench.markdown import table
from heedbench.solvers.pipelines.carryon_checks import agreement

CHECKLIST_TASK = "carryon_checklist"


class BuildOutputError(ValueError):
    """The built data would not load; the message names the file, record and field."""


def jsonl_lines(records: Sequence[Mapping[str, Any]]) -> str:
    """One JSON object per line (UTF-8 text kept as written)."""
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def assemble_carryon(paths: Sequence[str]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The checklist records in the logs (newest per query), and query id -> why left out.

    Raises:
        BuildOutputError: a record the `carryon` loader rejects (log, sample and field named).
    """
    records: list[dict[str, Any]] = []
    left_out: dict[str, str] = {}
    chosen = newest(read_build_samples(paths, (CHECKLIST_TASK,)))
    for query_id in sorted(chosen):
        sample = chosen[query_id]
        if sample.failure is not None or sample.product is None:
            left_out[query_id] = sample.failure or "no product"
            continue
        record = sample.product.get("record")
        if record is None:
            left_out[query_id] = "no checklist record"
            continue
        try:
            parse_query(record, f"{sample.log}: sample {query_id!r}")
        except CarryOnDataError as error:
            raise BuildOutputError(str(error)) from error
        records.append({**record, "build": {**record.get("build", {}), "log": sample.log}})
    return records, left_out


def write_carryon(records: Sequence[Mapping[str, Any]], out: Path) -> None:
    """Write the records as JSONL at `out`, only if the whole file loads.

    Raises:
        BuildOutputError: the file would not load (duplicate ids, no records); the message
            names `out` and the record.
    """
    if not records:
        raise BuildOutputError(f"{out}: no built record to write")
    write_checked(out, jsonl_lines(records), load_queries, CarryOnDataError)


def write_checked(
    out: Path, text: str, load: Callable[[str], object], error: type[Exception]
) -> None:
    """Write `text` beside `out`, `load` it, and only then move it to `out`.

    So a file that would not load is never left behind.

    Raises:
        BuildOutputError: `load` raised `error`; the message names `out`, not the copy.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        try:
            load(temporary)
        except error as problem:
            raise BuildOutputError(str(problem).replace(temporary, str(out))) from problem
        os.replace(temporary, out)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def left_out_lines(left_out: Mapping[str, str]) -> list[str]:
    """The data card's closing list of what was left out and why (nothing when none was)."""
    if not left_out:
        return []
    return ["", f"Left out ({len(left_out)}):", ""] + [
        f"- {key}: {reason}" for key, reason in sorted(left_out.items())
    ]


def carryon_card(records: Sequence[Mapping[str, Any]], left_out: Mapping[str, str]) -> str:
    """The distributions in the data card's format (queries/README.md, "Statistics")."""
    categories = [c for c in SAFETY_CATEGORIES if any(r["category"] == c for r in records)]
    per_query = [len(r["checklist"]) for r in records]
    items = [item for r in records for item in r["checklist"]]
    kinds = Counter(item["category"] for item in items)
    sizes = Counter(per_query)
    lines = ["## Statistics", ""]
    lines += table(
        ["", *categories, "all"],
        [
            ["queries", *(sum(r["category"] == c for r in records) for c in categories),
             len(records)],
            ["checklist items",
             *(sum(len(r["checklist"]) for r in records if r["category"] == c)
               for c in categories), len(items)],
        ],
    )  # fmt: skip
    lines += [
        "",
        f"Checklist items: {len(items)} in all; per query min {min(per_query)}, "
        f"mean {statistics.mean(per_query):.2f}, max {max(per_query)}.",
        "",
    ]
    lines += table(["items per query", *map(str, sorted(sizes))],
                    [["queries", *(sizes[s] for s in sorted(sizes))]])  # fmt: skip
    lines.append("")
    lines += table(
        ["item category", "items", "share"],
        [[kind, kinds[kind], f"{100 * kinds[kind] / len(items):.1f} %"]
         for kind in sorted(INFORMATION_CATEGORIES, key=lambda k: (-kinds[k], k))],
    )  # fmt: skip
    agree = agreement(items)
    generators = sorted({g for r in records for g in r.get("build", {}).get("generators", [])})
    mergers = sorted({str(r.get("build", {}).get("merger", "")) for r in records} - {""})
    lines += ["", "## Provenance", "", f"Generators: {', '.join(generators) or 'unknown'}; "
              f"merger: {', '.join(mergers) or 'unknown'}.", ""]  # fmt: skip
    lines += table(
        ["generators that yielded the item", "items", "share"],
        [[count, agree[count], f"{100 * agree[count] / len(items):.1f} %"]
         for count in sorted(agree)],
    )  # fmt: skip
    lines += ["", "The `review` field is empty: reviewers grade each record "
              "(see datasets/carryon/README.md, Review)."]  # fmt: skip
    return "\n".join(lines + left_out_lines(left_out)) + "\n"
