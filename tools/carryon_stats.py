"""Print the CarryOnBench data card's statistics, computed from the shipped queries and reviews.

Usage: `python tools/carryon_stats.py` (or pass a JSONL path in the same schema). Prints
Markdown tables: queries per safety category with what the review did to them (kept,
rewritten, replaced), checklist items per query and the item category mix; then, where the
review files sit beside the data (`reviews/`), the two reviewers' agreement per criterion, how
each disagreement was settled, the score distributions before and after the fixes, and the
share of weak records (any criterion scored 3 or less). The data card pastes this output.
"""

import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from heedbench.evals.carryon import CarryOnQuery, load_queries
from heedbench.evals.carryon.dataset import CRITERIA, INFORMATION_CATEGORIES, SAFETY_CATEGORIES
from heedbench.evals.carryon.reviews import (
    ACTIONS,
    RULES,
    SCORES,
    Adjudication,
    agreement,
    load_adjudication,
    load_raw_reviews,
    review_dir,
)


def table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def share(count: int, total: int) -> str:
    """`count (x %)`."""
    return f"{count} ({100 * count / total:.1f} %)"


def data_report(queries: list[CarryOnQuery], actions: Mapping[str, str]) -> str:
    """Queries, review actions and checklist statistics for `queries`."""
    categories = [c for c in SAFETY_CATEGORIES if any(q.category == c for q in queries)]
    per_category = {c: [q for q in queries if q.category == c] for c in categories}
    header = ["", *categories, "all"]
    rows = [["queries", *[str(len(per_category[c])) for c in categories], str(len(queries))]]
    for action in ACTIONS:
        counts = [sum(actions.get(q.id) == action for q in per_category[c]) for c in categories]
        if any(counts):
            rows.append([action, *map(str, counts), str(sum(counts))])
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


def review_report(
    folder: Path, queries: list[CarryOnQuery], adjudication: list[Adjudication]
) -> str:
    """Agreement, settlement, distributions before/after and weak shares."""
    first, second = load_raw_reviews("a", folder), load_raw_reviews("b", folder)
    rows = [
        [
            row.criterion,
            str(row.items),
            f"{row.weighted_kappa:.2f}",
            f"{100 * row.exact:.1f} %",
            f"{100 * row.within_one:.1f} %",
        ]
        for row in agreement(first, second)
    ]
    agree = table(["criterion", "records", "weighted κ", "exact", "within one"], rows)
    settled = table(
        ["criterion", *RULES],
        [
            [name, *[str(sum(a.decisions[name].rule == r for a in adjudication)) for r in RULES]]
            for name in CRITERIA
        ],
    )
    after = {q.id: q.review for q in queries}
    dist_rows = []
    for name in CRITERIA:
        sources = {
            "reviewer A": Counter(r.grades[name].score for r in first),
            "reviewer B": Counter(r.grades[name].score for r in second),
            "adjudicated, before": Counter(a.decisions[name].score for a in adjudication),
            "after the fixes": Counter(
                review.grades()[name].score for review in after.values() if review
            ),
        }
        dist_rows += [[name, source, *[str(c[s]) for s in SCORES]] for source, c in sources.items()]
    distributions = table(["criterion", "scores", *map(str, SCORES)], dist_rows)
    n = len(adjudication)
    weak_before = [a for a in adjudication if a.weak()]
    weak_after = [q for q in queries if q.review and q.review.weak()]
    by_author = sum(q.review.basis == "author_check" for q in queries if q.review)
    weak = (
        f"Weak records (any criterion 3 or less): {share(len(weak_before), n)} by the "
        f"adjudicated blind review before the fixes; {share(len(weak_after), len(queries))} "
        f"after them, where {by_author} changed records carry the author's own grades until "
        "the blind re-review."
    )
    return "\n\n".join([agree, settled, distributions, weak])


def main(argv: list[str]) -> None:
    """Print the tables for the shipped data, or for the JSONL file named in `argv`."""
    data = Path(argv[0]) if argv else None
    queries = load_queries(data)
    folder = review_dir(data.parent / "reviews" if data else None)
    adjudication = load_adjudication(folder) if folder.is_dir() else []
    actions = {a.id: a.action for a in adjudication}
    print(data_report(queries, actions))
    if adjudication:
        print()
        print(review_report(folder, queries, adjudication))


if __name__ == "__main__":
    main(sys.argv[1:])
