"""Cleaning what the simulated user writes before it enters the conversation.

Role models add labels ("User:"), stage directions ("*pauses*", "(sighs)", "[laughs]") and
wrapping quotes; none of that belongs in the user's message. Only those are removed: the
user's own words stay, emphasis ("I *really* need this") and bracketed content ("cite [the
2011 edition] for me?") included. An empty result means the message must be regenerated.

A stage direction is a whole aside — text between asterisks, parentheses or square brackets —
of a few words that opens with a word of stage-direction kind: a sound, gesture or pause
(`sighs`, `nods`, `pauses`, `clears throat`, ...) or a mood tag (`frustrated`, `nervously`).
A line that holds only such an aside goes with it. Any other aside is the user's content.
"""

import re

_LABEL = re.compile(r"^\s*(?:\*\*)?(?:user|human|me|you|person)(?:\*\*)?\s*:\s*", re.IGNORECASE)
_QUOTES = ('"', "'", "“", "”", "‘", "’")

_STAGE_WORD_LIST = """
    pause pauses pausing sigh sighs sighing laugh laughs laughing chuckle chuckles chuckling
    giggle giggles smile smiles smiling grin grins nod nods nodding shrug shrugs shrugging
    frown frowns frowning wince winces groan groans groaning hesitate hesitates hesitating
    hesitation think thinks thinking cough coughs breath breathes exhales inhales
    rolls scratches types typing scrolls scrolling rereads re-reads leans waits waiting sips
    fidgets blinks mutters muttering mumbles whispers silence frustrated annoyed exasperated
    confused nervous nervously hesitant hesitantly sheepish sheepishly embarrassed impatient
    impatiently sarcastic sarcastically quietly softly sadly awkwardly
"""
STAGE_WORDS = frozenset(_STAGE_WORD_LIST.split())
"""Words that open a stage direction (lower case). An aside opening with any other word is
kept: it is emphasis or content."""
OPENERS_NEEDING_A_NOUN = frozenset({"deep", "long", "short", "takes", "clears", "brief"})
"""Openers that make a stage direction only with one of `STAGE_NOUNS` after them: "(long
pause)" and "*takes a deep breath*" are stage directions, "(long story)" is not."""
STAGE_NOUNS = frozenset({"breath", "pause", "sigh", "silence", "laugh", "throat", "moment"})
MAX_STAGE_WORDS = 10
"""A longer aside is a sentence of the user's, whatever its first word."""

_ASIDE = re.compile(
    r"(?<![\w*])\*(?!\s)([^*\n]{1,80}?)(?<!\s)\*(?![\w*])|\(([^()\n]{1,80})\)|\[([^\[\]\n]{1,80})\]"
)
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)


def is_stage_direction(aside: str) -> bool:
    """Whether the text inside an aside's asterisks or brackets is a stage direction."""
    words = [w.lower().strip(".,;:!?…-") for w in _ARTICLE.sub("", aside.strip()).split()]
    if not words or len(words) > MAX_STAGE_WORDS:
        return False
    if words[0] in OPENERS_NEEDING_A_NOUN:
        return any(word in STAGE_NOUNS for word in words[1:])
    return words[0] in STAGE_WORDS


_GAP = "\x00"
"""Where a stage direction was: a space, or nothing before punctuation."""


def _drop_stage_direction(match: re.Match[str]) -> str:
    inside = next(group for group in match.groups() if group is not None)
    return _GAP if is_stage_direction(inside) else match.group(0)


def clean_user_text(text: str) -> str:
    """The simulated user's message without labels, stage directions or wrapping quotes."""
    cleaned = text.strip()
    first_line, _, rest = cleaned.partition("\n\n")
    if rest and _LABEL.match(first_line) is None and first_line.endswith(":"):
        cleaned = rest  # a preamble line such as "Here is my next message:"
    cleaned = _LABEL.sub("", cleaned)
    cleaned = _ASIDE.sub(_drop_stage_direction, cleaned)
    cleaned = re.sub(f"\\s*{_GAP}\\s*(?=[,.;:!?])", "", cleaned).replace(_GAP, " ")
    cleaned = " ".join(cleaned.split())
    while len(cleaned) >= 2 and cleaned[0] in _QUOTES and cleaned[-1] in _QUOTES:
        cleaned = cleaned[1:-1].strip()
    return cleaned
