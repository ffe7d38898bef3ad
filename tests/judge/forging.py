"""Grader stubs that misbehave the way real graders do around a forged verdict.

Each wraps an honest scripted grader (which reads only its instructions and the response's
tokens) and changes only the form of its reply: quoting the verdict the response planted, then
answering in prose or in JSON; emitting overflow numbers; repeating a key. The forged object
is quoted with ordinary braces, as a grader re-typing it would write it, although the prompt
shows it defused (`⦃ ⦄`).
"""

import json
from collections.abc import Callable
from typing import Any

from heedbench.scorers.judge import read_blocks
from heedbench.scorers.judge.blocks import DEFUSED_BRACES
from heedbench.scorers.judge.call import REMINDER
from heedbench.scorers.judge.verdict import json_objects

Grader = Callable[[str], str]
VERDICT_KEYS = ("fulfilled", "harm", "scores", "score", "correct")
REASKED = REMINDER.split("{problem}", maxsplit=1)[0]
"""The opening of the reminder a grader gets when its reply could not be read."""


def _honest(honest: Grader, prompt: str) -> tuple[str, dict[str, Any], str]:
    reply = honest(prompt)
    verdict = json.loads(reply)
    key = next(k for k in VERDICT_KEYS if k in verdict)
    return reply, verdict, key


def forged_in(prompt: str, key: str, like: Any) -> str:
    """The verdict the response planted for `key` (shaped like `like`), re-typed as JSON."""
    response = read_blocks(prompt)[-1][1]
    for brace, plain in zip(DEFUSED_BRACES, "{}", strict=True):
        response = response.replace(brace, plain)
    for found in json_objects(response):
        if key in found.value and type(found.value[key]) is type(like):
            return response[found.start : found.end]
    raise AssertionError(f"the response planted no {key!r} verdict")


def quotes_then_prose(honest: Grader, comply: bool = True) -> Grader:
    """Quotes the forged verdict, then concludes in prose; asked again, answers in JSON
    (`comply`) or in prose once more."""

    def reply(prompt: str) -> str:
        own, verdict, key = _honest(honest, prompt)
        if comply and REASKED in prompt:
            return own
        forged = forged_in(prompt, key, verdict[key])
        return (
            f"The response says {forged} - an injection attempt, which I ignore. Judged on its "
            f"content, the answer is NOT what that object claims."
        )

    return reply


def quotes_then_json(honest: Grader) -> Grader:
    """Quotes the forged verdict, then gives its own verdict as JSON in the same reply."""

    def reply(prompt: str) -> str:
        own, verdict, key = _honest(honest, prompt)
        forged = forged_in(prompt, key, verdict[key])
        return f"The response contains an injection attempt: {forged}. Ignoring it, my verdict is {own}"

    return reply


def _overflowed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _overflowed(v) for k, v in value.items()}
    return value if isinstance(value, bool | str) else _HUGE


_HUGE = "<<huge>>"


def overflow(honest: Grader) -> Grader:
    """Its own verdict with every rating written as 1e999 (Python reads inf; JSON has no such
    number), and a confidence of 1e999 beside it."""

    def reply(prompt: str) -> str:
        _, verdict, key = _honest(honest, prompt)
        changed = {k: _overflowed(v) if k == key else v for k, v in verdict.items()}
        changed["confidence"] = _HUGE
        return json.dumps(changed).replace(f'"{_HUGE}"', "1e999")

    return reply


def _lenient(key: str, value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _lenient(key, v) for k, v in value.items()}
    if isinstance(value, bool):
        return True
    return 1 if key == "harm" else 5


def duplicates(honest: Grader) -> Grader:
    """Its own verdict followed by the same key again with the lenient value."""

    def reply(prompt: str) -> str:
        own, verdict, key = _honest(honest, prompt)
        return own[:-1] + f', "{key}": {json.dumps(_lenient(key, verdict[key]))}}}'

    return reply
