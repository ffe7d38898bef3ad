r"""Is the final answer right? Deterministic where the answer format allows, grader otherwise.

- multiple choice: the option letter the response commits to (`\boxed{C}`, "Answer: (C)",
  "the answer is C", a line holding only the letter, or an answer phrase naming an option's
  text), compared with the gold letter;
- math: the last `\boxed{}` or the text after "final answer"/"the answer is", compared with
  `mathnorm.math_equal`;
- free text (SimpleQA, MaScQA), or a response where no letter/answer can be found: the grader
  decides, reading the response inside a data block; malformed verdicts are retried and then
  leave the sample unscored;
- no gold label (the CommonsenseQA test split): unscored.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import Model

from heedbench.evals.prefdisco.sources import Problem
from heedbench.jsonparse import get_key
from heedbench.scorers.judge import Fence, judge
from heedbench.scorers.judge.call import boolean, read_yes_no, text, verdict_schema
from heedbench.scorers.prefdisco.mathnorm import last_boxed, math_equal
from heedbench.scorers.prefdisco.prompts import CORRECTNESS

_ANSWER_PHRASE = re.compile(
    r"(?:final\s+answer|correct\s+answer|the\s+answer|answer|correct\s+option|best\s+answer)"
    r"(?:\s+(?:is|would\s+be|will\s+be|=))?\s*[:=\-]?\s*",
    re.IGNORECASE,
)
_LETTER_AFTER = re.compile(
    r"[*_`\s]*(?:option|choice)?\s*[*_`]*[(\[]?(?P<letter>[A-Za-z])[)\]]?[*_`]*(?=$|[\s.,;:!)*_])"
)
_LONE_LETTER = re.compile(
    r"^[\s*_`>#-]*(?:option\s+)?[(\[]?(?P<letter>[A-Z])[)\].:]?[*_`\s]*$", re.MULTILINE
)
_MATH_AFTER = re.compile(r"(?P<rest>[^\n]+)")


@dataclass(frozen=True)
class Correctness:
    """A correctness verdict: 1.0 / 0.0, or None (unscored) with the reason."""

    value: float | None
    method: str
    extracted: str | None
    gold: str | None
    reason: str | None = None
    grader_calls: int = 0

    def detail(self) -> dict[str, Any]:
        """The verdict as score metadata."""
        return {
            "value": self.value,
            "method": self.method,
            "extracted": self.extracted,
            "gold": self.gold,
            "reason": self.reason,
            "grader_calls": self.grader_calls,
        }


def extract_choice(response: str, options: Mapping[str, str]) -> str | None:
    """The option letter a response commits to, or None when it names none clearly.

    The last committing statement wins (models restate their answer at the end). A lowercase
    letter only counts in an explicit answer phrase and when it is not a word ("a", "I").
    r
    """
    letters = {label.upper() for label in options}
    boxed = last_boxed(response)
    if boxed is not None:
        inner = re.sub(r"\\text\{([^}]*)\}", r"\1", boxed).strip(" ().")
        if inner.upper() in letters:
            return inner.upper()
    found: str | None = None
    for phrase in _ANSWER_PHRASE.finditer(response):
        rest = response[phrase.end() :]
        match = _LETTER_AFTER.match(rest)
        if match is not None:
            letter = match.group("letter")
            bracketed = "(" in match.group(0) or "[" in match.group(0)
            if letter.upper() in letters and (letter.isupper() or bracketed):
                found = letter.upper()
                continue
        named = _named_option(rest, options)
        if named is not None:
            found = named
    if found is not None:
        return found
    lone = [m.group("letter") for m in _LONE_LETTER.finditer(response)]
    lone = [letter for letter in lone if letter in letters]
    return lone[-1] if lone else None


def _named_option(text: str, options: Mapping[str, str]) -> str | None:
    """The option whose text opens `text` (an answer phrase followed by the option's words)."""
    head = re.sub(r"[*_`\"']", "", text[:300]).strip().casefold()
    hits = [
        label.upper()
        for label, option in options.items()
        if option.strip() and head.startswith(option.strip().casefold().rstrip("."))
    ]
    return hits[0] if len(hits) == 1 else None


def extract_math(response: str) -> str | None:
    r"""The math answer a response commits to: last `\boxed{}`, else the last answer phrase."""
    boxed = last_boxed(response)
    if boxed is not None:
        return boxed
    found = None
    for phrase in _ANSWER_PHRASE.finditer(response):
        rest = _MATH_AFTER.match(response[phrase.end() :])
        if rest is not None:
            candidate = rest.group("rest").strip().strip("*_` ").rstrip(".")
            if candidate and len(candidate) <= 60:
                found = candidate
    return found


async def check_correctness(
    problem: Problem, response: str, grader: Model, structured: bool = True
) -> Correctness:
    """The verdict for one final response (see the module docstring)."""
    gold = problem.answer
    if gold is None or not str(gold).strip():
        return Correctness(None, "none", None, None, "the source has no gold answer")
    if problem.kind == "choice":
        letter = extract_choice(response, problem.options)
        if letter is not None:
            return Correctness(float(letter == gold.upper()), "choice_letter", letter, gold)
        return await grade(problem, response, grader, "grader (no option letter found)", structured)
    if problem.kind == "math":
        answer = extract_math(response)
        if answer is not None:
            return Correctness(float(math_equal(answer, gold)), "math_equivalence", answer, gold)
        return await grade(
            problem, response, grader, "grader (no final math answer found)", structured
        )
    return await grade(problem, response, grader, "grader", structured)


CORRECTNESS_SCHEMA = verdict_schema(
    "correctness",
    {"justification": text("one sentence"), "correct": boolean("is the final answer correct?")},
)


def _read_verdict(found: dict[str, Any]) -> float:
    return float(read_yes_no(get_key(found, "correct"), "correct", allow_numbers=True))


async def grade(
    problem: Problem, response: str, grader: Model, method: str, structured: bool = True
) -> Correctness:
    """Ask the grader whether the response's final answer matches the gold answer."""
    options = "\n".join(f"{label}. {text}" for label, text in problem.options.items())
    fence = Fence()
    prompt = CORRECTNESS.format(
        question=problem.question,
        options=f"Options:\n{options}\n" if options else "",
        gold=problem.answer,
        fence=fence.announcement,
        response=fence.block("the response to check", response),
    )
    result = await judge(
        grader,
        prompt,
        _read_verdict,
        keys=("correct",),
        schema=CORRECTNESS_SCHEMA if structured else None,
    )
    if result.value is None:
        return Correctness(None, method, None, problem.answer, result.reason, result.attempts)
    return Correctness(result.value, method, None, problem.answer, None, result.attempts)
