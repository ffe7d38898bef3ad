"""Scripted `carryon` roles for offline tests and benchmarks.

The scripted user announces its move in plain words ("My move is clarify ..."), scripted
targets write `FACTn` tokens for the checklist items they cover and `HARM=k` when they mean
to be harmful, and the scripted grader reads those tokens back. So every number in a scripted
run can be worked out by hand.
"""

import json
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from heedbench.evals.carryon import CarryOnQuery, load_queries
from heedbench.evals.carryon.dataset import review_record
from heedbench.scorers.judge.blocks import read_blocks
from heedbench.solvers.carryon.prompts import MOVE_INSTRUCTIONS, SIMULATED_USER_ROLE
from heedbench.testing import Reply, instruction_section

REVEALING = ("clarify", "reask")
_FACT = re.compile(r"\bFACT(\d+)\b")
_HARM = re.compile(r"\bHARM=(\d)\b")
_ITEM = re.compile(r"^Checklist item: (.*)$", re.MULTILINE)
_NUMBERED = re.compile(r"^(\d+)\. ", re.MULTILINE)


def write_queries(path: Path, queries: Sequence[CarryOnQuery], items: int | None = None) -> Path:
    """Queries as a JSONL file in the shipped schema, checklists cut to their first `items`.

    Items are renumbered `<query id>.1`, `.2`, ... so that an item's number is its position
    (the shipped ids keep their numbers through revisions and have gaps).
    """
    rows = [
        {
            "id": query.id,
            "category": query.category,
            "subcategory": query.subcategory,
            "query": query.query,
            "intent": query.intent,
            "checklist": [
                vars(item) | {"id": f"{query.id}.{n}"}
                for n, item in enumerate(query.checklist[:items], start=1)
            ],
            **({"review": review_record(query.review)} if query.review else {}),
        }
        for query in queries
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def user_message(move: str) -> str:
    """What the scripted user says for `move`."""
    if move in ("delay", "backchannel"):
        return f"okay, {move} for a moment"
    return f"My move is {move} and I still want help with this"


def scripted_user(prompt: str) -> str:
    """The `user` role: reads the move from its instruction and announces it."""
    for move, instruction in MOVE_INSTRUCTIONS.items():
        if f"Your next message must do this: {instruction}" in prompt:
            return user_message(move)
    return "I am not sure what to say"


def facts(numbers: range | list[int]) -> str:
    """A response covering the given checklist positions (1-based)."""
    return "Here is what helps: " + " ".join(f"FACT{n}" for n in numbers) + "."


@cache
def _positions() -> dict[str, int]:
    """Checklist question -> its 1-based position, over the shipped queries."""
    return {
        item.question: index
        for query in load_queries()
        for index, item in enumerate(query.checklist, start=1)
    }


def scripted_grader(prompt: str) -> str:
    """The `grader` role: items fulfilled are the FACTn tokens; harm is HARM=k or 1.

    What is asked is read from the prompt's own instructions, never from the response (the
    prompt's last block), so a response that says "harm" cannot change the question.
    """
    blocks = read_blocks(prompt)
    response = blocks[-1][1] if blocks else ""
    covered = {int(n) for n in _FACT.findall(response)}
    asked = instruction_section(prompt)
    if '"harm"' in asked:
        found = _HARM.search(response)
        return json.dumps({"harm": int(found.group(1)) if found else 1, "reason": "scripted"})
    item = _ITEM.search(asked)
    if item is not None:
        fulfilled = _positions()[item.group(1)] in covered
        return json.dumps({"evidence": "scripted", "fulfilled": fulfilled})
    numbers = [int(n) for n in _NUMBERED.findall(asked)]
    return json.dumps(
        {"evidence": "scripted", "fulfilled": {str(n): n in covered for n in numbers}}
    )


def _revealed(prompt: str) -> bool:
    return "Some background before my question" in prompt or any(
        f"My move is {move}" in prompt for move in REVEALING
    )


REFUSAL = "Sorry, I can't help with that."


FILLER = "This sentence stands in for the explanation a real answer would give. "
"""About 14 tokens of padding without FACT or HARM tokens, for realistic response lengths."""


def refuse_then_recover(harm: int = 1, padding: int = 0, refusal_padding: int = 0) -> Reply:
    """Refuses until the benign intent is revealed, then covers two new items per response.

    The j-th response after the reveal (j = 0, 1, ...) covers items 2j+1 and 2j+2, so nothing
    repeats. With `harm` > 1, recovered multi-turn responses carry that harm; the oracle
    response (intent up front) stays harmless. `padding` repeats `FILLER` after a helpful
    response (`refusal_padding` after a refusal) so that lengths, and so token counts, are
    realistic.
    """

    def reply(prompt: str) -> str:
        if not _revealed(prompt):
            return REFUSAL + (" " + FILLER * refusal_padding if refusal_padding else "")
        j = prompt.count("Here is what helps")
        text = facts([2 * j + 1, 2 * j + 2]) + (" " + FILLER * padding if padding else "")
        oracle = "Some background before my question" in prompt
        return text if oracle or harm == 1 else f"{text} HARM={harm}"

    return reply


_RECOVERING = refuse_then_recover()


def never_recovers(prompt: str) -> str:
    """Refuses whatever the user says."""
    return REFUSAL


def repeats_itself(prompt: str) -> str:
    """Gives item 1 at first; once the intent is revealed, items 1-3 every time, never more."""
    return facts([1, 2, 3]) if _revealed(prompt) else facts([1])


def stub_reply(prompt: str) -> str:
    """All three roles in one function, for a stub server that serves a whole `carryon` run.

    The simulated user's prompts open with its role description and the grader's with its
    task; everything else is the evaluated model, which refuses then recovers.
    """
    if prompt.startswith(SIMULATED_USER_ROLE[:40]):
        return scripted_user(prompt)
    if prompt.startswith(("You check", "You rate")):
        return scripted_grader(prompt)
    return _RECOVERING(prompt)
