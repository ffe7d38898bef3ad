"""Print the CarryOnBench data card's statistics, computed from the shipped queries.

Usage: `python tools/carryon_stats.py` (or pass a JSONL path in the same schema). Prints
Markdown tables: queries and review outcome per safety category (read from the first word of
each `review_note`: Kept, Rewritten or Replaced), checklist items per query, and the item
category mix. The data card's Statistics and Review sections paste this output.
"""

import sys
from collections import Counter
from pathlib import Path

from heedbench.evals.carryon import CarryOnQuery, load_queries
from heedbench.evals.carryon.dataset import INFORMATION_CATEGORIES, SAFETY_CATEGORIES

OUTCOMES = ("Kept", "Rewritten", "Replaced")


def outcome(query: CarryOnQuery) -> str:
    """The review outcome a note starts with ("Kept: ..."), or "unreviewed"."""
    head = query.review_note.split(":", maxsplit=1)[0]
    return head if head in OUTCOMES else "unreviewed"


def table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def report(queries: list[CarryOnQuery]) -> str:
    """The card's tables for `queries`."""
    categories = [c for c in SAFETY_CATEGORIES if any(q.category == c for q in queries)]
    per_category = {c: [q for q in queries if q.category == c] for c in categories}
    header = ["", *categories, "all"]
    rows = [["queries", *[str(len(per_category[c])) for c in categories], str(len(queries))]]
    for name in (*OUTCOMES, "unreviewed"):
        counts = [sum(outcome(q) == name for q in per_category[c]) for c in categories]
        if any(counts):
            rows.append([name.lower(), *map(str, counts), str(sum(counts))])
    items = [sum(len(q.checklist) for q in per_category[c]) for c in categories]
    rows.append(["checklist items", *map(str, items), str(sum(items))])
    sizes = [len(q.checklist) for q in queries]
    total = sum(sizes)
    summary = (
        f"Checklist items: {total:,} in all; per query min {min(sizes)}, "
        f"mean {total / len(sizes):.2f}, max {max(sizes)}."
    )
    size_counts = Counter(sizes)
    span = range(min(sizes), max(sizes) + 1)
    distribution = table(
        ["items per query", *map(str, span)], [["queries", *[str(size_counts[n]) for n in span]]]
    )
    mix = Counter(item.category for q in queries for item in q.checklist)
    ordered = sorted(INFORMATION_CATEGORIES, key=lambda c: (-mix[c], c))
    mix_table = table(
        ["item category", "items", "share"],
        [[c, str(mix[c]), f"{100 * mix[c] / total:.1f} %"] for c in ordered],
    )
    return "\n\n".join([table(header, rows), summary, distribution, mix_table])


def main(argv: list[str]) -> None:
    """Print the tables for the shipped data, or for the JSONL file named in `argv`."""
    data = Path(argv[0]) if argv else None
    print(report(load_queries(data)))


if __name__ == "__main__":
    main(sys.argv[1:])
