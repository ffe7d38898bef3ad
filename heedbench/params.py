"""Checking task parameters (`-T key=value`) before anything loads or any model is called.

Inspect parses `-T` values as YAML, so `n=abc` arrives as a string, `n=6.5` as a float and
`allow_self_roles='false'` as the string "false". Each check below takes the value as it
arrived, accepts exactly the forms that mean what the user wrote, and otherwise raises a
`ParameterError` that names the parameter and what it accepts. One module serves every task.
"""

import contextvars
import difflib
import inspect
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

from heedbench.errors import InputError

Name = TypeVar("Name", bound=str)

_TRUE = "true"
_FALSE = "false"


class ParameterError(InputError):
    """A task parameter has a value the task cannot use; the message names it."""


FLAG = contextvars.ContextVar("FLAG", default="-T")
"""How the options being checked are given: `-T` for a task, `-S` for a scorer."""


@contextmanager
def scorer_options() -> Iterator[None]:
    """Check a scorer's options (`inspect score -S key=value`): messages name `-S`."""
    token = FLAG.set("-S")
    try:
        yield
    finally:
        FLAG.reset(token)


def _fail(name: str, expected: str, value: Any) -> ParameterError:
    return ParameterError(f"{FLAG.get()} {name}: must be {expected}; got {value!r}")


def _bounds(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f" from {low:g} to {high:g}"
    if low is not None:
        return f" of at least {low:g}"
    if high is not None:
        return f" of at most {high:g}"
    return ""


def _numeric(name: str, value: Any, whole: bool, low: float | None, high: float | None) -> float:
    """`value` as a finite number in the bounds (whole when `whole`); booleans are not numbers."""
    expected = f"{'an integer' if whole else 'a number'}{_bounds(low, high)}"
    if isinstance(value, str):
        try:
            value = (int if whole else float)(value.strip())
        except ValueError:
            raise _fail(name, expected, value) from None
    if isinstance(value, float) and whole and value.is_integer():
        value = int(value)
    if (
        isinstance(value, bool)
        or not isinstance(value, int if whole else int | float)
        or (not whole and not math.isfinite(value))
        or (low is not None and value < low)
        or (high is not None and value > high)
    ):
        raise _fail(name, expected, value)
    return value


def integer(name: str, value: Any, *, low: int | None = None, high: int | None = None) -> int:
    """A whole number (an int, or a string of digits) within the bounds."""
    return int(_numeric(name, value, True, low, high))


def optional_integer(
    name: str, value: Any, *, low: int | None = None, high: int | None = None
) -> int | None:
    """As `integer`, with None (unset) allowed."""
    return None if value is None else integer(name, value, low=low, high=high)


def number(name: str, value: Any, *, low: float | None = None, high: float | None = None) -> float:
    """A finite real number within the bounds (booleans are not numbers here)."""
    return float(_numeric(name, value, False, low, high))


def flag(name: str, value: Any) -> bool:
    """True or false; the strings true/false/yes/no/on/off (any case) read as written.

    Anything else is an error, never truthiness: `'false'` must not switch a safeguard off.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word == _TRUE:
            return True
        if word == _FALSE:
            return False
    raise _fail(name, "true or false", value)


def one_of(name: str, value: Any, allowed: Iterable[Name]) -> Name:
    """One of the allowed names (exact match), typed as they are (a `Literal`'s values)."""
    choices = tuple(allowed)
    for choice in choices:
        if isinstance(value, str) and value == choice:
            return choice
    raise _fail(name, f"one of {', '.join(choices)}", value)


def optional_one_of(name: str, value: Any, allowed: Iterable[Name]) -> Name | None:
    """As `one_of`, with None (unset) allowed."""
    return None if value is None else one_of(name, value, allowed)


def names(name: str, value: Any, allowed: Iterable[Name]) -> tuple[Name, ...]:
    """A non-empty list of allowed names: a list, or one comma-separated string."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not items:
        raise _fail(name, "a list of names", value)
    return tuple(one_of(name, str(item).strip(), allowed) for item in items)


def optional_text(name: str, value: Any) -> str | None:
    """A non-empty string, or None (unset)."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)  # YAML reads a bare number; e.g. a numeric revision or folder name
    raise _fail(name, "a non-empty text", value)


def reject_unknown(task: str, unknown: Mapping[str, Any], factory: Callable[..., Any]) -> None:
    """Refuse `-T` parameters the task does not have, naming the closest one it does.

    Inspect only warns about an unknown `-T` and then runs with the default, so a misspelt
    `-T nn=5` would start a full run. Each task takes `**unknown` so that Inspect hands such
    parameters over instead of dropping them, and calls this first.
    """
    extra = sorted(name for name in unknown if name != "model")  # Inspect always offers model
    if not extra:
        return
    known = [
        name
        for name, parameter in inspect.signature(factory).parameters.items()
        if parameter.kind in (parameter.KEYWORD_ONLY, parameter.POSITIONAL_OR_KEYWORD)
    ]
    name, flag = extra[0], FLAG.get()
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {flag} {close[0]}?" if close else ""
    raise ParameterError(
        f"{flag} {name}: heedbench/{task} has no such parameter{hint} (it takes {', '.join(known)})"
    )
