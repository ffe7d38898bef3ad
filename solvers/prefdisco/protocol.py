"""Reading the discovery protocol: is a model message a question or the final answer?

The evaluated model starts each message with `QUESTION:` or `FINAL ANSWER:`. Models decorate
such markers (`**Question:**`, `## Final answer -`, leading blank lines), so the parse ignores
case, markdown emphasis and heading signs, and accepts `:`, `-` or `—` after the word.

- A marker on one of the first `PREAMBLE_LINES` non-empty lines decides the kind (a short
  preamble such as "Thanks, that helps." may come before it); the body is the text after it.
- Otherwise a `FINAL ANSWER:` line further down (worked reasoning, then the answer) makes the
  whole message a final answer: the reasoning is part of the response that is judged.
- Otherwise the message is `unmarked`; the solver decides what that means.
"""

import re
from dataclasses import dataclass
from typing import Literal

TurnKind = Literal["question", "final", "unmarked"]

QUESTION_MARKER = "QUESTION:"
FINAL_MARKER = "FINAL ANSWER:"

PREAMBLE_LINES = 3
_DECORATION = r"[ \t*_#>`]*"
_MARKER = re.compile(
    rf"^{_DECORATION}(?P<word>question|final[ _-]?answer){_DECORATION}\s*[:\-—–]"
    rf"[ \t]*(?:[*_`]+(?=\s|$))?",
    re.IGNORECASE | re.MULTILINE,
)


@dataclass(frozen=True)
class Turn:
    """One parsed model message: its kind and the text after the marker."""

    kind: TurnKind
    body: str


def _kind(match: re.Match[str]) -> TurnKind:
    return "question" if match.group("word").lower() == "question" else "final"


def parse_turn(text: str) -> Turn:
    """Classify a model message as a question, a final answer, or unmarked."""
    for match in _MARKER.finditer(text):
        lines_before = [line for line in text[: match.start()].splitlines() if line.strip()]
        if len(lines_before) < PREAMBLE_LINES:
            return Turn(_kind(match), text[match.end() :].strip())
        if _kind(match) == "final":
            return Turn("final", text.strip())
    return Turn("unmarked", text.strip())


_QUESTION_MARKS = re.compile(r"\?+")


def question_marks(text: str) -> int:
    """How many questions a message holds, counted as runs of question marks ("??" is one).

    Discovery counts one question turn per model message whatever this says; the count is
    recorded beside it, since the paper's instructions allow one or two questions per turn.
    """
    return len(_QUESTION_MARKS.findall(text))
