"""Context decides: the context-blind chooser recomputed from the shipped files, the card's
figures and tables, the reviews' re-judged placements and the substitutes rule."""

import json
import statistics
from pathlib import Path

import pytest

from heedbench.evals.choice import data_stats
from heedbench.evals.choice.dataset import default_data_dir
from heedbench.preference import WeakOrder, rank_map, strict_pairs

CARD = default_data_dir() / "README.md"
WEATHER_ONLY = {"v3": 0.781, "before_review": 0.804, "shipped": 0.786}
"""The weather-only chooser's SPO on version 3, on version 4 before its blind review and as
shipped; the issue's target was ≤ 0.75, and the card says why it was not reached."""
LEVELS_FOUR = ["essential", "useful", "incidental", "no role"]
LEVELS_THREE = ["needed", "incidental", "no role"]
LEVELS_NONE_ESSENTIAL = ["useful", "incidental", "no role"]
REVIEW = default_data_dir() / data_stats.REVIEW


def raw(folder: Path) -> tuple[list[str], dict[str, WeakOrder], dict[str, dict[str, object]]]:
    objects = json.loads((folder / "objects.json").read_text(encoding="utf-8"))["objects"]
    records = [
        json.loads(line)
        for line in (folder / "contexts.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return objects, {r["id"]: r["preference"] for r in records}, {r["id"]: r for r in records}


def weather_only_spo(folder: Path) -> float:
    """The chooser that reads only temperature, precipitation and sky, written out by hand
    here (not with the package's helpers) so the check does not share their mistakes: mean
    level over the other contexts with the same weather, ties broken by the mean over all
    other contexts."""
    objects, orders, records = raw(folder)
    weather = {
        c: tuple(r["factors"][f] for f in ("temperature", "precipitation", "sky"))  # type: ignore[index]
        for c, r in records.items()
    }
    found = []
    for context, order in orders.items():
        others = [c for c in orders if c != context]
        alike = [c for c in others if weather[c] == weather[context]] or others

        def level(obj: str, pool: list[str]) -> float:
            return sum(rank_map(orders[c])[obj] for c in pool) / len(pool)

        key = {obj: (level(obj, alike), level(obj, others)) for obj in objects}
        user = strict_pairs(order)
        found.append(sum(1 for x, y in user if key[x] < key[y]) / len(user))
    return statistics.fmean(found)


def test_the_weather_only_chooser_on_the_shipped_files_is_at_the_documented_point(
    tmp_path: Path,
) -> None:
    assert round(weather_only_spo(default_data_dir() / "v3"), 3) == WEATHER_ONLY["v3"]
    assert round(weather_only_spo(default_data_dir()), 3) == WEATHER_ONLY["shipped"]
    before = before_review(default_data_dir(), tmp_path)
    assert round(weather_only_spo(before), 3) == WEATHER_ONLY["before_review"]
    # the card's other figures before the review, recomputed with the package's choosers
    rows = {row.label: row for row in data_stats.chooser_rows(before)}
    blind = rows["mean level in the other contexts (ties indifferent)"]
    weather = rows["reads only the weather (temperature, precipitation, sky)"]
    added = rows["every factor, shifts added"]
    assert round(blind.mean("spo"), 3) == 0.722
    assert round(weather.mean("spo_context"), 3) == 0.383
    assert round(added.mean("spo_context"), 3) == 0.607
    card = CARD.read_text(encoding="utf-8")
    assert "context-blind one's from 0.722 to\n0.696" in card
    assert "moved from 0.383 to 0.379 and every factor\nadded from 0.607 to 0.610" in card
    assert f"**it scores {WEATHER_ONLY['shipped']} here** (version 3: {WEATHER_ONLY['v3']})" in card
    assert f"(the weather-only one to {WEATHER_ONLY['before_review']}," in card
    assert "target of SPO ≤\n0.75" in card


def before_review(folder: Path, out: Path) -> Path:
    """A copy of a data folder with every review decision undone (each object back at the
    level the reviewers were shown, a level the review emptied restored in its place)."""
    undo = {(d["context"], d["object"]): d["given"] for d in decisions()}
    names = ["essential", "useful", "needed", "incidental", "no role"]
    lines = []
    for line in (folder / "contexts.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        level = {
            obj: undo.get((record["id"], obj), name)
            for name, members in zip(record["levels"], record["preference"], strict=True)
            for obj in members
        }
        record["levels"] = [name for name in names if name in level.values()]
        record["preference"] = [
            [obj for obj in level if level[obj] == name] for name in record["levels"]
        ]
        lines.append(json.dumps(record))
    (out / "objects.json").write_text((folder / "objects.json").read_text(encoding="utf-8"))
    (out / "contexts.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def decisions() -> list[dict[str, str]]:
    text = (REVIEW / "adjudication.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_the_cards_tables_are_what_the_files_give() -> None:
    card = CARD.read_text(encoding="utf-8")
    objects, contexts = data_stats.load()
    tables = [
        data_stats.choosers_table(data_stats.chooser_rows("v3"), data_stats.chooser_rows()),
        data_stats.seasonal_pairs(),
        data_stats.contrast_table(
            data_stats.chooser_rows("contrast", chance=data_stats.CHEAP_DESIGNS)
        ),
        data_stats.variety_table(objects, contexts),
        data_stats.review_flags(data_stats.read_review()),
        data_stats.review_decisions(data_stats.read_review()),
    ]
    for table in tables:
        assert table in card


def test_the_data_stats_command_prints_the_cards_tables(capsys: pytest.CaptureFixture[str]) -> None:
    data_stats.main([])  # python -m heedbench.evals.choice.data_stats
    printed = capsys.readouterr().out
    card = CARD.read_text(encoding="utf-8")
    assert printed.startswith("23 contexts, 3.70 sets on average (16 with four)")
    tables = [block for block in printed.split("\n\n") if block.startswith("|")]
    assert len(tables) == 6
    for table in tables:
        assert table.strip() in card


def test_every_review_decision_is_applied_and_the_re_judgments_it_kept_hold() -> None:
    records = raw(default_data_dir())[2] | raw(default_data_dir() / "contrast")[2]
    for decision in decisions():
        record = records[decision["context"]]
        assert level_of(record, decision["object"]) == decision["decided"], decision
    for context, record in records.items():  # the keys follow the review everywhere
        expected = "needed" if context == "airport_night" else "incidental"
        assert level_of(record, "house keys") == expected, context
    kept = {  # version 4's re-judgments that no decision undid
        ("airport_night", "gloves"): "needed",
        ("airport_night", "wool hat"): "needed",
        ("hospital_flu", "water bottle"): "useful",
        ("hospital_flu", "snacks"): "useful",
        ("friend_snow", "cooler box"): "no role",
        ("friend_snow", "camera"): "no role",
        ("supermarket_heat", "sunscreen"): "incidental",
    }
    for (context, obj), level in kept.items():
        assert level_of(records[context], obj) == level, (context, obj)


def test_the_card_states_the_reviews_figures() -> None:
    objects, _ = data_stats.load()
    review = data_stats.read_review()
    figures = data_stats.review_agreement(review, objects)
    assert {key: figures[key] for key in ("contexts", "placements")} == {
        "contexts": 37,
        "placements": 1480,
    }
    assert (figures["flags_a"], figures["flags_b"], figures["flags_both"]) == (72, 62, 56)
    assert round(figures["kappa_flags"], 3) == 0.828
    assert round(figures["kappa_scores"], 3) == 0.802
    # the same agreement with the one object both flagged almost everywhere left out
    a, b = review.proposals

    def drop_keys(side: dict[tuple[str, str], str]) -> dict[tuple[str, str], str]:
        return {cell: level for cell, level in side.items() if cell[1] != "house keys"}

    no_keys = review._replace(proposals=(drop_keys(a), drop_keys(b)))
    rest = data_stats.review_agreement(no_keys, [o for o in objects if o != "house keys"])
    assert round(rest["kappa_flags"], 3) == 0.649
    # every placement either reviewer flagged went to the third, and nothing else did
    assert {(d["context"], d["object"]) for d in decisions()} == a.keys() | b.keys()
    card = CARD.read_text(encoding="utf-8")
    section = card.split("### Blind review of version 4\n", 1)[1].split("###", 1)[0]
    for stated in (
        "A flagged 72 placements, B 62; 56 were flagged by both, 78 by either.",
        "all 1,480 placements (37 contexts × 40 objects)\nCohen's κ is **0.828**",
        "without them\nκ is 0.649",
        "quadratic-weighted κ is **0.802**",
        "77 of the 78 placements moved",
    ):
        assert stated in section, stated
    assert "pending" not in card


def test_levels_are_named_the_card_way() -> None:
    _, contexts = data_stats.load()
    for context in contexts:
        expected = LEVELS_FOUR if len(context.order) == 4 else LEVELS_THREE
        assert list(context.levels) == expected, context.id
    assert sum(1 for c in contexts if len(c.order) == 4) == 16
    # the contrast split: four levels, or three where the review left nothing essential
    _, twins = data_stats.load("contrast")
    three = {c.id for c in twins if len(c.order) == 3}
    assert three == {"park_mild", "park_sunny", "park_fog"}
    for context in twins:
        expected = LEVELS_NONE_ESSENTIAL if context.id in three else LEVELS_FOUR
        assert list(context.levels) == expected, context.id


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
    # a mild evening that is forecast to turn cool: a jacket is the first warm layer (the blind
    # review), the other layers one fallback together; the forecast shower makes the raincoat
    # useful, while an umbrella would block other viewers
    assert level_of(cinema, "winter jacket") == level_of(cinema, "raincoat") == "useful"
    assert {level_of(cinema, o) for o in ("scarf", "wool hat", "gloves", "umbrella")} == {
        "incidental"
    }
    assert level_of(cinema, "flashlight") != "essential"
    # a yoga mat beside a picnic blanket is a second ground mat wherever that happens
    assert level_of(lake, "yoga mat") == level_of(cinema, "yoga mat") == "incidental"
    # a short walk from the car park does not make rubber boots essential
    assert level_of(kindergarten, "rubber boots") == level_of(kindergarten, "hiking boots")
    assert level_of(kindergarten, "rubber boots") == "incidental"


def test_the_blind_reviews_corrections_hold() -> None:
    """The placements both blind reviewers flagged (and the single flags adjudicated as right)."""
    _, _, records = raw(default_data_dir())
    expected = {
        ("supermarket_heat", "blanket"): "incidental",
        ("supermarket_heat", "picnic blanket"): "incidental",
        ("airport_night", "face mask"): "incidental",
        ("park_rain", "gym bag"): "incidental",
        ("hiking_rain", "picnic blanket"): "incidental",
        ("kindergarten_rain", "gym bag"): "incidental",
        ("office_pollen", "yoga mat"): "essential",
        ("office_pollen", "gym bag"): "essential",
    }
    for (context, obj), level in expected.items():
        assert level_of(records[context], obj) == level, (context, obj)
    reviews = [
        [json.loads(line) for line in (default_data_dir() / "review" / name).open(encoding="utf-8")]
        for name in ("review_a.jsonl", "review_b.jsonl")
    ]
    assert all(len(review) == 23 for review in reviews)
