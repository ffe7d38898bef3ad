"""An OpenAI-compatible chat-completions stub that answers heedbench prompts after a fixed delay.

Every reply comes after `latency` seconds. With `--responder choice` (default) it is a
uniformly random, well-formed answer to the prompt (`heedbench.models.chance.chance_answer`,
seeded by the prompt's hash), so a `choice` run against it scores at chance level. With
`--responder carryon` it plays target, simulated user and grader of a `carryon` run at once
(`heedbench.testing_carryon.stub_reply`).

One thread serves each keep-alive connection (HTTP/1.1 with Content-Length), so requests on
different connections never wait for each other. The server counts requests served, the peak
number in flight at once, and its own CPU time per request.

With a `FaultPlan`, requests fail on purpose, as real providers do: 429 and 500 responses,
hangs, dropped connections, malformed bodies, empty content, replies without choices, and the
HTTP 400s that Inspect turns into ordinary-looking output (`context_length_exceeded`,
`content_filter`). Which request fails is decided by the plan's seed, the prompt (block codes
removed, so prompts that differ only by a fence digest count as one) and how many times that
prompt has been sent, so a re-run against a fresh server meets the same faults.

Endpoints: POST /v1/chat/completions (and /chat/completions), GET /v1/models (and /models),
GET /stats (counters as JSON), POST /stats/reset.

Usage: python -m tests.stub_server --latency 0.1 --port 8765
"""

import argparse
import hashlib
import json
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, get_args

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
    faults: dict[str, int] = field(default_factory=dict)
    """Requests answered with each injected fault."""


@dataclass
class StubStats:
    """Thread-safe counters: requests served, requests in flight, and their peak."""

    requests: int = 0
    in_flight: int = 0
    peak_in_flight: int = 0
    connections: int = 0
    handler_cpu_seconds: float = 0.0
    busy_seconds: float = 0.0
    faults: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def faulted(self, kind: str) -> None:
        """A request was answered with an injected fault."""
        with self._lock:
            self.faults[kind] += 1

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
                dict(self.faults),
            )

    def reset(self) -> None:
        """Zero the counters (the in-flight count is live and stays)."""
        with self._lock:
            self.requests = 0
            self.peak_in_flight = self.in_flight
            self.connections = 0
            self.handler_cpu_seconds = 0.0
            self.busy_seconds = 0.0
            self.faults.clear()


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


Responder = Callable[[str], str]
RESPONDERS: dict[str, Responder] = {"choice": choice_reply, "carryon": stub_reply}

Fault = Literal[
    "rate_limit",
    "server_error",
    "hang",
    "drop",
    "malformed",
    "empty",
    "no_choices",
    "context_length",
    "content_filter",
]
FAULTS: tuple[str, ...] = get_args(Fault)
_CODE = re.compile(r"(<<<(?:DATA|END) |Block code for this request: )[0-9a-f]{16}")


def fault_key(prompt: str) -> str:
    """The prompt with fence codes blanked: the same request whatever digest fenced it."""
    return _CODE.sub(r"\1", prompt)


def request_prompt(request: Mapping[str, Any]) -> str:
    """The request's messages as one text, as the responders see it."""
    messages = request.get("messages") or []
    return "\n".join(message_text(m.get("content")) for m in messages if isinstance(m, dict))


@dataclass(frozen=True)
class FaultPlan:
    """Which requests fail, and how: a probability per fault kind, drawn per prompt and attempt.

    Each request draws one number from (seed, prompt, attempt); the kinds split [0, 1) in the
    order of `FAULTS`, by their rates, and the rest of the interval is a normal reply.
    """

    rates: Mapping[str, float]
    seed: int = 0
    hang_seconds: float = 3.0
    """How long a hang lasts before the stub answers anyway (clients should time out first)."""

    def __post_init__(self) -> None:
        unknown = set(self.rates) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown faults {sorted(unknown)}; known: {', '.join(FAULTS)}")
        if sum(self.rates.values()) > 1:
            raise ValueError("fault rates must sum to at most 1")

    def fault(self, prompt: str, attempt: int) -> str | None:
        """The fault for the `attempt`-th request of `prompt` (1-based), or None."""
        key = f"{self.seed}|{attempt}|{fault_key(prompt)}"
        draw = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") / 2**64
        edge = 0.0
        for kind in FAULTS:
            edge += self.rates.get(kind, 0.0)
            if draw < edge:
                return kind
        return None


def completion_reply(
    request: dict[str, Any], responder: str | Responder = "choice", content: str | None = None
) -> dict[str, Any]:
    """A chat.completion object answering the request's prompt, reproducibly."""
    prompt = request_prompt(request)
    if content is None:
        content = (RESPONDERS[responder] if isinstance(responder, str) else responder)(prompt)
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
        self,
        port: int,
        latency: float,
        model: str = DEFAULT_MODEL,
        responder: str | Responder = "choice",
        faults: FaultPlan | None = None,
    ) -> None:
        self.latency = latency
        self.responder = responder
        self.model = model
        self.faults = faults
        self.stats = StubStats()
        self.thread: threading.Thread | None = None
        self._attempts: Counter[str] = Counter()
        self._attempts_lock = threading.Lock()
        super().__init__((HOST, port), StubHandler)

    def next_fault(self, prompt: str) -> str | None:
        """The injected fault for this request of `prompt`, counting the attempt."""
        if self.faults is None:
            return None
        key = fault_key(prompt)
        with self._attempts_lock:
            self._attempts[key] += 1
            attempt = self._attempts[key]
        fault = self.faults.fault(prompt, attempt)
        if fault is not None:
            self.stats.faulted(fault)
        return fault

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet about clients that hung up (timeouts and dropped-connection faults)."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

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
            except ValueError as error:
                time.sleep(self.server.latency)
                self._send_json(400, _error(str(error), "invalid_request_error"))
                return
            fault = self.server.next_fault(request_prompt(request))
            time.sleep(self.server.latency)
            self._answer(request, fault)
        finally:
            stats.leave(time.thread_time() - cpu_start, time.perf_counter() - start)

    def _answer(self, request: dict[str, Any], fault: str | None) -> None:
        responder = self.server.responder
        if fault == "rate_limit":
            self._send_json(429, _error("Rate limit reached; try again later.", "rate_limit"))
        elif fault == "server_error":
            self._send_json(500, _error("The server had an error.", "server_error"))
        elif fault == "drop":
            self.close_connection = True  # nothing written: the client sees the peer hang up
        elif fault == "malformed":
            self._send_raw(200, b'{"id": "chatcmpl-broken", "choices": [')
        elif fault == "context_length":
            message = "This model's maximum context length is 8192 tokens; reduce the input."
            self._send_json(
                400, _error(message, "invalid_request_error", "context_length_exceeded")
            )
        elif fault == "content_filter":
            message = "The prompt was blocked by the content management policy."
            self._send_json(400, _error(message, "invalid_request_error", "content_filter"))
        else:
            if fault == "hang":
                time.sleep(self.server.faults.hang_seconds if self.server.faults else 0)
            reply = completion_reply(request, responder, "" if fault == "empty" else None)
            if fault == "no_choices":
                reply["choices"] = []
            self._send_json(200, reply)

    def _send_raw(self, status: int, body: bytes) -> None:
        head = (
            f"HTTP/1.1 {status} {self.responses.get(status, ('',))[0]}\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n"
            "\r\n"
        ).encode()
        self.wfile.write(head + body)


def _error(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def start_stub_server(
    latency: float = DEFAULT_LATENCY,
    port: int = 0,
    model: str = DEFAULT_MODEL,
    responder: str | Responder = "choice",
    faults: FaultPlan | None = None,
) -> tuple[StubServer, str]:
    """Start the stub in a background daemon thread; stop it with `server.stop()`.

    Returns:
        The server (with `.stats`) and its OpenAI base URL, e.g. http://127.0.0.1:PORT/v1.
    """
    server = StubServer(port, latency, model, responder, faults)
    server.thread = threading.Thread(target=server.serve_forever, name="stub-server", daemon=True)
    server.thread.start()
    return server, server.base_url


class StubHandle:
    """The stub, either in this process (a thread) or in a child process, behind one interface."""

    def __init__(self, latency: float, in_child: bool, responder: str = "choice") -> None:
        self.server: StubServer | None = None
        self.child: subprocess.Popen[str] | None = None
        if in_child:
            command = [sys.executable, "-m", "tests.stub_server",
                       "--latency", str(latency), "--port", "0",
                       "--responder", responder]  # fmt: skip
            self.child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
            assert self.child.stdout is not None
            line = self.child.stdout.readline()  # "stub serving http://127.0.0.1:PORT/v1 ..."
            if not line.startswith("stub serving "):
                self.child.kill()
                raise SystemExit(f"stub server did not start: {line!r}")
            self.base_url = line.split()[2]
        else:
            self.server, self.base_url = start_stub_server(latency, responder=responder)

    def _control(self, method: str, path: str) -> dict[str, Any]:
        root = self.base_url.removesuffix("/v1")
        request = urllib.request.Request(
            root + path, method=method, data=b"" if method == "POST" else None
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            result: dict[str, Any] = json.loads(response.read())
        return result

    def reset(self) -> None:
        """Zero the stub's counters."""
        if self.server is not None:
            self.server.stats.reset()
        else:
            self._control("POST", "/stats/reset")

    def snapshot(self) -> StubStatsSnapshot:
        """The stub's counters."""
        if self.server is not None:
            return self.server.stats.snapshot()
        return StubStatsSnapshot(**self._control("GET", "/stats"))

    def stop(self) -> None:
        """Shut the stub down."""
        if self.server is not None:
            self.server.stop()
        if self.child is not None:
            self.child.terminate()
            self.child.wait(timeout=10)


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
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="KIND=RATE",
        help=f"inject a fault at this rate per request (repeatable); kinds: {', '.join(FAULTS)}",
    )
    parser.add_argument("--fault-seed", type=int, default=0)
    args = parser.parse_args()
    rates = {kind: float(rate) for kind, rate in (f.split("=", 1) for f in args.fault)}
    plan = FaultPlan(rates, seed=args.fault_seed) if rates else None
    server = StubServer(args.port, args.latency, args.model, args.responder, plan)
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
