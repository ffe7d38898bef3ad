"""The ten PrefDisco sources and how each stores its question, options and gold answer.

Normalisation follows the public release's reading of each source row: the question is the
first of query/question/problem/Question/prompt with any `context` before it; options come
from `choices` or `options` (a {label, text} table, a dict, or a list lettered A, B, ...) or
SocialIQA's answerA–C; the gold answer is the first present of correct_answer, answerKey,
correct_option, answer_idx, Answer, answer, label, with an index turned into a letter.
"""

import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from heedbench.errors import InputError

AnswerKind = Literal["choice", "math", "text"]

SOURCE_ANSWER_KIND: dict[str, AnswerKind] = {
    "math": "math",
    "aime": "math",
    "medqa": "choice",
    "commonsenseqa": "choice",
    "socialiqa": "choice",
    "logiqa": "choice",
    "simpleqa": "text",
    "mascqa": "text",
    "scienceqa": "choice",
    "mmlu": "choice",
}
"""How each source's answer is checked: a letter, a math expression, or free text (grader)."""

SOURCES: tuple[str, ...] = tuple(SOURCE_ANSWER_KIND)


@dataclass(frozen=True)
class SourceFields:
    """Where a source's own rows keep the question, the options and the gold answer."""

    question: str
    options: str | None
    answer: str


SOURCE_FIELDS: dict[str, SourceFields] = {
    "math": SourceFields("problem", None, "answer"),
    "aime": SourceFields("Question", None, "Answer"),
    "medqa": SourceFields("question", "options", "answer_idx"),
    "commonsenseqa": SourceFields("question", "choices", "answerKey"),
    "socialiqa": SourceFields("question", "answerA-answerC", "label"),
    "logiqa": SourceFields("query", "options", "correct_option"),
    "simpleqa": SourceFields("problem", None, "answer"),
    "mascqa": SourceFields("question", None, "correct_answer"),
    "scienceqa": SourceFields("question", "choices", "answer"),
    "mmlu": SourceFields("question", "choices", "answer"),
}
"""The fields each source's generator config names (used to say what a broken row lacks)."""

NO_GOLD_SOURCES = frozenset({"commonsenseqa"})
"""Sources whose released split has no gold labels (CommonsenseQA test): correctness unscored."""


class SourceRowError(InputError):
    """A source row whose fields cannot be read; `field` names the one at fault."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field = field


_QUESTION_FIELDS = ("query", "question", "problem", "Question", "prompt")
_ANSWER_FIELDS = (
    "correct_answer", "answerKey", "correct_option", "answer_idx", "Answer", "answer", "label",
)  # fmt: skip
_ONE_INDEXED_LABEL = "label"
"""SocialIQA stores its gold as the string "1".."3"."""


@dataclass(frozen=True)
class Problem:
    """A source row in one shape: what the evaluated model sees and what it is checked against."""

    question: str
    options: dict[str, str]
    answer: str | None
    """Gold answer (an option letter for multiple choice); None when the source has none."""
    kind: AnswerKind

    def task_text(self) -> str:
        """The question followed by one "A. option" line per option."""
        return (
            "\n".join([self.question, option_lines(self.options)])
            if self.options
            else self.question
        )


def option_lines(options: Mapping[str, str]) -> str:
    """One "A. option" line per option, as every prompt lists them."""
    return "\n".join(f"{label}. {text}" for label, text in options.items())


def _letters(count: int) -> list[str]:
    return list(string.ascii_uppercase[:count])


def _options(row: Mapping[str, Any]) -> dict[str, str]:
    field = "choices" if "choices" in row else "options"
    raw = row.get(field)
    if isinstance(raw, Mapping) and "label" in raw and "text" in raw:
        labels, texts = raw["label"], raw["text"]
        if not isinstance(labels, list) or not isinstance(texts, list) or len(labels) != len(texts):
            raise SourceRowError(field, "'label' and 'text' must be lists of the same length")
        return {str(label): str(text) for label, text in zip(labels, texts, strict=True)}
    if isinstance(raw, Mapping):
        return {str(label): str(text) for label, text in raw.items()}
    if isinstance(raw, list) and raw:
        return dict(zip(_letters(len(raw)), (str(text) for text in raw), strict=True))
    lettered = {
        letter: str(row[f"answer{letter}"]) for letter in "ABCD" if row.get(f"answer{letter}")
    }
    return lettered


def _question(row: Mapping[str, Any]) -> str:
    question = next((str(row[f]) for f in _QUESTION_FIELDS if row.get(f) not in (None, "")), "")
    context = row.get("context")
    return f"{context}\n\n{question}" if context else question


def _answer(row: Mapping[str, Any], options: Mapping[str, str]) -> str | None:
    for field in _ANSWER_FIELDS:
        value = row.get(field)
        if value is None or value == "":
            continue
        if isinstance(value, bool):
            return None
        if isinstance(value, int) and options:
            return chr(ord("A") + value)
        if field == _ONE_INDEXED_LABEL and isinstance(value, str) and value.isdigit() and options:
            return chr(ord("A") + int(value) - 1)
        if isinstance(value, str) and value.isdigit() and options and field == "correct_option":
            return chr(ord("A") + int(value))
        return str(value).strip()
    return None


def normalise_problem(source: str, row: Mapping[str, Any]) -> Problem:
    """Read a source row (`original_problem`) the way its source dataset stores it.

    Raises:
        SourceRowError: a field cannot be read (a choices table whose labels and texts differ
            in number).
    """
    options = _options(row)
    return Problem(
        question=_question(row),
        options=options,
        answer=_answer(row, options),
        kind=SOURCE_ANSWER_KIND[source],
    )
