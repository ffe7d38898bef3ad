"""Print the CarryOnBench data card's statistics, computed from the shipped queries and reviews.

Usage: `python tools/carryon_stats.py` (or pass a JSONL path in the same schema). Prints
Markdown tables: queries per safety category with what each review round did to them (kept,
rewritten, replaced), checklist items per query and the item category mix; then, where the
review files sit beside the data (`reviews/`), for every review round the two reviewers'
agreement per criterion, how each disagreement was settled, the score distributions before
and after that round's fixes, the share of weak records (any criterion scored 3 or less) and
the weak records left; for the shipped data also the refusal floor and the expert ceiling
(`heedbench.evals.carryon.references`). The data card pastes this output.
"""

import math
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from heedbench.evals.carryon import CarryOnQuery, load_queries
from heedbench.evals.carryon import references as refs
from heedbench.evals.carryon.dataset import CRITERIA, INFORMATION_CATEGORIES, SAFETY_CATEGORIES
from heedbench.evals.carryon.reviews import (
    ACTIONS,
    ADJUDICATED_FILE,
    CHANGED_FILE,
    DECIDED_ROUNDS,
    PAIRED_ROUNDS,
    ROUNDS,
    RULES,
    SCORES,
    Adjudication,
    agreement,
    blind_weak,
    latest_adjudication,
    load_adjudication,
    load_changed_ids,
    load_decisions,
    load_raw_reviews,
    review_dir,
    round_file,
)

Rounds = Mapping[int, Sequence[Adjudication]]


def table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def share(count: int, total: int) -> str:
    """`count (x %)`."""
    return f"{count} ({100 * count / total:.1f} %)"


def data_report(
    queries: list[CarryOnQuery], rounds: Rounds, changed: Mapping[int, Sequence[str]]
) -> str:
    """Queries, what each review round did to them and checklist statistics for `queries`.

    A round without an adjudication counts the records changed after it (`changed`).
    """
    categories = [c for c in SAFETY_CATEGORIES if any(q.category == c for q in queries)]
    per_category = {c: [q for q in queries if q.category == c] for c in categories}
    header = ["", *categories, "all"]
    rows = [["queries", *[str(len(per_category[c])) for c in categories], str(len(queries))]]
    for round_ in sorted({*rounds, *changed}):
        if round_ not in rounds:
            counts = [sum(q.id in changed[round_] for q in per_category[c]) for c in categories]
            rows.append([f"round {round_}: changed", *map(str, counts), str(sum(counts))])
            continue
        actions = {a.id: a.action for a in rounds[round_]}
        for action in ACTIONS:
            counts = [sum(actions.get(q.id) == action for q in per_category[c]) for c in categories]
            if any(counts):
                rows.append([f"round {round_}: {action}", *map(str, counts), str(sum(counts))])
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


def _after(row: Adjudication, name: str) -> int:
    """The score on `name` after the round's fixes: adjudicated if kept, else the author's."""
    return row.after[name].score if row.after else row.decisions[name].score


def review_report(folder: Path, queries: list[CarryOnQuery], rounds: Rounds) -> str:
    """Per round: agreement, settlement, distributions before/after; then the weak shares."""
    paired = [r for r in PAIRED_ROUNDS if (folder / round_file("review_a.jsonl", r)).is_file()]
    raw = {r: [load_raw_reviews(who, folder, r) for who in ("a", "b")] for r in paired}
    decided = {r: load_decisions(folder, r) for r in DECIDED_ROUNDS if r in rounds}
    agree_rows, settled_rows, dist_rows = [], [], []
    for round_ in paired:
        for row in agreement(*raw[round_]):
            agree_rows.append(
                [
                    str(round_),
                    row.criterion,
                    str(row.items),
                    f"{row.weighted_kappa:.2f}",
                    f"{100 * row.exact:.1f} %",
                    f"{100 * row.within_one:.1f} %",
                ]
            )
    for round_ in sorted({*paired, *rounds}):
        adjudication = rounds.get(round_)
        for name in CRITERIA:
            if adjudication is not None:
                rules = [str(sum(a.decisions[name].rule == r for a in adjudication)) for r in RULES]
                settled_rows.append([str(round_), name, *rules])
            sources: dict[str, Counter[int]] = {}
            if round_ in raw:
                first, second = raw[round_]
                sources["reviewer A"] = Counter(r.grades[name].score for r in first)
                sources["reviewer B"] = Counter(r.grades[name].score for r in second)
            if round_ in decided:
                sources["deciding reviewer"] = Counter(
                    r.grades[name].score for r in decided[round_]
                )
            if adjudication is not None:
                sources["adjudicated"] = Counter(a.decisions[name].score for a in adjudication)
                if all(a.after or a.action == "kept" for a in adjudication):
                    sources["after the fixes"] = Counter(_after(a, name) for a in adjudication)
            for source, counts in sources.items():
                dist_rows.append(
                    [str(round_), name, source, str(sum(counts.values()))]
                    + [str(counts[s]) for s in SCORES]
                )
    for name in CRITERIA:
        now = Counter(q.review.grades()[name].score for q in queries if q.review)
        dist_rows.append(
            ["now", name, "shipped grades", str(sum(now.values()))] + [str(now[s]) for s in SCORES]
        )
    agree_header = ["round", "criterion", "records", "weighted κ", "exact", "within one"]
    agree = table(agree_header, agree_rows)
    settled = table(["round", "criterion", *RULES], settled_rows)
    distributions = table(["round", "criterion", "scores", "records", *map(str, SCORES)], dist_rows)
    parts = [agree, settled, distributions, weak_line(queries, rounds)]
    return "\n\n".join([*parts, weak_table(queries, rounds)])


def weak_table(queries: list[CarryOnQuery], rounds: Rounds) -> str:
    """One row per weak criterion of each shipped record, as its latest round graded it."""
    latest = latest_adjudication(rounds)
    rows = []
    for query in queries:
        round_, row = latest[query.id]
        for name, d in row.decisions.items():
            if d.score <= 3:
                scores = [str(v) if v is not None else "-" for v in (d.a, d.b)]
                rows.append([query.id, str(round_), name, *scores, str(d.score), d.rule, d.note])
    header = ["record", "round", "criterion", "A", "B", "grade", "rule", "the deciding note"]
    return table(header, rows)


def reference_report(queries: list[CarryOnQuery]) -> str:
    """The refusal floor and the expert ceiling per category, each grader, and agreement."""
    names = [*SAFETY_CATEGORIES, "all"]
    rows, agree_rows, found = [], [], []
    kinds: tuple[refs.Kind, ...] = ("floor", "ceiling")
    for kind in kinds:
        chosen = refs.units(queries, refs.responses(kind))
        gradings = refs.shipped_gradings(kind)
        for who, verdicts in zip(("a", "b"), gradings, strict=True):
            values = refs.utility(chosen, verdicts)
            rows.append([kind, who, *[f"{values[n]:.3f}" for n in names]])
        agree = refs.agreement(chosen, *gradings)
        kappa = "undefined" if math.isnan(agree["kappa"]) else f"{agree['kappa']:.2f}"
        agree_rows.append([kind, str(len(chosen)), f"{100 * agree['exact']:.1f} %", kappa])
        if kind == "floor":
            found = refs.fulfilled_by_either(chosen, *gradings)
    ben_util = table(["Ben-Util", "grader", *names], rows)
    agree_table = table(["gradings", "units", "exact", "Cohen's κ"], agree_rows)
    line = f"Floor units either grader finds fulfilled by a refusal: {len(found)}" + (
        f" ({', '.join(found)})." if found else "."
    )
    return "\n\n".join([ben_util, agree_table, line])


def weak_line(queries: list[CarryOnQuery], rounds: Rounds) -> str:
    """The weak shares: per round by its blind review, for the whole set, and now."""
    n = len(queries)
    parts = []
    for round_, adjudication in sorted(rounds.items()):
        weak = sum(a.weak() for a in adjudication)
        graded = len(adjudication)
        so_far = {k: v for k, v in rounds.items() if k <= round_}
        seen = len(latest_adjudication(so_far))
        parts.append(
            f"round {round_}: {weak} of the {graded} records it graded, so "
            f"{share(len(blind_weak(so_far)), seen)} of the set by the latest blind grades"
        )
    weak_now = [q for q in queries if q.review and q.review.weak()]
    by_author = sum(q.review.basis == "author_check" for q in queries if q.review)
    basis = (
        f"where {by_author} records changed after the last round carry the author's own check "
        "until the next blind round"
        if by_author
        else "which are every record's adjudicated grades from the latest blind round that saw it"
    )
    return (
        "Weak records (any criterion 3 or less, adjudicated): "
        + "; ".join(parts)
        + f". Now {share(len(weak_now), n)} by the shipped grades, {basis}."
    )


def load_rounds(folder: Path) -> dict[int, list[Adjudication]]:
    """Every review round whose adjudication is in `folder`."""
    present = [r for r in ROUNDS if (folder / round_file(ADJUDICATED_FILE, r)).is_file()]
    return {r: load_adjudication(folder, r) for r in present}


def load_changed(folder: Path) -> dict[int, list[str]]:
    """The ids changed after each round that has a changed-ids file in `folder`."""
    present = [r for r in ROUNDS if (folder / round_file(CHANGED_FILE, r)).is_file()]
    return {r: load_changed_ids(folder, r) for r in present}


def main(argv: list[str]) -> None:
    """Print the tables for the shipped data, or for the JSONL file named in `argv`."""
    data = Path(argv[0]) if argv else None
    queries = load_queries(data)
    folder = review_dir(data.parent / "reviews" if data else None)
    rounds = load_rounds(folder) if folder.is_dir() else {}
    changed = load_changed(folder) if folder.is_dir() else {}
    print(data_report(queries, rounds, changed))
    if rounds:
        print()
        print(review_report(folder, queries, rounds))
    if data is None:
        print()
        print(reference_report(queries))


if __name__ == "__main__":
    main(sys.argv[1:])
