"""An OpenAI-compatible chat-completions stub that answers heedbench prompts after a fixed delay.

Every reply comes after `latency` seconds. With `--responder choice` (default) it is a
uniformly random, well-formed answer to the prompt (`heedbench.models.chance.chance_answer`,
seeded by the prompt's hash), so a `choice` run against it scores at chance level. With
`--responder carryon` it plays target, simulated user and grader of a `carryon` run at once
(`heedbench.testing_carryon.stub_reply`).

One thread serves each keep-alive connection (HTTP/1.1 with Content-Length), so requests on
different connections never wait for each other. The server counts requests served, the peak
number in flight at once, and its own CPU time per request.

Endpoints: POST /v1/chat/completions (and /chat/completions), GET /v1/models (and /models),
GET /stats (counters as JSON), POST /stats/reset.

Usage: python -m benchmarks.stub_server --latency 0.1 --port 8765
"""

import argparse
import hashlib
import json
import random
import signal
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from heedbench.models.chance import chance_answer
from heedbench.testing_carryon import stub_reply

HOST = "127.0.0.1"
DEFAULT_LATENCY = 0.1
DEFAULT_MODEL = "stub-model"
COMPLETION_PATHS = ("/v1/chat/completions", "/chat/completions")
MODELS_PATHS = ("/v1/models", "/models")


@dataclass
class StubStatsSnapshot:
    """A consistent copy of the server's counters."""

    requests: int
    in_flight: int
    peak_in_flight: int
    connections: int
    handler_cpu_seconds: float
    busy_seconds: float
    """Sum of request durations; divided by a wall time it is the mean number in flight."""


@dataclass
class StubStats:
    """Thread-safe counters: requests served, requests in flight, and their peak."""

    requests: int = 0
    in_flight: int = 0
    peak_in_flight: int = 0
    connections: int = 0
    handler_cpu_seconds: float = 0.0
    busy_seconds: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def enter(self) -> None:
        """A request has arrived."""
        with self._lock:
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)

    def leave(self, cpu_seconds: float, seconds: float) -> None:
        """A request has been answered after `seconds`, using `cpu_seconds` of handler CPU."""
        with self._lock:
            self.in_flight -= 1
            self.requests += 1
            self.handler_cpu_seconds += cpu_seconds
            self.busy_seconds += seconds

    def connected(self) -> None:
        """A client has opened a connection."""
        with self._lock:
            self.connections += 1

    def snapshot(self) -> StubStatsSnapshot:
        """The counters as they stand."""
        with self._lock:
            return StubStatsSnapshot(
                self.requests,
                self.in_flight,
                self.peak_in_flight,
                self.connections,
                self.handler_cpu_seconds,
                self.busy_seconds,
            )

    def reset(self) -> None:
        """Zero the counters (the in-flight count is live and stays)."""
        with self._lock:
            self.requests = 0
            self.peak_in_flight = self.in_flight
            self.connections = 0
            self.handler_cpu_seconds = 0.0
            self.busy_seconds = 0.0


def message_text(content: Any) -> str:
    """The text of an OpenAI message `content`: a string or a list of text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def choice_reply(prompt: str) -> str:
    """A random, well-formed `choice` answer, reproducible from the prompt."""
    digest = hashlib.sha256(prompt.encode()).digest()
    return chance_answer(prompt, random.Random(int.from_bytes(digest[:8], "big")))


RESPONDERS: dict[str, Callable[[str], str]] = {"choice": choice_reply, "carryon": stub_reply}


def completion_reply(request: dict[str, Any], responder: str = "choice") -> dict[str, Any]:
    """A chat.completion object answering the request's prompt, reproducibly."""
    messages = request.get("messages") or []
    prompt = "\n".join(message_text(m.get("content")) for m in messages if isinstance(m, dict))
    content = RESPONDERS[responder](prompt)
    prompt_tokens, completion_tokens = len(prompt) // 4 + 1, len(content) // 4 + 1
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(request.get("model") or DEFAULT_MODEL),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


class StubServer(ThreadingHTTPServer):
    """A threading HTTP server holding the stub's latency, model name and counters."""

    daemon_threads = True
    request_queue_size = 1024
    """Listen backlog: the default of 5 drops SYNs when many clients connect at once."""

    def __init__(
        self, port: int, latency: float, model: str = DEFAULT_MODEL, responder: str = "choice"
    ) -> None:
        self.latency = latency
        self.responder = responder
        self.model = model
        self.stats = StubStats()
        self.thread: threading.Thread | None = None
        super().__init__((HOST, port), StubHandler)

    @property
    def base_url(self) -> str:
        """The OpenAI base URL clients should use."""
        return f"http://{HOST}:{self.server_address[1]}/v1"

    def stop(self) -> None:
        """Stop serving, close the socket and join the serving thread."""
        self.shutdown()
        self.server_close()
        if self.thread is not None:
            self.thread.join(timeout=5)


class StubHandler(BaseHTTPRequestHandler):
    """Serves one keep-alive connection; each request sleeps `latency` before answering."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: StubServer

    def setup(self) -> None:
        """Count the connection."""
        super().setup()
        self.server.stats.connected()

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: tens of thousands of requests would flood the terminal."""

    def _send_json(self, status: int, payload: Any) -> None:
        body = json.dumps(payload).encode()
        head = (
            f"HTTP/1.1 {status} {self.responses.get(status, ('',))[0]}\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n"
            f"Date: {self.date_time_string()}\r\n"
            "\r\n"
        ).encode()
        self.wfile.write(head + body)  # one write: no Nagle/delayed-ACK stall between parts

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def do_GET(self) -> None:
        """List the model, or report the counters."""
        path = self.path.split("?", 1)[0]
        if path in MODELS_PATHS:
            model = {"id": self.server.model, "object": "model", "created": 0, "owned_by": "stub"}
            self._send_json(200, {"object": "list", "data": [model]})
        elif path == "/stats":
            self._send_json(200, asdict(self.server.stats.snapshot()))
        else:
            self._send_json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})

    def do_POST(self) -> None:
        """Answer a chat completion after the fixed delay."""
        path = self.path.split("?", 1)[0]
        body = self._read_body()
        if path == "/stats/reset":
            self.server.stats.reset()
            self._send_json(200, asdict(self.server.stats.snapshot()))
            return
        if path not in COMPLETION_PATHS:
            self._send_json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})
            return
        stats = self.server.stats
        stats.enter()
        cpu_start, start = time.thread_time(), time.perf_counter()
        try:
            try:
                request = json.loads(body)
                if not isinstance(request, dict):
                    raise ValueError("request body must be a JSON object")
                if request.get("stream"):
                    raise ValueError("the stub does not stream; send stream=false")
                status, payload = 200, completion_reply(request, self.server.responder)
            except ValueError as error:
                status = 400
                payload = {"error": {"message": str(error), "type": "invalid_request_error"}}
            time.sleep(self.server.latency)
            self._send_json(status, payload)
        finally:
            stats.leave(time.thread_time() - cpu_start, time.perf_counter() - start)


def start_stub_server(
    latency: float = DEFAULT_LATENCY,
    port: int = 0,
    model: str = DEFAULT_MODEL,
    responder: str = "choice",
) -> tuple[StubServer, str]:
    """Start the stub in a background daemon thread; stop it with `server.stop()`.

    Returns:
        The server (with `.stats`) and its OpenAI base URL, e.g. http://127.0.0.1:PORT/v1.
    """
    server = StubServer(port, latency, model, responder)
    server.thread = threading.Thread(target=server.serve_forever, name="stub-server", daemon=True)
    server.thread.start()
    return server, server.base_url


def _interrupt(signum: int, frame: object) -> None:
    """Treat SIGTERM like Ctrl-C so the server reports its counters on the way out."""
    raise KeyboardInterrupt


def main() -> None:
    """Serve until Ctrl-C (or SIGTERM)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=DEFAULT_LATENCY, help="seconds")
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--responder", choices=sorted(RESPONDERS), default="choice")
    args = parser.parse_args()
    server = StubServer(args.port, args.latency, args.model, args.responder)
    signal.signal(signal.SIGTERM, _interrupt)
    print(f"stub serving {server.base_url} (latency {args.latency}s)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        stats = server.stats.snapshot()
        print(f"served {stats.requests} requests, peak in flight {stats.peak_in_flight}")


if __name__ == "__main__":
    main()
