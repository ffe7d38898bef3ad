"""The simulated user of the discovery condition: holds the persona, answers questions.

It sees its own profile and preferences, the task and the question-and-answer turns so far,
and writes one reply. Replies are cleaned like every simulated user's (labels, stage
directions, wrapping quotes) and regenerated once when nothing is left.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import GenerateConfig, Model

from heedbench.calls import generate_checked
from heedbench.solvers.carryon.user_text import clean_user_text
from heedbench.solvers.prefdisco.profile import persona_profile, preference_profile
from heedbench.solvers.prefdisco.prompts import SIMULATED_USER, USER_STYLES

USER_CONFIG = GenerateConfig(temperature=0.4, max_tokens=512)
"""The simulated user's own settings (the paper's simulator runs at temperature 0.4); given to
`role_model`, so a `--model-role user={...}` binding's own settings still win."""


@dataclass(frozen=True)
class Exchange:
    """One discovery exchange: the model's question and the simulated user's answer."""

    question: str
    answer: str


@dataclass(frozen=True)
class UserReply:
    """A cleaned reply and how many generations it took (2 when regenerated)."""

    text: str
    generations: int


class SilentUserError(Exception):
    """The simulated user gave no usable reply: the sample cannot go on as the paper's."""


def conversation_text(exchanges: Sequence[Exchange], question: str) -> str:
    """The turns so far with the latest question last, labelled from the user's side."""
    lines = []
    for exchange in exchanges:
        lines += [f"Assistant: {exchange.question}", f"You: {exchange.answer}"]
    lines.append(f"Assistant: {question}")
    return "\n".join(lines)


def user_prompt(
    *,
    persona: Mapping[str, Any],
    preferences: Mapping[str, Mapping[str, Any]],
    user_type: str,
    task: str,
    exchanges: Sequence[Exchange],
    question: str,
) -> str:
    """The simulated user's prompt for its reply to `question`."""
    return SIMULATED_USER.format(
        persona=persona_profile(persona),
        preferences=preference_profile(preferences),
        style=USER_STYLES[user_type],
        task=task,
        conversation=conversation_text(exchanges, question),
    )


async def user_reply(model: Model, prompt: str) -> UserReply:
    """Ask the user model; regenerate once if the cleaned reply is empty.

    Raises:
        SilentUserError: still nothing after the regeneration (never papered over with a
            stock answer, which would be scored as if the user had said it).
        FailedCall: the user's call was blocked or overflowed.
    """
    for generation in (1, 2):
        output = await generate_checked(model, prompt, role="user")
        text = clean_user_text(output.completion)
        if text:
            return UserReply(text, generation)
    raise SilentUserError("the simulated user gave no usable reply after 2 attempts")
