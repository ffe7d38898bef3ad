r"""Is the final answer right? Decided without a grader only when the response commits clearly.

`deterministic_verdict(response, gold, kind, options)` is the pure function behind the
`deterministic` mode: `answers.read_answer` finds the one answer the response commits to
(self-corrections included: the last committed answer counts, or none), then `compare` checks
it against the gold answer:

- Math: right when math-verify finds the two equal (`equivalence.math_equal`); wrong only
  when both are plain numbers (or equally long lists of them) that differ beyond rounding,
  percent or degree conversions, and not merely in order (a solution set). Anything else (an
  expression math-verify cannot prove equal, `2x = 6` against `3`) goes to the grader.
- Multiple choice: the option letter read against the gold letter (or the option the gold
  text names).

`check_correctness` applies it per sample: with `mode="deterministic"` (default) a None goes
to the grader; with `mode="grader"` every answer is graded, as the reference evaluator does.
Free-text sources (SimpleQA, MaScQA) always go to the grader; a source without a gold label
(the CommonsenseQA test split) leaves correctness unscored.
"""

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from inspect_ai.model import Model

from heedbench.evals.prefdisco.sources import Problem, option_lines
from heedbench.scorers.judge import DEFAULT_CHANNEL, Fence, VerdictChannel, judge, reply_instruction
from heedbench.scorers.judge.call import boolean, text, verdict_schema
from heedbench.scorers.prefdisco.answers import Reading, VerdictKind, read_answer
from heedbench.scorers.prefdisco.equivalence import math_equal, numeric_values
from heedbench.scorers.prefdisco.mathnorm import normalise
from heedbench.scorers.prefdisco.prompts import CORRECTNESS, CORRECTNESS_EXAMPLE

CorrectnessMode = Literal["deterministic", "grader"]
"""`deterministic`: read the answer where it is unambiguous, grader otherwise; `grader`: always."""

__all__ = [
    "Correctness",
    "CorrectnessMode",
    "Reading",
    "VerdictKind",
    "check_correctness",
    "compare",
    "deterministic_verdict",
    "extract_choice",
    "extract_math",
    "grade",
    "math_verdict",
    "read_answer",
]

# -- math ------------------------------------------------------------------------------------------


def _resolve_equation(normalised: str) -> str | None:
    """`4+9=13` → `13` when every side is the same number; None for any other equation."""
    if "=" not in normalised:
        return normalised
    sides = normalised.split("=")
    values = [numeric_values(side) for side in sides]
    if any(v is None or len(v) != 1 for v in values):
        return None
    numbers = [v[0] for v in values if v is not None]
    if all(math.isclose(n, numbers[-1], rel_tol=1e-9, abs_tol=1e-12) for n in numbers):
        return sides[-1]
    return None


def _decimals(text: str) -> int | None:
    match = re.fullmatch(r"-?\d+\.(\d+)", text)
    return len(match.group(1)) if match else None


def _could_be_same(candidate: str, shown: str, gold: str, mine: float, theirs: float) -> bool:
    """A numeric mismatch that may still be the right answer: rounding, percent, degrees.

    `candidate` is the answer as written, `shown` its normalised number.
    """
    places = _decimals(shown)
    if places is not None and round(theirs, places) == round(mine, places):
        return True
    percent = "%" in candidate + gold or "percent" in (candidate + gold).lower()
    if percent and any(math.isclose(mine, theirs * f) for f in (100, 0.01)):
        return True
    angles = re.search(r"\\circ|°|degree", candidate + gold, re.IGNORECASE) is not None
    factor = 180 / math.pi
    return angles and any(math.isclose(mine, theirs * f) for f in (factor, 1 / factor))


def math_verdict(candidate: str, gold: str) -> bool | None:
    """Whether a committed math answer equals the gold answer; None when that is not clear."""
    if math_equal(candidate, gold):
        return True
    resolved = _resolve_equation(normalise(candidate))
    if resolved is None:
        return None
    if math_equal(resolved, gold):
        return True
    mine, theirs = numeric_values(resolved), numeric_values(normalise(gold))
    if mine is None or theirs is None or len(mine) != len(theirs):
        return None  # not plain numbers, or a list against a single value: graded

    def same(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
        return all(math.isclose(x, y, rel_tol=1e-6) for x, y in zip(a, b, strict=True))

    ordered = resolved.startswith("(") and normalise(gold).startswith("(")  # a point, a tuple
    if same(mine, theirs) or (not ordered and same(tuple(sorted(mine)), tuple(sorted(theirs)))):
        return None  # the same numbers in another notation, or a solution set in another order
    if len(mine) == 1 and _could_be_same(candidate, resolved, gold, mine[0], theirs[0]):
        return None
    return False


# -- comparing and deciding ----------------------------------------------------------------------


def _gold_letter(gold: str, options: Mapping[str, str] | None) -> str | None:
    text = gold.strip()
    if options:
        labels = {label.upper(): label for label in options}
        if text.upper() in labels:
            return text.upper()
        named = [label for label, option in options.items() if option.strip() == text]
        return named[0].upper() if len(named) == 1 else None
    return text.upper() if len(text) == 1 and text.isalpha() else None


def compare(
    answer: str, gold: str, kind: VerdictKind, options: Mapping[str, str] | None
) -> bool | None:
    """Right, wrong, or None (not decidable here) for an answer the response committed to."""
    if kind == "math":
        return math_verdict(answer, gold)
    letter = _gold_letter(gold, options)
    return None if letter is None else answer == letter


def deterministic_verdict(
    response: str, gold: str, kind: VerdictKind, options: Mapping[str, str] | None = None
) -> bool | None:
    r"""Whether `response` is right, decided without a grader; None when it cannot be decided.

    True or False only when the response commits to one answer unambiguously (a `\boxed{}`,
    an explicit final-answer line, "the answer is ...", a lone option letter; after a
    self-correction, the answer after the last correction) and the comparison with `gold` is
    certain; None otherwise, which is meant for the grader. Two different committed answers,
    a later answer that conflicts with the deciding one, a correction with no answer after it,
    a hedge, or prose where the answer should be give None, never False.

    Args:
        response: the model's final response.
        gold: the gold answer: an option letter for multiple choice, LaTeX / a number for math.
        kind: "math" or "multiple_choice".
        options: option letter → option text (multiple choice), so that an answer may name
            an option by its text; without it only letters A–J are read.
    """
    reading = read_answer(response, kind, options)
    if reading.answer is None or not gold.strip():
        return None
    return compare(reading.answer, gold, kind, options)


def extract_choice(response: str, options: Mapping[str, str]) -> str | None:
    """The option letter a response commits to, or None when it names none unambiguously."""
    return read_answer(response, "multiple_choice", options).answer


def extract_math(response: str) -> str | None:
    """The math answer a response commits to, or None when it states none unambiguously."""
    return read_answer(response, "math").answer


# -- the per-sample verdict ------------------------------------------------------------------------


@dataclass(frozen=True)
class Correctness:
    """A correctness verdict: 1.0 / 0.0, or None (unscored) with the reason."""

    value: float | None
    method: str
    extracted: str | None
    gold: str | None
    reason: str | None = None
    grader_calls: int = 0
    mode: CorrectnessMode = "deterministic"

    def detail(self) -> dict[str, Any]:
        """The verdict as score metadata."""
        return {
            "mode": self.mode,
            "value": self.value,
            "method": self.method,
            "extracted": self.extracted,
            "gold": self.gold,
            "reason": self.reason,
            "grader_calls": self.grader_calls,
        }


_METHODS: dict[str, str] = {"math": "math_equivalence", "choice": "choice_letter"}
_KINDS: dict[str, VerdictKind] = {"math": "math", "choice": "multiple_choice"}


async def check_correctness(
    problem: Problem,
    response: str,
    grader: Model,
    mode: CorrectnessMode = "deterministic",
    channel: VerdictChannel = DEFAULT_CHANNEL,
) -> Correctness:
    """The verdict for one final response (see the module docstring)."""
    gold = problem.answer
    if gold is None or not str(gold).strip():
        return Correctness(None, "none", None, None, "the source has no gold answer", mode=mode)
    if mode == "grader":
        return await grade(problem, response, grader, "grader", mode=mode, channel=channel)
    kind = _KINDS.get(problem.kind)
    if kind is None:
        return await grade(problem, response, grader, "grader", mode=mode, channel=channel)
    reading = read_answer(response, kind, problem.options or None)
    if reading.answer is None:
        return await grade(
            problem,
            response,
            grader,
            f"grader ({reading.statement})",
            mode=mode,
            channel=channel,
        )
    verdict = compare(reading.answer, gold, kind, problem.options or None)
    if verdict is None:
        why = f"grader (answer {reading.answer!r} not comparable with the gold answer)"
        return await grade(
            problem,
            response,
            grader,
            why,
            extracted=reading.answer,
            mode=mode,
            channel=channel,
        )
    method = _METHODS[problem.kind]
    return Correctness(float(verdict), method, reading.answer, gold, mode=mode)


CORRECTNESS_SCHEMA = verdict_schema(
    "correctness",
    {"justification": text("one sentence"), "correct": boolean("is the final answer correct?")},
)


def _read_verdict(found: dict[str, Any]) -> float:
    return float(found["correct"])


async def grade(
    problem: Problem,
    response: str,
    grader: Model,
    method: str,
    *,
    extracted: str | None = None,
    mode: CorrectnessMode = "deterministic",
    channel: VerdictChannel = DEFAULT_CHANNEL,
) -> Correctness:
    """Ask the grader whether the response's final answer matches the gold answer."""
    options = option_lines(problem.options)
    fence = Fence.over(response)
    prompt = CORRECTNESS.format(
        reply=reply_instruction(channel, CORRECTNESS_EXAMPLE, CORRECTNESS_SCHEMA),
        question=problem.question,
        options=f"Options:\n{options}\n" if options else "",
        gold=problem.answer,
        fence=fence.announcement,
        response=fence.block("the response to check", response),
    )
    result = await judge(grader, prompt, _read_verdict, schema=CORRECTNESS_SCHEMA, channel=channel)
    return Correctness(
        result.value, method, extracted, problem.answer, result.reason, result.attempts, mode=mode
    )
