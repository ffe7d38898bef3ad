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
   `<<<`/`>>>` markers, `[BEGIN DATA]`/`[END DATA]` and the "Block code for this request"
   line. Look-alikes are found on a skeleton of the text: each character decomposed (NFKD:
   full-width, small-form, circled and mathematical letters become plain ones), zero-width
   and other format characters and combining marks dropped, and Unicode's confusables
   (`confusable-homoglyphs`: Greek and Cyrillic letters, `ᐸ`, `≪`, `‹`) mapped to the ASCII
   they imitate. A match is replaced in the original text; nothing else changes, so a
   response's own wording (a formula's superscripts, a name's accents) reaches the grader as
   written. Inspect's own neutralisation covers the exact-case form and is private.
3. A JSON object in the text that carries a verdict key of our judges (`VERDICT_KEYS`) has
   its braces swapped for `⦃ ⦄`: it stays readable, but it is no longer JSON a grader could
   copy as its verdict, and a grader's own verdict that happens to equal it is not an echo of
   the material (see `verdict.py`). Without this, a response that planted the verdict its
   grader would honestly give (`{"fulfilled": false}` after a refusal) would get that verdict
   set aside as an echo and leave the metrics: a way to hide failures.

`read_blocks` parses a prompt's blocks back, for scripted graders and users in tests.
"""

import hashlib
import re
import secrets
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache

from confusable_homoglyphs import confusables  # type: ignore[import-untyped]

from heedbench.scorers.judge.verdict import json_objects

VERDICT_KEYS = frozenset(
    {"fulfilled", "harm", "score", "scores", "correct", "met", "verdict", "rating", "grade"}
)
"""Keys that make a JSON object in judged text look like a verdict (see layer 3)."""
DEFUSED_BRACES = ("⦃", "⦄")

_EXTRA_LOOKALIKES = {"ε": "e", "τ": "t", "т": "t", "в": "b"}
"""Lower-case look-alikes the confusables table pairs only with their capitals."""


@cache
def _to_ascii() -> dict[str, str]:
    """Non-ASCII character -> the ASCII text it imitates, from Unicode's confusables."""
    table: dict[str, str] = {}
    for char, homoglyphs in confusables.confusables_data.items():
        if len(char) != 1 or char.isascii():
            continue
        ascii_forms = [h["c"] for h in homoglyphs if h["c"].isascii() and h["c"].strip()]
        if ascii_forms:
            table[char] = ascii_forms[0]
    table.update(_EXTRA_LOOKALIKES)
    return table


@lru_cache(maxsize=4096)
def _skeleton_of(char: str) -> str:
    """What one character looks like, in plain ASCII where it imitates ASCII ('' if nothing)."""
    if char.isascii():
        return char
    out = []
    for part in unicodedata.normalize("NFKD", char):
        if unicodedata.category(part) in ("Mn", "Me", "Cf") or part in "\u200b\u2060\ufeff":
            continue
        out.append(part if part.isascii() else _to_ascii().get(part, part))
    return "".join(out)


def skeleton(text: str) -> tuple[str, list[int]]:
    """The look-alike skeleton of `text`, with the original index of each of its characters."""
    chars: list[str] = []
    owners: list[int] = []
    for run in _ASCII_RUN.finditer(text):
        start, piece = run.start(), run.group()
        if piece.isascii():
            chars.append(piece)
            owners.extend(range(start, run.end()))
        else:
            shape = _skeleton_of(piece)
            chars.append(shape)
            owners.extend([start] * len(shape))
    return "".join(chars), owners


_ASCII_RUN = re.compile(r"[\x00-\x7f]+|[^\x00-\x7f]")


_GAP = r"[\s_\-.·]*"
_LETTER = {"I": "[Il1|]"}
_OPEN = "[\\[<({（［【〔〚⟦‹«❮〈⟨]"
_CLOSE = "[\\]>)}）］】〕〛⟧›»❯〉⟩]"


def _spaced(word: str) -> str:
    return _GAP.join(_LETTER.get(letter, letter) for letter in word)


_MARKER = re.compile(
    f"(?P<marker>{_OPEN}+{_GAP}(?P<word>{_spaced('BEGIN')}|{_spaced('END')}){_GAP}"
    f"{_spaced('DATA')}(?:{_GAP}{_CLOSE}+)?)"
    f"|(?P<code>{_spaced('BLOCK')}{_GAP}{_spaced('CODE')}{_GAP}{_spaced('FOR')}{_GAP}"
    f"{_spaced('THIS')}{_GAP}{_spaced('REQUEST')})"
    "|(?P<open>[<«‹](?:\\s*[<«‹]){2,})|(?P<close>[>»›](?:\\s*[>»›]){2,})",
    re.IGNORECASE,
)


def _defused(match: re.Match[str]) -> str:
    if match.group("marker"):
        return "[BEGIN-DATA]" if match.group("word")[:1] in "Bb" else "[END-DATA]"
    if match.group("code"):
        return "[quoted block-code line]"
    return "«" if match.group("open") else "»"


@lru_cache(maxsize=1024)
def neutralise(text: str) -> str:
    """`text` with marker-shaped strings and verdict-shaped JSON defused; nothing else changes."""
    # Cached: per-item judging fences the same response once per checklist item.
    return _defuse_verdicts(_defuse_markers(text))


def _defuse_verdicts(text: str) -> str:
    """`text` with the braces of every verdict-shaped JSON object, at any depth, swapped."""
    chars = list(text)
    for found in json_objects(text, nested=True):
        if any(str(key).strip().casefold() in VERDICT_KEYS for key in found.value):
            chars[found.start], chars[found.end - 1] = DEFUSED_BRACES
    return "".join(chars)


def _defuse_markers(text: str) -> str:
    shape, owners = skeleton(text)
    pieces: list[str] = []
    position = 0
    for match in _MARKER.finditer(shape):
        start, end = owners[match.start()], owners[match.end() - 1] + 1
        while end < len(text) and not _skeleton_of(text[end]):
            end += 1  # a trailing zero-width or combining character goes with the marker
        pieces += [text[position:start], _defused(match)]
        position = end
    return "".join([*pieces, text[position:]])


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

    def conversation(self, messages: Sequence[tuple[str, str]], start: int = 1) -> str:
        """Each `(speaker, text)` message in a block of its own, numbered in order from `start`."""
        return "\n\n".join(
            self.block(f"message {number} — {speaker}", text)
            for number, (speaker, text) in enumerate(messages, start=start)
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
