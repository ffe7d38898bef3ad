"""Putting untrusted text (responses, conversations) into a prompt so it cannot pose as the prompt.

Each untrusted text sits in a block whose marker lines carry a code the text cannot know
(`Fence`): a digest of all the texts the prompt fences (`Fence.over`), or a random draw. A
text cannot contain a digest of itself, so it cannot close its block, open another or speak as
another turn (each message's role is on the fenced line); a marker it writes itself is just
text. The digest keeps prompts deterministic, so caches apply and a run reproduces from its
log. The verdict is read from the reply's structure alone (`verdict.py`), so nothing in the
text is rewritten. `read_blocks` parses the blocks back, for scripted graders in tests.
"""

import hashlib
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field


def _code() -> str:
    return secrets.token_hex(8)


@dataclass(frozen=True)
class Fence:
    """Block markers with a code for one call's prompt that its texts cannot know."""

    code: str = field(default_factory=_code)

    @classmethod
    def over(cls, *texts: str) -> "Fence":
        """A fence whose code is a digest of every untrusted text the prompt will hold."""
        digest = hashlib.sha256("\x00".join(texts).encode("utf-8", "surrogatepass"))
        return cls(digest.hexdigest()[:16])

    def block(self, label: str, text: str) -> str:
        """`text` in its own block, headed by `label` (which is ours, never untrusted)."""
        return f"<<<DATA {self.code} | {label}>>>\n{text}\n<<<END {self.code}>>>"

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
_ANNOUNCED = re.compile(r"Block code for this request: ([0-9a-f]{16})")


def read_blocks(prompt: str) -> list[tuple[str, str]]:
    """The `(label, text)` blocks of a prompt built with `Fence`, in order.

    Only blocks with the announced code count: an imitation with another code stays inside
    the real block that holds it.
    """
    announced = _ANNOUNCED.search(prompt)
    return [
        (match.group("label"), match.group("text"))
        for match in _BLOCK.finditer(prompt)
        if announced is None or match.group("code") == announced.group(1)
    ]
