"""The one error the judge-check data raises."""


class JudgeCheckDataError(ValueError):
    """A case breaks the judge-check schema; the message names file, record and field."""
