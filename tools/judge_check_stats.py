"""Validate the judge_check meta-evaluation set and print its statistics as markdown.

Reads the three files in datasets/judge_check/ (carryon_checklist.jsonl, carryon_harm.jsonl,
prefdisco_rubric.jsonl), checks every record against the schema documented in
datasets/judge_check/README.md, checks the coverage the set promises (pairs, label spread,
adversarial counts per attack family), and prints a markdown summary for the README.

On the first batch of violations it prints one line per problem, naming the file, the record
and the field, and exits with status 1. The task's own loader (`heedbench.evals.judge_check`)
checks the schema too; this script adds the coverage checks and the statistics.

Usage: python tools/judge_check_stats.py [--dir datasets/judge_check]
"""

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from heedbench.evals.carryon.dataset import INFORMATION_CATEGORIES, SAFETY_CATEGORIES
from heedbench.evals.judge_check.dataset import ATTACKS, CHECKLIST_FILE, HARM_FILE, RUBRIC_FILE
from heedbench.evals.prefdisco.sources import SOURCES

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = ROOT / "datasets" / "judge_check"

CHECKLIST, HARM, RUBRIC = CHECKLIST_FILE, HARM_FILE, RUBRIC_FILE

SAFETY = SAFETY_CATEGORIES
ITEM_CATEGORIES = INFORMATION_CATEGORIES
CHECKLIST_KINDS = ("refusal", "partial", "vague", "full", "adversarial")
HARM_KINDS = ("refusal", "restrained", "engaged", "prohibited", "full_compliance", "adversarial")
RUBRIC_KINDS = ("aligned", "misaligned", "mixed", "adversarial")
HARM_KIND_LEVEL = {
    "refusal": 1,
    "restrained": 2,
    "engaged": 3,
    "prohibited": 4,
    "full_compliance": 5,
}

CHECKLIST_KEYS = {
    "id", "category", "query", "response", "kind", "attack", "injection_target", "items", "note",
}  # fmt: skip
ITEM_KEYS = {"id", "question", "category", "fulfilled", "note"}
HARM_KEYS = {
    "id", "category", "conversation", "response", "harm", "kind", "attack", "injection_target",
    "note",
}  # fmt: skip
RUBRIC_KEYS = {
    "id", "source", "task", "response", "kind", "attack", "injection_target", "criteria", "note",
}  # fmt: skip
CRITERION_KEYS = {"preference", "description", "levels", "value", "justification", "score", "note"}

# Look-alike delimiter variants, recognised in responses for the statistics.
LOOKALIKES: dict[str, Callable[[str], bool]] = {
    "two spaces": lambda t: "END  DATA" in t,
    "tab": lambda t: "END\tDATA" in t,
    "no-break space U+00A0": lambda t: "END\u00a0DATA" in t,
    "zero-width space U+200B": lambda t: "\u200b" in t,
    "full-width brackets": lambda t: "\uff3b" in t,
    "Greek Epsilon U+0395": lambda t: "\u0395ND" in t,
    "Cyrillic Ie U+0415": lambda t: "\u0415ND" in t,
    "hex nonce": lambda t: re.search(r"<<END-[0-9a-f]{6}>>", t) is not None,
}

Record = dict[str, Any]


class Problems:
    """Collects schema and coverage violations as 'file: record: field: message' lines."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, where: str, field: str, message: str) -> None:
        """Record one violation at `where` (file and record) in `field`."""
        self.lines.append(f"{where}: {field}: {message}")


def load(path: Path, problems: Problems) -> list[Record]:
    """Parse a JSONL file; unparseable lines are reported and skipped."""
    records: list[Record] = []
    if not path.is_file():
        problems.add(path.name, "-", "file not found")
        return records
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            problems.add(f"{path.name}:{number}", "-", f"invalid JSON ({error.msg})")
            continue
        if not isinstance(value, dict):
            problems.add(f"{path.name}:{number}", "-", "a record must be a JSON object")
            continue
        records.append(value)
    return records


def text_ok(value: Any) -> bool:
    """True for a non-empty string."""
    return isinstance(value, str) and bool(value.strip())


def is_level(value: Any) -> bool:
    """True for an integer from 1 to 5 (a bool does not count)."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 5


def check_keys(record: Record, expected: set[str], where: str, problems: Problems) -> None:
    """Report missing and unexpected keys."""
    for key in sorted(expected - record.keys()):
        problems.add(where, key, "missing")
    for key in sorted(record.keys() - expected):
        problems.add(where, key, "unexpected field")


def check_texts(record: Record, fields: Iterable[str], where: str, problems: Problems) -> None:
    """Report fields that are not non-empty strings."""
    for field in fields:
        if field in record and not text_ok(record[field]):
            problems.add(where, field, "must be a non-empty string")


def check_attack(record: Record, target_key: str, where: str, problems: Problems) -> None:
    """Check kind/attack/injection_target consistency; the target's value is checked by caller."""
    attack = record.get("attack")
    target = record.get("injection_target")
    adversarial = record.get("kind") == "adversarial"
    if attack is not None and attack not in ATTACKS:
        problems.add(where, "attack", f"unknown attack {attack!r}")
    if adversarial != (attack is not None):
        problems.add(where, "attack", "must be set exactly when kind is 'adversarial'")
    if (attack is None) != (target is None):
        problems.add(where, "injection_target", "must be set exactly when attack is set")
    if target is not None and (not isinstance(target, dict) or set(target) != {target_key}):
        problems.add(where, "injection_target", f'must be {{"{target_key}": ...}}')


def check_ids(records: list[Record], prefix: str, name: str, problems: Problems) -> None:
    """Ids must match the file's prefix and be unique."""
    seen: set[str] = set()
    for index, record in enumerate(records, 1):
        rid = record.get("id")
        where = f"{name}: record {index}"
        if not isinstance(rid, str) or not re.fullmatch(rf"{prefix}-\d{{3}}", rid):
            problems.add(where, "id", f"must look like {prefix}-001")
        elif rid in seen:
            problems.add(where, "id", f"duplicate id {rid}")
        else:
            seen.add(rid)


def where_of(name: str, index: int, record: Record) -> str:
    """A location string naming the file and the record."""
    return f"{name}: {record.get('id', f'record {index}')}"


# --------------------------------------------------------------------------- checklist


def validate_checklist(records: list[Record], problems: Problems) -> None:
    """Schema of carryon_checklist.jsonl."""
    check_ids(records, "cl", CHECKLIST, problems)
    for index, record in enumerate(records, 1):
        where = where_of(CHECKLIST, index, record)
        check_keys(record, CHECKLIST_KEYS, where, problems)
        check_texts(record, ("query", "response", "note"), where, problems)
        if record.get("category") not in SAFETY:
            problems.add(where, "category", f"must be one of {', '.join(SAFETY)}")
        if record.get("kind") not in CHECKLIST_KINDS:
            problems.add(where, "kind", f"must be one of {', '.join(CHECKLIST_KINDS)}")
        check_attack(record, "fulfilled", where, problems)
        target = record.get("injection_target")
        if isinstance(target, dict) and not isinstance(target.get("fulfilled"), bool):
            problems.add(where, "injection_target", "fulfilled must be true or false")
        validate_items(record, where, problems)


def validate_items(record: Record, where: str, problems: Problems) -> None:
    """The labelled checklist items of one record."""
    items = record.get("items")
    if not isinstance(items, list) or not 3 <= len(items) <= 7:
        problems.add(where, "items", "must be a list of 3 to 7 items")
        return
    for number, item in enumerate(items, 1):
        at = f"{where}: items[{number - 1}]"
        if not isinstance(item, dict):
            problems.add(at, "-", "must be an object")
            continue
        check_keys(item, ITEM_KEYS, at, problems)
        if item.get("id") != f"{record.get('id')}.{number}":
            problems.add(at, "id", f"must be {record.get('id')}.{number}")
        question = item.get("question")
        if not text_ok(question) or not str(question).startswith("Does the response"):
            problems.add(at, "question", "must be a question starting 'Does the response'")
        elif not str(question).endswith("?"):
            problems.add(at, "question", "must end with '?'")
        if item.get("category") not in ITEM_CATEGORIES:
            problems.add(at, "category", f"must be one of {', '.join(ITEM_CATEGORIES)}")
        if not isinstance(item.get("fulfilled"), bool):
            problems.add(at, "fulfilled", "must be true or false")
        check_texts(item, ("note",), at, problems)
    labels = [item.get("fulfilled") for item in items if isinstance(item, dict)]
    kind = record.get("kind")
    if kind == "refusal" and any(labels):
        problems.add(where, "items", "a refusal must have every item unfulfilled")
    if kind == "partial" and (all(labels) or not any(labels)):
        problems.add(where, "items", "a partial answer needs both fulfilled and unfulfilled items")
    if kind == "full" and sum(bool(label) for label in labels) * 2 <= len(labels):
        problems.add(where, "items", "a full answer must fulfil most items")


# --------------------------------------------------------------------------- harm


def validate_harm(records: list[Record], problems: Problems) -> None:
    """Schema of carryon_harm.jsonl."""
    check_ids(records, "hm", HARM, problems)
    for index, record in enumerate(records, 1):
        where = where_of(HARM, index, record)
        check_keys(record, HARM_KEYS, where, problems)
        check_texts(record, ("response", "note"), where, problems)
        if record.get("category") not in SAFETY:
            problems.add(where, "category", f"must be one of {', '.join(SAFETY)}")
        harm = record.get("harm")
        if not is_level(harm):
            problems.add(where, "harm", "must be an integer from 1 to 5")
        kind = record.get("kind")
        if kind not in HARM_KINDS:
            problems.add(where, "kind", f"must be one of {', '.join(HARM_KINDS)}")
        elif kind in HARM_KIND_LEVEL and harm != HARM_KIND_LEVEL[kind]:
            problems.add(where, "kind", f"'{kind}' goes with harm {HARM_KIND_LEVEL[kind]}")
        check_attack(record, "harm", where, problems)
        target = record.get("injection_target")
        if isinstance(target, dict) and not is_level(target.get("harm")):
            problems.add(where, "injection_target", "harm must be an integer from 1 to 5")
        validate_conversation(record.get("conversation"), where, problems)


def validate_conversation(conversation: Any, where: str, problems: Problems) -> None:
    """1 to 3 exchanges, alternating user/assistant, ending with the user message answered."""
    if not isinstance(conversation, list) or len(conversation) not in (1, 3, 5):
        problems.add(where, "conversation", "must hold 1, 3 or 5 messages (1 to 3 exchanges)")
        return
    for number, message in enumerate(conversation):
        at = f"{where}: conversation[{number}]"
        role = "user" if number % 2 == 0 else "assistant"
        if not isinstance(message, dict) or set(message) != {"role", "content"}:
            problems.add(at, "-", "must be {role, content}")
            continue
        if message["role"] != role:
            problems.add(at, "role", f"must be {role!r} (messages alternate, starting with user)")
        if not text_ok(message["content"]):
            problems.add(at, "content", "must be a non-empty string")


# --------------------------------------------------------------------------- rubric


def validate_rubric(records: list[Record], problems: Problems) -> None:
    """Schema of prefdisco_rubric.jsonl."""
    check_ids(records, "pa", RUBRIC, problems)
    for index, record in enumerate(records, 1):
        where = where_of(RUBRIC, index, record)
        check_keys(record, RUBRIC_KEYS, where, problems)
        check_texts(record, ("task", "response", "note"), where, problems)
        if record.get("source") not in SOURCES:
            problems.add(where, "source", f"must be one of {', '.join(SOURCES)}")
        if record.get("kind") not in RUBRIC_KINDS:
            problems.add(where, "kind", f"must be one of {', '.join(RUBRIC_KINDS)}")
        check_attack(record, "score", where, problems)
        target = record.get("injection_target")
        if isinstance(target, dict) and not is_level(target.get("score")):
            problems.add(where, "injection_target", "score must be an integer from 1 to 5")
        validate_criteria(record.get("criteria"), where, problems)


def validate_criteria(criteria: Any, where: str, problems: Problems) -> None:
    """2 to 4 criteria, each with levels 1/3/5, a preferred value and a gold score."""
    if not isinstance(criteria, list) or not 2 <= len(criteria) <= 4:
        problems.add(where, "criteria", "must be a list of 2 to 4 criteria")
        return
    names: set[str] = set()
    for number, criterion in enumerate(criteria):
        at = f"{where}: criteria[{number}]"
        if not isinstance(criterion, dict):
            problems.add(at, "-", "must be an object")
            continue
        check_keys(criterion, CRITERION_KEYS, at, problems)
        check_texts(criterion, ("preference", "description", "justification", "note"), at, problems)
        if criterion.get("preference") in names:
            problems.add(at, "preference", "duplicate criterion in one record")
        names.add(str(criterion.get("preference")))
        levels = criterion.get("levels")
        if not isinstance(levels, dict) or set(levels) != {"1", "3", "5"}:
            problems.add(at, "levels", 'must have exactly the keys "1", "3" and "5"')
        elif not all(text_ok(text) for text in levels.values()):
            problems.add(at, "levels", "every level needs a description")
        if criterion.get("value") not in ("1", "2", "3", "4", "5"):
            problems.add(at, "value", 'must be a string "1" to "5"')
        if not is_level(criterion.get("score")):
            problems.add(at, "score", "must be an integer from 1 to 5")


# --------------------------------------------------------------------------- coverage


def pairs_of(records: list[Record], field: str) -> list[Record]:
    """All items (checklist) or criteria (rubric) across records."""
    return [pair for record in records for pair in record.get(field, [])]


def target_differs(record: Record) -> bool:
    """Whether obeying the injection would give a label different from the gold one."""
    target = record["injection_target"]
    if "fulfilled" in target:
        return any(item["fulfilled"] != target["fulfilled"] for item in record["items"])
    if "harm" in target:
        return bool(record["harm"] != target["harm"])
    return any(criterion["score"] != target["score"] for criterion in record["criteria"])


def check_coverage(data: dict[str, list[Record]], problems: Problems) -> None:
    """The spread the set promises; run only on schema-valid data."""
    checklist, harm, rubric = data[CHECKLIST], data[HARM], data[RUBRIC]
    items = pairs_of(checklist, "items")
    need = problems.add
    if len(items) < 160:
        need(CHECKLIST, "items", f"{len(items)} pairs, at least 160 required")
    yes = sum(item["fulfilled"] for item in items)
    if items and not 0.35 <= yes / len(items) <= 0.65:
        need(CHECKLIST, "fulfilled", f"yes share {yes / len(items):.2f} outside 0.35-0.65")
    for kind in CHECKLIST_KINDS:
        if not any(record["kind"] == kind for record in checklist):
            need(CHECKLIST, "kind", f"no record of kind {kind}")
    if len(harm) < 64:
        need(HARM, "-", f"{len(harm)} records, at least 64 required")
    for category in SAFETY:
        in_category = [record for record in harm if record["category"] == category]
        if len(in_category) < 14:
            need(HARM, "category", f"{category}: {len(in_category)} records, at least 14")
        missing = {1, 2, 3, 4, 5} - {record["harm"] for record in in_category}
        if missing:
            need(HARM, "harm", f"{category}: no record at level(s) {sorted(missing)}")
    levels = Counter(record["harm"] for record in harm)
    if levels[4] < 8 or levels[5] < 6:
        need(HARM, "harm", "at least 8 records at level 4 and 6 at level 5 required")
    criteria = pairs_of(rubric, "criteria")
    if len(criteria) < 110:
        need(RUBRIC, "criteria", f"{len(criteria)} pairs, at least 110 required")
    if len({record["source"] for record in rubric}) < 5:
        need(RUBRIC, "source", "at least 5 sources required")
    scores = Counter(criterion["score"] for criterion in criteria)
    for score in range(1, 6):
        if scores[score] < 12:
            need(RUBRIC, "score", f"score {score} used {scores[score]} times, at least 12")
    check_adversarial(data, problems)


def check_adversarial(data: dict[str, list[Record]], problems: Problems) -> None:
    """Adversarial counts per family and per attack, and injections that push away from gold."""
    carryon = [r for r in data[CHECKLIST] + data[HARM] if r["attack"]]
    rubric = [r for r in data[RUBRIC] if r["attack"]]
    for name in (CHECKLIST, HARM):
        count = sum(1 for record in data[name] if record["attack"])
        if count < 14:
            problems.add(name, "attack", f"{count} adversarial records, at least 14 required")
    for family, records in (("carryon", carryon), ("prefdisco", rubric)):
        if len(records) < 32:
            problems.add(family, "attack", f"{len(records)} adversarial records, at least 32")
        attacks = Counter(record["attack"] for record in records)
        for attack in ATTACKS:
            if attacks[attack] < 4:
                problems.add(family, "attack", f"{attack} used {attacks[attack]} times, need 4")
        differs = sum(target_differs(record) for record in records)
        if records and not len(records) / 2 < differs < len(records):
            problems.add(
                family,
                "injection_target",
                f"{differs} of {len(records)} differ from gold: most must, a few must not",
            )


# --------------------------------------------------------------------------- report


def table(header: list[Any], rows: list[list[Any]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(str(cell) for cell in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def share(part: int, whole: int) -> str:
    """A percentage with one decimal, or a dash for an empty whole."""
    return f"{100 * part / whole:.1f} %" if whole else "-"


def report_checklist(records: list[Record]) -> str:
    """Markdown statistics for the checklist file."""
    items = pairs_of(records, "items")
    yes = sum(item["fulfilled"] for item in items)
    rows = []
    for category in SAFETY:
        chosen = [r for r in records if r["category"] == category]
        its = pairs_of(chosen, "items")
        got = sum(item["fulfilled"] for item in its)
        adv = sum(1 for r in chosen if r["attack"])
        rows.append([category, len(chosen), adv, len(its), got, len(its) - got])
    rows.append(["**all**", len(records), sum(1 for r in records if r["attack"]), len(items), yes,
                 len(items) - yes])  # fmt: skip
    kinds = []
    for kind in CHECKLIST_KINDS:
        chosen = [r for r in records if r["kind"] == kind]
        its = pairs_of(chosen, "items")
        got = sum(item["fulfilled"] for item in its)
        kinds.append([kind, len(chosen), len(its), share(got, len(its))])
    per_record = Counter(len(r["items"]) for r in records)
    item_categories = Counter(item["category"] for item in items)
    no = len(items) - yes
    return "\n\n".join(
        [
            f"### `{CHECKLIST}`\n\n{len(records)} records, {len(items)} (response, item) pairs; "
            f"fulfilled {share(yes, len(items))}, not fulfilled {share(no, len(items))}.",
            table(["category", "records", "adversarial", "pairs", "yes", "no"], rows),
            table(["kind", "records", "pairs", "yes share"], kinds),
            table(
                ["items per record", *sorted(per_record)],
                [["records", *(per_record[k] for k in sorted(per_record))]],
            ),
            table(
                ["item category", "pairs"],
                [[c, item_categories[c]] for c in ITEM_CATEGORIES],
            ),
        ]
    )


def report_harm(records: list[Record]) -> str:
    """Markdown statistics for the harm file."""
    rows = []
    for category in SAFETY:
        levels = Counter(r["harm"] for r in records if r["category"] == category)
        adv = sum(1 for r in records if r["category"] == category and r["attack"])
        rows.append([category, *(levels[k] for k in range(1, 6)), sum(levels.values()), adv])
    totals = Counter(r["harm"] for r in records)
    rows.append(["**all**", *(totals[k] for k in range(1, 6)), len(records),
                 sum(1 for r in records if r["attack"])])  # fmt: skip
    kinds = Counter(r["kind"] for r in records)
    exchanges = Counter((len(r["conversation"]) + 1) // 2 for r in records)
    adversarial = Counter(r["harm"] for r in records if r["attack"])
    return "\n\n".join(
        [
            f"### `{HARM}`\n\n{len(records)} records.",
            table(["category", "1", "2", "3", "4", "5", "records", "adversarial"], rows),
            table(["kind", *HARM_KINDS], [["records", *(kinds[k] for k in HARM_KINDS)]]),
            table(
                ["exchanges", *sorted(exchanges)],
                [["records", *(exchanges[k] for k in sorted(exchanges))]],
            ),
            table(
                ["gold harm of adversarial records", "1", "2", "3", "4", "5"],
                [["records", *(adversarial[k] for k in range(1, 6))]],
            ),
        ]
    )


def report_rubric(records: list[Record]) -> str:
    """Markdown statistics for the PrefAlign rubric file."""
    criteria = pairs_of(records, "criteria")
    rows = []
    for source in SOURCES:
        chosen = [r for r in records if r["source"] == source]
        if chosen:
            adv = sum(1 for r in chosen if r["attack"])
            rows.append([source, len(chosen), adv, len(pairs_of(chosen, "criteria"))])
    rows.append(["**all**", len(records), sum(1 for r in records if r["attack"]), len(criteria)])
    scores = Counter(c["score"] for c in criteria)
    values = Counter(c["value"] for c in criteria)
    kinds = Counter(r["kind"] for r in records)
    per_record = Counter(len(r["criteria"]) for r in records)
    dimensions = Counter(c["preference"] for c in criteria)
    return "\n\n".join(
        [
            f"### `{RUBRIC}`\n\n{len(records)} records, {len(criteria)} (response, criterion) "
            f"pairs, {len(dimensions)} distinct preference dimensions.",
            table(["source", "records", "adversarial", "pairs"], rows),
            table(
                ["", "1", "2", "3", "4", "5"],
                [
                    ["gold score", *(scores[k] for k in range(1, 6))],
                    ["user's preferred value", *(values[str(k)] for k in range(1, 6))],
                ],
            ),
            table(["kind", *RUBRIC_KINDS], [["records", *(kinds[k] for k in RUBRIC_KINDS)]]),
            table(
                ["criteria per record", *sorted(per_record)],
                [["records", *(per_record[k] for k in sorted(per_record))]],
            ),
            table(["dimension", "pairs"], [[d, n] for d, n in dimensions.most_common()]),
        ]
    )


def report_adversarial(data: dict[str, list[Record]]) -> str:
    """Adversarial records per attack family and file, and look-alike variants used."""
    files = (CHECKLIST, HARM, RUBRIC)
    chosen = {name: [r for r in data[name] if r["attack"]] for name in files}
    rows = []
    for attack in ATTACKS:
        counts = [sum(1 for r in chosen[name] if r["attack"] == attack) for name in files]
        rows.append([attack, counts[0], counts[1], counts[0] + counts[1], counts[2]])
    totals = [len(chosen[name]) for name in files]
    rows.append(["**all**", totals[0], totals[1], totals[0] + totals[1], totals[2]])
    differs = [sum(target_differs(r) for r in chosen[name]) for name in files]
    rows.append(["injection target ≠ gold", differs[0], differs[1], differs[0] + differs[1],
                 differs[2]])  # fmt: skip
    variants = []
    for label, test in LOOKALIKES.items():
        found = [r["id"] for name in files for r in chosen[name] if test(r["response"])]
        variants.append([label, ", ".join(found) or "-"])
    return "\n\n".join(
        [
            "### Adversarial subset",
            table(["attack", "checklist", "harm", "carryon", "prefdisco"], rows),
            table(["look-alike variant", "records"], variants),
        ]
    )


def main() -> int:
    """Validate, then print the markdown report; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="folder with the files")
    args = parser.parse_args()
    problems = Problems()
    data = {name: load(args.dir / name, problems) for name in (CHECKLIST, HARM, RUBRIC)}
    validate_checklist(data[CHECKLIST], problems)
    validate_harm(data[HARM], problems)
    validate_rubric(data[RUBRIC], problems)
    if not problems.lines:
        check_coverage(data, problems)
    if problems.lines:
        print("\n".join(problems.lines), file=sys.stderr)
        print(f"{len(problems.lines)} problem(s) found.", file=sys.stderr)
        return 1
    sections = [
        report_checklist(data[CHECKLIST]),
        report_harm(data[HARM]),
        report_rubric(data[RUBRIC]),
        report_adversarial(data),
    ]
    print("\n\n".join(sections))
    return 0


if __name__ == "__main__":
    sys.exit(main())
