"""A local S3-compatible server for the tests and benchmarks: moto's, in a process of its own.

`python -m tests.s3.moto_server --port 9000 [--state FILE]` serves S3 on 127.0.0.1 with
moto's server application (the one `moto_server` runs, and s3fs's own tests use). Its store
lives in memory; with `--state FILE` every request that changes it (PUT, POST, DELETE) is
appended to FILE as it arrives and replayed into the fresh store, before the port opens, when
the server is started again with the same file. So a server that is stopped and restarted
keeps its buckets, as a real object store does, and clients that retry meanwhile never see
it half restored.

The server counts what it sends: GET /_heedbench/stats answers
{"requests": n, "body_bytes": n}, the requests served and the response-body bytes sent (what
clients read from storage), and POST /_heedbench/stats/reset zeroes both.

`start_s3_server()` starts it as a subprocess and waits until it answers; `S3Server.stop()`
ends that process by its PID. Clients reach it the way a user reaches any S3-compatible
store: `AWS_ENDPOINT_URL` and credentials in the environment (`S3Server.env`).
"""

import argparse
import base64
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

HOST = "127.0.0.1"
STATS_PATH = "/_heedbench/stats"
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "heedbench-test",
    "AWS_SECRET_ACCESS_KEY": "heedbench-test-secret",
    "AWS_DEFAULT_REGION": "us-east-1",
}
"""Any key pair works (the server checks no signature); these are what the tests export."""
WRITES = ("PUT", "POST", "DELETE")

Environ = dict[str, Any]
StartResponse = Callable[..., Any]
App = Callable[[Environ, StartResponse], Iterable[bytes]]


class Counter:
    """Requests served and response-body bytes sent, safe across the server's threads."""

    def __init__(self) -> None:
        self.requests = 0
        self.body_bytes = 0
        self._lock = threading.Lock()

    def add(self, requests: int = 0, body_bytes: int = 0) -> None:
        """Count one request or some bytes."""
        with self._lock:
            self.requests += requests
            self.body_bytes += body_bytes

    def reset(self) -> None:
        """Start counting from zero."""
        with self._lock:
            self.requests = 0
            self.body_bytes = 0

    def snapshot(self) -> dict[str, int]:
        """The counters as JSON-ready numbers."""
        with self._lock:
            return {"requests": self.requests, "body_bytes": self.body_bytes}


def _request_body(environ: Environ) -> bytes:
    """Read the request body once and put it back for the application."""
    import io

    length = int(environ.get("CONTENT_LENGTH") or 0)
    body = b""
    if length:
        body = bytes(environ["wsgi.input"].read(length))
    elif environ.get("wsgi.input_terminated"):  # a chunked body, already de-chunked
        body = bytes(environ["wsgi.input"].read())
    environ["wsgi.input"] = io.BytesIO(body)
    return body


def _headers(environ: Environ) -> dict[str, str]:
    headers = {
        key[5:].replace("_", "-").title(): str(value)
        for key, value in environ.items()
        if key.startswith("HTTP_") and key != "HTTP_TRANSFER_ENCODING"
    }
    for key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
        if environ.get(key):
            headers[key.replace("_", "-").title()] = str(environ[key])
    return headers


class Journal:
    """The state file: one JSON line per write request, appended and flushed as it comes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def entries(self) -> Iterator[dict[str, Any]]:
        """Every recorded request, oldest first (none if the file does not exist yet)."""
        if not self.path.exists():
            return
        with self.path.open(encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    yield json.loads(line)

    def append(self, environ: Environ, body: bytes) -> None:
        """Record one request before the store applies it."""
        entry = {
            "method": environ["REQUEST_METHOD"],
            "path": environ.get("RAW_URI") or environ.get("PATH_INFO", "/"),
            "query": environ.get("QUERY_STRING", ""),
            "headers": _headers(environ),
            "body": base64.b64encode(body).decode("ascii"),
        }
        with self._lock, self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")
            out.flush()
            os.fsync(out.fileno())


@dataclass
class Middleware:
    """Counts responses, records writes, and serves the stats endpoint around moto's app."""

    app: App
    counter: Counter = field(default_factory=Counter)
    journal: Journal | None = None

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        """One request."""
        path = str(environ.get("PATH_INFO", ""))
        if path.startswith(STATS_PATH):
            if path.endswith("/reset"):
                self.counter.reset()
            body = json.dumps(self.counter.snapshot()).encode()
            start_response("200 OK", [("Content-Type", "application/json")])
            return [body]
        if self.journal is not None and environ["REQUEST_METHOD"] in WRITES:
            self.journal.append(environ, _request_body(environ))
        self.counter.add(requests=1)
        return self._counted(self.app(environ, start_response))

    def _counted(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        try:
            for chunk in chunks:
                self.counter.add(body_bytes=len(chunk))
                yield chunk
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()


def replay(app: App, journal: Journal) -> int:
    """Apply every recorded write to a fresh store, in order, without the network."""
    from werkzeug.test import Client

    client = Client(app)
    count = 0
    for entry in journal.entries():
        path = entry["path"].split("?", 1)[0]
        client.open(
            path,
            method=entry["method"],
            query_string=entry["query"],
            headers=entry["headers"],
            data=base64.b64decode(entry["body"]),
            base_url=f"http://{entry['headers'].get('Host', HOST)}",
        )
        count += 1
    return count


def serve(port: int, state: Path | None) -> None:
    """Replay the state file (if any), then serve until the process is stopped."""
    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        MotoRequestHandler,
        create_backend_app,
    )
    from werkzeug.serving import make_server

    moto_app: App = DomainDispatcherApplication(create_backend_app)
    journal = Journal(state) if state is not None else None
    replayed = replay(moto_app, journal) if journal is not None else 0
    app = Middleware(moto_app, journal=journal)
    server = make_server(HOST, port, app, threaded=True, request_handler=MotoRequestHandler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"s3 serving http://{HOST}:{server.server_port} (replayed {replayed})", flush=True)
    server.serve_forever()


def free_port() -> int:
    """A port on 127.0.0.1 nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class S3Server:
    """A running server process: its endpoint, and how a client is told to use it."""

    port: int
    state: Path | None
    log: Path
    process: "subprocess.Popen[bytes] | None" = None

    @property
    def endpoint(self) -> str:
        """The URL a client puts in AWS_ENDPOINT_URL."""
        return f"http://{HOST}:{self.port}"

    @property
    def env(self) -> dict[str, str]:
        """Endpoint and credentials, as a user exports them for any S3-compatible store."""
        return {"AWS_ENDPOINT_URL": self.endpoint, **CREDENTIALS}

    @property
    def pid(self) -> int:
        """The server process's id."""
        if self.process is None:
            raise RuntimeError("the S3 server is not running")
        return self.process.pid

    def start(self, timeout: float = 60.0) -> "S3Server":
        """Start the process and wait until it answers."""
        command = [sys.executable, "-m", "tests.s3.moto_server", "--port", str(self.port)]
        if self.state is not None:
            command += ["--state", str(self.state)]
        root = Path(__file__).resolve().parents[2]
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(command, cwd=root, stdout=out, stderr=out)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the S3 server exited: {self.log.read_text()[-2000:]}")
            try:
                self.stats()
                return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the S3 server did not answer within {timeout:.0f} s")

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

    def stats(self, reset: bool = False) -> dict[str, int]:
        """The server's counters (then zeroed, with `reset`)."""
        return server_stats(self.endpoint, reset)


def server_stats(endpoint: str, reset: bool = False) -> dict[str, int]:
    """The counters of the server at `endpoint` (then zeroed, with `reset`)."""
    url = endpoint + STATS_PATH + ("/reset" if reset else "")
    request = urllib.request.Request(url, method="POST" if reset else "GET")
    with urllib.request.urlopen(request, timeout=5) as response:
        stream: IO[bytes] = response
        counts: dict[str, int] = json.loads(stream.read())
        return counts


def start_s3_server(folder: Path, port: int | None = None, durable: bool = False) -> S3Server:
    """Start a server whose log (and, when `durable`, state file) live in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    server = S3Server(
        port=port or free_port(),
        state=folder / "s3-state.jsonl" if durable else None,
        log=folder / "s3-server.log",
    )
    return server.start()


def main() -> None:
    """Serve until stopped."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=9000)
    parser.add_argument("--state", type=Path, help="record writes here; replay them on start")
    args = parser.parse_args()
    serve(args.port, args.state)


if __name__ == "__main__":
    main()
