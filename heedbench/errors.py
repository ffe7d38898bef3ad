"""Mistakes in how a run was asked for, told in one line instead of a traceback.

A misspelt `-T` parameter, a value of the wrong type, an unbound role or a broken data file
is the user's to fix, not a bug: the message already names the flag, file, record and field.
Inspect prints any exception a task raises with its full traceback (one task group inside
another makes that 120–300 lines, the cause on the last one). Every such heedbench error
derives from `InputError`, and `install_excepthook` (run when Inspect loads heedbench's entry
point) prints just its message. Anything else still gets its traceback: a bug should show
where it is. `HEEDBENCH_TRACEBACK=1` turns the short form off.
"""

import os
import re
import sys
from collections.abc import Iterator
from types import TracebackType

TRACEBACK_ENV = "HEEDBENCH_TRACEBACK"
"""Set to 1 to see the full traceback of an input error."""

_INSPECT_USAGE = (re.compile(r"^Model API \S+ of model '.*' not recognized"),)
"""Inspect's own messages for a mistake on the command line that it raises as a plain
ValueError: matched so that they, too, come out as one line with Inspect's wording."""


class InputError(ValueError):
    """Bad input from whoever started the run: the message says what to change."""


def _chain(error: BaseException) -> Iterator[BaseException]:
    """`error`, its causes and contexts, and the members of any exception group, depth first."""
    seen: set[int] = set()
    stack = [error]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        members = getattr(current, "exceptions", None)
        if isinstance(members, tuple):
            stack.extend(reversed([m for m in members if isinstance(m, BaseException)]))
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                stack.append(linked)


def input_error_message(error: BaseException) -> str | None:
    """The one line to print for `error` when it is (or wraps) an input error, else None."""
    for link in _chain(error):
        if isinstance(link, InputError):
            return f"heedbench: {link}"
        if type(link) is ValueError and any(p.search(str(link)) for p in _INSPECT_USAGE):
            return f"inspect: {link}"
    return None


def install_excepthook() -> None:
    """Print input errors as one line (exit status 1); hand everything else on unchanged."""
    previous = sys.excepthook
    if getattr(previous, "_heedbench", False):
        return

    def hook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
        message = None if os.environ.get(TRACEBACK_ENV) == "1" else input_error_message(error)
        if message is None:
            previous(kind, error, tb)
            return
        print(message, file=sys.stderr)
        print(f"(set {TRACEBACK_ENV}=1 to see the traceback)", file=sys.stderr)
        sys.exit(1)

    hook._heedbench = True  # type: ignore[attr-defined]
    sys.excepthook = hook
