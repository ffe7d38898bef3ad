r"""Is the final answer right? Decided without a grader only when the response commits clearly.

Personalised answers are long and chatty, so a misread answer would show up as an accuracy
drop that the model never had. The deterministic reading therefore says right or wrong only
when the response commits to exactly one answer, and otherwise hands the response to the
grader. `deterministic_verdict` is the pure function behind it:

- What counts as a commitment, strongest first: a `\boxed{}` or an explicit "final answer"
  statement; then "the answer is ...", "Answer: ...", "I'd go with ..."; then, when neither
  exists, a line holding only an option letter (multiple choice) or a response that is nothing
  but a math expression. The strongest kind present decides; weaker mentions ("Earlier I
  thought the answer is D") are ignored.
- Every commitment of the deciding kind must be readable and they must agree: prose where the
  answer should be ("the answer is that we first find ..."), a hedge ("probably 13"), two
  options ("A or B") or two different answers make the verdict None, never False.
- Math: the candidate is the expression right after the phrase (`$...$`, `\(...\)`, or plain
  LaTeX / numbers, with a unit or a plain noun allowed: "13 pills."), or English number words
  ("thirteen"). It is right when `math_equal` says so; it is wrong only when both it and the gold
  answer are plain numbers (or equally long lists of them) that differ beyond rounding,
  percent or degree conversions, and not merely in order (a solution set). Anything else
  (say, `x^2+1` against `1+x^2`) goes to the grader.
- Multiple choice: the option letter (`(B)`, `**B**`, `Option B`, `B)`, `\boxed{B}`) or the
  option named by its text; a letter followed by another option's text is ambiguous.

`check_correctness` applies it per sample: with `mode="deterministic"` (default) a None
goes to the grader; with `mode="grader"` every answer is graded, as the reference evaluator
does. Free-text sources (SimpleQA, MaScQA) always go to the grader; a source without a gold
label (the CommonsenseQA test split) leaves correctness unscored.
"""

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from inspect_ai.model import Model

from heedbench.evals.prefdisco.sources import Problem
from heedbench.jsonparse import get_key
from heedbench.scorers.judge import Fence, judge
from heedbench.scorers.judge.call import boolean, read_yes_no, text, verdict_schema
from heedbench.scorers.prefdisco.mathnorm import (
    all_boxed,
    math_equal,
    normalise,
    number_words,
    numeric_values,
    unwrap,
)
from heedbench.scorers.prefdisco.prompts import CORRECTNESS

CorrectnessMode = Literal["deterministic", "grader"]
"""`deterministic`: read the answer where it is unambiguous, grader otherwise; `grader`: always."""
VerdictKind = Literal["math", "multiple_choice"]

# -- where a response commits to an answer ------------------------------------------------------

_MARKUP = "*_`"
_PHRASE = re.compile(
    r"""
    \bfinal\s+answer[*_]*(?:\s+(?:is|would\s+be|will\s+be)\b[*_]*\s*:?|\s*[:=]|\s+[-\u2013\u2014]\s)
    | \b(?:the|my|our)\s+(?:(?:final|correct|right|best)\s+)?(?:answer|option|choice)
      (?:\s+(?:to|for)\s+(?:this|the|your)\s+(?:question|problem))?
      [*_]*\s+(?:is|would\s+be|will\s+be)\b[*_]*\s*:?
    | \banswer[*_]*\s*[:=]
    | \bI(?:'d|\s+would|\s+will|'ll)?\s+(?:go\s+with|choose|pick|select)\b:?
    """,
    re.IGNORECASE | re.VERBOSE,
)
_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{")
_LEAD = re.compile(r"^[\s*_`\"'\u201c\u2018>]*")
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")

FINAL, STATED, FALLBACK = 0, 1, 2
"""How strongly a statement commits: the strongest kind present decides."""


@dataclass(frozen=True)
class Candidate:
    """One committing statement: the answer it reads as, or None when it is not clean."""

    answer: str | None
    strength: int
    statement: str


@dataclass(frozen=True)
class Reading:
    """What a response commits to: one answer, or None with the reason."""

    answer: str | None
    statement: str
    """Which statement gave the answer, or why there is none."""


# -- words around an answer ----------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


CONNECTORS = _words("because since as which so thus hence therefore meaning")
"""Words that may follow an answer without changing it ("13 because ...")."""

_MATH_WORDS = _words(
    "and or to plus minus times over divided by squared cubed root roots pi point out of "
    "per mod modulo choose factorial dozen dozens hundred hundreds thousand thousands "
    "million millions billion half halves third thirds quarter quarters fourth fourths "
    "fifth fifths sixth sixths seventh sevenths eighth eighths ninth ninths tenth tenths "
    "radians repeating recurring remainder with less more than between from through up is "
    "are equals equal if when for where not nor versus vs approximately about roughly "
    "around nearly almost exactly probably maybe perhaps ish in e"
)
"""Words that change or hedge a number next to them: an answer followed by one is unclear."""

_NUMBER_WORDS = _words(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred thousand million billion minus negative"
)
_UNITS = re.compile(
    r"(?:square\s+units|sq\.?\s*units|units?|degrees?|cm|mm|km|m|meters?|metres?|inches|inch|"
    r"feet|foot|ft|miles?|mph|seconds?|minutes?|hours?|days?|years?|dollars?|cents?|pounds?|"
    r"lbs?|kg|g|grams?|liters?|litres?|ml|percent|points?|ways)"
    r"(?:\^\{?[23]\}?|\^[23]|\s+squared|\s+cubed)?(?![A-Za-z])",
    re.IGNORECASE,
)
"""Units `mathnorm.normalise` strips from the end of an answer: kept with the candidate."""

_MATH_TOKEN = re.compile(
    r"""
    \d+(?:[.,]\d+)*                          # 13, 3.5, 1,024
    | \\[A-Za-z]+                            # \frac, \sqrt, \pi
    | \\[{}|,;:!$%\s]                        # \{ and spacing commands
    | (?<![A-Za-z])[A-Za-z](?![A-Za-z'])     # a one-letter variable
    | [-+*/^_=()\[\]{}<>|!'.,$%]
    | [\u2212\u00d7\u00f7\u00b7\u03c0\u221a\u221e\u00b1\u00b0]
    | [ \t]+
    """,
    re.VERBOSE,
)
_RANGE = re.compile(r"\d+(?:\.\d+)?\s*-\s*\d+(?:\.\d+)?")
_DELIMITERS = (("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$"))
_TEXT_COMMANDS = ("\\text", "\\textbf", "\\mathrm", "\\mathbf", "\\textrm", "\\mbox", "\\emph")


def _strip_markup(text: str) -> str:
    return _LEAD.sub("", text)


def _first_word(text: str) -> str | None:
    match = _WORD.match(text)
    return match.group(0).lower() if match else None


def _unwrap_text(latex: str) -> str:
    r"""`\text{13 pills}` → `13 pills`."""
    for command in _TEXT_COMMANDS:
        latex = unwrap(latex, command)
    return latex


# -- math ------------------------------------------------------------------------------------------


def _clean_after(rest: str, *, delimited: bool, allow_noun: bool = True) -> bool:
    """Whether what follows an answer leaves it as the answer (see the module docstring)."""
    rest = rest.lstrip(" \t" + _MARKUP + "\"'\u201d\u2019")
    if not rest or rest[0] in ".!?;\n\r":
        return True
    if rest[0] in ",:(\u2014\u2013-":
        after = rest[1:].lstrip(" \t" + _MARKUP)
        if not after or after[0] in "\n\r":
            return True
        word = _first_word(after)
        if word is None:
            return after[0] not in "0123456789$\\"
        return word not in _MATH_WORDS and word not in _NUMBER_WORDS
    word = _first_word(rest)
    if word is None:
        return False
    if word in CONNECTORS:
        return True
    if word in _MATH_WORDS or word in _NUMBER_WORDS:
        return False
    if delimited:
        return True
    if not allow_noun:
        return False
    # one plain noun ("13 pills."), then the sentence or clause must end
    after = rest[len(word) :]
    return _clean_after(after, delimited=False, allow_noun=False)


def _read_math(text: str, *, whole: bool = False) -> str | None:
    """The math answer at the start of `text` when it stands there cleanly, else None.

    With `whole`, nothing but punctuation may follow it (a box's content, a bare response).
    """
    text = _strip_markup(text)
    for opening, closing in _DELIMITERS:
        if text.startswith(opening):
            end = text.find(closing, len(opening))
            if end == -1:
                break
            inner = _read_math(_unwrap_text(text[len(opening) : end]), whole=True)
            after = text[end + len(closing) :]
            if inner is None:
                return None
            if whole:
                return inner if _only_a_noun(after) else None
            return inner if _clean_after(after, delimited=True) else None
    position = 0
    while (token := _MATH_TOKEN.match(text, position)) is not None and token.end() > position:
        position = token.end()
    span = text[:position].rstrip(" \t,.:=+-([{" + _MARKUP)
    after = text[len(span) :]
    if _RANGE.fullmatch(span):
        return None  # "13-14": a range, not one answer
    if not span.strip():
        words = number_words(text)
        if words is None:
            return None
        span, after = str(words[0]), text[words[1] :]
    unit = _UNITS.match(after.lstrip(" \t"))
    if unit is not None and (span[-1:].isdigit() or span.endswith("}")):
        used = len(after) - len(after.lstrip(" \t")) + unit.end()
        span, after = span + " " + unit.group(0), after[used:]
    if whole:
        return span if _only_a_noun(after) else None
    return span if _clean_after(after, delimited=False) else None


def _only_a_noun(rest: str) -> bool:
    """Nothing, or one plain noun ("pills"), after an answer that must stand alone."""
    rest = rest.strip(" .\t" + _MARKUP)
    if not rest:
        return True
    word = _first_word(rest)
    return (
        word is not None
        and len(word) == len(rest)
        and word not in _MATH_WORDS
        and word not in _NUMBER_WORDS
    )


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


# -- multiple choice -------------------------------------------------------------------------------

_LETTER = re.compile(
    r"(?:(?:option|choice|letter)\s*)?[*_`]*(?P<open>[(\[])?(?P<letter>[A-Za-z])(?P<close>[)\]])?"
    r"(?![A-Za-z0-9'])",
    re.IGNORECASE,
)
_SEPARATORS = ".):,;\u2014\u2013-("
_ANOTHER_LETTER = re.compile(r"(?:or|and|/|,)\s*(?:option\s+)?[(\[]?[A-Z][)\]]?(?![A-Za-z])")


def _option_named(text: str, options: Mapping[str, str]) -> tuple[str, int] | None:
    """The option whose text opens `text` (longest match) and the characters it covers."""
    head = text.casefold()
    best: tuple[str, int] | None = None
    for label, option in options.items():
        name = option.strip().rstrip(".").casefold()
        if not name or not head.startswith(name):
            continue
        tail = head[len(name) :]
        if tail[:1].isalnum() or re.match(r"[.,]\d", tail):
            continue  # "4" inside "4.5", "cat" inside "cats"
        if best is None or len(name) > best[1]:
            best = (label.upper(), len(name))
    return best


def _clean_after_option(rest: str) -> bool:
    """Whether what follows an option's text leaves that option as the answer."""
    rest = rest.lstrip(" \t" + _MARKUP + "\"'\u201d\u2019")
    if not rest or rest[0] in ".!;\n\r":
        return True
    if rest[0] in ",:(\u2014\u2013-)":
        word = _first_word(rest[1:].lstrip(" \t" + _MARKUP))
        return word not in ("or", "and", "not", "nor", "versus", "vs")
    return _first_word(rest) in CONNECTORS


def _read_choice(text: str, options: Mapping[str, str] | None) -> str | None:
    """The option letter `text` opens with when it names exactly one option, else None."""
    text = _strip_markup(_unwrap_text(text))
    labels = {label.upper() for label in options} if options else set("ABCDEFGHIJ")
    named = _option_named(text, options) if options else None
    letter = _letter_at(text, labels, options or {})
    if named is not None:
        if letter not in (None, named[0]) and letter != "":
            return None
        return named[0] if _clean_after_option(text[named[1] :]) else None
    return letter or None


def _letter_at(text: str, labels: set[str], options: Mapping[str, str]) -> str | None:
    """The letter at the start of `text`: a label, "" when there is none, None when unclear."""
    match = _LETTER.match(text)
    if match is None or match.group("letter").upper() not in labels:
        return ""
    letter = match.group("letter")
    bracketed = match.group("open") is not None or match.group("close") is not None
    stripped = text[match.end() :].lstrip(_MARKUP + "\"'\u201d\u2019").lstrip(" \t")
    if letter.islower() and not bracketed and (letter in "ai" or stripped[:1].isalpha()):
        return None  # "a", "i", or a lowercase letter in a sentence
    if _ANOTHER_LETTER.match(stripped):
        return None  # "A or B", "A/B", "A, B"
    if not stripped or stripped[0] in "!\n\r":
        return letter.upper()
    if stripped[0] == "?":
        return None
    if stripped[0] in _SEPARATORS:
        after_sep = stripped[1:].lstrip(" \t" + _MARKUP + "(")
        if _ANOTHER_LETTER.match(after_sep):
            return None
        named = _option_named(after_sep, options)
        if named is not None and named[0] != letter.upper():
            return None  # "C) Asthma" when Asthma is B
        return letter.upper()
    named = _option_named(stripped, options)
    if named is not None:
        return letter.upper() if named[0] == letter.upper() else None
    word = _first_word(stripped)
    return letter.upper() if word in CONNECTORS else None


_BARE_LETTER = re.compile(r"(?:(?:option|choice)\s+)?[(\[]?(?P<letter>[A-Z])[)\]]?[.:]?")
_LETTER_AND_TEXT = re.compile(r"[(\[]?(?P<letter>[A-Z])[)\].:]\s*(?P<text>.+)")


def _bare_choice(text: str, options: Mapping[str, str] | None, *, letters_only: bool) -> str | None:
    """The option `text` is nothing but: "C", "(C)", "**Option C**", or "Heart failure"."""
    bare = text.strip(" \t" + _MARKUP + ">#-").rstrip(".!").strip(" \t" + _MARKUP)
    labels = {label.upper() for label in options} if options else set("ABCDEFGHIJ")
    match = _BARE_LETTER.fullmatch(bare)
    if match is not None:
        return match.group("letter") if match.group("letter") in labels else None
    if letters_only or not options:
        return None
    texts = {option.strip().rstrip(".").casefold(): label for label, option in options.items()}
    if bare.casefold() in texts:
        return texts[bare.casefold()].upper()
    both = _LETTER_AND_TEXT.fullmatch(bare)
    if both is not None and texts.get(both.group("text").strip().rstrip(".").casefold()) == (
        both.group("letter")
    ):
        return both.group("letter")
    return None


# -- putting the statements together ---------------------------------------------------------------


def _statement_text(response: str, end: int) -> str:
    """What follows a phrase on its line, or the next non-empty line when the line ends there."""
    line_end = response.find("\n", end)
    rest = response[end:] if line_end == -1 else response[end:line_end]
    if rest.strip(" \t" + _MARKUP):
        return rest
    for line in response[end:].splitlines()[1:]:
        if line.strip(" \t" + _MARKUP):
            return line
    return ""


def _candidates(
    response: str, kind: VerdictKind, options: Mapping[str, str] | None
) -> list[Candidate]:
    def read(text: str, whole: bool = False) -> str | None:
        if kind == "math":
            return _read_math(text, whole=whole)
        return _read_choice(text, options)

    found = [
        Candidate(_read_math(_unwrap_text(box), whole=True) if kind == "math" else read(box),
                  FINAL, r"\boxed{}")
        for box in all_boxed(response)
    ]  # fmt: skip
    for phrase in _PHRASE.finditer(response):
        text = _statement_text(response, phrase.end())
        if _BOX.search(text) or _PHRASE.match(_strip_markup(text)):
            continue  # the box (or the phrase that follows) is the statement
        strength = FINAL if "final" in phrase.group(0).lower() else STATED
        found.append(Candidate(read(text), strength, " ".join(phrase.group(0).split())))
    if found:
        return found
    if kind == "multiple_choice":
        for line in response.splitlines():
            if (letter := _bare_choice(line, options, letters_only=True)) is not None:
                found.append(Candidate(letter, FALLBACK, "a line with only the letter"))
        single = response.strip()
        letter = _bare_choice(single, options, letters_only=False) if not found else None
        if letter is not None and "\n" not in single:
            found.append(Candidate(letter, FALLBACK, "the whole response"))
    elif (whole := _read_math(response.strip(), whole=True)) is not None:
        found.append(Candidate(whole, FALLBACK, "the whole response"))
    return found


def _same(a: str, b: str, kind: VerdictKind) -> bool:
    return a == b if kind == "multiple_choice" else a == b or math_equal(a, b)


def read_answer(
    response: str, kind: VerdictKind, options: Mapping[str, str] | None = None
) -> Reading:
    """The one answer a response commits to, or None with why (see the module docstring)."""
    if kind not in get_args(VerdictKind):
        raise ValueError(f"kind must be one of {', '.join(get_args(VerdictKind))}; got {kind!r}")
    candidates = _candidates(response, kind, options)
    if not candidates:
        return Reading(None, "no committed answer found")
    strongest = min(c.strength for c in candidates)
    deciding = [c for c in candidates if c.strength == strongest]
    unclear = [c for c in deciding if c.answer is None]
    if unclear:
        return Reading(None, f"unclear answer after '{unclear[0].statement}'")
    answers = [c.answer for c in deciding if c.answer is not None]
    if any(not _same(answers[0], other, kind) for other in answers[1:]):
        return Reading(None, f"conflicting answers: {', '.join(dict.fromkeys(answers))}")
    return Reading(answers[-1], deciding[-1].statement)


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
    an explicit final-answer line, "the answer is ...", a lone option letter) and the
    comparison with `gold` is certain; None otherwise, which is meant for the grader. An
    explicit final answer beats earlier mentions; two different committed answers, a hedge,
    or prose where the answer should be give None, never False.

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
    structured: bool = True,
) -> Correctness:
    """The verdict for one final response (see the module docstring)."""
    gold = problem.answer
    if gold is None or not str(gold).strip():
        return Correctness(None, "none", None, None, "the source has no gold answer", mode=mode)
    if mode == "grader":
        return await grade(problem, response, grader, "grader", mode=mode, structured=structured)
    kind = _KINDS.get(problem.kind)
    if kind is None:
        return await grade(problem, response, grader, "grader", mode=mode, structured=structured)
    reading = read_answer(response, kind, problem.options or None)
    if reading.answer is None:
        return await grade(
            problem,
            response,
            grader,
            f"grader ({reading.statement})",
            mode=mode,
            structured=structured,
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
            structured=structured,
        )
    method = _METHODS[problem.kind]
    return Correctness(float(verdict), method, reading.answer, gold, mode=mode)


CORRECTNESS_SCHEMA = verdict_schema(
    "correctness",
    {"justification": text("one sentence"), "correct": boolean("is the final answer correct?")},
)


def _read_verdict(found: dict[str, Any]) -> float:
    return float(read_yes_no(get_key(found, "correct"), "correct", allow_numbers=True))


async def grade(
    problem: Problem,
    response: str,
    grader: Model,
    method: str,
    *,
    extracted: str | None = None,
    mode: CorrectnessMode = "deterministic",
    structured: bool = True,
) -> Correctness:
    """Ask the grader whether the response's final answer matches the gold answer."""
    options = "\n".join(f"{label}. {option}" for label, option in problem.options.items())
    fence = Fence.over(response)
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
    return Correctness(
        result.value, method, extracted, problem.answer, result.reason, result.attempts, mode=mode
    )
