"""The one error the judge-check data raises."""

from heedbench.errors import InputError


class JudgeCheckDataError(InputError):
    """A case breaks the judge-check schema; the message names file, record and field."""
