"""Reading the model's pairwise, pointwise and listwise answers.

Lenient about form (code fences, prose around the JSON, case, whitespace, a trailing full
stop) and strict about content: anything that does not name an offered option is ⊥ (None),
never a guess.
"""

import re
from collections.abc import Sequence
from typing import Any

from heedbench.jsonparse import extract_json_object, get_key
from heedbench.solvers.choice.relation import NONE_ANSWER

_INDIFFERENCE_WORDS = {"none", "neither"}
_POSITION_WORDS = {"object 1": 0, "1": 0, "object 2": 1, "2": 1}
_ENUMERATION = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s*")


def normalise_name(text: str) -> str:
    """Case-, whitespace- and quote-insensitive form of an object name."""
    text = _ENUMERATION.sub("", text)
    text = text.strip().strip("\"'`*").strip().rstrip(".!").strip()
    return " ".join(text.casefold().split())


def _answer_value(reply: str, key: str) -> Any:
    found = extract_json_object(reply)
    if found is not None:
        return get_key(found, key)
    return None


def parse_pairwise(reply: str, first: str, second: str, allows_none: bool) -> str | None:
    """The chosen object (`first`, `second`), `"none"`, or None for ⊥.

    Accepts the object's name or its position ("object 1", "2"). A bare reply without JSON
    is accepted only when it is exactly one of the options.
    """
    value = _answer_value(reply, "answer")
    if value is None and extract_json_object(reply) is None:
        value = reply
    if not isinstance(value, str):
        return None
    answer = normalise_name(value)
    options = (first, second)
    for option in options:
        if answer == normalise_name(option):
            return option
    if answer in _POSITION_WORDS:
        return options[_POSITION_WORDS[answer]]
    if answer in _INDIFFERENCE_WORDS:
        return NONE_ANSWER if allows_none else None
    return None


def parse_score(reply: str, low: int, high: int) -> int | None:
    """An integer score in [low, high], or None for ⊥ (missing, fractional or out of range)."""
    value = _answer_value(reply, "score")
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if not isinstance(value, int | float) or value != int(value):
        return None
    score = int(value)
    return score if low <= score <= high else None


def parse_ranking(reply: str, objects: Sequence[str]) -> list[str] | None:
    """The ranking as canonical object names, or None unless it is an exact permutation."""
    value = _answer_value(reply, "ranking")
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return None
    canonical = {normalise_name(obj): obj for obj in objects}
    ranking = [canonical.get(normalise_name(item)) for item in value]
    if None in ranking or len(ranking) != len(objects) or len(set(ranking)) != len(objects):
        return None
    return [obj for obj in ranking if obj is not None]
