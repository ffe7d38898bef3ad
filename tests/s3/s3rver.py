"""A second S3-compatible server for the tests: s3rver (Node, from the npm registry).

It differs from moto where real stores differ: it answers a suffix range request
(`Range: bytes=-22`) with the object's first bytes, so Inspect's range reads of a log's zip
directory fail on it and the report must fall back to a whole-object read. `.ci/run` installs
it (`npm install --prefix build/s3rver s3rver@3.7.1`); the tests start it on 127.0.0.1 with a
data folder of their own and stop it by its PID.
"""

import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.s3.moto_server import HOST, free_port

ROOT = Path(__file__).resolve().parents[2]
INSTALL = "npm install --prefix build/s3rver s3rver@3.7.1"
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "S3RVER",
    "AWS_SECRET_ACCESS_KEY": "S3RVER",
    "AWS_DEFAULT_REGION": "us-east-1",
}
"""s3rver's only key pair."""


def s3rver_program() -> str | None:
    """Where s3rver is: $HEEDBENCH_S3RVER, build/s3rver (as `.ci/run` installs it), or PATH."""
    candidates = [os.environ.get("HEEDBENCH_S3RVER", ""),
                  str(ROOT / "build" / "s3rver" / "node_modules" / ".bin" / "s3rver")]  # fmt: skip
    found = [path for path in candidates if path and Path(path).is_file()]
    return found[0] if found else shutil.which("s3rver")


@dataclass
class S3rver:
    """A running s3rver process, told to clients as any S3-compatible store is."""

    program: str
    folder: Path
    port: int = 0
    process: "subprocess.Popen[bytes] | None" = None

    @property
    def endpoint(self) -> str:
        """The URL a client puts in AWS_ENDPOINT_URL."""
        return f"http://{HOST}:{self.port}"

    @property
    def env(self) -> dict[str, str]:
        """Endpoint and credentials, as a user exports them."""
        return {"AWS_ENDPOINT_URL": self.endpoint, **CREDENTIALS}

    def start(self, timeout: float = 30.0) -> "S3rver":
        """Start the process and wait until it answers."""
        self.port = self.port or free_port()
        data = self.folder / "data"
        data.mkdir(parents=True, exist_ok=True)
        command = [self.program, "--directory", str(data), "--address", HOST,
                   "--port", str(self.port), "--silent", "--allow-mismatched-signatures"]  # fmt: skip
        with (self.folder / "s3rver.log").open("ab") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=out)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"s3rver exited: {(self.folder / 's3rver.log').read_text()}")
            try:
                urllib.request.urlopen(self.endpoint, timeout=2).close()
                return self
            except urllib.error.HTTPError:
                return self  # it answers (an anonymous listing is refused)
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"s3rver did not answer within {timeout:.0f} s")

    def stop(self) -> None:
        """End the process by its PID (SIGTERM, then SIGKILL) and wait for it."""
        if self.process is None:
            return
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.process = None
