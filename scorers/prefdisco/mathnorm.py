r"""Deterministic equivalence of math answers: LaTeX, fractions, decimals, roots, units.

Both sides are normalised (boxes, `$`, `\text{}`, spacing commands, degree signs, trailing
units, thousands separators, `x =` prefixes, Unicode minus / times / pi / root signs),
compared as strings, then, if that fails, evaluated as numbers by a small safe evaluator
(`\frac`, `\sqrt`, `\pi`, `^`, implicit products) and compared with a relative tolerance.
Tuples and lists compare element by element. `numeric_values` says whether an answer is plain
numbers at all (only then can a mismatch be called wrong), and `number_words` reads English
number words ("thirteen", "one hundred and five").
"""

import ast
import math
import operator
import re
from collections.abc import Callable

REL_TOL = 1e-6

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


def all_boxed(text: str) -> list[str]:
    r"""The contents of every `\boxed{...}` (or `\fbox{...}`) in `text`, in order."""
    found = []
    for match in re.finditer(r"\\(?:boxed|fbox)\s*(?=\{)", text):
        inner, _ = _braced(text, match.end())
        if inner is not None:
            found.append(inner)
    return found


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


def _to_python(latex: str) -> str:
    """Turn a normalised LaTeX expression into Python arithmetic syntax."""
    text = latex
    while "\\frac" in text:
        start = text.find("\\frac")
        numerator, after = _braced(text, start + 5)
        if numerator is None:
            # \frac12 shorthand: two single characters
            short = re.match(r"\\frac(\d)(\d)", text[start:])
            if short is None:
                raise ValueError("unreadable \\frac")
            text = text[:start] + f"({short.group(1)})/({short.group(2)})" + text[start + 7 :]
            continue
        denominator, end = _braced(text, after)
        if denominator is None:
            raise ValueError("unreadable \\frac")
        text = text[:start] + f"(({numerator})/({denominator}))" + text[end:]
    text = re.sub(r"\\sqrt\[(\d+)\]\{", r"root\1{", text)
    text = re.sub(r"\\sqrt(\d)", r"sqrt{\1}", text)
    text = text.replace("\\sqrt", "sqrt")
    text = re.sub(r"root(\d+)\{", r"root\1(", text)
    text = text.replace("\\pi", "pi").replace("\\cdot", "*").replace("\\times", "*")
    text = text.replace("{", "(").replace("}", ")").replace("^", "**")
    text = re.sub(r"root(\d+)\(", r"nroot(\1,", text)
    # implicit products: 2sqrt(3), 3pi, )(, 2(
    text = re.sub(r"(?<=[\d)])(?=(?:sqrt|pi|nroot|\())", "*", text)
    text = re.sub(r"(?<=pi)(?=[\d(])", "*", text)
    # Python refuses leading zeros ("072", an AIME-style answer): drop them from integers
    return re.sub(r"(?<![\d.])0+(?=\d)", "", text)


_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.Name) and node.id == "pi":
        return math.pi
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _evaluate(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > 64:
            raise ValueError("exponent too large")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        args = [_evaluate(arg) for arg in node.args]
        if node.func.id == "sqrt" and len(args) == 1 and args[0] >= 0:
            return math.sqrt(args[0])
        if node.func.id == "nroot" and len(args) == 2 and args[1] >= 0:
            return float(args[1] ** (1.0 / args[0]))
    raise ValueError("not plain arithmetic")


def to_number(answer: str) -> float | None:
    """The numeric value of a normalised answer, or None when it is not plain arithmetic."""
    try:
        tree = ast.parse(_to_python(answer), mode="eval")
        value = _evaluate(tree)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, RecursionError):
        return None
    return value if math.isfinite(value) else None


def numeric_values(answer: str) -> tuple[float, ...] | None:
    """The numbers a normalised answer consists of (one, or a tuple's), or None.

    None when any part is not plain arithmetic (a variable, an interval sign, prose): such an
    answer can be equal to another without matching it, so a mismatch proves nothing.
    """
    single = to_number(answer)
    if single is not None:
        return (single,)
    body = answer
    if len(body) >= 2 and body[0] in "([{" and body[-1] in ")]}":
        body = body[1:-1]
    values = [to_number(part) for part in _split_top_level(body)]
    if len(values) < 2 or any(value is None for value in values):
        return None
    return tuple(value for value in values if value is not None)


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


def _split_top_level(text: str) -> list[str]:
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


def _same(left: str, right: str) -> bool:
    if left == right:
        return True
    a, b = to_number(left), to_number(right)
    return a is not None and b is not None and math.isclose(a, b, rel_tol=REL_TOL, abs_tol=1e-9)


def math_equal(response_answer: str, gold: str) -> bool:
    """Whether two math answers are the same value (see the module docstring)."""
    left, right = normalise(response_answer), normalise(gold)
    if not left or not right:
        return False
    if _same(left, right):
        return True
    brackets = "()[]{}"
    if left[:1] in brackets and right[:1] == left[:1] and left[-1:] == right[-1:]:
        left_parts = _split_top_level(left[1:-1])
        right_parts = _split_top_level(right[1:-1])
    else:
        left_parts, right_parts = _split_top_level(left), _split_top_level(right)
    if len(left_parts) < 2 or len(left_parts) != len(right_parts):
        return False
    return all(_same(a, b) for a, b in zip(left_parts, right_parts, strict=True))
