"""The shell commands in the documentation, read out of its fenced `bash` blocks.

Every command a reader can copy is checked: `inspect eval` against the task's parameters and
roles and Inspect's own options, `heedbench` against its argument parser, `python -m` and
`python tools/...` against the modules and files, `flow run` against the spec files. A command
whose models are all offline (`heedbench/random`, `mockllm/...`, `none`) is also run, cut to
one sample. A command of a kind this module does not know fails the test, so a new kind of
command in the docs gets a check too.
"""

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("evals/*/README.md")])
"""The documentation a user reads: the top-level README, the guides and each family's README."""

BLOCK = re.compile(r"```bash\n(.*?)```", re.DOTALL)
UNCHECKED = {
    "python3", "pip", ".", "source", "git", "cd", "bash", "ruff", "export", "mkdir", "cp",
    "wait", "for", "do", "done", "then", "fi", "if", "echo", "curl", "aws", "moto_server",
}  # fmt: skip
"""Set-up and shell plumbing: installing, activating, cloning, loops. The install commands are
what `.ci/run` and the packaging tests exercise; the rest is the shell's."""
OFFLINE_MODELS = ("heedbench/random", "heedbench/smoke", "heedbench/refusal", "mockllm/", "none")


@dataclass(frozen=True)
class Command:
    """One command as a reader would type it, with where it was found."""

    words: tuple[str, ...]
    source: str

    def __str__(self) -> str:
        return f"{self.source}: {shlex.join(self.words)}"


def _lines(block: str) -> Iterator[str]:
    """Logical lines of a block: continuations joined, comments and blanks dropped."""
    for raw in block.replace("\\\n", " ").splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            yield line


def _split(line: str) -> Iterator[list[str]]:
    """The simple commands of a line (`&&`, `;`, `|` and `&` separate them), as words."""
    try:
        words = shlex.split(line, comments=True)
    except ValueError:  # an unbalanced quote: the line is broken
        yield ["<unparsable>", line]
        return
    current: list[str] = []
    for word in words:
        if word in ("&&", ";", "|", "&", "||"):
            if current:
                yield current
            current = []
        elif word.endswith(";") and word != ";":
            current.append(word[:-1])
            yield current
            current = []
        else:
            current.append(word)
    if current:
        yield current


def commands() -> Iterator[Command]:
    """Every command in every fenced bash block of the documentation."""
    for path in DOCS:
        for block in BLOCK.findall(path.read_text(encoding="utf-8")):
            for line in _lines(block):
                for split in _split(line):
                    start = 0
                    while start < len(split) and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", split[start]):
                        start += 1  # an environment assignment before the command
                    if start < len(split):
                        yield Command(tuple(split[start:]), str(path.relative_to(ROOT)))


def is_unchecked(command: Command) -> bool:
    """Set-up and shell plumbing (see UNCHECKED)."""
    return command.words[0] in UNCHECKED or command.words[0].startswith("$")


def option_values(words: tuple[str, ...], flag: str) -> list[str]:
    """The values given to `flag` (as `flag value`)."""
    return [words[i + 1] for i, word in enumerate(words[:-1]) if word == flag]


def is_offline(words: tuple[str, ...]) -> bool:
    """Whether every model the command names runs without a network or key."""
    models = option_values(words, "--model") + [
        binding.split("=", 1)[1] for binding in option_values(words, "--model-role")
    ]
    spelled = [m for value in models for m in value.split(",")]
    return bool(spelled) and all(m.startswith(OFFLINE_MODELS) for m in spelled)


def has_placeholder(words: tuple[str, ...]) -> bool:
    """A value the reader fills in (`<commit sha>`, `$k`, `...`)."""
    return any(re.search(r"<[^>]+>|\$\w+|\.\.\.", word) for word in words)
