r"""Are two math answers the same value? Decided by `math-verify`, with sympy.

math-verify, the answer checker of open-r1 and lighteval, parses LaTeX and plain expressions
into sympy and compares them (numbers within rounding, fractions against decimals, roots,
sets in any order, intervals, equations such as `x = 5` against `5`, percentages).

What it does not do is kept from `mathnorm`: units in words and `\text{12 square units}`,
English number words, and the test of whether an answer is a plain number at all, which
decides when a mismatch may be called *wrong* (`correctness.math_verdict`).

math-verify bounds each parse and comparison with `signal.alarm`, which only works in the main
thread; elsewhere (an eval started from a worker thread) the bound is off and answers with
nested powers, which sympy may take minutes to expand, are not compared (the grader decides).
"""

import math
import re
import threading
from functools import lru_cache
from typing import Any

from heedbench.scorers.prefdisco.mathnorm import normalise, split_top_level

TIMEOUT_SECONDS = 2
"""Bound on each math-verify parse and comparison (main thread only)."""
MAX_LENGTH = 200
"""Longer answers are not parsed: a committed answer is short, and sympy's cost grows fast."""
_NESTED_POWER = re.compile(r"\^\s*\{[^{}]*\^|\^\s*\(?[^\s(){}]*\^|\*\*[^*]*\*\*")


def _timeout() -> int | None:
    return TIMEOUT_SECONDS if threading.current_thread() is threading.main_thread() else None


def _parseable(text: str, timeout: int | None) -> bool:
    if len(text) > MAX_LENGTH:
        return False
    return timeout is not None or _NESTED_POWER.search(text) is None


@lru_cache(maxsize=4096)
def _parse(text: str) -> tuple[Any, ...]:
    """math-verify's reading of `text` as LaTeX (then as a plain expression); () if none."""
    from math_verify import parse  # noqa: PLC0415 (sympy's parser costs 0.25 s at import)

    timeout = _timeout()
    if not text.strip() or not _parseable(text, timeout):
        return ()
    latex = text if "$" in text or "\\(" in text or "\\[" in text else f"${text}$"
    found = parse(latex, parsing_timeout=timeout) or parse(text, parsing_timeout=timeout)
    return tuple(found)


@lru_cache(maxsize=4096)
def _verify(gold: str, answer: str) -> bool:
    from math_verify import verify  # noqa: PLC0415 (see _parse)

    parsed_gold, parsed_answer = _parse(gold), _parse(answer)
    if not parsed_gold or not parsed_answer:
        return False
    return bool(verify(list(parsed_gold), list(parsed_answer), timeout_seconds=_timeout()))


def math_equal(answer: str, gold: str) -> bool:
    r"""Whether a math answer has the gold value (math-verify, as written or normalised).

    Both readings are tried because each catches what the other loses: as written keeps a
    percent sign (`25%` = 0.25), normalised drops units and text (`\text{12 square units}`).
    """
    if not answer.strip() or not gold.strip():
        return False
    if _verify(gold, answer):
        return True
    plain_answer, plain_gold = normalise(answer), normalise(gold)
    if not plain_answer or not plain_gold:
        return False
    return (plain_answer, plain_gold) != (answer, gold) and _verify(plain_gold, plain_answer)


def to_number(answer: str) -> float | None:
    """The value of an answer that is a plain (real, finite) number, else None."""
    parsed = _parse(answer)
    if not parsed:
        return None
    expression = parsed[0]
    if not getattr(expression, "is_number", False):
        return None
    try:
        value = complex(expression.evalf())
    except (TypeError, ValueError, AttributeError, ArithmeticError):
        return None
    if value.imag != 0 or not math.isfinite(value.real):
        return None
    return value.real


def numeric_values(answer: str) -> tuple[float, ...] | None:
    """The numbers a normalised answer consists of (one, or a tuple's), or None.

    None when any part is not a plain number (a variable, an interval sign, prose): such an
    answer can be equal to another without matching it, so a mismatch proves nothing.
    """
    single = to_number(answer)
    if single is not None:
        return (single,)
    body = answer
    if len(body) >= 2 and body[0] in "([{" and body[-1] in ")]}":
        body = body[1:-1]
    values = [to_number(part) for part in split_top_level(body)]
    if len(values) < 2 or any(value is None for value in values):
        return None
    return tuple(value for value in values if value is not None)
