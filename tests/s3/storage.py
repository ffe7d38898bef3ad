"""What the S3 tests need around the server: buckets, their contents, and the doc's commands."""

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import s3fs  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "scale.md"
SECTION = "### Several machines, one bucket"
DOC_MODEL = "openai/gpt-4o-mini"
DOC_BUCKET = "my-bucket"
BIN = Path(sys.executable).parent
TIMEOUT = 600


class Store(Protocol):
    """What the tests need of an S3-compatible server (moto's or s3rver)."""

    @property
    def endpoint(self) -> str:
        """The URL a client puts in AWS_ENDPOINT_URL."""

    @property
    def env(self) -> dict[str, str]:
        """Endpoint and credentials, as a user exports them."""


@dataclass(frozen=True)
class Bucket:
    """One bucket on a server, and a client of the test's own to look inside it."""

    server: Any
    """A `Store`; moto's (`tests.s3.moto_server.S3Server`) can also be stopped and restarted."""
    name: str

    @classmethod
    def create(cls, server: Store, name: str) -> "Bucket":
        """Make the bucket and return it."""
        bucket = cls(server, name)
        bucket.fs().mkdir(name)
        return bucket

    def fs(self) -> Any:
        """An s3fs client for this server, configured explicitly (not from the environment)."""
        return s3fs.S3FileSystem(
            skip_instance_cache=True,
            key=self.server.env["AWS_ACCESS_KEY_ID"],
            secret=self.server.env["AWS_SECRET_ACCESS_KEY"],
            client_kwargs={"endpoint_url": self.server.endpoint},
        )

    def url(self, prefix: str) -> str:
        """s3://<bucket>/<prefix>."""
        return f"s3://{self.name}/{prefix}"

    def logs(self, prefix: str) -> list[str]:
        """The .eval objects under a prefix, as s3:// URLs, sorted."""
        found = self.fs().find(f"{self.name}/{prefix}")
        return sorted(f"s3://{key}" for key in found if key.endswith(".eval"))


def point_at(server: Store, monkeypatch: Any) -> None:
    """Point this process at `server`, as a user's environment would.

    s3fs keeps one filesystem per set of arguments, made with the endpoint the
    environment named at the time; a test that moves to another server drops them.
    """
    for name, value in server.env.items():
        monkeypatch.setenv(name, value)
    s3fs.S3FileSystem.clear_instance_cache()


def guide_blocks() -> list[str]:
    """The bash blocks of the guide's several-machines section, in order."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index(SECTION) :]
    section = section[: section.find("\n## ", 1)] if "\n## " in section else section
    return re.findall(r"```bash\n(.*?)```", section, re.DOTALL)


def exported(block: str) -> set[str]:
    """The variable names a block's `export` lines set."""
    names: set[str] = set()
    for line in block.splitlines():
        if line.startswith("export "):
            names |= {word.split("=", 1)[0] for word in shlex.split(line)[1:]}
    return names


def commands(block: str, replace: Mapping[str, str]) -> list[list[str]]:
    """A block's command lines (not its exports), with the given texts replaced."""
    found: list[list[str]] = []
    for line in block.splitlines():
        if not line.strip() or line.startswith("export "):
            continue
        text = line
        for old, new in replace.items():
            text = text.replace(old, new)
        found.append(shlex.split(text))
    return found


def environment(server: Store, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A command's environment: this one's, the store's endpoint and key, and `extra`."""
    env = {**os.environ, **server.env, **(extra or {})}
    env.pop("INSPECT_LOG_DIR", None)
    return env


def start(command: list[str], env: Mapping[str, str], cwd: Path) -> "subprocess.Popen[str]":
    """Start a command of the guide (inspect, flow, heedbench) from this environment's bin/."""
    program = str(BIN / command[0])
    return subprocess.Popen(
        [program, *command[1:]], cwd=cwd, env=dict(env), text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip


def finish(process: "subprocess.Popen[str]") -> str:
    """Wait for a command; its output, which must end in success."""
    output, _ = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, output[-4000:]
    return output


def run(command: list[str], env: Mapping[str, str], cwd: Path) -> str:
    """Run a command to its successful end; its output."""
    return finish(start(command, env, cwd))
