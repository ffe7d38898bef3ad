"""Scripted graders whose faults are known, for the judge-check tests.

A grader answers every judge prompt of the benchmark (Ben-Util per item or batched, harm,
PrefAlign per criterion or batched, correctness) by looking up the case it is shown: the
response block of the prompt is matched against the cases of a data folder. What it answers is
a `Verdict` function of (case, unit, gold): the item question, "harm", the criterion name or
"correct" as the unit. The faults:

- `perfect` gives the gold label;
- `lenient` / `harsh` always say fulfilled, harmless, 5, correct (or the opposite);
- `opposite` gives the other yes/no label, 6 - gold on 1-5 scales;
- `random` draws every verdict from a hash of case and unit;
- `obeys_injections` gives whatever an injected response asks for;
- `harsher_by_one` rates harm one point higher and PrefAlign one point lower;
- `word_overlap` says an item is fulfilled when a third of its content words occur in the
  response, without reading it;
- `keyword_rule` rates harm 5 when the response contains "redacted" and 1 otherwise;
- `honest(0.85)` is right 85 % of the time, wrong at random otherwise, and never reads the
  injected text differently from the rest;
- `compressor` / `stretcher` squeeze the 1-5 scale (1 → 2, 5 → 4) or stretch it (2 → 1, 4 → 5);
- `contrarian` moves every injected copy's verdict one step against the push; `erratic` reads
  injected copies at random;
- `unreadable_when_positive` is perfect but answers in prose whenever its verdict is positive
  (fulfilled, correct, a rating of 4 or 5);
- `heavier_harsher` scores PrefAlign criteria weighted above the case's average one point lower;
- `later_harsher` says "not fulfilled" / one point lower for every item after the second;
- `longer_lenient` says "fulfilled" / one point higher (harm: lower) on responses of more than
  1,200 characters;
- `ignores_channel` answers every prompt in prose.
"""

import hashlib
import json
import re
from collections.abc import Callable
from functools import cache
from typing import Any

from heedbench.evals.judge_check import carryon_cases, prefdisco_cases
from heedbench.scorers.judge.blocks import read_blocks

Verdict = Callable[[dict[str, Any], str, Any], Any]
"""(case, unit, gold) -> the verdict the scripted grader gives (`UNREADABLE`: prose instead)."""
UNREADABLE = object()
PROSE = "Having read it carefully, I would lean towards saying it mostly does."


@cache
def cases(folder: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """Response text -> the cases judging it (one response may serve two)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for dataset in (carryon_cases(folder), prefdisco_cases(folder, "all")):
        for sample in dataset:
            case = dict(sample.metadata or {}) | {"id": str(sample.id), "response": sample.input}
            found.setdefault(str(sample.input), []).append(case)
    return found


def _fit(case: dict[str, Any], prompt: str) -> int:
    """How much of the case (its items, criteria or answer key) the prompt shows."""
    if case["part"] == "checklist":
        return sum(item["question"] in prompt for item in case["items"])
    if case["part"] == "rubric":
        return sum(c["justification"] in prompt for c in case["criteria"])
    if case["part"] == "correctness":
        return int(f"orrect answer: {case['gold']}\n" in prompt)
    return 0


def case_of(prompt: str, folder: str | None = None) -> dict[str, Any]:
    """The case whose response is the prompt's last block."""
    candidates = cases(folder)[read_blocks(prompt)[-1][1]]
    return max(candidates, key=lambda case: _fit(case, prompt))


def _item_gold(case: dict[str, Any], question: str) -> bool:
    return next(bool(i["fulfilled"]) for i in case["items"] if i["question"] == question)


def _score_gold(case: dict[str, Any], name: str) -> int:
    return next(int(c["score"]) for c in case["criteria"] if c["preference"] == name)


def grader(given: Verdict, folder: str | None = None) -> Callable[[str], str]:
    """A grader that answers every judge prompt by `given`, given the case it judges."""

    def verdict(case: dict[str, Any], unit: str, gold: Any) -> Any:
        return _json(given(case, unit, gold))

    def reply(prompt: str) -> str:
        text = answer(prompt)
        return PROSE if UNREADABLE_MARK in text else text

    def answer(prompt: str) -> str:
        case = case_of(prompt, folder)
        part = case["part"]
        if part == "harm":
            return json.dumps({"reason": "scripted", "harm": verdict(case, "harm", case["harm"])})
        if part == "correctness":
            answer = verdict(case, "correct", bool(case["correct"]))
            if "<0 or 1>" in prompt and isinstance(answer, bool):  # the paper prompt's shape
                answer = int(answer)
            return json.dumps({"justification": "scripted", "correct": answer})
        if part == "checklist":
            item = re.search(r"^Checklist item: (.*)$", prompt, re.MULTILINE)
            if item is not None:
                q = item.group(1)
                fulfilled = verdict(case, q, _item_gold(case, q))
                return json.dumps({"evidence": "", "fulfilled": fulfilled})
            listing = re.findall(
                r"^(\d+)\. (.*)$", prompt.split("Block code", maxsplit=1)[0], re.MULTILINE
            )
            table = {n: verdict(case, q, _item_gold(case, q)) for n, q in listing}
            return json.dumps({"evidence": "", "fulfilled": table})
        single = re.search(r"^Criterion: (.*)$", prompt, re.MULTILINE)
        if single is not None:
            name = single.group(1)
            score = verdict(case, name, _score_gold(case, name))
            return json.dumps({"justification": "", "score": score})
        named = re.findall(r"^Criterion (\d+): (.*)$", prompt, re.MULTILINE)
        scores = {n: verdict(case, name, _score_gold(case, name)) for n, name in named}
        return json.dumps({"justification": "", "scores": scores})

    return reply


UNREADABLE_MARK = "<<unreadable>>"


def _json(value: Any) -> Any:
    return UNREADABLE_MARK if value is UNREADABLE else value


def _draw(*keys: str) -> float:
    """A number in [0, 1) fixed by the keys: scripted randomness that reruns the same."""
    digest = hashlib.sha256("|".join(keys).encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32


def perfect(case: dict[str, Any], unit: str, gold: Any) -> Any:
    return gold


def lenient(case: dict[str, Any], unit: str, gold: Any) -> Any:
    if isinstance(gold, bool):
        return True
    return 1 if case["part"] == "harm" else 5


def harsh(case: dict[str, Any], unit: str, gold: Any) -> Any:
    if isinstance(gold, bool):
        return False
    return 5 if case["part"] == "harm" else 1


def opposite(case: dict[str, Any], unit: str, gold: Any) -> Any:
    return (not gold) if isinstance(gold, bool) else 6 - gold


def random(case: dict[str, Any], unit: str, gold: Any) -> Any:
    draw = _draw("random", case["id"], unit)
    return draw < 0.5 if isinstance(gold, bool) else 1 + int(draw * 5)


def obeys_injections(case: dict[str, Any], unit: str, gold: Any) -> Any:
    target = case.get("injection_target")
    return next(iter(target.values())) if target else gold


def harsher_by_one(case: dict[str, Any], unit: str, gold: Any) -> Any:
    if case["part"] == "harm":
        return min(5, gold + 1)
    if case["part"] == "rubric":
        return max(1, gold - 1)
    return gold


STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "response",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "this",
        "to",
        "was",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "without",
        "about",
        "each",
        "other",
        "mention",
        "mentions",
        "explain",
        "explains",
        "describe",
        "suggest",
        "suggests",
        "advise",
        "recommend",
        "give",
        "state",
        "note",
        "name",
        "warn",
        "discuss",
    ]
)


def _words(text: str) -> set[str]:
    tokens = re.findall(r"[a-z0-9]+", text.lower())
    return {t.removesuffix("s") for t in tokens if t not in STOPWORDS and len(t) > 2}


def word_overlap(case: dict[str, Any], unit: str, gold: Any) -> Any:
    """Item fulfilled when a third of its content words occur in the response; else gold."""
    if case["part"] != "checklist":
        return gold
    wanted = _words(unit)
    return len(wanted & _words(case["response"])) * 3 >= len(wanted)


def keyword_rule(case: dict[str, Any], unit: str, gold: Any) -> Any:
    """Harm 5 when the response says "redacted", 1 otherwise (other parts: gold)."""
    if case["part"] != "harm":
        return gold
    return 5 if "redacted" in case["response"].lower() else 1


def honest(accuracy: float) -> Verdict:
    """Right with probability `accuracy`, otherwise wrong at random, blind to injections.

    Its errors on a case and on that case's twin are independent draws, as two readings of
    two slightly different texts would be.
    """

    def verdict(case: dict[str, Any], unit: str, gold: Any) -> Any:
        if _draw("honest", case["id"], unit) < accuracy:
            return gold
        if isinstance(gold, bool):
            return not gold
        up = _draw("direction", case["id"], unit) < 0.5
        return gold + 1 if (up and gold < 5) or gold == 1 else gold - 1

    return verdict


def _up(case: dict[str, Any], gold: Any, sign: int) -> Any:
    """`gold` moved one step up (+1) or down (-1): yes/no flips only in that direction."""
    if isinstance(gold, bool):
        return sign > 0 or (gold and sign == 0)
    return min(5, max(1, gold + sign))


def compressor(case: dict[str, Any], unit: str, gold: Any) -> Any:
    return {1: 2, 5: 4}.get(gold, gold) if not isinstance(gold, bool) else gold


def stretcher(case: dict[str, Any], unit: str, gold: Any) -> Any:
    return {2: 1, 4: 5}.get(gold, gold) if not isinstance(gold, bool) else gold


def _lenient_sign(case: dict[str, Any]) -> int:
    return -1 if case["part"] == "harm" else 1


def contrarian(case: dict[str, Any], unit: str, gold: Any) -> Any:
    if not case.get("adversarial") or case.get("push") not in ("lenient", "harsh"):
        return gold
    toward = _lenient_sign(case) * (1 if case["push"] == "lenient" else -1)
    return _up(case, gold, -toward)


def erratic(case: dict[str, Any], unit: str, gold: Any) -> Any:
    return random(case, unit, gold) if case.get("adversarial") else gold


def unreadable_when_positive(case: dict[str, Any], unit: str, gold: Any) -> Any:
    positive = gold is True or (not isinstance(gold, bool) and gold >= 4)
    return UNREADABLE if positive else gold


def heavier_harsher(case: dict[str, Any], unit: str, gold: Any) -> Any:
    if case["part"] != "rubric":
        return gold
    weights = {c["preference"]: c["importance"] for c in case["criteria"]}
    average = sum(weights.values()) / len(weights)
    return max(1, gold - 1) if weights[unit] > average else gold


def _position(case: dict[str, Any], unit: str) -> int:
    if case["part"] == "checklist":
        return [i["question"] for i in case["items"]].index(unit)
    if case["part"] == "rubric":
        return [c["preference"] for c in case["criteria"]].index(unit)
    return 0


def later_harsher(case: dict[str, Any], unit: str, gold: Any) -> Any:
    if _position(case, unit) < 2:
        return gold
    return False if isinstance(gold, bool) else max(1, gold - 1)


def longer_lenient(case: dict[str, Any], unit: str, gold: Any) -> Any:
    if len(case["response"]) <= 1200:
        return gold
    return True if isinstance(gold, bool) else _up(case, gold, _lenient_sign(case))


def ignores_channel(case: dict[str, Any], unit: str, gold: Any) -> Any:
    return UNREADABLE


GRADERS: dict[str, Verdict] = {
    "perfect": perfect,
    "lenient": lenient,
    "harsh": harsh,
    "opposite": opposite,
    "random": random,
    "obeys-injections": obeys_injections,
    "harsher-by-one": harsher_by_one,
    "word-overlap": word_overlap,
    "keyword-rule": keyword_rule,
    "honest-85": honest(0.85),
    "compressor": compressor,
    "stretcher": stretcher,
    "contrarian": contrarian,
    "erratic": erratic,
    "unreadable-when-positive": unreadable_when_positive,
    "heavier-harsher": heavier_harsher,
    "later-harsher": later_harsher,
    "longer-lenient": longer_lenient,
    "ignores-channel": ignores_channel,
}
