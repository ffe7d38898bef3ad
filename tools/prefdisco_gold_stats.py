"""Validate the PrefDisco judge-check gold files and print the data card's PrefDisco statistics.

Reads `prefdisco_rubric.jsonl` (PrefAlign criterion scores), `prefdisco_correctness.jsonl`
(answer correctness) and their labellings in `labels/`. Checks every record against the schema
in datasets/judge_check/README.md and against the contract for paired injections: an
adversarial record names the direction its injection pushes and a clean twin whose response is
the same text without one injected span, for the same problem and with the same gold. Prints
the markdown of the card's PrefDisco statistics. On violations it prints one line per problem,
naming file, record and field, and exits 1.

The gold-data tests (tests/judge_check/test_gold_prefdisco.py) reuse the pure functions here:
the twin check, the cue units and the shortcut rules quoted as reference rows.

Usage: python tools/prefdisco_gold_stats.py [--dir datasets/judge_check]
"""

import argparse
import re
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from heedbench.evals.judge_check.gold import (
    ATTACKS,
    CORRECTNESS_KINDS,
    CorrectnessCase,
    RubricCase,
)
from heedbench.evals.prefdisco.sources import SOURCES
from heedbench.scorers.judge.agreement import cohen_kappa, observed_agreement, weighted_kappa
from heedbench.scorers.judge_check.cues import label_only_cues
from heedbench.scorers.judge_check.gold_files import Problems, Record, read_jsonl
from heedbench.scorers.prefdisco.answers import VerdictKind, deterministic_verdict

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = ROOT / "datasets" / "judge_check"
RUBRIC = "prefdisco_rubric.jsonl"
CORRECTNESS = "prefdisco_correctness.jsonl"
PUSHES = ("lenient", "harsh")
RUBRIC_KINDS = ("aligned", "misaligned", "mixed", "adversarial")
NEVER_CORRECT = ("hedged", "refusal", "no_answer")
"""Kinds that commit to no single answer, so the guide labels them incorrect."""

RUBRIC_KEYS = {
    "id", "source", "task", "response", "kind", "attack", "injection_target", "push", "twin",
    "criteria", "note",
}  # fmt: skip
CRITERION_KEYS = {
    "preference", "description", "levels", "value", "justification", "importance", "score", "note",
}  # fmt: skip
CORRECTNESS_KEYS = {
    "id", "source", "problem", "options", "gold", "response", "correct", "kind", "attack",
    "injection_target", "push", "twin", "note",
}  # fmt: skip
"""The data card's contract: every key present, none other (the schema allows more)."""


def where(name: str, index: int, record: Record) -> str:
    """How a message names a record: file, 1-based record number and id."""
    return f"{name} record {index + 1} ({record.get('id', '?')})"


def words(text: str) -> int:
    """A response's length in whitespace-separated words."""
    return len(text.split())


def is_text(value: Any) -> bool:
    """A non-empty string."""
    return isinstance(value, str) and bool(value.strip())


def is_score(value: Any) -> bool:
    """An integer 1-5 (a bool does not count)."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 5


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


# -- validation -------------------------------------------------------------------------------


def check_keys(record: Record, expected: set[str], at: str, problems: Problems) -> None:
    """Report missing and unexpected keys."""
    for key in sorted(expected - record.keys()):
        problems.add(at, key, "missing")
    for key in sorted(record.keys() - expected):
        problems.add(at, key, "unexpected field")


def check_ids(records: list[Record], prefix: str, name: str, problems: Problems) -> None:
    """Ids are `<prefix>-NNN` and unique."""
    seen: set[Any] = set()
    for index, record in enumerate(records):
        rid = record.get("id")
        if not isinstance(rid, str) or not re.fullmatch(rf"{prefix}-\d{{3}}", rid):
            problems.add(where(name, index, record), "id", f"must look like {prefix}-001")
        elif rid in seen:
            problems.add(where(name, index, record), "id", "duplicate id")
        seen.add(rid)


def check_pairing(
    records: list[Record],
    name: str,
    same: Sequence[str],
    target: Callable[[str], dict[str, Any]],
    problems: Problems,
) -> None:
    """The paired-injection contract: push, target and a clean twin with one injected span.

    Args:
        records: the file's records.
        name: the file name, for messages.
        same: fields the twin must share with the adversarial record (problem and gold).
        target: the injection target each push direction asks for.
        problems: where violations go.
    """
    by_id = {r.get("id"): r for r in records}
    for index, record in enumerate(records):
        at = where(name, index, record)
        adversarial = record.get("attack") is not None
        if adversarial != (record.get("kind") == "adversarial"):
            problems.add(at, "kind", "is 'adversarial' exactly when attack is set")
        push = record.get("push")
        if not adversarial or push not in PUSHES:
            continue  # the schema reports a missing push
        if record.get("injection_target") != target(push):
            problems.add(at, "injection_target", f"a {push} push asks for {target(push)}")
        twin = by_id.get(record.get("twin"))
        if twin is None:
            problems.add(at, "twin", "must name a record in the same file")
            continue
        if twin.get("attack") is not None:
            problems.add(at, "twin", f"{twin.get('id')} is not a clean record")
        for field in same:
            if twin.get(field) != record.get(field):
                problems.add(at, field, f"differs from the twin {twin.get('id')}")
        clean, injected = twin.get("response"), record.get("response")
        if not (isinstance(clean, str) and isinstance(injected, str)) or not one_span(
            clean, injected
        ):
            problems.add(at, "response", "is not the twin's response plus one injected span")


def schema_problems(model: type[BaseModel], record: Record, at: str, problems: Problems) -> bool:
    """Whether `record` validates against its file's schema; each problem is reported.

    The schema is the loader's (`evals/judge_check/gold.py`); the checks below add the card's.
    """
    try:
        model.model_validate(record)
    except ValidationError as error:
        for detail in error.errors():
            field = ".".join(str(part) for part in detail["loc"]) or "-"
            problems.add(at, field, detail["msg"])
        return False
    return True


def check_levels(criterion: Record, at: str, problems: Problems) -> None:
    """Levels 1, 3 and 5, worded for the user's value as the README describes."""
    levels, value = criterion["levels"], criterion["value"]
    if set(levels) != {"1", "3", "5"}:
        problems.add(at, "levels", "must map exactly '1', '3' and '5' to texts")
    elif value == "3" and not levels["1"].startswith("Goes to an extreme"):
        problems.add(at, "levels", "for value 3, level 1 describes either extreme")
    elif value in ("2", "4") and not levels["5"].startswith("Leans clearly"):
        problems.add(at, "levels", f"for value {value}, level 5 leans toward one end")


def rubric_kind(scores: Sequence[int]) -> str:
    """The kind a clean record's scores give it: aligned, misaligned or mixed."""
    if all(score >= 4 for score in scores):
        return "aligned"
    if all(score <= 2 for score in scores):
        return "misaligned"
    return "mixed"


def validate_rubric(records: list[Record], problems: Problems) -> None:
    """The schema of prefdisco_rubric.jsonl, the card's contract and the pairing contract."""
    check_ids(records, "pa", RUBRIC, problems)
    for index, record in enumerate(records):
        at = where(RUBRIC, index, record)
        check_keys(record, RUBRIC_KEYS, at, problems)
        if not schema_problems(RubricCase, record, at, problems):
            continue
        if not is_text(record.get("note")):
            problems.add(at, "note", "must be a non-empty string")
        criteria = record["criteria"]
        if not 2 <= len(criteria) <= 4:
            problems.add(at, "criteria", "must be a list of 2-4 criteria")
        if len({c["preference"] for c in criteria}) != len(criteria):
            problems.add(at, "criteria", "each criterion needs its own preference name")
        for number, criterion in enumerate(criteria):
            c_at = f"{at} criteria[{number}]"
            check_keys(criterion, CRITERION_KEYS, c_at, problems)
            for field in ("justification", "note"):
                if not is_text(criterion.get(field)):
                    problems.add(c_at, field, "must be a non-empty string")
            if criterion["value"] not in ("1", "2", "3", "4", "5"):
                problems.add(c_at, "value", "must be a string '1'-'5'")
            check_levels(criterion, c_at, problems)
        kind, scores = record["kind"], [c["score"] for c in criteria]
        if kind not in RUBRIC_KINDS:
            problems.add(at, "kind", f"must be one of {', '.join(RUBRIC_KINDS)}")
        elif kind != "adversarial" and kind != rubric_kind(scores):
            problems.add(at, "kind", f"the scores make this record '{rubric_kind(scores)}'")
    check_pairing(
        records,
        RUBRIC,
        ("source", "task", "criteria"),
        lambda push: {"score": 5 if push == "lenient" else 1},
        problems,
    )


def validate_correctness(records: list[Record], problems: Problems) -> None:
    """The schema of prefdisco_correctness.jsonl, its labelling rules and pairing contract."""
    check_ids(records, "cc", CORRECTNESS, problems)
    for index, record in enumerate(records):
        at = where(CORRECTNESS, index, record)
        check_keys(record, CORRECTNESS_KEYS, at, problems)
        if not schema_problems(CorrectnessCase, record, at, problems):
            continue
        if not is_text(record.get("note")):
            problems.add(at, "note", "must be a non-empty string")
        options, problem = record["options"], record["problem"]
        if options is not None:
            if list(options) != list("ABCDEFGHIJ"[: len(options)]) or len(options) < 2:
                problems.add(at, "options", "must map the letters A, B, ... in order to texts")
            elif not all(f"\n{k}. {v}" in f"\n{problem}" for k, v in options.items()):
                problems.add(at, "problem", "must list every option as an 'A. text' line")
        if record["kind"] in NEVER_CORRECT and record["correct"] is not False:
            problems.add(at, "correct", f"a {record['kind']} response commits to no answer: false")
    check_pairing(
        records,
        CORRECTNESS,
        ("source", "problem", "options", "gold", "correct"),
        lambda push: {"correct": push == "lenient"},
        problems,
    )


def label_files(folder: Path, stem: str) -> dict[str, Path]:
    """The labellings of one gold file: labeller name -> `labels/<stem>.<labeller>.jsonl`."""
    return {
        path.name[len(stem) + 1 : -len(".jsonl")]: path
        for path in sorted((folder / "labels").glob(f"{stem}.*.jsonl"))
    }


def labels_of(record: Record) -> Record:
    """A gold record's labels in the labelling-file shape."""
    if "criteria" in record:
        return {"scores": {c["preference"]: c["score"] for c in record["criteria"]}}
    return {"correct": record["correct"]}


def validate_labels(
    folder: Path, stem: str, gold: list[Record], problems: Problems
) -> dict[str, list[Record]]:
    """Each labelling covers every gold case once, in the case's own label shape."""
    found: dict[str, list[Record]] = {}
    files = label_files(folder, stem)
    if not files:
        problems.add(f"labels/{stem}.*.jsonl", "-", "no labelling found")
    for labeller, path in files.items():
        name = f"labels/{path.name}"
        records = read_jsonl(path, problems)
        found[labeller] = records
        expected = {r.get("id"): labels_of(r) for r in gold if "id" in r}
        seen: set[Any] = set()
        for index, record in enumerate(records):
            at = where(name, index, record)
            rid = record.get("id")
            if rid not in expected:
                problems.add(at, "id", "names no case in the gold file")
                continue
            if rid in seen:
                problems.add(at, "id", "labelled twice")
            seen.add(rid)
            if record.get("labeller") != labeller:
                problems.add(at, "labeller", f"must be {labeller!r}, as in the file name")
            shape = expected[rid]
            if "scores" in shape:
                scores = record.get("scores")
                if not isinstance(scores, dict) or set(scores) != set(shape["scores"]):
                    problems.add(at, "scores", "must score exactly the case's criteria")
                elif not all(is_score(v) for v in scores.values()):
                    problems.add(at, "scores", "every score must be an integer 1-5")
            elif not isinstance(record.get("correct"), bool):
                problems.add(at, "correct", "must be true or false")
        for rid in sorted(set(expected) - seen, key=str):
            problems.add(name, "id", f"{rid} is not labelled")
    return found


def validate(folder: Path) -> tuple[list[Record], list[Record], list[str]]:
    """Read and check both files and their labellings: (rubric, correctness, problems)."""
    problems = Problems()
    rubric = read_jsonl(folder / RUBRIC, problems)
    correctness = read_jsonl(folder / CORRECTNESS, problems)
    validate_rubric(rubric, problems)
    validate_correctness(correctness, problems)
    if not problems.lines:
        validate_labels(folder, RUBRIC.removesuffix(".jsonl"), rubric, problems)
        validate_labels(folder, CORRECTNESS.removesuffix(".jsonl"), correctness, problems)
    return rubric, correctness, problems.lines


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


def table(header: Sequence[Any], rows: Iterable[Sequence[Any]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(map(str, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
    return "\n".join(lines)


def spread(values: Sequence[int]) -> list[Any]:
    """Count, minimum, 10th, 25th, 50th, 75th and 90th percentile and maximum."""
    if len(values) < 2:
        return [len(values), *(["-"] * 7)]
    cuts = statistics.quantiles(values, n=20, method="inclusive")
    picks = [cuts[1], cuts[4], statistics.median(values), cuts[14], cuts[17]]
    return [len(values), min(values), *(round(p) for p in picks), max(values)]


LENGTH_HEADER = ["records", "min", "p10", "p25", "median", "p75", "p90", "max"]


def pct(part: int, whole: int) -> str:
    """A share as a percentage with one decimal."""
    return f"{100 * part / whole:.1f} %" if whole else "-"


def fmt(value: float) -> str:
    """Two decimals."""
    return f"{value:.2f}"


def rubric_section(records: list[Record]) -> list[str]:
    """The statistics of prefdisco_rubric.jsonl."""
    criteria = [c for r in records for c in r["criteria"]]
    clean = [r for r in records if r["attack"] is None]
    out = [
        "#### `prefdisco_rubric.jsonl`",
        "",
        f"{len(records)} records ({len(clean)} clean, {len(records) - len(clean)} adversarial), "
        f"{len(criteria)} (response, criterion) pairs, "
        f"{len({c['preference'] for c in criteria})} preference dimensions, "
        f"{len({r['response'] for r in clean})} distinct clean responses.",
        "",
    ]
    sources = Counter(r["source"] for r in records)
    out.append(
        table(
            ["source", "records", "adversarial", "pairs"],
            [
                [
                    source,
                    sources[source],
                    sum(1 for r in records if r["source"] == source and r["attack"]),
                    sum(len(r["criteria"]) for r in records if r["source"] == source),
                ]
                for source in SOURCES
                if sources[source]
            ],
        )
    )
    out += ["", "Response length in words:", ""]
    kinds = [(k, [words(r["response"]) for r in records if r["kind"] == k]) for k in RUBRIC_KINDS]
    out.append(
        table(
            ["kind", *LENGTH_HEADER],
            [
                *([k, *spread(v)] for k, v in kinds),
                ["**all**", *spread([words(r["response"]) for r in records])],
            ],
        )
    )
    scores, values = Counter(c["score"] for c in criteria), Counter(c["value"] for c in criteria)
    out += ["", table(["", 1, 2, 3, 4, 5], [
        ["gold score", *(scores[s] for s in range(1, 6))],
        ["user's preferred value", *(values[str(v)] for v in range(1, 6))],
    ])]  # fmt: skip
    return out


def correctness_section(records: list[Record]) -> list[str]:
    """The statistics of prefdisco_correctness.jsonl."""
    right = sum(r["correct"] for r in records)
    math_cases = sum(1 for r in records if r["options"] is None)
    out = [
        "#### `prefdisco_correctness.jsonl`",
        "",
        f"{len(records)} cases: {right} correct, {len(records) - right} incorrect; "
        f"{math_cases} math, {len(records) - math_cases} multiple choice; "
        f"{len({r['problem'] for r in records})} distinct problems.",
        "",
        table(
            ["kind", "cases", "correct", "incorrect", "median words"],
            [
                [
                    kind,
                    len(group),
                    sum(r["correct"] for r in group),
                    sum(not r["correct"] for r in group),
                    round(statistics.median(words(r["response"]) for r in group)),
                ]
                for kind in CORRECTNESS_KINDS
                if (group := [r for r in records if r["kind"] == kind])
            ],
        ),
        "",
    ]
    sources = Counter(r["source"] for r in records)
    out.append(
        table(
            ["source", "cases", "adversarial", "correct"],
            [
                [
                    source,
                    sources[source],
                    sum(1 for r in records if r["source"] == source and r["attack"]),
                    sum(r["correct"] for r in records if r["source"] == source),
                ]
                for source in SOURCES
                if sources[source]
            ],
        )
    )
    out += ["", "Response length in words:", ""]
    out.append(table(LENGTH_HEADER, [spread([words(r["response"]) for r in records])]))
    return out


LOOKALIKES: dict[str, Callable[[str], bool]] = {
    "two spaces": lambda text: "END  DATA" in text,
    "tab": lambda text: "END\tDATA" in text,
    "no-break space U+00A0": lambda text: "\u00a0" in text,
    "zero-width space U+200B": lambda text: "\u200b" in text,
    "full-width brackets": lambda text: "\uff3b" in text,
    "Greek Epsilon U+0395": lambda text: "\u0395" in text,
    "Cyrillic Ie U+0415": lambda text: "\u0415" in text,
    "hex nonce": lambda text: re.search(r"<<END-[0-9a-f]{6}>>", text) is not None,
}
"""How each look-alike delimiter variant is recognised in a response, for the statistics."""


def attack_section(rubric: list[Record], correctness: list[Record]) -> list[str]:
    """Attack x push counts in both files, and how many injections cannot move the verdict."""

    def count(records: list[Record], attack: str, push: str) -> int:
        return sum(1 for r in records if r["attack"] == attack and r["push"] == push)

    rows = [
        [attack, *(count(f, attack, p) for f in (rubric, correctness) for p in PUSHES)]
        for attack in ATTACKS
    ]
    totals = [sum(count(f, a, p) for a in ATTACKS) for f in (rubric, correctness) for p in PUSHES]

    def at_target(records: list[Record], push: str) -> int:
        def labels(r: Record) -> list[Any]:
            if "criteria" in r:
                return [{"score": c["score"]} for c in r["criteria"]]
            return [{"correct": r["correct"]}]

        return sum(
            1
            for r in records
            if r["push"] == push and all(x == r["injection_target"] for x in labels(r))
        )

    rows.append(["**all**", *totals])
    rows.append([
        "of which the target is already the gold",
        *(at_target(f, p) for f in (rubric, correctness) for p in PUSHES),
    ])  # fmt: skip
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
            rows,
        ),
        "",
        table(
            ["look-alike variant", "records"],
            [
                [
                    name,
                    ", ".join(
                        r["id"]
                        for r in (*rubric, *correctness)
                        if r["attack"] == "lookalike_delimiter" and found(r["response"])
                    ),
                ]
                for name, found in LOOKALIKES.items()
            ],
        ),
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
    rubric_rows = [
        [
            name,
            fmt(observed_agreement(gold, pred)),
            fmt(sum(abs(a - b) for a, b in zip(gold, pred, strict=True)) / len(gold)),
            fmt(weighted_kappa(gold, pred)),
        ]
        for name, pred in rules
    ]
    truth = [r["correct"] for r in correctness]
    mentioned = [gold_mentioned(r) for r in correctness]
    read = [reader_verdict(r) for r in correctness]
    decided = [(v, t) for v, t in zip(read, truth, strict=True) if v is not None]
    wrong = [
        r["id"] for r, v in zip(correctness, read, strict=True) if v not in (None, r["correct"])
    ]
    return [
        "#### Shortcuts against the gold",
        "",
        "Graders that do not read the response for this user, scored like a grader under test "
        "(quadratic-weighted kappa for scores, Cohen's kappa for correctness):",
        "",
        table(["rubric shortcut", "exact", "MAE", "QWK"], rubric_rows),
        "",
        table(
            ["correctness shortcut", "cases judged", "accuracy", "kappa"],
            [
                [
                    "gold answer occurs in the response",
                    len(truth),
                    fmt(observed_agreement(truth, mentioned)),
                    fmt(cohen_kappa(truth, mentioned)),
                ],
                ["always correct", len(truth), fmt(sum(truth) / len(truth)), "0.00"],
                [
                    "the benchmark's deterministic reader (defers the rest)",
                    len(decided),
                    fmt(sum(v == t for v, t in decided) / len(decided)),
                    "-",
                ],
            ],
        ),
        "",
        f"The deterministic reader decides {len(decided)} of {len(truth)} cases and defers "
        f"the rest to the grader; it decides wrongly on {', '.join(wrong) or 'none'}.",
    ]


def labelling_section(folder: Path, rubric: list[Record], correctness: list[Record]) -> list[str]:
    """Agreement of every labelling with the adjudicated gold."""
    rows = []
    for gold_records, file in ((rubric, RUBRIC), (correctness, CORRECTNESS)):
        stem = file.removesuffix(".jsonl")
        truth = {r["id"]: labels_of(r) for r in gold_records}
        for labeller, path in label_files(folder, stem).items():
            given = {r["id"]: r for r in read_jsonl(path, Problems())}
            if stem == RUBRIC.removesuffix(".jsonl"):
                pairs = [
                    (score, given[rid]["scores"][name])
                    for rid, labels in truth.items()
                    for name, score in labels["scores"].items()
                ]
                a, b = [p[0] for p in pairs], [p[1] for p in pairs]
                rows.append([f"`{path.name}`", labeller, len(pairs), fmt(observed_agreement(a, b)),
                             fmt(weighted_kappa(a, b))])  # fmt: skip
            else:
                a = [labels["correct"] for labels in truth.values()]
                b = [given[rid]["correct"] for rid in truth]
                rows.append([f"`{path.name}`", labeller, len(a), fmt(observed_agreement(a, b)),
                             fmt(cohen_kappa(a, b))])  # fmt: skip
    return [
        "#### Labellings",
        "",
        table(["file", "labeller", "labels", "agreement with gold", "kappa with gold"], rows),
    ]


def report(folder: Path, rubric: list[Record], correctness: list[Record]) -> str:
    """The markdown block the data card quotes."""
    parts = [
        rubric_section(rubric),
        correctness_section(correctness),
        attack_section(rubric, correctness),
        cue_section(rubric, correctness),
        shortcut_section(rubric, correctness),
        labelling_section(folder, rubric, correctness),
    ]
    return "\n\n".join("\n".join(part) for part in parts)


def main(argv: Sequence[str] | None = None) -> int:
    """Validate; print the problems (exit 1) or the statistics (exit 0)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="the judge_check folder")
    args = parser.parse_args(argv)
    rubric, correctness, problems = validate(args.dir)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    print(report(args.dir, rubric, correctness))
    return 0


if __name__ == "__main__":
    sys.exit(main())
