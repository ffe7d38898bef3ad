r"""What math-verify does not do for a math answer: strip what is not the value, read words.

`normalise` drops boxes, `$`, `\text{}`, spacing commands, degree signs, trailing units,
thousands separators, `x =` prefixes and Unicode minus / times / pi / root signs, so that
`\text{12 square units}` compares as `12` (`equivalence.math_equal` tries both forms).
`number_words` reads English number words ("thirteen", "one hundred and five"); `all_boxed`
finds every `\boxed{}`.
"""

import re

_UNITS = (
    r"square\s+units|sq\.?\s*units|units?|degrees?|cm|mm|km|m|meters?|metres?|inches|inch|in|"
    r"feet|foot|ft|miles?|mph|seconds?|minutes?|hours?|days?|years?|dollars?|cents?|"
    r"pounds?|lbs?|kg|g|grams?|liters?|litres?|ml|percent|points?|people|ways|students"
)
_TRAILING_UNIT = re.compile(rf"(?<=[\d}}.)\s])\s*(?:{_UNITS})(?:\^\{{?[23]\}}?|\^[23])?\s*$")
_THOUSANDS = re.compile(r"(?<![\d.])(\d{1,3})((?:,\d{3})+)(?![\d])")
_LHS = re.compile(r"^[a-zA-Z](?:_\{?\w+\}?)?\s*=\s*")
_DROP = ("\\left", "\\right", "\\!", "\\,", "\\;", "\\:", "\\displaystyle", "\\ ")
_UNICODE = (("\u2212", "-"), ("\u00d7", "\\times "), ("\u00f7", "/"), ("\u00b7", "\\cdot "),
            ("\u03c0", "\\pi "), ("\u221e", "\\infty "))  # fmt: skip
_ROOT_SIGN = re.compile(r"\u221a\s*(?:\{([^{}]*)\}|\(([^()]*)\)|(\d+(?:\.\d+)?))")


def unwrap(text: str, command: str) -> str:
    r"""Replace `\command{x}` by `x` (brace-matched, repeatedly)."""
    start = text.find(command + "{")
    while start != -1:
        inner, end = _braced(text, start + len(command))
        if inner is None:
            break
        text = text[:start] + inner + text[end:]
        start = text.find(command + "{")
    return text


def _braced(text: str, open_at: int) -> tuple[str | None, int]:
    """The content of the brace group opening at `open_at` and the index after it."""
    if open_at >= len(text) or text[open_at] != "{":
        return None, open_at
    depth = 0
    for index in range(open_at, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return text[open_at + 1 : index], index + 1
    return None, open_at


def boxed_spans(text: str) -> list[tuple[int, str]]:
    r"""Where each `\boxed{...}` (or `\fbox{...}`) starts, with its contents, in order.

    A box whose braces never close is left out.
    """
    found = []
    for match in re.finditer(r"\\(?:boxed|fbox)\s*(?=\{)", text):
        inner, _ = _braced(text, match.end())
        if inner is not None:
            found.append((match.start(), inner))
    return found


def all_boxed(text: str) -> list[str]:
    r"""The contents of every `\boxed{...}` (or `\fbox{...}`) in `text`, in order."""
    return [inner for _, inner in boxed_spans(text)]


def last_boxed(text: str) -> str | None:
    r"""The content of the last `\boxed{...}` (or `\fbox{...}`) in `text`."""
    boxes = all_boxed(text)
    return boxes[-1] if boxes else None


def normalise(answer: str) -> str:
    """A canonical string for a math answer (see the module docstring)."""
    text = answer.strip()
    for sign, latex in _UNICODE:
        text = text.replace(sign, latex)
    text = _ROOT_SIGN.sub(lambda m: "\\sqrt{" + next(g for g in m.groups() if g) + "}", text)
    boxed = last_boxed(text)
    if boxed is not None:
        text = boxed
    text = text.replace("\\$", "").replace("$", "").replace("\\(", "").replace("\\)", "")
    text = text.replace("\\[", "").replace("\\]", "")
    for command in ("\\text", "\\textbf", "\\mathrm", "\\mathbf", "\\textrm", "\\mbox"):
        text = unwrap(text, command)
    for drop in _DROP:
        text = text.replace(drop, " ")
    text = re.sub(r"\\[dt]frac", r"\\frac", text)
    text = re.sub(r"\^\s*\{?\\circ\}?|°|\\degree", "", text)
    text = text.replace("{,}", "").replace("\\%", "").replace("%", "")
    text = text.strip().rstrip(".").strip()
    text = _LHS.sub("", text)
    previous = None
    while previous != text:
        previous = text
        text = _TRAILING_UNIT.sub("", text).strip()
    text = _THOUSANDS.sub(lambda m: m.group(1) + m.group(2).replace(",", ""), text)
    return re.sub(r"\s+", "", text)


_SMALL = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
)  # fmt: skip
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}
_NEGATIVE = ("minus", "negative")
_NEXT_WORD = re.compile(r"[ \t]*(?:-[ \t]*)?([A-Za-z]+)")
_AFTER = {  # which kind of word may follow which ("" = start)
    "": ("sign", "unit", "ten"),
    "sign": ("unit", "ten"),
    "unit": ("hundred", "scale"),
    "ten": ("unit", "scale"),
    "hundred": ("unit", "ten", "scale", "and"),
    "and": ("unit", "ten"),
    "scale": ("unit", "ten"),
}


def _word_kind(word: str) -> str | None:
    if word in _NEGATIVE:
        return "sign"
    if word in _SMALL:
        return "unit"
    if word in _TENS:
        return "ten"
    if word == "hundred":
        return "hundred"
    if word in _SCALES:
        return "scale"
    return "and" if word == "and" else None


def number_words(text: str) -> tuple[int, int] | None:
    """Read English number words at the start of `text`: (value, characters read), or None.

    Cardinal numbers only ("thirteen", "twenty-one", "one hundred and five", "minus four");
    the longest well-formed reading wins, so "two and three" reads "two" and stops at "and".
    """
    position, sign, total, group, last = 0, 1, 0, 0, ""
    read: tuple[int, int] | None = None
    while (match := _NEXT_WORD.match(text, position)) is not None:
        if not last and match.group(0)[:1] in " \t-":
            break  # the reading starts at the first character
        word = match.group(1).lower()
        kind = _word_kind(word)
        if kind is None or kind not in _AFTER[last]:
            break
        if kind == "sign":
            sign = -1
        elif kind == "unit":
            if last == "ten" and (word == "zero" or _SMALL.index(word) >= 10):
                break
            group += _SMALL.index(word)
        elif kind == "ten":
            group += 20 + 10 * _TENS.index(word)
        elif kind == "hundred":
            group *= 100
        elif kind == "scale":
            total, group = total + group * _SCALES[word], 0
        position, last = match.end(), kind
        if kind not in ("sign", "and"):
            read = (sign * (total + group), position)
    return read


def split_top_level(text: str) -> list[str]:
    """`text` split at the commas outside any brackets: "(1, 2), 3" -> ["(1, 2)", " 3"]."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current]
