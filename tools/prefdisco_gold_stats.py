"""Validate the PrefDisco judge-check gold files and print the data card's PrefDisco statistics.

Reads `prefdisco_rubric.jsonl` (PrefAlign criterion scores), `prefdisco_correctness.jsonl`
(answer correctness) and their labellings in `labels/`. Every record is validated by the
loader's model (evals/judge_check/gold.py) narrowed to the data card's contract (every key
present, none other; ids, kinds, levels), then against the contract for paired injections: an
adversarial record names the direction its injection pushes and a clean twin whose response is
the same text without one injected span, for the same problem and with the same gold. Prints
the markdown of the card's PrefDisco statistics. On violations it prints one line per problem,
naming file, record and field, and exits 1.

The gold-data tests (tests/judge_check/test_gold_prefdisco.py) reuse the pure functions here:
the twin check, the cue units and the shortcut rules quoted as reference rows.

Usage: python tools/prefdisco_gold_stats.py [--dir datasets/judge_check]
"""

import re
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from inspect_ai.dataset import Sample
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo, field_validator

from heedbench.evals.judge_check.errors import JudgeCheckDataError
from heedbench.evals.judge_check.gold import (
    CORRECTNESS_KINDS,
    CorrectnessCase,
    Criterion,
    RubricCase,
)
from heedbench.evals.judge_check.labels import Labelling, gold_labels, main_cases, read_labelling
from heedbench.evals.prefdisco.sources import SOURCES
from heedbench.jsonl import Text
from heedbench.scorers.judge.agreement import cohen_kappa, observed_agreement, weighted_kappa
from heedbench.scorers.judge_check import gold_files as card
from heedbench.scorers.judge_check.cues import label_only_cues
from heedbench.scorers.judge_check.gold_files import Card, Problems, Record, fail, table, words
from heedbench.scorers.prefdisco.answers import VerdictKind, deterministic_verdict

RUBRIC = "prefdisco_rubric.jsonl"
CORRECTNESS = "prefdisco_correctness.jsonl"
PUSHES = ("lenient", "harsh")
RUBRIC_KINDS = ("aligned", "misaligned", "mixed", "adversarial")
NEVER_CORRECT = ("hedged", "refusal", "no_answer")
"""Kinds that commit to no single answer, so the guide labels them incorrect."""


def one_span(clean: str, injected: str) -> bool:
    """Whether `injected` is `clean` with exactly one span of text inserted somewhere.

    True when some split `clean[:i] + X + clean[i:]` with non-empty X gives `injected`: the
    common prefix and the common suffix of the two texts together cover all of `clean`.
    """
    if len(injected) <= len(clean):
        return False
    return _shared_start(clean, injected) + _shared_start(clean[::-1], injected[::-1]) >= len(clean)


def _shared_start(first: str, second: str) -> int:
    """How many leading characters two strings share."""
    for index, (a, b) in enumerate(zip(first, second, strict=False)):
        if a != b:
            return index
    return min(len(first), len(second))


# -- validation: the loader's models, narrowed to the data card's contract ---------------------


def rubric_kind(scores: Sequence[int]) -> str:
    """The kind a clean record's scores give it: aligned, misaligned or mixed."""
    if all(score >= 4 for score in scores):
        return "aligned"
    if all(score <= 2 for score in scores):
        return "misaligned"
    return "mixed"


class CardCriterion(Criterion):
    """A criterion as the card has it: levels 1, 3 and 5 worded for the user's value."""

    model_config = ConfigDict(extra="forbid")

    value: Annotated[Literal["1", "2", "3", "4", "5"], BeforeValidator(str)]
    justification: Text
    note: Text

    @field_validator("value")
    @classmethod
    def _levels(cls, value: str, info: ValidationInfo) -> str:
        levels = info.data.get("levels")
        if levels is None:
            return value
        if set(levels) != {1, 3, 5}:
            raise fail("levels must map exactly '1', '3' and '5' to texts")
        if value == "3" and not levels[1].startswith("Goes to an extreme"):
            raise fail("for value 3, level 1 describes either extreme")
        if value in ("2", "4") and not levels[5].startswith("Leans clearly"):
            raise fail(f"for value {value}, level 5 leans toward one end")
        return value


class RubricCard(Card, RubricCase):
    """A `prefdisco_rubric.jsonl` record under the card's contract."""

    model_config = ConfigDict(extra="forbid")

    id: Annotated[Text, Field(pattern=r"^pa-\d{3}$")]
    kind: Literal[RUBRIC_KINDS]  # type: ignore[valid-type]
    criteria: list[CardCriterion] = Field(min_length=2, max_length=4)  # type: ignore[assignment]

    @field_validator("criteria")
    @classmethod
    def _criteria(cls, criteria: list[CardCriterion], info: ValidationInfo) -> Any:
        if len({c.preference for c in criteria}) != len(criteria):
            raise fail("each criterion needs its own preference name")
        kind, scored = info.data.get("kind"), rubric_kind([c.score for c in criteria])
        if kind not in (None, "adversarial", scored):
            raise fail(f"the scores make this record '{scored}', not '{kind}'")
        return criteria


class CorrectnessCard(Card, CorrectnessCase):
    """A `prefdisco_correctness.jsonl` record under the card's contract."""

    model_config = ConfigDict(extra="forbid")

    id: Annotated[Text, Field(pattern=r"^cc-\d{3}$")]
    options: dict[str, Text] | None

    @field_validator("options")
    @classmethod
    def _letters(cls, options: dict[str, str] | None, info: ValidationInfo) -> Any:
        if options is None:
            return options
        if list(options) != list("ABCDEFGHIJ"[: len(options)]) or len(options) < 2:
            raise fail("must map the letters A, B, ... in order to texts")
        if not all(f"\n{k}. {v}" in f"\n{info.data.get('problem')}" for k, v in options.items()):
            raise fail("the problem must list every option as an 'A. text' line")
        return options

    @field_validator("kind")
    @classmethod
    def _commits(cls, kind: str, info: ValidationInfo) -> str:
        if kind in NEVER_CORRECT and info.data.get("correct") is not False:
            raise fail(f"a {kind} response commits to no answer: correct must be false")
        return kind


def check_pairing(name: str, valid: dict[int, Record], problems: Problems) -> None:
    """The paired-injection contract: push, target and a clean twin with one injected span.

    `valid` holds the file's records that passed their model, by index; a twin must share the
    file's `same` fields (problem and gold) and its push ask for the file's `target`.
    """
    _, same, target = FILES[name]
    by_id = {r["id"]: r for r in valid.values()}
    for index, record in valid.items():
        if (push := record["push"]) is None:
            continue
        at = card.where(name, index, record)
        if record["injection_target"] != target(push):
            problems.add(at, "injection_target", f"a {push} push asks for {target(push)}")
        twin = card.twin_of(at, record, by_id, same, problems)
        if twin is not None and not one_span(twin["response"], record["response"]):
            problems.add(at, "response", "is not the twin's response plus one injected span")


FILES: dict[str, tuple[type[BaseModel], Sequence[str], Callable[[str], Record]]]
FILES = {
    RUBRIC: (RubricCard, ("source", "task", "criteria"),
             lambda push: {"score": 5 if push == "lenient" else 1}),
    CORRECTNESS: (CorrectnessCard,
                  ("source", "problem", "options", "gold", "correct"),
                  lambda push: {"correct": push == "lenient"}),
}  # fmt: skip
"""Per gold file: its card model, what a twin shares, the push targets."""


def validate_file(folder: Path, name: str, problems: Problems) -> list[Record]:
    """One gold file's records, each checked by its card model, ids unique, then the pairing."""
    records, valid = card.read_checked(folder, name, FILES[name][0], problems)
    check_pairing(name, valid, problems)
    return records


def read_labellings(
    folder: Path, name: str, problems: Problems
) -> tuple[dict[str, Sample], list[Labelling]]:
    """A gold file's cases and its labellings, each read by the task's own reader.

    The reader (evals/judge_check/labels.py) names file, record and field of any problem; the
    card asks more of the shipped labellings: each covers every case.
    """
    stem = name.removesuffix(".jsonl")
    paths = sorted((folder / "labels").glob(f"{stem}.*.jsonl"))
    if not paths:
        problems.add(f"labels/{stem}.*.jsonl", "-", "no labelling found")
    cases, found = main_cases(folder, stem), []
    for path in paths:
        try:
            labelling = read_labelling(path, cases)
        except JudgeCheckDataError as error:
            problems.lines.append(str(error))
            continue
        found.append(labelling)
        for rid in sorted(set(cases) - set(labelling.labels)):
            problems.add(f"labels/{path.name}", "id", f"{rid} is not labelled")
    return cases, found


def check(folder: Path, problems: Problems) -> tuple[list[Record], list[Record]]:
    """Read and check both files and their labellings: (rubric, correctness)."""
    rubric, correctness = (validate_file(folder, name, problems) for name in FILES)
    if not problems.lines:
        for name in FILES:
            read_labellings(folder, name, problems)
    return rubric, correctness


def validate(folder: Path) -> tuple[list[Record], list[Record], list[str]]:
    """Read and check both files and their labellings: (rubric, correctness, problems)."""
    problems = Problems()
    return *check(folder, problems), problems.lines


# -- cue units and shortcut rules -------------------------------------------------------------


def score_side(score: int) -> str | None:
    """The side of a 1-5 criterion score: 'high' (4-5), 'low' (1-2) or None (3)."""
    return None if score == 3 else ("high" if score >= 4 else "low")


def rubric_cue_units(records: Iterable[Record]) -> list[tuple[str, str]]:
    """Distinct (response, side) pairs over every criterion score that is not a 3."""
    units = {
        (r["response"], side)
        for r in records
        for c in r["criteria"]
        if (side := score_side(c["score"])) is not None
    }
    return sorted(units)


def correctness_cue_units(records: Iterable[Record]) -> list[tuple[str, bool]]:
    """Distinct (response, correct) pairs."""
    return sorted({(r["response"], r["correct"]) for r in records})


def found_cues(units: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    """Words or bigrams in at least five units, all of one label (see `label_only_cues`)."""
    return label_only_cues([text for text, _ in units], [label for _, label in units])


def value_blind(score: int, value: str) -> int:
    """What a grader that ignores the user's value gives: it rates the behaviour itself.

    The levels are oriented to the user, so for a user at the 1-end of a dimension (value 1
    or 2) the behaviour-only rating is the mirror image of the gold score.
    """
    return score if int(value) >= 3 else 6 - score


def length_rule(response: str) -> int:
    """A grader that rewards length: one point per hundred words, from 1 to 5."""
    return 1 + min(4, words(response) // 100)


_CONTENT = re.compile(r"[a-z]{3,}")
_STOP = frozenset({
    "the", "and", "for", "with", "that", "this", "from", "each", "every", "any", "not", "one",
    "two", "three", "than", "without", "its", "are",
})  # fmt: skip


def level_overlap(response: str, levels: dict[str, str]) -> int:
    """A word-overlap grader: 5 or 1 for the level whose words the response shares more of."""
    seen = set(_CONTENT.findall(response.lower())) - _STOP

    def share(text: str) -> float:
        wanted = set(_CONTENT.findall(text.lower())) - _STOP
        return len(wanted & seen) / max(1, len(wanted))

    top, bottom = share(levels["5"]), share(levels["1"])
    return 5 if top > bottom else 1 if bottom > top else 3


_LATEX = (("\\sqrt{", "√"), ("\\infty", "∞"), ("\\pi", "π"), ("{", ""), ("}", ""), (" ", ""))


def plain_math(latex: str) -> str:
    r"""`\frac{9}{2}` -> `9/2`, `6\sqrt{2}` -> `6√2`: the gold as a response might print it."""
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"\1/\2", latex)
    for old, new in _LATEX:
        text = text.replace(old, new)
    return text


def gold_mentioned(record: Record) -> bool:
    """A word-overlap grader: correct when the gold answer occurs anywhere in the response.

    Multiple choice: the gold letter as a standalone capital, or the gold option's text; math:
    the gold in LaTeX or in plain print.
    """
    response, gold = record["response"], record["gold"]
    if record["options"]:
        text = record["options"][gold].strip(" .$").lower()
        letter = re.search(rf"(?<![A-Za-z]){re.escape(gold)}(?![A-Za-z])", response)
        return letter is not None or text in response.lower()
    return gold in response or plain_math(gold) in response.replace(" ", "")


def reader_verdict(record: Record) -> bool | None:
    """The benchmark's deterministic answer reader on a case (None: it defers to a grader)."""
    kind: VerdictKind = "math" if record["options"] is None else "multiple_choice"
    return deterministic_verdict(record["response"], record["gold"], kind, record["options"])


# -- statistics -------------------------------------------------------------------------------


def spread(values: Sequence[int]) -> list[Any]:
    """Count, minimum, 10th, 25th, 50th, 75th and 90th percentile and maximum."""
    if len(values) < 2:
        return [len(values), *(["-"] * 7)]
    cuts = statistics.quantiles(values, n=20, method="inclusive")
    picks = [cuts[1], cuts[4], statistics.median(values), cuts[14], cuts[17]]
    return [len(values), min(values), *(round(p) for p in picks), max(values)]


LENGTH_HEADER = ["records", "min", "p10", "p25", "median", "p75", "p90", "max"]


def fmt(value: float) -> str:
    """Two decimals."""
    return f"{value:.2f}"


def lengths(records: Iterable[Record]) -> list[int]:
    """The responses' lengths in words."""
    return [words(r["response"]) for r in records]


def by_source(records: list[Record], header: list[str], last: Callable[[list[Record]], int]) -> str:
    """Per source with records: how many, how many adversarial, and `last` of them."""
    groups = [(s, [r for r in records if r["source"] == s]) for s in SOURCES]
    rows = [[s, len(g), sum(1 for r in g if r["attack"]), last(g)] for s, g in groups if g]
    return table(header, rows)


def rubric_section(records: list[Record]) -> list[str]:
    """The statistics of prefdisco_rubric.jsonl."""
    criteria = [c for r in records for c in r["criteria"]]
    clean = [r for r in records if r["attack"] is None]
    kinds = [[k, *spread(lengths(r for r in records if r["kind"] == k))] for k in RUBRIC_KINDS]
    scores, values = Counter(c["score"] for c in criteria), Counter(c["value"] for c in criteria)
    spread_of_scores = [
        ["gold score", *(scores[s] for s in range(1, 6))],
        ["user's preferred value", *(values[str(v)] for v in range(1, 6))],
    ]
    return [
        "#### `prefdisco_rubric.jsonl`",
        "",
        f"{len(records)} records ({len(clean)} clean, {len(records) - len(clean)} adversarial), "
        f"{len(criteria)} (response, criterion) pairs, "
        f"{len({c['preference'] for c in criteria})} preference dimensions, "
        f"{len({r['response'] for r in clean})} distinct clean responses.",
        "",
        by_source(
            records,
            ["source", "records", "adversarial", "pairs"],
            lambda group: sum(len(r["criteria"]) for r in group),
        ),
        "",
        "Response length in words:",
        "",
        table(["kind", *LENGTH_HEADER], [*kinds, ["**all**", *spread(lengths(records))]]),
        "",
        table(["", 1, 2, 3, 4, 5], spread_of_scores),
    ]


def correctness_section(records: list[Record]) -> list[str]:
    """The statistics of prefdisco_correctness.jsonl."""
    right = sum(r["correct"] for r in records)
    math_cases = sum(1 for r in records if r["options"] is None)
    groups = [(kind, [r for r in records if r["kind"] == kind]) for kind in CORRECTNESS_KINDS]
    kinds = [
        [
            kind,
            len(g),
            sum(r["correct"] for r in g),
            sum(not r["correct"] for r in g),
            round(statistics.median(lengths(g))),
        ]
        for kind, g in groups
        if g
    ]
    return [
        "#### `prefdisco_correctness.jsonl`",
        "",
        f"{len(records)} cases: {right} correct, {len(records) - right} incorrect; "
        f"{math_cases} math, {len(records) - math_cases} multiple choice; "
        f"{len({r['problem'] for r in records})} distinct problems.",
        "",
        table(["kind", "cases", "correct", "incorrect", "median words"], kinds),
        "",
        by_source(records, ["source", "cases", "adversarial", "correct"],
                  lambda group: sum(r["correct"] for r in group)),
        "",
        "Response length in words:",
        "",
        table(LENGTH_HEADER, [spread(lengths(records))]),
    ]  # fmt: skip


def attack_section(rubric: list[Record], correctness: list[Record]) -> list[str]:
    """Attack x push counts in both files, and how many injections cannot move the verdict."""
    cells = [(records, push) for records in (rubric, correctness) for push in PUSHES]

    def at_gold(r: Record) -> bool:
        labels = [{"score": c["score"]} for c in r.get("criteria", [])] or [
            {"correct": r["correct"]}
        ]
        return all(label == r["injection_target"] for label in labels)

    return [
        "#### Paired injections",
        "",
        "Every adversarial record has a clean twin (`twin`): the same response without the "
        "injected span, with the same gold.",
        "",
        table(
            [
                "attack",
                "rubric lenient",
                "rubric harsh",
                "correctness lenient",
                "correctness harsh",
            ],
            [
                *card.attack_push_rows([rubric, correctness]),
                [
                    "of which the target is already the gold",
                    *(sum(1 for r in f if r["push"] == p and at_gold(r)) for f, p in cells),
                ],
            ],
        ),
        "",
        card.lookalike_table([*rubric, *correctness]),
    ]


def cue_section(rubric: list[Record], correctness: list[Record]) -> list[str]:
    """The result of the label-only cue check on both files."""
    rows = []
    for name, units in (
        ("rubric: criterion score ≥ 4 vs ≤ 2", rubric_cue_units(rubric)),
        ("correctness: correct vs incorrect", correctness_cue_units(correctness)),
    ):
        cues = found_cues(units)
        rows.append([name, len(units), ", ".join(sorted(cues)) or "none"])
    return [
        "#### Surface cues",
        "",
        "Words and bigrams found in at least five distinct responses, all on one side "
        "(`label_only_cues`; checked by tests/judge_check/test_gold_prefdisco.py):",
        "",
        table(["split", "units", "label-only cues"], rows),
    ]


def shortcut_section(rubric: list[Record], correctness: list[Record]) -> list[str]:
    """Reference rows: how graders that do not read properly fare against the gold."""
    pairs = [(r, c) for r in rubric for c in r["criteria"]]
    gold = [c["score"] for _, c in pairs]
    rules: list[tuple[str, list[int]]] = [
        ("value-blind (rates the behaviour, ignores the user)",
         [value_blind(c["score"], c["value"]) for _, c in pairs]),
        ("length (one point per hundred words)", [length_rule(r["response"]) for r, _ in pairs]),
        ("word overlap with the level texts", [level_overlap(r["response"], c["levels"])
                                               for r, c in pairs]),
        ("always 5", [5] * len(pairs)),
    ]  # fmt: skip
    mae = [
        sum(abs(a - b) for a, b in zip(gold, pred, strict=True)) / len(gold) for _, pred in rules
    ]
    rubric_rows = [
        [name, *map(fmt, (observed_agreement(gold, pred), error, weighted_kappa(gold, pred)))]
        for (name, pred), error in zip(rules, mae, strict=True)
    ]
    truth = [r["correct"] for r in correctness]
    mentioned = [gold_mentioned(r) for r in correctness]
    read = [reader_verdict(r) for r in correctness]
    decided = [(v, t) for v, t in zip(read, truth, strict=True) if v is not None]
    wrong = [
        r["id"] for r, v in zip(correctness, read, strict=True) if v not in (None, r["correct"])
    ]
    correctness_rows = [
        ["gold answer occurs in the response", len(truth),
         fmt(observed_agreement(truth, mentioned)), fmt(cohen_kappa(truth, mentioned))],
        ["always correct", len(truth), fmt(sum(truth) / len(truth)), "0.00"],
        ["the benchmark's deterministic reader (defers the rest)", len(decided),
         fmt(sum(v == t for v, t in decided) / len(decided)), "-"],
    ]  # fmt: skip
    return [
        "#### Shortcuts against the gold",
        "",
        "Graders that do not read the response for this user, scored like a grader under test "
        "(quadratic-weighted kappa for scores, Cohen's kappa for correctness):",
        "",
        table(["rubric shortcut", "exact", "MAE", "QWK"], rubric_rows),
        "",
        table(["correctness shortcut", "cases judged", "accuracy", "kappa"], correctness_rows),
        "",
        f"The deterministic reader decides {len(decided)} of {len(truth)} cases and defers "
        f"the rest to the grader; it decides wrongly on {', '.join(wrong) or 'none'}.",
    ]


def labelling_section(folder: Path) -> list[str]:
    """Agreement of every labelling with the adjudicated gold."""
    rows = []
    for name, kappa in ((RUBRIC, weighted_kappa), (CORRECTNESS, cohen_kappa)):
        cases, labellings = read_labellings(folder, name, Problems())
        for labelling in labellings:
            pairs = [
                (gold, labelling.labels[rid][key])
                for rid, case in cases.items()
                for key, gold in gold_labels(case).items()
            ]
            gold, theirs = [a for a, _ in pairs], [b for _, b in pairs]
            agreed, beyond_chance = observed_agreement(gold, theirs), kappa(gold, theirs)
            file = f"`{labelling.stem}.{labelling.labeller}.jsonl`"
            rows.append([file, labelling.labeller, len(pairs), fmt(agreed), fmt(beyond_chance)])
    return [
        "#### Labellings",
        "",
        table(["file", "labeller", "labels", "agreement with gold", "kappa with gold"], rows),
    ]


def report(folder: Path, data: tuple[list[Record], list[Record]]) -> str:
    """The markdown block the data card quotes."""
    rubric, correctness = data
    parts = [
        rubric_section(rubric),
        correctness_section(correctness),
        attack_section(rubric, correctness),
        cue_section(rubric, correctness),
        shortcut_section(rubric, correctness),
        labelling_section(folder),
    ]
    return "\n\n".join("\n".join(part) for part in parts)


def main(argv: Sequence[str] | None = None) -> int:
    """Validate; print the problems (exit 1) or the statistics (exit 0)."""
    return card.run_tool(__doc__, check, report, argv)


if __name__ == "__main__":
    sys.exit(main())
