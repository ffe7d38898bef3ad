"""Context decides: the context-blind chooser recomputed from the shipped files, the card's
figures and tables, the review's re-judged placements and the substitutes rule."""

import json
import statistics
from pathlib import Path

import pytest

from heedbench.evals.choice import data_stats
from heedbench.evals.choice.dataset import default_data_dir
from heedbench.preference import WeakOrder, rank_map, strict_pairs

CARD = default_data_dir() / "README.md"
STOPPED_AT = (0.683, 0.359)
"""Where version 3 stopped (leave-one-out SPO, K(p)/780); the issue's target was ≤ 0.65 and
≥ 0.38, and the card says why it was not reached."""
LEVELS_FOUR = ["essential", "useful", "incidental", "no role"]
LEVELS_THREE = ["needed", "incidental", "no role"]


def raw(folder: Path) -> tuple[list[str], dict[str, WeakOrder], dict[str, dict[str, object]]]:
    objects = json.loads((folder / "objects.json").read_text(encoding="utf-8"))["objects"]
    records = [
        json.loads(line)
        for line in (folder / "contexts.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return objects, {r["id"]: r["preference"] for r in records}, {r["id"]: r for r in records}


def loco_figures(folder: Path) -> tuple[float, float]:
    """Leave-one-context-out mean-level chooser, ties indifferent, written out by hand here
    (not with the package's helpers) so the check does not share their mistakes."""
    objects, orders, _ = raw(folder)
    total = {obj: sum(rank_map(order)[obj] for order in orders.values()) for obj in objects}
    spo, kendall = [], []
    for order in orders.values():
        own = rank_map(order)
        level = {obj: total[obj] - own[obj] for obj in objects}  # the other 22 contexts
        user_strict = strict_pairs(order)
        kept = sum(1 for x, y in user_strict if level[x] < level[y])
        spo.append(kept / len(user_strict))
        penalty = 0.0
        for i, x in enumerate(objects):
            for y in objects[i + 1 :]:
                user = (own[x] > own[y]) - (own[x] < own[y])
                blind = (level[x] > level[y]) - (level[x] < level[y])
                if user * blind < 0:
                    penalty += 1
                elif (user == 0) != (blind == 0):
                    penalty += 0.5
        kendall.append(penalty / 780)
    return statistics.fmean(spo), statistics.fmean(kendall)


def test_the_context_blind_chooser_on_the_shipped_files_is_at_the_documented_point() -> None:
    spo, kendall = loco_figures(default_data_dir())
    before_spo, before_kendall = loco_figures(default_data_dir() / "v2")
    assert (round(before_spo, 3), round(before_kendall, 3)) == (0.736, 0.325)  # the issue's
    assert (round(spo, 3), round(kendall, 3)) == STOPPED_AT
    assert spo <= before_spo - 0.05 and kendall >= before_kendall + 0.03
    card = CARD.read_text(encoding="utf-8")
    assert f"**This version stops at {STOPPED_AT[0]} and {STOPPED_AT[1]}**" in card
    assert "target of leave-one-out SPO ≤ 0.65 and K(p)/780\n≥ 0.38" in card


def test_the_cards_tables_are_what_the_files_give() -> None:
    card = CARD.read_text(encoding="utf-8")
    objects, contexts = data_stats.load()
    before_objects, before = data_stats.load("v2")
    figures = data_stats.figures_table(
        [
            ("v2", data_stats.blind_figures(before_objects, before)),
            ("shipped", data_stats.blind_figures(objects, contexts)),
        ]
    )
    for table in (
        figures,
        data_stats.variety_table(objects, contexts),
        data_stats.pair_kinds_table(objects, contexts),
    ):
        assert table in card
    assert data_stats.blind_figures(objects, contexts).loco_spo == pytest.approx(
        STOPPED_AT[0], abs=5e-4
    )


def test_the_data_stats_command_prints_the_cards_tables(capsys: pytest.CaptureFixture[str]) -> None:
    data_stats.main([])  # python -m heedbench.evals.choice.data_stats
    printed = capsys.readouterr().out
    card = CARD.read_text(encoding="utf-8")
    assert printed.startswith("23 contexts, 3.70 sets on average (16 with four)")
    tables = [block for block in printed.split("\n\n") if block.startswith("|")]
    assert len(tables) == 3
    for table in tables:
        assert table.strip() in card


def test_levels_are_named_the_card_way() -> None:
    _, contexts = data_stats.load()
    for context in contexts:
        expected = LEVELS_FOUR if len(context.order) == 4 else LEVELS_THREE
        assert list(context.levels) == expected, context.id
    assert sum(1 for c in contexts if len(c.order) == 4) == 16


def test_every_substitute_split_is_in_the_card_and_explained_in_the_rationale() -> None:
    _, contexts = data_stats.load()
    by_id = {context.id: context for context in contexts}
    card = CARD.read_text(encoding="utf-8")
    section = card.split("### Substitutes in different sets", 1)[1].split("\n## ", 1)[0]
    listed = [line for line in section.splitlines() if line.startswith("| `")]
    splits = data_stats.substitute_splits(contexts)
    assert len(listed) == len(splits)
    for context, first, first_level, second, second_level in splits:
        row = f"| `{context}` | {first} ({first_level}), {second} ({second_level}) |"
        assert any(line.startswith(row) for line in listed), row
        rationale = by_id[context].rationale
        assert first in rationale and second in rationale, (context, first, second)


def level_of(record: dict[str, object], obj: str) -> str:
    preference = record["preference"]
    levels = record["levels"]
    assert isinstance(preference, list) and isinstance(levels, list)
    return str(levels[rank_map(preference)[obj]])


def test_the_reviews_placements_are_re_judged() -> None:
    _, _, records = raw(default_data_dir())
    friend, library = records["friend_snow"], records["library_mild"]
    cinema, lake = records["cinema_night"], records["lake_evening"]
    kindergarten = records["kindergarten_rain"]
    # substitutes on a snowy path, and in a shower on the way to the library
    assert level_of(friend, "hiking boots") == level_of(friend, "rubber boots")
    assert level_of(library, "umbrella") == level_of(library, "raincoat")
    # no food in a reading room; water and headphones only useful
    assert level_of(library, "snacks") == "incidental"
    assert {level_of(library, o) for o in ("water bottle", "headphones")} == {"useful"}
    # a mild evening: the warm layers are one fallback, and the film does not need a torch
    assert {level_of(cinema, o) for o in ("scarf", "winter jacket", "wool hat", "gloves")} == {
        "incidental"
    }
    assert level_of(cinema, "flashlight") != "essential"
    # a yoga mat beside a picnic blanket is a second ground mat wherever that happens
    assert level_of(lake, "yoga mat") == level_of(cinema, "yoga mat") == "incidental"
    # a short walk from the car park does not make rubber boots essential
    assert level_of(kindergarten, "rubber boots") == level_of(kindergarten, "hiking boots")
    assert level_of(kindergarten, "rubber boots") == "incidental"
