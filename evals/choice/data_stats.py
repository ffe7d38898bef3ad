"""The `choice` data card's numbers, computed from the data folders.

Shape, level variety, and what the reference choosers score: the context-blind ones, one per
factor, the weather factors together and every factor added up, on the default data (before
and after a revision) and on the contrast split (with `contrast` per factor); and what the blind
review of a version flagged, how far its two reviewers agreed and how the third decided. The
card's tables are printed by `python -m heedbench.evals.choice.data_stats` and checked against
the shipped files by the tests, so the card cannot drift from the data.

Usage: python -m heedbench.evals.choice.data_stats [--data DIR] [--before DIR] [--split DIR]
"""

import argparse
import contextlib
import json
import statistics
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from heedbench.evals.choice.dataset import (
    ChoiceContext,
    choice_dataset,
    default_data_dir,
    load_folder,
    resolve_data_dir,
)
from heedbench.evals.choice.reference import (
    WEATHER,
    ReferenceRow,
    chance_row,
    context_blind_rows,
    split_pool,
)
from heedbench.markdown import table
from heedbench.preference import rank_map, strict_pairs
from heedbench.scorers.choice.context_blind import BLIND_ORDER, factor_order
from heedbench.scorers.judge import agreement

BANDS = ("essential", "useful", "needed", "incidental", "no role")
"""Level names of the shipped data: four-set contexts use essential, useful, incidental and
no role; three-set contexts join the first two as `needed` (three contrast twins with nothing
essential use the last three)."""
SEASONAL = (
    "umbrella", "raincoat", "winter jacket", "gloves", "wool hat", "scarf", "sunglasses",
    "sunscreen", "sun hat", "rubber boots", "ice scraper", "snow chains",
)  # fmt: skip
"""Objects whose use is the weather itself (rain, cold, sun, snow): where the weather-only
chooser earns its score."""
CHEAP_DESIGNS = ("pairwise_test", "pointwise", "listwise")
"""The chance model's designs shown on the contrast split (one query per pair or fewer)."""
SUBSTITUTES = (
    ("umbrella", "raincoat"),
    ("rubber boots", "hiking boots"),
    ("blanket", "picnic blanket"),
)
"""Objects that can do the same job (keep rain off, keep feet dry, something to sit or lie
on): they share a set unless the context separates them, and the rationale says why."""


REVIEW = "review_v4"
"""The latest blind review: `review_a.jsonl` and `review_b.jsonl` (one line per context:
`id`, `score` 1-5, `flags` with `object`, `given`, `proposed`, `reason`) and
`adjudication.jsonl` (one line per flagged placement: `context`, `object`, `given`,
`decided`, `reason`)."""
Placement = tuple[str, str]
"""(context id, object)."""


def load(data: str | Path | None = None) -> tuple[list[str], list[ChoiceContext]]:
    """A data folder's objects and contexts (an earlier shipped version or a split by name)."""
    return load_folder(resolve_data_dir(data))


def chooser_rows(
    data: str | Path | None = None, p: float = 0.5, chance: Sequence[str] = ()
) -> list[ReferenceRow]:
    """The reference choosers on every context of a data folder, then chance per design."""
    samples = list(choice_dataset(data))
    rows = context_blind_rows(samples, p, pool=samples, fixed_pool=split_pool(data))
    return rows + [chance_row(samples, method, p=p) for method in chance]


def shape(contexts: Sequence[ChoiceContext]) -> dict[str, float]:
    """Mean sets, four-set contexts and mean, least and most strict pairs."""
    sets = [len(context.order) for context in contexts]
    strict = [len(strict_pairs(context.order)) for context in contexts]
    return {
        "sets": statistics.fmean(sets),
        "four_set": sum(1 for count in sets if count == 4),
        "strict": statistics.fmean(strict),
        "strict_min": min(strict),
        "strict_max": max(strict),
    }


def band_counts(
    objects: Sequence[str], contexts: Sequence[ChoiceContext]
) -> dict[str, Counter[str]]:
    """Per object, how many contexts put it in each named band (contexts without names skipped)."""
    counts: dict[str, Counter[str]] = {obj: Counter() for obj in objects}
    for context in contexts:
        if not context.levels:
            continue
        ranks = rank_map(context.order)
        for obj in objects:
            counts[obj][context.levels[ranks[obj]]] += 1
    return counts


def substitute_splits(contexts: Sequence[ChoiceContext]) -> list[tuple[str, str, str, str, str]]:
    """Every context that puts two substitutes in different sets.

    Returns:
        (context id, first object, its level, second object, its level), the level by name
        where the data names them, else by set number.
    """
    found = []
    for context in contexts:
        ranks = rank_map(context.order)
        for first, second in SUBSTITUTES:
            if ranks[first] != ranks[second]:
                found.append(
                    (
                        context.id,
                        first,
                        _level_name(context, ranks[first]),
                        second,
                        _level_name(context, ranks[second]),
                    )
                )
    return found


def _level_name(context: ChoiceContext, index: int) -> str:
    return context.levels[index] if context.levels else f"set {index + 1}"


def _mean(row: ReferenceRow, key: str, scale: float = 1.0) -> str:
    return f"{row.mean(key) / scale:.3f}"


def choosers_table(before: Sequence[ReferenceRow], now: Sequence[ReferenceRow]) -> str:
    """Markdown: each reference chooser on the earlier and the current data."""
    earlier = {row.label: row for row in before}
    header = [
        "chooser",
        "SPO before",
        "SPO now",
        "K(p)/780 before",
        "K(p)/780 now",
        "SPO on context pairs now",
    ]

    def old(row: ReferenceRow, key: str) -> str:
        return _mean(earlier[row.label], key) if row.label in earlier else "—"

    return "\n".join(table(header, [
        (row.label, old(row, "spo"), _mean(row, "spo"), old(row, "kendall_norm"),
         _mean(row, "kendall_norm"), _mean(row, "spo_context"))
        for row in now
    ]))  # fmt: skip


def contrast_table(rows: Sequence[ReferenceRow]) -> str:
    """Markdown: each reference chooser on a split with twins, `contrast` per factor."""
    factors = sorted({factor for row in rows for factor in row.contrast})
    return "\n".join(table(["chooser", "SPO", "K(p)/780", "SPO on context pairs", *factors], [
        (f"{row.label}, {row.method}" if row.method else row.label,
         *(_mean(row, key) for key in ("spo", "kendall_norm", "spo_context")),
         *(f"{statistics.fmean(row.contrast[f]):.3f}" if row.contrast.get(f) else "—"
           for f in factors))
        for row in rows
    ]))  # fmt: skip


def seasonal_pairs(data: str | Path | None = None) -> str:
    """Markdown: the user's strict pairs by how many of their objects are seasonal.

    With the share of each kind the context-blind and the weather-only choosers keep.
    """
    samples = list(choice_dataset(data))
    pool = [(s.metadata["factors"], s.metadata["user_order"]) for s in samples if s.metadata]
    counts: dict[str, list[int]] = {}
    for index, sample in enumerate(samples):
        metadata = sample.metadata or {}
        others = pool[:index] + pool[index + 1 :]
        weather = factor_order(others, metadata["factors"], metadata["objects"], WEATHER)
        blind, chosen = strict_pairs(metadata[BLIND_ORDER]), strict_pairs(weather)
        for pair in strict_pairs(metadata["user_order"]):
            kind = ("other × other", "seasonal × other", "seasonal × seasonal")[
                sum(obj in SEASONAL for obj in pair)
            ]
            entry = counts.setdefault(kind, [0, 0, 0])
            entry[0] += 1
            entry[1] += pair in blind
            entry[2] += pair in chosen
    total = sum(entry[0] for entry in counts.values())
    header = [
        "pair of",
        "share of strict pairs",
        "kept by the context-blind order",
        "kept by the weather-only chooser",
    ]
    return "\n".join(table(header, [
        (kind, *(f"{share:.3f}" for share in (pairs / total, blind / pairs, weather / pairs)))
        for kind, (pairs, blind, weather) in sorted(counts.items(), reverse=True)
    ]))  # fmt: skip


def variety_table(objects: Sequence[str], contexts: Sequence[ChoiceContext]) -> str:
    """Markdown: per object, the contexts in each band and the bands it uses."""
    counts = band_counts(objects, contexts)
    return "\n".join(table(["object", *BANDS, "bands used"], [
        (obj, *(counts[obj][band] for band in BANDS), sum(1 for b in BANDS if counts[obj][b]))
        for obj in objects
    ]))  # fmt: skip


class Review(NamedTuple):
    """A blind review read from its folder (`REVIEW`)."""

    contexts: list[str]
    scores: tuple[list[int], list[int]]
    """Each reviewer's 1-5 score per context, in `contexts` order."""
    proposals: tuple[dict[Placement, str], dict[Placement, str]]
    """Each reviewer's flagged placements and the level proposed for each."""
    decisions: list[dict[str, str]]


def read_review(folder: str | Path = REVIEW) -> Review:
    """Both reviews and the decisions; the reviews must cover the same contexts."""
    path = default_data_dir() / folder

    def lines(name: str) -> list[dict[str, Any]]:
        text = (path / name).read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    first, second = lines("review_a.jsonl"), {r["id"]: r for r in lines("review_b.jsonl")}
    contexts = [record["id"] for record in first]
    if sorted(contexts) != sorted(second):
        raise ValueError(f"{path}: the two reviews cover different contexts")
    sides = (first, [second[context] for context in contexts])

    def proposals(side: list[dict[str, Any]]) -> dict[Placement, str]:
        return {(r["id"], f["object"]): f["proposed"] for r in side for f in r["flags"]}

    return Review(
        contexts,
        ([r["score"] for r in sides[0]], [r["score"] for r in sides[1]]),
        (proposals(sides[0]), proposals(sides[1])),
        lines("adjudication.jsonl"),
    )


def review_agreement(review: Review, objects: Sequence[str]) -> dict[str, float]:
    """Flag counts and the two reviewers' agreement.

    Cohen's κ on flagged-or-not over every (context, object) placement, quadratic-weighted κ on
    the 1-5 context scores.
    """
    a, b = review.proposals
    cells = [(context, obj) for context in review.contexts for obj in objects]
    return {
        "contexts": len(review.contexts),
        "placements": len(cells),
        "flags_a": len(a),
        "flags_b": len(b),
        "flags_both": len(a.keys() & b.keys()),
        "kappa_flags": agreement.cohen_kappa([c in a for c in cells], [c in b for c in cells]),
        "kappa_scores": agreement.weighted_kappa(*review.scores),
    }


def review_flags(review: Review) -> str:
    """Markdown: per object, the placements each reviewer flagged and how many moved."""
    a, b = review.proposals
    moved = {(d["context"], d["object"]) for d in review.decisions if d["decided"] != d["given"]}
    counts: dict[str, list[int]] = {}
    for cell in a.keys() | b.keys():
        entry = counts.setdefault(cell[1], [0, 0, 0, 0])
        for index, hit in enumerate((cell in a, cell in b, cell in a and cell in b, cell in moved)):
            entry[index] += hit
    ordered = sorted(counts.items(), key=lambda item: (-sum(item[1][:2]), item[0]))
    totals = [sum(entry[i] for entry in counts.values()) for i in range(4)]
    header = ["object", "flagged by A", "flagged by B", "by both", "moved"]
    return "\n".join(table(header, [(obj, *entry) for obj, entry in ordered] + [("all", *totals)]))


def review_decisions(review: Review) -> str:
    """Markdown: how the third reviewer decided the placements either reviewer flagged."""
    a, b = review.proposals
    outcomes: Counter[tuple[str, str]] = Counter()
    for decision in review.decisions:
        cell, level = (decision["context"], decision["object"]), decision["decided"]
        flagged = "both" if cell in a and cell in b else "A only" if cell in a else "B only"
        if level == decision["given"]:
            outcome = "kept as given"
        elif level == a.get(cell) == b.get(cell):
            outcome = "moved as both proposed"
        elif level in (a.get(cell), b.get(cell)):
            outcome = f"moved as {'A' if level == a.get(cell) else 'B'} proposed"
        else:
            outcome = "moved to a level neither proposed"
        outcomes[(flagged, outcome)] += 1
    order = ("both", "A only", "B only")
    ordered = sorted(outcomes.items(), key=lambda i: order.index(i[0][0]))
    rows = [(flagged, outcome, count) for (flagged, outcome), count in ordered]
    return "\n".join(table(["flagged by", "decision", "placements"], rows))


def main(argv: Sequence[str] | None = None) -> None:
    """Print the data card's chooser, contrast, level-variety and review tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", help="data folder (default: the shipped data)")
    parser.add_argument("--before", default="v3", help="earlier data to compare with")
    parser.add_argument("--split", default="contrast", help="split with twins to report")
    args = parser.parse_args(argv)
    objects, contexts = load(args.data)
    now = shape(contexts)
    print(
        f"{len(contexts)} contexts, {now['sets']:.2f} sets on average "
        f"({now['four_set']:.0f} with four), {now['strict']:.1f} strict pairs on average "
        f"({now['strict_min']:.0f}-{now['strict_max']:.0f})\n"
    )
    with contextlib.redirect_stdout(sys.stderr):  # Inspect's start-up banner: not a table
        choosers = choosers_table(chooser_rows(args.before), chooser_rows(args.data))
        contrast = contrast_table(chooser_rows(args.split, chance=CHEAP_DESIGNS))
    print(choosers)
    print()
    print(seasonal_pairs(args.data))
    print()
    print(contrast)
    print()
    print(variety_table(objects, contexts))
    print()
    review = read_review()
    figures = review_agreement(review, objects)
    print(
        f"Review ({REVIEW}): {figures['contexts']:.0f} contexts, {figures['placements']:.0f} "
        f"placements; Cohen's kappa on the flags {figures['kappa_flags']:.3f}, "
        f"quadratic-weighted kappa on the scores {figures['kappa_scores']:.3f}\n"
    )
    print(review_flags(review))
    print()
    print(review_decisions(review))


if __name__ == "__main__":
    main()
