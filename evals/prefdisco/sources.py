"""The ten PrefDisco sources: one `Source` record each, and how a source row is read.

A source row (`original_problem`) is read as the public release reads it: the question is the
first of query/question/problem/Question/prompt with any `context` before it; options come
from `choices` or `options` (a {label, text} table, a dict, or a list lettered A, B, ...) or
SocialIQA's answerA–C; the gold answer is the first present of correct_answer, answerKey,
correct_option, answer_idx, Answer, answer, label, with an index turned into a letter.

To add a source, add one `Source` to `SOURCE_LIST` (evals/prefdisco/README.md, "Where to change
what"); nothing else in the code names a source.
"""

import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from heedbench.errors import InputError

AnswerKind = Literal["choice", "math", "text"]
"""How an answer is checked: an option letter, a math expression, or free text (grader)."""


@dataclass(frozen=True)
class Hub:
    """Where a source's problems are on the hub, and the seed the release drew them with."""

    dataset: str
    split: str
    seed: int
    name: str | None = None
    """The dataset's configuration name, where it has several."""


@dataclass(frozen=True)
class Source:
    """Everything one source needs: its answer kind, its row's fields, its hub location.

    `question`, `options` and `answer` name the fields the release's generator config reads
    (the reading itself is the same for every source; these name what a broken row lacks).
    """

    name: str
    kind: AnswerKind
    question: str
    answer: str
    hub: Hub
    options: str | None = None
    has_gold: bool = True
    """False: the released split has no gold labels (CommonsenseQA test), correctness unscored."""
    in_5k: bool = False
    """Part of the release's 5k variant."""
    context: str = "question"
    """The `problem_context` the build writes into every preference of the source's records."""


SOURCE_LIST = (
    Source("math", "math", "problem", "answer", Hub("HuggingFaceH4/MATH-500", "test", 111),
           context="math problem"),
    Source("aime", "math", "Question", "Answer", Hub("gneubig/aime-1983-2024", "train", 222),
           in_5k=True, context="math problem"),
    Source("medqa", "choice", "question", "answer_idx",
           Hub("GBaker/MedQA-USMLE-4-options", "test", 888), options="options", in_5k=True,
           context="medical consultation as a patient caretaker"),
    Source("commonsenseqa", "choice", "question", "answerKey",
           Hub("tau/commonsense_qa", "test", 999), options="choices", has_gold=False, in_5k=True),
    Source("socialiqa", "choice", "question", "label",
           Hub("allenai/social_i_qa", "validation", 1000), options="answerA-answerC", in_5k=True),
    Source("logiqa", "choice", "query", "correct_option", Hub("lucasmccabe/logiqa", "test", 333),
           options="options"),
    Source("simpleqa", "text", "problem", "answer", Hub("pvduy/simpleqa", "train", 777)),
    Source("mascqa", "text", "question", "correct_answer", Hub("stellalisy/MaScQA", "train", 444)),
    Source("scienceqa", "choice", "question", "answer", Hub("derek-thomas/ScienceQA", "test", 555),
           options="choices"),
    Source("mmlu", "choice", "question", "answer", Hub("lighteval/mmlu", "test", 666, name="all"),
           options="choices"),
)  # fmt: skip
SOURCES: dict[str, Source] = {source.name: source for source in SOURCE_LIST}
"""Source name -> its record, in the release's order of keys."""


class SourceRowError(InputError):
    """A source row whose fields cannot be read; `field` names the one at fault."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field = field


class Unrunnable(Exception):
    """A row the task cannot run (no question, no options, no usable gold), with the reason."""

    def __init__(self, reason: str, field: str, problem: str) -> None:
        super().__init__(problem)
        self.reason, self.field = reason, field


_QUESTION_FIELDS = ("query", "question", "problem", "Question", "prompt")
_ANSWER_FIELDS = (
    "correct_answer", "answerKey", "correct_option", "answer_idx", "Answer", "answer", "label",
)  # fmt: skip


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
        if not self.options:
            return self.question
        return f"{self.question}\n{option_lines(self.options)}"


def option_lines(options: Mapping[str, str]) -> str:
    """One "A. option" line per option, as every prompt lists them."""
    return "\n".join(f"{label}. {text}" for label, text in options.items())


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
        return dict(zip(string.ascii_uppercase, (str(text) for text in raw), strict=False))
    return {letter: str(row[f"answer{letter}"]) for letter in "ABCD" if row.get(f"answer{letter}")}


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
        digits = isinstance(value, str) and value.isdigit()
        if options and isinstance(value, int):
            return chr(ord("A") + value)
        if options and digits and field == "label":  # SocialIQA: "1".."3"
            return chr(ord("A") + int(value) - 1)
        if options and digits and field == "correct_option":  # LogiQA stored as a string
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
    return Problem(_question(row), options, _answer(row, options), SOURCES[source].kind)


def runnable_problem(source: str, row: Mapping[str, Any]) -> Problem:
    """The row read and checked: a question, options where needed, a gold among the options.

    Raises:
        SourceRowError: a field cannot be read.
        Unrunnable: the row cannot be run; `field` names the source's field at fault.
    """
    spec = SOURCES[source]
    problem = normalise_problem(source, row)
    if not problem.question.strip():
        raise Unrunnable(
            "no problem text", spec.question, "missing or empty (no problem text: none of "
            "query, question, problem, Question, prompt holds text)",
        )  # fmt: skip
    if spec.kind == "choice" and not problem.options:
        raise Unrunnable(
            "no options", spec.options or "options",
            f"missing or empty ({source} is multiple choice)",
        )  # fmt: skip
    if problem.answer is None:
        if not spec.has_gold:
            return problem
        raise Unrunnable("no gold answer", spec.answer, "no gold answer")
    if not problem.options:
        return problem
    label = {label.upper(): label for label in problem.options}.get(problem.answer.upper())
    if label is None:
        raise Unrunnable(
            "gold answer not among the options", spec.answer,
            f"gold answer {problem.answer!r} is not one of the options "
            + ", ".join(problem.options),
        )  # fmt: skip
    return Problem(problem.question, problem.options, label, problem.kind)
