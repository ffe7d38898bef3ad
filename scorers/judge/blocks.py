"""Putting untrusted text (responses, conversations) into a prompt so it cannot pose as the prompt.

Two layers:

1. Every piece of untrusted text sits in its own block whose opening and closing lines carry a
   code the text cannot know (`Fence`): a digest of all the texts the prompt fences
   (`Fence.over`), or a random draw (`Fence()`). A text cannot contain a digest of itself, so
   it cannot close its block, open a new one or speak as another conversation turn: the role
   of each message is stated on the fenced line, outside the text. The digest keeps prompts
   deterministic, so Inspect's cache and provider prompt caches still apply and a run can be
   reproduced from its log.
2. Inside the text, anything shaped like a block marker is neutralised (`neutralise`): our own
   `<<<`/`>>>` markers, and `[BEGIN DATA]`/`[END DATA]` in any case, spacing or look-alike
   spelling (tabs, non-breaking and zero-width spaces, full-width brackets, Greek or Cyrillic
   letters), so a grader that skims for markers is not misled either. Inspect's own
   neutralisation covers the exact-case form; this one is written here because Inspect keeps it
   private.

`read_blocks` parses a prompt's blocks back, for scripted graders and users in tests.
"""

import hashlib
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

_ZW = "[\u200b\u200c\u200d\u2060\ufeff\u00ad]*"
_SPACE = "[\\s\u00a0\u2000-\u200a\u3000\u200b\u200c\u200d\u2060\ufeff_]*"
_LETTERS = {
    "A": "AaΑαАаＡａ",
    "B": "BbΒВвＢｂ",
    "D": "DdＤｄ",
    "E": "EeΕεЕеＥｅ",
    "G": "GgＧｇ",
    "I": "IiΙιІіＩｉ",
    "N": "NnΝＮｎ",
    "T": "TtΤτТтＴｔ",
}
_OPEN = "[\\[［【〔〚⟦<＜‹«(（{]"
_CLOSE = "[\\]］】〕〛⟧>＞›»)）}]"


def _word(word: str) -> str:
    return _ZW.join(f"[{re.escape(_LETTERS[letter])}]" for letter in word)


_LOOKALIKE_MARKER = re.compile(
    f"{_OPEN}+{_SPACE}(?P<word>{_word('BEGIN')}|{_word('END')}){_SPACE}{_word('DATA')}"
    f"(?:{_SPACE}{_CLOSE}+)?"
)
_ANGLE_RUN = re.compile("(?:[<＜‹«]\\s*){3,}|(?:[>＞›»]\\s*){3,}")


def neutralise(text: str) -> str:
    """`text` with every marker-shaped string defused; nothing else changes."""

    def defuse(match: re.Match[str]) -> str:
        begins = match.group("word")[:1] in _LETTERS["B"]
        return "[BEGIN-DATA]" if begins else "[END-DATA]"

    def shorten(run: re.Match[str]) -> str:
        return "»" if run.group(0).lstrip()[0] in ">＞›»" else "«"

    return _ANGLE_RUN.sub(shorten, _LOOKALIKE_MARKER.sub(defuse, text))


def _code() -> str:
    return secrets.token_hex(8)


@dataclass(frozen=True)
class Fence:
    """Block markers with a random code for one call's prompt."""

    code: str = field(default_factory=_code)

    @classmethod
    def over(cls, *texts: str) -> "Fence":
        """A fence whose code is a digest of every untrusted text the prompt will hold."""
        digest = hashlib.sha256("\x00".join(texts).encode("utf-8", "surrogatepass"))
        return cls(digest.hexdigest()[:16])

    def block(self, label: str, text: str) -> str:
        """`text` in its own block, headed by `label` (which is ours, never untrusted)."""
        return f"<<<DATA {self.code} | {label}>>>\n{neutralise(text)}\n<<<END {self.code}>>>"

    def conversation(self, messages: Sequence[tuple[str, str]]) -> str:
        """Each `(speaker, text)` message in a block of its own, numbered in order."""
        return "\n\n".join(
            self.block(f"message {number} — {speaker}", text)
            for number, (speaker, text) in enumerate(messages, start=1)
        )

    @property
    def announcement(self) -> str:
        """The line that tells the reader which code this prompt's blocks carry."""
        return f"Block code for this request: {self.code}"


_BLOCK = re.compile(
    r"<<<DATA (?P<code>[0-9a-f]{16}) \| (?P<label>[^\n]*)>>>\n(?P<text>.*?)\n<<<END (?P=code)>>>",
    re.DOTALL,
)


def read_blocks(prompt: str) -> list[tuple[str, str]]:
    """The `(label, text)` blocks of a prompt built with `Fence`, in order."""
    announced = re.search(r"Block code for this request: ([0-9a-f]{16})", prompt)
    return [
        (match.group("label"), match.group("text"))
        for match in _BLOCK.finditer(prompt)
        if announced is None or match.group("code") == announced.group(1)
    ]
