"""What the latency benchmarks share: one timed eval, one sweep over connections, one record.

`choice_latency` and `carryon_latency` run one eval per `--max-connections` value against the
stub server (`tests/stub_server.py`, in this process or a child process), print a table and
keep one record per configuration in their results file; only the task and the row differ.
"""

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.log import EvalLog

from tests.stub_server import StubHandle

SERVICE = "stub"
"""Inspect's `openai-api/stub/...` provider, pointed at the stub by STUB_BASE_URL."""
COMMON = ("latency", "max_connections", "stub_process", "log_realtime")
"""The options every configuration has."""


def options(description: str, latency: float, connections: list[int], output: Path) -> Any:
    """An argument parser with the options every sweep has (the caller adds its own)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--latency", type=float, default=latency, help="stub delay in seconds")
    parser.add_argument("--max-connections", type=int, nargs="+", default=connections)
    parser.add_argument("--log-dir", help="keep Inspect logs here (default: a temp dir)")
    parser.add_argument("--output", type=Path, default=output)
    parser.add_argument("--stub-process", action="store_true",
                        help="run the stub in a child process (keeps its CPU off this "
                             "process's GIL)")  # fmt: skip
    parser.add_argument("--no-log-realtime", action="store_true",
                        help="pass Inspect's --no-log-realtime (no live event buffer for "
                             "inspect view)")  # fmt: skip
    return parser


@dataclass(frozen=True)
class Timed:
    """A successful eval with the wall time and this process's CPU time it took."""

    log: EvalLog
    wall: float
    cpu: float


def timed_eval(task: Task, **eval_options: Any) -> Timed:
    """One eval, timed; fail loudly unless it succeeds (retries off, the first error ends it)."""
    cpu_start, start = time.process_time(), time.perf_counter()
    log = eval(task, max_retries=0, fail_on_error=True, display="none", **eval_options)[0]
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    if log.status != "success" or not log.samples:
        reason = log.error.message if log.error else "no error recorded"
        raise SystemExit(f"eval ended {log.status!r}: {reason} (log: {log.location})")
    return Timed(log, wall, cpu)


Run = Callable[[StubHandle, int, str, bool], dict[str, Any]]
"""One eval at one concurrency: (stub, max connections, log dir, live log buffer) -> its row."""


def sweep(args: Any, responder: str, run: Run) -> list[dict[str, Any]]:
    """`run` at each `--max-connections` value against one stub, printing each row."""
    stub = StubHandle(args.latency, in_child=args.stub_process, responder=responder)
    os.environ[f"{SERVICE.upper()}_BASE_URL"] = stub.base_url
    os.environ[f"{SERVICE.upper()}_API_KEY"] = "stub"
    print(f"stub at {stub.base_url}, latency {args.latency}s", flush=True)
    rows: list[dict[str, Any]] = []
    try:
        with tempfile.TemporaryDirectory() as temp_dir:
            for connections in args.max_connections:
                rows.append(run(stub, connections, args.log_dir or temp_dir,
                                not args.no_log_realtime))  # fmt: skip
                print(json.dumps(rows[-1]), flush=True)
    finally:
        stub.stop()
    return rows


def table(columns: Sequence[tuple[str, str]], rows: list[dict[str, Any]]) -> str:
    """A Markdown table: one (header, `str.format` template over the row) per column."""
    lines = ["| " + " | ".join(header for header, _ in columns) + " |",
             "|" + "---:|" * len(columns)]  # fmt: skip
    lines += ["| " + " | ".join(cell.format(**row) for _, cell in columns) + " |" for row in rows]
    return "\n".join(lines)


def finish(args: Any, rows: list[dict[str, Any]], shown: str, configuration: dict[str, Any],
           extra: dict[str, Any] | None = None) -> None:  # fmt: skip
    """Print the table and keep the record, replacing one of the same configuration."""
    print(f"\n{shown}")
    record = {
        "latency": args.latency, **configuration, "max_connections": args.max_connections,
        "stub_process": args.stub_process, "log_realtime": not args.no_log_realtime,
        **(extra or {}), "cpus": os.cpu_count(), "python": sys.version.split()[0],
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"), "rows": rows,
    }  # fmt: skip
    keys = (*COMMON, *configuration)
    path: Path = args.output
    existing = json.loads(path.read_text(encoding="utf-8"))["runs"] if path.exists() else []
    kept = [r for r in existing if any(r.get(k) != record[k] for k in keys)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"runs": [*kept, record]}, indent=2) + "\n", encoding="utf-8")
    print(f"\nresults: {path}")
