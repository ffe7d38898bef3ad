"""CarryOn checklist build: reading each step's reply, the merge arithmetic, the record.

Pure functions. A reader raises `JudgementError` naming what is wrong, so the step asks the
model again with the problem stated (`solvers.pipelines.ask.ask_json`).

- Extraction: a list of `{question, category}` items, each a yes/no question that starts
  "Does the response" and ends with "?", in one of the five information categories.
- Merge: the union of every generator's candidates, numbered `c1, c2, ...`. The merger
  returns merged items, each naming its `sources`; every candidate must be the source of
  exactly one merged item, so nothing is dropped (only true duplicates share an item) and
  nothing is counted twice. An item's generators are the union of its sources' generators.
- Refinement: one refined question per merged item, by number; provenance carries over.
"""

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from heedbench.evals.carryon.dataset import INFORMATION_CATEGORIES
from heedbench.jsonparse import get_key
from heedbench.scorers.judge.call import JudgementError

ITEM_PREFIX = "Does the response"
MAX_QUESTION_CHARS = 400
"""A longer item is no longer one atomic check."""

_TAG = re.compile(r"^\s*\[([^\]]{1,40})\]\s*")
_SPACES = re.compile(r"\s+")
_CANDIDATE_ID = re.compile(r"^c?(\d+)$")


@dataclass(frozen=True)
class Candidate:
    """An item extracted from one generator's answer (`id` is `c<n>` over all generators)."""

    id: str
    question: str
    category: str
    generators: tuple[str, ...]


@dataclass(frozen=True)
class Item:
    """A merged (and later refined) checklist item with its provenance."""

    question: str
    category: str
    generators: tuple[str, ...]
    """The generator models whose answers yielded it, in first-seen order."""
    sources: tuple[str, ...]
    """The candidate ids merged into it."""


def canonical_category(value: Any, where: str = "category") -> str:
    """One of the five information categories, matched ignoring case, brackets and spaces."""
    if isinstance(value, str):
        wanted = _SPACES.sub(" ", value.strip().strip("[]").strip()).casefold()
        for category in INFORMATION_CATEGORIES:
            if category.casefold() == wanted:
                return category
    raise JudgementError(
        f"{where}: {value!r} is not an information category; use one of "
        f"{', '.join(INFORMATION_CATEGORIES)}"
    )


def check_question(value: Any, where: str = "question") -> str:
    """A checklist question, whitespace tidied and any leading "[Category]" tag removed."""
    if not isinstance(value, str) or not value.strip():
        raise JudgementError(f"{where}: must be a non-empty string")
    question = _SPACES.sub(" ", _TAG.sub("", value.strip()))
    if not question.casefold().startswith(ITEM_PREFIX.casefold()):
        raise JudgementError(f"{where}: {question[:80]!r} must start with {ITEM_PREFIX!r}")
    if not question.endswith("?"):
        raise JudgementError(f"{where}: {question[:80]!r} must be a question ending with '?'")
    if len(question) > MAX_QUESTION_CHARS:
        raise JudgementError(
            f"{where}: {len(question)} characters; keep one item to one check "
            f"(at most {MAX_QUESTION_CHARS})"
        )
    return ITEM_PREFIX + question[len(ITEM_PREFIX) :]


def _key(question: str) -> str:
    return _SPACES.sub(" ", question).strip().casefold()


def _entries(verdict: Mapping[str, Any]) -> list[Any]:
    items = get_key(dict(verdict), "items")
    if not isinstance(items, list) or not items:
        raise JudgementError("'items' must be a non-empty list")
    return items


def _entry(entry: Any, index: int) -> Mapping[str, Any]:
    if not isinstance(entry, Mapping):
        raise JudgementError(f"items[{index}]: must be an object")
    return entry


def read_candidates(verdict: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The extracted `(question, category)` items; exact repeats (ignoring case) dropped."""
    found: dict[str, tuple[str, str]] = {}
    for index, raw in enumerate(_entries(verdict)):
        entry = _entry(raw, index)
        question = check_question(get_key(dict(entry), "question"), f"items[{index}].question")
        category = canonical_category(get_key(dict(entry), "category"), f"items[{index}].category")
        found.setdefault(_key(question), (question, category))
    return list(found.values())


def number_candidates(
    extractions: Iterable[tuple[str, Sequence[tuple[str, str]]]],
) -> list[Candidate]:
    """Every generator's items numbered `c1, c2, ...` in order, each with its generator."""
    numbered: list[Candidate] = []
    for generator, items in extractions:
        for question, category in items:
            numbered.append(Candidate(f"c{len(numbered) + 1}", question, category, (generator,)))
    return numbered


def _candidate_id(value: Any, known: Mapping[str, Candidate], where: str) -> str:
    text = str(value).strip().casefold() if isinstance(value, str | int) else ""
    match = _CANDIDATE_ID.match(text)
    name = f"c{match.group(1)}" if match else text
    if name not in known:
        raise JudgementError(f"{where}: {value!r} is not a candidate id (c1 to c{len(known)})")
    return name


def union(groups: Iterable[Sequence[str]]) -> tuple[str, ...]:
    """The names of all groups, each once, in first-seen order."""
    seen: dict[str, None] = {}
    for group in groups:
        for name in group:
            seen.setdefault(name, None)
    return tuple(seen)


def read_merge(verdict: Mapping[str, Any], candidates: Sequence[Candidate]) -> list[Item]:
    """The merged items; every candidate must be the source of exactly one of them."""
    known = {candidate.id: candidate for candidate in candidates}
    used: dict[str, int] = {}
    merged: list[Item] = []
    for index, raw in enumerate(_entries(verdict)):
        entry = _entry(raw, index)
        where = f"items[{index}]"
        question = check_question(get_key(dict(entry), "question"), f"{where}.question")
        category = canonical_category(get_key(dict(entry), "category"), f"{where}.category")
        raw_sources = get_key(dict(entry), "sources")
        if not isinstance(raw_sources, list) or not raw_sources:
            raise JudgementError(f"{where}.sources: must list the candidate ids it merges")
        sources = union([[_candidate_id(s, known, f"{where}.sources") for s in raw_sources]])
        for source in sources:
            if source in used:
                raise JudgementError(
                    f"{where}.sources: {source} is already merged into items[{used[source]}]; "
                    "each candidate belongs to exactly one merged item"
                )
            used[source] = index
        generators = union(known[source].generators for source in sources)
        merged.append(Item(question, category, generators, sources))
    missing = [candidate.id for candidate in candidates if candidate.id not in used]
    if missing:
        raise JudgementError(
            f"candidates {', '.join(missing)} are in no merged item; keep every distinct "
            "piece of information (merge only true duplicates)"
        )
    return merged


def read_refined(verdict: Mapping[str, Any], merged: Sequence[Item]) -> list[Item]:
    """One refined question per merged item (by its 1-based number); provenance kept."""
    refined: dict[int, Item] = {}
    for index, raw in enumerate(_entries(verdict)):
        entry = _entry(raw, index)
        where = f"items[{index}]"
        number = get_key(dict(entry), "number")
        if isinstance(number, str) and number.strip().isdigit():
            number = int(number.strip())
        if isinstance(number, bool) or not isinstance(number, int):
            raise JudgementError(f"{where}.number: must be the item's number (1 to {len(merged)})")
        if not 1 <= number <= len(merged):
            raise JudgementError(f"{where}.number: {number} is not an item (1 to {len(merged)})")
        if number in refined:
            raise JudgementError(f"{where}.number: item {number} is refined twice")
        source = merged[number - 1]
        refined[number] = Item(
            check_question(get_key(dict(entry), "question"), f"{where}.question"),
            canonical_category(get_key(dict(entry), "category"), f"{where}.category"),
            source.generators,
            source.sources,
        )
    missing = [str(n) for n in range(1, len(merged) + 1) if n not in refined]
    if missing:
        raise JudgementError(f"items {', '.join(missing)} were not refined; refine every item")
    return [refined[number] for number in sorted(refined)]


def checklist_record(
    query: Mapping[str, Any], items: Sequence[Item], build: Mapping[str, Any]
) -> dict[str, Any]:
    """A record in the `carryon` schema; the review is left for the reviewers."""
    query_id = str(query["id"])
    return {
        "id": query_id,
        "category": query["category"],
        "subcategory": query.get("subcategory") or "",
        "query": query["query"],
        "intent": query["intent"],
        "checklist": [
            {
                "id": f"{query_id}.{number}",
                "question": item.question,
                "category": item.category,
                "generators": list(item.generators),
            }
            for number, item in enumerate(items, start=1)
        ],
        "review": None,
        "build": dict(build),
    }


def agreement(items: Iterable[Item | Mapping[str, Any]]) -> Counter[int]:
    """How many items came from 1, 2, ... generators (merge provenance)."""
    counts: Counter[int] = Counter()
    for item in items:
        generators = item.generators if isinstance(item, Item) else item.get("generators", [])
        counts[len(generators)] += 1
    return counts
