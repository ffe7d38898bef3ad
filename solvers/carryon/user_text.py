"""Cleaning what the simulated user writes before it enters the conversation.

Role models add labels ("User:"), stage directions ("*pauses*", "(sighs)") and wrapping
quotes; none of that belongs in the user's message. An empty result means the message must
be regenerated.
"""

import re

_LABEL = re.compile(r"^\s*(?:\*\*)?(?:user|human|me|you|person)(?:\*\*)?\s*:\s*", re.IGNORECASE)
_STAGE = re.compile(
    r"(?<!\w)\*[^*\n]{1,60}\*(?!\w)|\((?:pauses?|sighs?|laughs?|thinks?)[^)]*\)|\[[^\]\n]{1,60}\]",
    re.IGNORECASE,
)
_QUOTES = ('"', "'", "“", "”", "‘", "’")


def clean_user_text(text: str) -> str:
    """The simulated user's message without labels, stage directions or wrapping quotes."""
    cleaned = text.strip()
    first_line, _, rest = cleaned.partition("\n\n")
    if rest and _LABEL.match(first_line) is None and first_line.endswith(":"):
        cleaned = rest  # a preamble line such as "Here is my next message:"
    cleaned = _LABEL.sub("", cleaned)
    cleaned = _STAGE.sub("", cleaned)
    cleaned = " ".join(cleaned.split())
    while len(cleaned) >= 2 and cleaned[0] in _QUOTES and cleaned[-1] in _QUOTES:
        cleaned = cleaned[1:-1].strip()
    return cleaned
