"""The `choice` data card's numbers, computed from a data folder.

Shape, level variety and what a context-blind chooser scores. The card's tables are printed by
`python -m heedbench.evals.choice.data_stats` and checked against the shipped files by the
tests, so the card cannot drift from the data.

Usage: python -m heedbench.evals.choice.data_stats [--data DIR] [--before DIR]
"""

import argparse
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from heedbench.evals.choice.dataset import (
    CONTEXTS_FILE,
    OBJECTS_FILE,
    ChoiceContext,
    load_contexts,
    load_objects,
    resolve_data_dir,
)
from heedbench.preference import WeakOrder, rank_map, strict_pairs
from heedbench.scorers.choice.context_blind import (
    cut_to_sizes,
    global_order,
    leave_one_out_orders,
)
from heedbench.scorers.choice.metrics import kendall_penalty, spo

BANDS = ("essential", "useful", "needed", "incidental", "no role")
"""Level names of the shipped data: four-set contexts use essential, useful, incidental and
no role; three-set contexts join the first two as `needed`."""
NICHE_AT = 15
"""An object with no role in at least this many contexts counts as single-purpose."""
EVERYDAY_AT = 2
"""An object with no role in at most this many contexts counts as an everyday item."""
SUBSTITUTES = (
    ("umbrella", "raincoat"),
    ("rubber boots", "hiking boots"),
    ("blanket", "picnic blanket"),
)
"""Objects that can do the same job (keep rain off, keep feet dry, something to sit or lie
on): they share a set unless the context separates them, and the rationale says why."""


@dataclass(frozen=True)
class BlindFigures:
    """Mean SPO and K(p)/pairs of the context-blind choosers over a data folder's contexts."""

    loco_spo: float
    loco_kendall: float
    cut_spo: float
    cut_kendall: float
    global_spo: float
    global_kendall: float


def load(data: str | Path | None = None) -> tuple[list[str], list[ChoiceContext]]:
    """A data folder's objects and contexts (an earlier shipped version by name)."""
    folder = resolve_data_dir(data)
    objects = load_objects(folder / OBJECTS_FILE)
    return objects, load_contexts(folder / CONTEXTS_FILE, objects)


def blind_figures(
    objects: Sequence[str], contexts: Sequence[ChoiceContext], p: float = 0.5
) -> BlindFigures:
    """What the three context-blind choosers score, averaged over the contexts."""
    orders = {context.id: context.order for context in contexts}
    loco = leave_one_out_orders(orders, objects)
    overall = global_order(list(orders.values()), objects)
    pairs = len(objects) * (len(objects) - 1) / 2
    rows: list[tuple[float, ...]] = []
    for context, user in orders.items():
        cut = cut_to_sizes(loco[context], [len(level) for level in user])
        rows.append(
            tuple(
                value
                for chosen in (loco[context], cut, overall)
                for value in (spo(user, chosen), kendall_penalty(user, chosen, p) / pairs)
            )
        )
    means = [statistics.fmean(column) for column in zip(*rows, strict=True)]
    return BlindFigures(*means)


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


def no_role_counts(objects: Sequence[str], contexts: Sequence[ChoiceContext]) -> dict[str, int]:
    """Per object, the contexts that put it in the last set (`no role` in the shipped data)."""
    found = dict.fromkeys(objects, 0)
    for context in contexts:
        for obj in context.order[-1]:
            found[obj] += 1
    return found


def spread(objects: Sequence[str], contexts: Sequence[ChoiceContext]) -> tuple[int, int]:
    """(objects never in the last set, objects in the last set in `NICHE_AT` or more contexts)."""
    counts = no_role_counts(objects, contexts)
    return (
        sum(1 for count in counts.values() if count == 0),
        sum(1 for count in counts.values() if count >= NICHE_AT),
    )


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


def object_kind(no_role: int) -> str:
    """single-purpose, everyday or context-dependent, by the contexts with no role for it."""
    if no_role >= NICHE_AT:
        return "single-purpose"
    if no_role <= EVERYDAY_AT:
        return "everyday"
    return "context-dependent"


def pair_kinds(
    objects: Sequence[str], contexts: Sequence[ChoiceContext]
) -> dict[tuple[str, str], tuple[int, int]]:
    """Strict pairs by the kinds of their two objects: (pairs, kept by the leave-one-out order).

    Shows where a context-blind chooser earns its SPO: pairs with a single-purpose or an
    everyday object are easy for it, pairs of context-dependent objects are not.
    """
    kinds = {obj: object_kind(count) for obj, count in no_role_counts(objects, contexts).items()}
    orders: dict[str, WeakOrder] = {context.id: context.order for context in contexts}
    loco = leave_one_out_orders(orders, objects)
    found: dict[tuple[str, str], list[int]] = {}
    for context, user in orders.items():
        blind = {pair for pair in strict_pairs(loco[context])}
        for pair in strict_pairs(user):
            key = (min(kinds[pair[0]], kinds[pair[1]]), max(kinds[pair[0]], kinds[pair[1]]))
            entry = found.setdefault(key, [0, 0])
            entry[0] += 1
            entry[1] += pair in blind
    return {key: (total, kept) for key, (total, kept) in sorted(found.items())}


def figures_table(rows: Sequence[tuple[str, BlindFigures]]) -> str:
    """Markdown: the context-blind figures of several data versions."""
    lines = [
        "| data | leave-one-out SPO | leave-one-out K(p)/780 | cut to the user's sizes SPO "
        "| cut K(p)/780 | global order SPO | global K(p)/780 |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, f in rows:
        lines.append(
            f"| {label} | {f.loco_spo:.3f} | {f.loco_kendall:.3f} | {f.cut_spo:.3f} "
            f"| {f.cut_kendall:.3f} | {f.global_spo:.3f} | {f.global_kendall:.3f} |"
        )
    return "\n".join(lines)


def variety_table(objects: Sequence[str], contexts: Sequence[ChoiceContext]) -> str:
    """Markdown: per object, the contexts in each band and the bands it uses."""
    counts = band_counts(objects, contexts)
    lines = [
        "| object | essential | useful | needed | incidental | no role | bands used |",
        "|---|---|---|---|---|---|---|",
    ]
    for obj in objects:
        row = counts[obj]
        used = sum(1 for band in BANDS if row[band])
        cells = " | ".join(str(row[band]) for band in BANDS)
        lines.append(f"| {obj} | {cells} | {used} |")
    return "\n".join(lines)


def pair_kinds_table(objects: Sequence[str], contexts: Sequence[ChoiceContext]) -> str:
    """Markdown: strict pairs by object kinds, with the share the leave-one-out order keeps."""
    found = pair_kinds(objects, contexts)
    total = sum(pairs for pairs, _ in found.values())
    lines = [
        "| pair of | share of strict pairs | kept by the leave-one-out order |",
        "|---|---|---|",
    ]
    for (first, second), (pairs, kept) in found.items():
        lines.append(f"| {first} × {second} | {pairs / total:.3f} | {kept / pairs:.3f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Print the data card's context-blind, level-variety and pair-kind tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", help="data folder (default: the shipped data)")
    parser.add_argument("--before", default="v2", help="earlier data to compare with")
    args = parser.parse_args(argv)
    objects, contexts = load(args.data)
    before_objects, before = load(args.before)
    now = shape(contexts)
    print(
        f"{len(contexts)} contexts, {now['sets']:.2f} sets on average "
        f"({now['four_set']:.0f} with four), {now['strict']:.1f} strict pairs on average "
        f"({now['strict_min']:.0f}-{now['strict_max']:.0f})\n"
    )
    print(
        figures_table(
            [
                (args.before, blind_figures(before_objects, before)),
                (args.data or "shipped", blind_figures(objects, contexts)),
            ]
        )
    )
    for label, (found_objects, found) in (
        (args.before, (before_objects, before)),
        (args.data or "shipped", (objects, contexts)),
    ):
        never, mostly = spread(found_objects, found)
        print(
            f"\n{label}: {never} objects never in the last set, {mostly} in the last set in "
            f"{NICHE_AT} or more contexts"
        )
    print()
    print(variety_table(objects, contexts))
    print()
    print(pair_kinds_table(objects, contexts))


if __name__ == "__main__":
    main()
