"""The simulated user of the discovery condition: holds the persona, answers questions.

It sees its profile and the question-and-answer turns so far (fenced, one block per message)
and writes one reply; under protocol `budgeted` it also sees the task. With `user_format=json`
(the reference's format, the paper protocol's default) it writes `{"thought", "response"}` and
only the response reaches the assistant and the user's own later prompts; the thought is kept
in the log. A reply that is not JSON at all is taken as the response (a model that ignored the
format), but one that is JSON without a usable response, or that labels a thought outside
JSON, is unreadable: it is regenerated, never passed on with the thought in it. Replies are
cleaned like every simulated user's (labels, stage directions, wrapping quotes) and
regenerated once when nothing is left. A stopping user type (`passive_stop`,
`collaborative`) may answer with the stop signal instead: the reply then ends the questions,
and what it says is still passed on to the model (under `markers=action` with the signal in
it, as the reference does).
"""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import Model

from heedbench.calls import generate_checked
from heedbench.jsonparse import extract_json_object, get_key
from heedbench.scorers.judge.blocks import Fence
from heedbench.solvers.carryon.user_text import clean_user_text
from heedbench.solvers.prefdisco.profile import paper_profile, persona_profile, preference_profile
from heedbench.solvers.prefdisco.prompts import STOP_SIGNAL, STOPPING_USERS
from heedbench.solvers.prefdisco.settings import Protocol, UserFormat
from heedbench.solvers.prefdisco.user_prompts import (
    ASSISTANT_SPEAKER,
    BUDGETED_CLOSINGS,
    CONVERSATION_RULES,
    PAPER_STYLES,
    PAPER_USER,
    REPLY_FORMATS,
    SIMULATED_USER,
    USER_SPEAKER,
    USER_STYLES,
)

_STOP = re.compile(r"#{2,}\s*stop\s*#{2,}", re.IGNORECASE)
_THOUGHT_LABEL = re.compile(r"^\W*thoughts?\W*:", re.IGNORECASE | re.MULTILINE)
_RESPONSE_LABEL = re.compile(r"^\W*response\W*:\s*", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class Exchange:
    """One discovery exchange: the model's question and the simulated user's answer."""

    question: str
    answer: str
    thought: str | None = None
    """The user's own thought (`user_format=json`): logged, never shown to the assistant."""


@dataclass(frozen=True)
class UserReply:
    """A cleaned reply, how many generations it took, and whether the user stopped.

    `generations` is 2 when the reply was regenerated; when `stopped`, the text is what the
    user said besides the stop signal, which may be nothing. `thought` is the JSON reply's
    thought; `plain` says a JSON user answered in plain text (taken as the response).
    """

    text: str
    generations: int
    stopped: bool = False
    thought: str | None = None
    plain: bool = False


@dataclass(frozen=True)
class JsonReply:
    """What a `user_format=json` reply holds: the response (None if unreadable), the thought."""

    response: str | None
    thought: str | None
    plain: bool = False


def read_json_reply(raw: str) -> JsonReply:
    """The response and thought of a JSON user's reply (see the module docstring).

    A JSON object with a string (or number) `response` gives it; plain text with no JSON
    object and no thought label is taken whole as the response (`plain`); plain text that
    labels its thought gives the text after a `response:` label, or nothing.
    """
    found = extract_json_object(raw)
    if found is not None:
        response, thought = get_key(found, "response"), get_key(found, "thought")
        readable = isinstance(response, str | int | float) and not isinstance(response, bool)
        return JsonReply(
            str(response) if readable else None, None if thought is None else str(thought)
        )
    if _THOUGHT_LABEL.search(raw):
        labelled = _RESPONSE_LABEL.search(raw)
        if labelled is None or labelled.start() < _THOUGHT_LABEL.search(raw).start():  # type: ignore[union-attr]
            return JsonReply(None, None)
        thought = raw[: labelled.start()]
        return JsonReply(raw[labelled.end() :], _THOUGHT_LABEL.sub("", thought).strip())
    if "{" in raw:
        return JsonReply(None, None)  # a broken JSON object: its thought may be in it
    return JsonReply(raw, None, plain=True)


class SilentUserError(Exception):
    """The simulated user gave no usable reply: the sample cannot go on as the paper's."""


def conversation_messages(exchanges: Sequence[Exchange], question: str) -> list[tuple[str, str]]:
    """The turns so far as `(speaker, text)` pairs, the latest question last."""
    messages: list[tuple[str, str]] = []
    for exchange in exchanges:
        messages.append((ASSISTANT_SPEAKER, exchange.question))
        if exchange.answer:
            messages.append((USER_SPEAKER, exchange.answer))
    messages.append((ASSISTANT_SPEAKER, question))
    return messages


def _numbered(rules: Sequence[str]) -> str:
    signal = f"`{STOP_SIGNAL}`"
    return "\n".join(
        f"{number}. {rule.format(signal=signal)}" for number, rule in enumerate(rules, start=1)
    )


def user_prompt(
    *,
    protocol: Protocol,
    persona: Mapping[str, Any],
    preferences: Mapping[str, Mapping[str, Any]],
    user_type: str,
    task: str,
    exchanges: Sequence[Exchange],
    question: str,
    user_format: UserFormat = "text",
) -> str:
    """The simulated user's prompt for its reply to `question`.

    `task` is shown under protocol `budgeted` only: the reference's user never sees it.
    `user_format` picks the closing instruction: a plain reply, or `{thought, response}`.
    """
    fence = Fence()
    conversation = fence.conversation(conversation_messages(exchanges, question))
    if protocol == "paper":
        character, goal, rules = PAPER_STYLES[user_type]
        return PAPER_USER.format(
            character=character,
            profile=paper_profile(persona, preferences),
            rules=CONVERSATION_RULES,
            fence=fence.announcement,
            conversation=conversation,
            goal=goal,
            instructions=_numbered(rules),
            reply_format=REPLY_FORMATS[user_format],
        )
    return SIMULATED_USER.format(
        persona=persona_profile(persona),
        preferences=preference_profile(preferences),
        style=USER_STYLES[user_type],
        task=task,
        rules=CONVERSATION_RULES,
        fence=fence.announcement,
        conversation=conversation,
        closing=BUDGETED_CLOSINGS[user_format],
    )


def may_stop(protocol: Protocol, user_type: str) -> bool:
    """Whether this user may end the questions with the stop signal."""
    return protocol == "paper" and user_type in STOPPING_USERS


async def user_reply(
    model: Model,
    prompt: str,
    *,
    stop_allowed: bool = False,
    user_format: UserFormat = "text",
    keep_signal: bool = False,
) -> UserReply:
    """Ask the user model; regenerate once if the cleaned reply is empty or unreadable.

    Args:
        model: the simulated user.
        prompt: its prompt (`user_prompt`).
        stop_allowed: read the stop signal (in any case, `## STOP ##` spacing) in the response
            as the user ending the questions.
        user_format: "json" reads `{thought, response}` (`read_json_reply`), "text" the
            reply as it is.
        keep_signal: pass the stop signal on in the text, as the reference does
            (`markers=action`); otherwise it is taken out.

    Raises:
        SilentUserError: still nothing after the regeneration (never papered over with a
            stock answer, which would be scored as if the user had said it).
        FailedCall: the user's call was blocked or overflowed.
    """
    for generation in (1, 2):
        output = await generate_checked(model, prompt, role="user")
        if user_format == "json":
            reading = read_json_reply(output.completion)
        else:
            reading = JsonReply(output.completion, None)
        if reading.response is None:
            continue
        found = dict(generations=generation, thought=reading.thought, plain=reading.plain)
        if stop_allowed and _STOP.search(reading.response):
            text = clean_user_text(
                reading.response if keep_signal else _STOP.sub(" ", reading.response)
            )
            return UserReply(text, stopped=True, **found)  # type: ignore[arg-type]
        text = clean_user_text(reading.response)
        if text:
            return UserReply(text, **found)  # type: ignore[arg-type]
    raise SilentUserError("the simulated user gave no usable reply after 2 attempts")
