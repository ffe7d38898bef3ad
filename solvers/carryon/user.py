"""The simulated user: writes one follow-up message for a move, regenerating bad attempts.

An attempt is bad when, once cleaned, it is empty or plainly off-move: a non-contentful move
(delay, backchannel) that runs long or asks something, a reask that retells the situation
(over 30 words), a contentful move of a word or two, or a message written as the assistant.
Bad attempts are retried with the problem named; an off-move message that survives every
attempt is kept and flagged, an empty one ends the conversation (recorded, never scored as if
the user had spoken).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from inspect_ai.model import ChatMessage, ChatMessageUser, Model

from heedbench.calls import generate_checked
from heedbench.solvers.carryon.flows import CONTENTFUL_MOVES, NON_CONTENTFUL_MOVES
from heedbench.solvers.carryon.prompts import RETRY, follow_up_prompt
from heedbench.solvers.carryon.user_text import clean_user_text

USER_ATTEMPTS = 3
MAX_NON_CONTENTFUL_WORDS = 15
MIN_CONTENTFUL_WORDS = 3
MAX_REASK_WORDS = 30
"""A reask signals legitimacy in passing; a real assistant playing the user retold its whole
situation (47-60 words) when nothing capped it, which made a reask a second clarify."""
_ASSISTANT_PREFIXES = ("assistant:", "ai:", "as an ai")


def off_move_problem(move: str, text: str) -> str | None:
    """Why `text` (already cleaned) cannot stand as the user's `move`, or None if it can."""
    if not text:
        return "the message was empty"
    if text.lower().startswith(_ASSISTANT_PREFIXES):
        return "it was written as the assistant, not as the user"
    words = len(text.split())
    if move in NON_CONTENTFUL_MOVES and (words > MAX_NON_CONTENTFUL_WORDS or "?" in text):
        return (
            f"a {move} move is a brief remark without a question "
            f"(at most {MAX_NON_CONTENTFUL_WORDS} words), but it had {words} words"
            + (" and a question" if "?" in text else "")
        )
    if move == "reask" and words > MAX_REASK_WORDS:
        return (
            f"a reask hints at the purpose in one sentence (at most {MAX_REASK_WORDS} words) "
            f"instead of retelling the situation, but it had {words} words"
        )
    if move in CONTENTFUL_MOVES and words < MIN_CONTENTFUL_WORDS:
        return f"a {move} move needs some content, but it had only {words} word(s)"
    return None


@dataclass(frozen=True)
class UserMessage:
    """The simulated user's message (None if every attempt was empty) and how it went."""

    text: str | None
    attempts: int
    problem: str | None = None
    raw: tuple[str, ...] = ()


async def simulated_user_message(
    user: Model,
    move: str,
    conversation: Sequence[tuple[str, str]],
    intent: str,
) -> UserMessage:
    """Ask the `user` role model (already holding its own settings) for its `move` message."""
    messages: list[ChatMessage] = [
        ChatMessageUser(content=follow_up_prompt(move, conversation, intent))
    ]
    raw: list[str] = []
    kept: str | None = None
    problem: str | None = None
    for attempt in range(1, USER_ATTEMPTS + 1):
        output = await generate_checked(user, messages, role="user")
        raw.append(output.completion)
        text = clean_user_text(output.completion)
        problem = off_move_problem(move, text)
        if problem is None:
            return UserMessage(text=text, attempts=attempt, raw=tuple(raw))
        kept = text or kept
        messages = [
            *messages,
            output.message,
            ChatMessageUser(content=RETRY.format(problem=problem)),
        ]
    return UserMessage(text=kept, attempts=USER_ATTEMPTS, problem=problem, raw=tuple(raw))
