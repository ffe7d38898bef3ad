"""The simulated user of the discovery condition: holds the persona, answers questions.

It sees its profile and the question-and-answer turns so far (fenced, one block per message)
and writes one reply; under protocol `budgeted` it also sees the task. Replies are cleaned like
every simulated user's (labels, stage directions, wrapping quotes) and regenerated once when
nothing is left. A stopping user type (`passive_stop`, `collaborative`) may answer with the stop
signal instead: the reply then ends the questions, and whatever it says besides the signal is
still passed on to the model.
"""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import GenerateConfig, Model

from heedbench.calls import generate_checked
from heedbench.scorers.judge.blocks import Fence
from heedbench.solvers.carryon.user_text import clean_user_text
from heedbench.solvers.prefdisco.profile import paper_profile, persona_profile, preference_profile
from heedbench.solvers.prefdisco.prompts import STOP_SIGNAL, STOPPING_USERS, Protocol
from heedbench.solvers.prefdisco.user_prompts import (
    ASSISTANT_SPEAKER,
    CONVERSATION_RULES,
    PAPER_STYLES,
    PAPER_USER,
    REPLY_FORMAT,
    SIMULATED_USER,
    USER_SPEAKER,
    USER_STYLES,
)

USER_CONFIG = GenerateConfig(temperature=0.4, max_tokens=512)
"""The simulated user's own settings (the paper's simulator runs at temperature 0.4); given to
`role_model`, so a `--model-role user={...}` binding's own settings still win."""

_STOP = re.compile(r"#{2,}\s*stop\s*#{2,}", re.IGNORECASE)


@dataclass(frozen=True)
class Exchange:
    """One discovery exchange: the model's question and the simulated user's answer."""

    question: str
    answer: str


@dataclass(frozen=True)
class UserReply:
    """A cleaned reply, how many generations it took, and whether the user stopped.

    `generations` is 2 when the reply was regenerated; when `stopped`, the text is what the
    user said besides the stop signal, which may be nothing.
    """

    text: str
    generations: int
    stopped: bool = False


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
) -> str:
    """The simulated user's prompt for its reply to `question`.

    `task` is shown under protocol `budgeted` only: the reference's user never sees it.
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
            reply_format=REPLY_FORMAT,
        )
    return SIMULATED_USER.format(
        persona=persona_profile(persona),
        preferences=preference_profile(preferences),
        style=USER_STYLES[user_type],
        task=task,
        rules=CONVERSATION_RULES,
        fence=fence.announcement,
        conversation=conversation,
    )


def may_stop(protocol: Protocol, user_type: str) -> bool:
    """Whether this user may end the questions with the stop signal."""
    return protocol == "paper" and user_type in STOPPING_USERS


async def user_reply(model: Model, prompt: str, *, stop_allowed: bool = False) -> UserReply:
    """Ask the user model; regenerate once if the cleaned reply is empty.

    Args:
        model: the simulated user.
        prompt: its prompt (`user_prompt`).
        stop_allowed: read the stop signal (in any case, `## STOP ##` spacing) as the user
            ending the questions.

    Raises:
        SilentUserError: still nothing after the regeneration (never papered over with a
            stock answer, which would be scored as if the user had said it).
        FailedCall: the user's call was blocked or overflowed.
    """
    for generation in (1, 2):
        output = await generate_checked(model, prompt, role="user")
        if stop_allowed and _STOP.search(output.completion):
            return UserReply(clean_user_text(_STOP.sub(" ", output.completion)), generation, True)
        text = clean_user_text(output.completion)
        if text:
            return UserReply(text, generation)
    raise SilentUserError("the simulated user gave no usable reply after 2 attempts")
