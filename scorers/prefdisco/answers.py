r"""Which one answer does a final response commit to, self-corrections included?

Personalised answers are long and chatty, and they correct themselves ("\boxed{9}. Wait, that
is only one root... so the sum is 7"). A misread answer would show up as an accuracy drop the
model never had, so `read_answer` returns an answer only when the response commits to one
unambiguously, and None (the grader decides) otherwise:

1. Statements that commit, strongest first: a `\boxed{}` or an explicit "final answer"
   statement; then "the answer is ...", "Answer: ...", "I'd go with ..."; then a response that
   ends in "..., so C"; then, when none of these exists, a line holding only an option letter
   or a response that is nothing but a math expression. A statement in the past ("Earlier I
   thought the answer is D", "I first said ...") is a discarded answer, not a commitment.
2. A correction after an answer — a marker such as "wait", "correction", "actually", "no,",
   "on second thought", or a negation followed by another answer ("not B, it is C", "the
   answer is not 9; it's 7") — discards every statement before it. After the last correction,
   "it's C", "the sum is 7" and an answer right after the marker ("no wait, (C) Heart
   failure") also commit. Nothing committing after the last correction: None.
3. Of the statements left, the strongest kind present decides; each of them must be readable
   (prose where the answer should be, a hedge or two options make it None) and they must
   agree. A weaker statement *after* the deciding answer that names a different answer ("Final
   answer: 13. (If you count the lid, the answer is 14.)") makes it None; an earlier weaker
   one is overruled ("Earlier the answer was 12 ... my final answer is 13").

So a later conflicting answer never leaves the first one standing: the result is the last
committed answer or None, never an answer the response took back.
"""

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, get_args

from heedbench.scorers.prefdisco.equivalence import math_equal
from heedbench.scorers.prefdisco.mathnorm import boxed_spans
from heedbench.scorers.prefdisco.readers import (
    MARKUP,
    bare_choice,
    read_choice,
    read_math,
    strip_markup,
    unwrap_text,
)

VerdictKind = Literal["math", "multiple_choice"]

FINAL, STATED, TAIL, FALLBACK = 0, 1, 2, 3
"""How strongly a statement commits: the strongest kind present decides."""

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
_PAST = re.compile(
    r"\b(?:thought|said|wrote|guessed|assumed|believed|figured|claimed|earlier|initially|"
    r"originally|previously|at\s+first)\b",
    re.IGNORECASE,
)
"""A word before a statement, in its sentence, that puts the statement in the past."""
_CLAUSE_END = re.compile(r"[.!?;,:](?=\s)|\n|\b(?:but|however|now)\b", re.IGNORECASE)
_CORRECTION = re.compile(
    r"""
    \b(?:wait|correction|actually|oops|scratch\s+that|on\s+second\s+thought|on\s+reflection|
        hold\s+on|my\s+(?:mistake|bad)|I\s+mean|I\s+made\s+(?:a|an)\s+(?:mistake|error)|
        let\s+me\s+(?:correct|fix|re-?check|reconsider|redo|re-?calculate)|
        that(?:'s|\u2019s|\s+is|\s+was)\s+(?:wrong|incorrect|not\s+right))\b
    | \bno\b(?=\s*[,;:!\u2014\u2013\u2026-]|\s+wait\b)
    """,
    re.IGNORECASE | re.VERBOSE,
)
_NEGATION = re.compile(r"\b(?:not|isn't|isn\u2019t)\s+(?=[*_(\[$\\]*(?:option\s+)?[A-Za-z0-9-])")
_RESTATED = re.compile(
    r"\b(?:it|that)(?:'s|\u2019s|\s+is|\s+must\s+be)\s+(?:actually\s+|really\s+)?"
    r"|\bthe\s+(?:[A-Za-z-]+\s+){0,3}?[A-Za-z-]+\s+(?:is|equals|comes\s+to)\s+",
    re.IGNORECASE,
)
"""After a correction only: "it's C", "the sum is 7"."""
_SO = re.compile(r"\bso\s*,?\s+", re.IGNORECASE)
_AFTER_MARKER = re.compile(r"^[\s,;:!.\u2014\u2013\u2026-]*")


@dataclass(frozen=True)
class Candidate:
    """One committing statement: the answer it reads as (None when unclear), and where."""

    answer: str | None
    strength: int
    statement: str
    position: int
    """Where the statement's answer starts: a correction discards statements before it."""


@dataclass(frozen=True)
class Cut:
    """A correction: statements before `position` no longer count (see the module docstring)."""

    position: int
    marker: str
    negation: bool
    """A negation ("not B") cuts only when an answer follows it; a marker always cuts."""


@dataclass(frozen=True)
class Reading:
    """What a response commits to: one answer, or None with the reason."""

    answer: str | None
    statement: str
    """Which statement gave the answer, or why there is none."""


Reader = Callable[[str], str | None]


def _reader(kind: VerdictKind, options: Mapping[str, str] | None) -> Reader:
    if kind == "math":
        return read_math
    return lambda text: read_choice(text, options)


def _soft(read: Reader, kind: VerdictKind) -> Reader:
    """A reader for weak cues ("it's", after "wait"): a math answer needs a number in it.

    So "it's a classic" never reads as the variable `a`.
    """
    if kind == "multiple_choice":
        return read

    return lambda text: _with_a_number(read(text))


def _with_a_number(answer: str | None) -> str | None:
    """The math answer when it holds a digit or a LaTeX command, else None."""
    return answer if answer is not None and re.search(r"[\d\\]", answer) else None


def _statement_text(response: str, end: int) -> str:
    """What follows a phrase on its line, or the next non-empty line when the line ends there."""
    line_end = response.find("\n", end)
    rest = response[end:] if line_end == -1 else response[end:line_end]
    if rest.strip(" \t" + MARKUP):
        return rest
    for line in response[end:].splitlines()[1:]:
        if line.strip(" \t" + MARKUP):
            return line
    return ""


def _in_the_past(response: str, start: int) -> bool:
    """Whether the clause before `start` puts the statement there in the past."""
    clause_start = 0
    for end in _CLAUSE_END.finditer(response, 0, start):
        clause_start = end.end()
    return _PAST.search(response, clause_start, start) is not None


def _boxes(response: str, kind: VerdictKind, read: Reader) -> list[Candidate]:
    found = []
    for start, box in boxed_spans(response):
        answer = read_math(unwrap_text(box), whole=True) if kind == "math" else read(box)
        found.append(Candidate(answer, FINAL, r"\boxed{}", start))
    return found


def _phrases(response: str, read: Reader) -> list[Candidate]:
    found = []
    for phrase in _PHRASE.finditer(response):
        text = _statement_text(response, phrase.end())
        bare = strip_markup(text)
        if _BOX.search(text) or _PHRASE.match(bare) or re.match(r"not\b", bare, re.I):
            continue  # the box (or the phrase that follows, or the negation) is the statement
        if _in_the_past(response, phrase.start()):
            continue
        strength = FINAL if "final" in phrase.group(0).lower() else STATED
        statement = " ".join(phrase.group(0).split())
        found.append(Candidate(read(text), strength, statement, phrase.end()))
    return found


def _ends_with_so(
    response: str, kind: VerdictKind, options: Mapping[str, str] | None
) -> list[Candidate]:
    """The answer in a closing "..., so C" or "..., so 7" (needs a number, for math)."""
    last = None
    for last in _SO.finditer(response):  # noqa: B007 (the last one is wanted)
        pass
    if last is None:
        return []
    rest = response[last.end() :]
    if kind == "math":
        answer = _with_a_number(read_math(rest, whole=True))
    else:
        answer = bare_choice(rest, options, letters_only=False)
    return [Candidate(answer, TAIL, "so ...", last.end())] if answer is not None else []


def _fallbacks(
    response: str, kind: VerdictKind, options: Mapping[str, str] | None
) -> list[Candidate]:
    """With no statement at all: lone option letters on their lines, or a bare expression."""
    found = []
    if kind == "multiple_choice":
        position = 0
        for line in response.splitlines(keepends=True):
            if (letter := bare_choice(line.rstrip("\r\n"), options, letters_only=True)) is not None:
                found.append(Candidate(letter, FALLBACK, "a line with only the letter", position))
            position += len(line)
        single = response.strip()
        letter = bare_choice(single, options, letters_only=False) if not found else None
        if letter is not None and "\n" not in single:
            found.append(Candidate(letter, FALLBACK, "the whole response", 0))
    elif (whole := read_math(response.strip(), whole=True)) is not None:
        found.append(Candidate(whole, FALLBACK, "the whole response", 0))
    return found


def _cuts(response: str, read: Reader) -> list[Cut]:
    markers = [Cut(m.end(), m.group(0), False) for m in _CORRECTION.finditer(response)]
    negations = [
        Cut(m.end(), m.group(0).strip(), True)
        for m in _NEGATION.finditer(response)
        if read(response[m.end() :]) is not None  # "not B", "not 9": a negated answer
    ]
    return sorted(markers + negations, key=lambda cut: cut.position)


def _after_corrections(response: str, cuts: list[Cut], read: Reader) -> list[Candidate]:
    """Statements that commit only after a correction: "it's C", "no wait, (C) ..."."""
    found = []
    for restated in _RESTATED.finditer(response):
        answer = read(response[restated.end() :])
        if answer is not None and not _in_the_past(response, restated.start()):
            statement = " ".join(restated.group(0).split())
            found.append(Candidate(answer, STATED, statement, restated.end()))
    for cut in cuts:
        if cut.negation:
            continue
        start = cut.position + _AFTER_MARKER.match(response[cut.position :]).end()  # type: ignore[union-attr]
        if _CORRECTION.match(response, start) or start >= len(response):
            continue  # "wait, no, ...": the next marker reads on
        if (answer := read(response[start:])) is not None:
            found.append(Candidate(answer, STATED, f"after '{cut.marker}'", start))
    return found


def _same(a: str, b: str, kind: VerdictKind) -> bool:
    return a == b if kind == "multiple_choice" else a == b or math_equal(a, b)


def _decide(
    candidates: list[Candidate], kind: VerdictKind, restatements: list[Candidate]
) -> Reading:
    """The answer the strongest statements agree on, unless a later one conflicts.

    `restatements` ("it's 7", "the sum is 7" with no correction before them) do not commit,
    but one after the deciding answer that names another answer is a conflict.
    """
    strongest = min(c.strength for c in candidates)
    deciding = [c for c in candidates if c.strength == strongest]
    unclear = [c for c in deciding if c.answer is None]
    if unclear:
        return Reading(None, f"unclear answer after '{unclear[0].statement}'")
    answers = [c.answer for c in deciding if c.answer is not None]
    if any(not _same(answers[0], other, kind) for other in answers[1:]):
        return Reading(None, f"conflicting answers: {', '.join(dict.fromkeys(answers))}")
    last = deciding[-1]
    assert last.answer is not None
    later = [
        c.answer
        for c in [*candidates, *restatements]
        if c.position > last.position
        and c.answer is not None
        and not _same(c.answer, last.answer, kind)
    ]
    if later:
        return Reading(None, f"a later answer conflicts: {last.answer}, then {later[0]}")
    return Reading(last.answer, last.statement)


def read_answer(
    response: str, kind: VerdictKind, options: Mapping[str, str] | None = None
) -> Reading:
    """The one answer a response commits to, or None with why (see the module docstring)."""
    if kind not in get_args(VerdictKind):
        raise ValueError(f"kind must be one of {', '.join(get_args(VerdictKind))}; got {kind!r}")
    read = _reader(kind, options)
    candidates = [
        *_boxes(response, kind, read),
        *_phrases(response, read),
        *_ends_with_so(response, kind, options),
    ]
    if not candidates:
        candidates = _fallbacks(response, kind, options)
    cuts = _cuts(response, read)
    late = _after_corrections(response, cuts, _soft(read, kind))
    effective = [
        cut
        for cut in cuts
        if not cut.negation
        or any(c.answer is not None and c.position > cut.position for c in candidates + late)
    ]
    if effective:
        last_cut = effective[-1]
        kept = sorted(
            (c for c in candidates + late if c.position >= last_cut.position),
            key=lambda c: c.position,
        )
        if not kept:
            if candidates:
                return Reading(
                    None, f"corrected after its answer ('{last_cut.marker}') with no answer after"
                )
            return Reading(None, "no committed answer found")
        return _decide(kept, kind, [])
    if not candidates:
        return Reading(None, "no committed answer found")
    return _decide(sorted(candidates, key=lambda c: c.position), kind, late)
