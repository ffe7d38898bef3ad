"""Reading a discovery message: is it a question or the final answer?

Two marker styles (`-T markers=`):

- `action` (the paper protocol's, the reference evaluator's): a line `###ACTION###:
  'ask_question'` or `'final_answer'`, then `###RESPONSE###: ...`. Read as the reference reads
  it: with the action line, the message is an answer exactly when the action is
  `final_answer` (quotes and brackets aside); without it, when it says "the answer is", "here
  is the solution", "finally, we get" or "in conclusion", asks nothing ("what do you think",
  "how do you", "would you like", "are you familiar") and does not end with "?". Anything else
  is a question. The whole message is what the user sees and what is judged.
- `labels` (heedbench's): the message starts with `QUESTION:` or `FINAL ANSWER:`, read
  leniently (case, `**bold**`, `##` headings, `:`, `-` or `—`, a short preamble of up to
  `PREAMBLE_LINES` lines); a `FINAL ANSWER:` line after worked reasoning makes the whole message
  an answer. Otherwise it is `unmarked` and the solver decides. The text after the marker is
  what the user sees and what is judged.
"""

import re
from dataclasses import dataclass
from typing import Literal

TurnKind = Literal["question", "final", "unmarked"]

QUESTION_MARKER = "QUESTION:"
FINAL_MARKER = "FINAL ANSWER:"
ACTION, RESPONSE = "###ACTION###:", "###RESPONSE###:"
ASK, ANSWER = "ask_question", "final_answer"
_ANSWERING = ("the answer is", "here is the solution", "finally, we get", "in conclusion")
_ASKING = ("what do you think", "how do you", "would you like", "are you familiar")

PREAMBLE_LINES = 3
_DECORATION = r"[ \t*_#>`]*"
_MARKER = re.compile(
    rf"^{_DECORATION}(?P<word>question|final[ _-]?answer){_DECORATION}\s*[:\-—–]"
    rf"[ \t]*(?:[*_`]+(?=\s|$))?",
    re.IGNORECASE | re.MULTILINE,
)


@dataclass(frozen=True)
class Turn:
    """One parsed model message: its kind, what is passed on or judged, and its answer text.

    `answer` is the text after the marker (what the deterministic answer reader reads); with
    `labels` it is the same as `body`.
    """

    kind: TurnKind
    body: str
    answer: str = ""

    def __post_init__(self) -> None:
        if not self.answer:
            object.__setattr__(self, "answer", self.body)


def _kind(match: re.Match[str]) -> TurnKind:
    return "question" if match.group("word").lower() == "question" else "final"


def parse_turn(text: str) -> Turn:
    """Classify a `labels` message as a question, a final answer, or unmarked."""
    for match in _MARKER.finditer(text):
        lines_before = [line for line in text[: match.start()].splitlines() if line.strip()]
        if len(lines_before) < PREAMBLE_LINES:
            return Turn(_kind(match), text[match.end() :].strip())
        if _kind(match) == "final":
            return Turn("final", text.strip())
    return Turn("unmarked", text.strip())


def read_action(text: str) -> Turn:
    """Classify an `action` message as the reference does (module docstring)."""
    start = text.find(ACTION)
    if start != -1:
        action = text[start + len(ACTION) :].split("\n", maxsplit=1)[0].strip().strip("[]'\"")
        final = action.lower() == ANSWER
    else:
        lower = text.lower()
        final = (
            any(phrase in lower for phrase in _ANSWERING)
            and not any(phrase in lower for phrase in _ASKING)
            and not text.strip().endswith("?")
        )
    response = text.find(RESPONSE)
    answer = text[response + len(RESPONSE) :] if response != -1 else text
    return Turn("final" if final else "question", text.strip(), answer.strip())


def as_question(question: str, markers: Literal["action", "labels"]) -> str:
    """A question as the model would write it in this marker style (`questions=stock`)."""
    if markers == "action":
        return f"{ACTION} '{ASK}'\n{RESPONSE} {question}"
    return f"{QUESTION_MARKER} {question}"


_QUESTION_MARKS = re.compile(r"\?+")


def question_marks(text: str) -> int:
    """How many questions a message holds, counted as runs of question marks ("??" is one).

    Discovery counts one question turn per model message whatever this says; the count is
    recorded beside it, since the paper's instructions allow one or two questions per turn.
    """
    return len(_QUESTION_MARKS.findall(text))
