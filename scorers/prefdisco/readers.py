r"""Reading one answer at the start of a piece of text: a math expression or an option.

These readers say what an answer *is* where a response states one (after "the answer is", in a
box, after a correction); `answers.py` decides which statements count. Both return None when
the text there is not cleanly one answer, so that an unclear statement goes to the grader.

- Math: the expression at the start (`$...$`, `\(...\)`, or plain LaTeX / numbers, with a
  unit or one plain noun allowed: "13 pills."), or English number words ("thirteen"). A word
  that changes or hedges the number ("13 squared", "probably 13", "13 or 14") makes it unclear.
- Multiple choice: the option letter (`(B)`, `**B**`, `Option B`, `B)`, `\boxed{B}`) or the
  option named by its text; a letter followed by another option's text is unclear.
"""

import re
from collections.abc import Mapping

from heedbench.scorers.prefdisco.mathnorm import number_words, unwrap

MARKUP = "*_`"
_LEAD = re.compile(r"^[\s*_`\"'\u201c\u2018>]*")
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")


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


def strip_markup(text: str) -> str:
    """`text` without leading space, emphasis, quotes and `>` quoting."""
    return _LEAD.sub("", text)


def _first_word(text: str) -> str | None:
    match = _WORD.match(text)
    return match.group(0).lower() if match else None


def unwrap_text(latex: str) -> str:
    r"""`\text{13 pills}` → `13 pills`."""
    for command in _TEXT_COMMANDS:
        latex = unwrap(latex, command)
    return latex


# -- math ------------------------------------------------------------------------------------------


def _clean_after(rest: str, *, delimited: bool, allow_noun: bool = True) -> bool:
    """Whether what follows an answer leaves it as the answer (see the module docstring)."""
    rest = rest.lstrip(" \t" + MARKUP + "\"'\u201d\u2019")
    if not rest or rest[0] in ".!?;\n\r":
        return True
    if rest[0] in ",:(\u2014\u2013-":
        after = rest[1:].lstrip(" \t" + MARKUP)
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


def read_math(text: str, *, whole: bool = False) -> str | None:
    """The math answer at the start of `text` when it stands there cleanly, else None.

    With `whole`, nothing but punctuation may follow it (a box's content, a bare response).
    """
    text = strip_markup(text)
    for opening, closing in _DELIMITERS:
        if text.startswith(opening):
            end = text.find(closing, len(opening))
            if end == -1:
                break
            inner = read_math(unwrap_text(text[len(opening) : end]), whole=True)
            after = text[end + len(closing) :]
            if inner is None:
                return None
            if whole:
                return inner if _only_a_noun(after) else None
            return inner if _clean_after(after, delimited=True) else None
    position = 0
    while (token := _MATH_TOKEN.match(text, position)) is not None and token.end() > position:
        position = token.end()
    span = text[:position].rstrip(" \t,.:=+-([{" + MARKUP)
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
    rest = rest.strip(" .\t" + MARKUP)
    if not rest:
        return True
    word = _first_word(rest)
    return (
        word is not None
        and len(word) == len(rest)
        and word not in _MATH_WORDS
        and word not in _NUMBER_WORDS
    )


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
    rest = rest.lstrip(" \t" + MARKUP + "\"'\u201d\u2019")
    if not rest or rest[0] in ".!;\n\r":
        return True
    if rest[0] in ",:(\u2014\u2013-)":
        word = _first_word(rest[1:].lstrip(" \t" + MARKUP))
        return word not in ("or", "and", "not", "nor", "versus", "vs")
    return _first_word(rest) in CONNECTORS


def read_choice(text: str, options: Mapping[str, str] | None) -> str | None:
    """The option letter `text` opens with when it names exactly one option, else None."""
    text = strip_markup(unwrap_text(text))
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
    stripped = text[match.end() :].lstrip(MARKUP + "\"'\u201d\u2019").lstrip(" \t")
    if letter.islower() and not bracketed and (letter in "ai" or stripped[:1].isalpha()):
        return None  # "a", "i", or a lowercase letter in a sentence
    if _ANOTHER_LETTER.match(stripped):
        return None  # "A or B", "A/B", "A, B"
    if not stripped or stripped[0] in "!\n\r":
        return letter.upper()
    if stripped[0] == "?":
        return None
    if stripped[0] in _SEPARATORS:
        after_sep = stripped[1:].lstrip(" \t" + MARKUP + "(")
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


def bare_choice(text: str, options: Mapping[str, str] | None, *, letters_only: bool) -> str | None:
    """The option `text` is nothing but: "C", "(C)", "**Option C**", or "Heart failure"."""
    bare = text.strip(" \t" + MARKUP + ">#-").rstrip(".!").strip(" \t" + MARKUP)
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
