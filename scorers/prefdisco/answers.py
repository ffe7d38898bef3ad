r"""The answer a final response gives, read only where its form leaves no doubt.

A personalised answer is long and may correct itself ("I'll pick A. Reconsidering the
palpitations, though, C fits"), so no code guesses which sentence holds the answer; a response
is read without a grader only when its form says what the answer is:

- a multiple-choice response that is nothing but an option letter (`C`, `(C)`, `**C.**`);
- one `\boxed{}` (or `\fbox{}`) on the response's last line, with nothing boxed before it;
  for multiple choice its content must be an option letter;
- a math response that is nothing but one number (`42`, `$-3.5$`, `1,024`).

Everything else, a self-correction or a box followed by more text included, is `None`: the
grader decides. `math_equal` compares a math answer with the gold by math-verify (sympy).
"""

import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

VerdictKind = Literal["math", "multiple_choice"]

_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{")
_WRAPPING = " \t\r\n*_`$.()[]"
_NUMBER = re.compile(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")
_TEXT = re.compile(r"\\(?:text|textbf|mathrm|mathbf)\s*\{([^{}]*)\}")
TIMEOUT_SECONDS = 2
"""Bound on each math-verify parse and comparison (main thread only: it uses `signal`)."""
MAX_LENGTH = 200
"""Longer answers are not parsed: a boxed answer is short, and sympy's cost grows fast."""
_NESTED_POWER = re.compile(r"\^\s*\{[^{}]*\^|\^\s*\(?[^\s(){}]*\^|\*\*[^*]*\*\*")


@dataclass(frozen=True)
class Reading:
    """What a response gives by its form: one answer, or None with the reason."""

    answer: str | None
    statement: str
    """Which form gave the answer, or why there is none."""


def _boxes(text: str) -> list[tuple[int, int, str]] | None:
    r"""(start, end, content) of every `\boxed{...}`, braces matched; None if one is unclosed."""
    found = []
    for match in _BOX.finditer(text):
        depth, at = 1, match.end()
        while at < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[at], 0)
            at += 1
        if depth:
            return None
        found.append((match.start(), at, text[match.end() : at - 1]))
    return found


def _letter(text: str, options: Mapping[str, str] | None) -> str | None:
    bare = _TEXT.sub(r"\1", text).strip(_WRAPPING)
    labels = {label.upper() for label in options} if options else set("ABCDEFGHIJ")
    return bare.upper() if len(bare) == 1 and bare.upper() in labels else None


def read_answer(
    response: str, kind: VerdictKind, options: Mapping[str, str] | None = None
) -> Reading:
    """The answer the response gives by its form, or None with why (module docstring)."""
    text = response.strip()
    boxes = _boxes(text)
    if boxes is None:
        return Reading(None, "an unclosed box")
    if len(boxes) > 1:
        return Reading(None, f"{len(boxes)} boxed answers")
    if boxes:
        _, end, content = boxes[0]
        if "\n" in text[end:].strip() or text[end:].strip(_WRAPPING):
            return Reading(None, "text after the boxed answer")
        if kind == "multiple_choice":
            return Reading(_letter(content, options), r"\boxed{}")
        return Reading(content.strip() or None, r"\boxed{}")
    if kind == "multiple_choice":
        letter = _letter(text, options)
        return Reading(letter, "the letter alone" if letter else "not an option letter alone")
    bare = text.strip(_WRAPPING.replace(".", "").replace("-", "")).rstrip(".")
    if _NUMBER.fullmatch(bare):
        return Reading(bare, "the number alone")
    return Reading(None, "neither a boxed answer nor a number alone")


# -- comparing with the gold -----------------------------------------------------------------------


def plain_number(text: str) -> float | None:
    """The value of a plain number (`1,024`, `-3.5`, `$7$`), else None."""
    bare = text.strip(" $").replace("\\!", "")
    return float(bare.replace(",", "")) if _NUMBER.fullmatch(bare) else None


def _timeout() -> int | None:
    return TIMEOUT_SECONDS if threading.current_thread() is threading.main_thread() else None


@lru_cache(maxsize=4096)
def _parse(text: str) -> tuple[Any, ...]:
    """math-verify's reading of `text` as LaTeX (then as a plain expression); () if none."""
    from math_verify import parse  # noqa: PLC0415 (sympy's parser costs 0.25 s at import)

    timeout = _timeout()
    if not text.strip() or len(text) > MAX_LENGTH:
        return ()
    if timeout is None and _NESTED_POWER.search(text):
        return ()  # no time bound off the main thread: sympy could expand for minutes
    latex = text if "$" in text or "\\(" in text else f"${text}$"
    return tuple(parse(latex, parsing_timeout=timeout) or parse(text, parsing_timeout=timeout))


@lru_cache(maxsize=4096)
def math_equal(answer: str, gold: str) -> bool:
    """Whether two math answers have the same value, by math-verify.

    It reads LaTeX and plain expressions: fractions against decimals, roots, sets in any
    order, intervals, `x = 5` against `5`.
    """
    from math_verify import verify  # noqa: PLC0415 (see _parse)

    parsed_gold, parsed_answer = _parse(gold), _parse(answer)
    if not parsed_gold or not parsed_answer:
        return False
    return bool(verify(list(parsed_gold), list(parsed_answer), timeout_seconds=_timeout()))


def compare(answer: str, gold: str, kind: VerdictKind) -> bool | None:
    """Right, wrong, or None (not certain) for an answer read by `read_answer`.

    Multiple choice compares letters. Math is right when math-verify finds the values equal,
    and wrong only when both are plain numbers that differ beyond the answer's own rounding;
    anything else (an expression math-verify cannot prove equal) goes to the grader.
    """
    if kind == "multiple_choice":
        return answer.upper() == gold.strip().upper()
    if math_equal(answer, gold):
        return True
    mine, theirs = plain_number(answer), plain_number(gold)
    if mine is None or theirs is None:
        return None
    places = len(answer.rsplit(".", 1)[1]) if "." in answer else 0
    return None if round(theirs, places) == round(mine, places) else False


def deterministic_verdict(
    response: str, gold: str, kind: VerdictKind, options: Mapping[str, str] | None = None
) -> bool | None:
    r"""Whether `response` is right, decided without a grader; None when it cannot be decided.

    `gold` is an option letter (multiple choice; `options` letter → text, else A–J) or LaTeX /
    a number (math).
    """
    reading = read_answer(response, kind, options)
    if reading.answer is None or not gold.strip():
        return None
    return compare(reading.answer, gold, kind)
