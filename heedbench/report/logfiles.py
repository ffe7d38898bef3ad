"""Read eval logs once each, from local folders or object storage, with Inspect's own readers.

A log is read in at most two parts. First its header and its sample summaries, which hold
everything run identity needs and most of the numbers (score values, short metadata). Then,
only for tables that need more than a summary keeps (carryon's per-turn series, the grader
checks' details), the full samples the log contributes, without messages, events, store or
attachments: each sample's own zip member is fetched by a range read and parsed as a stream,
one log at a time, so neither the whole file nor every log's samples are ever held at once.

All reads of one call run concurrently (at most `CONCURRENT_LOGS` logs at a time) over one
shared filesystem client. Inspect's public async readers open a client of their own per call
unless one is bound; on S3 that costs about 0.2 s of CPU each, minutes for a few hundred logs.
`run_coroutine` is how Inspect itself (`inspect_ai.analysis`, `read_eval_log`) runs those
readers from synchronous code with one client bound; it is not exported, hence the private
import below: if Inspect moves it, importing this module fails at once.
"""

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar
from urllib.parse import urlparse
from urllib.request import url2pathname

import anyio
from inspect_ai._util._async import run_coroutine
from inspect_ai.log import (
    EvalLog,
    EvalSample,
    EvalSampleSummary,
    list_eval_logs,
    read_eval_log_async,
    read_eval_log_sample_summaries_async,
    read_eval_log_samples_by_id_async,
)

CONCURRENT_LOGS = 16
"""Logs read at once (each a few small range reads on S3)."""
CONCURRENT_SAMPLES = 8
"""Full samples of one log read at once."""
SKIPPED_FIELDS = frozenset({"messages", "events", "attachments", "store"})
"""What a full-sample read leaves out: the transcript, which no table uses."""

SampleKey = tuple[str | int, int]
T = TypeVar("T")


@dataclass
class LogRead:
    """One log's header and sample summaries, or why they could not be read."""

    location: str
    """Where the log is, as the user would name it: a local path or a URL such as s3://."""
    written: float = 0.0
    """When the file was last written, in seconds since the epoch (0 if unknown)."""
    header: EvalLog | None = None
    summaries: list[EvalSampleSummary] = field(default_factory=list)
    error: str | None = None


def native(location: str) -> str:
    """A `file://` URL as a local path; any other location as it is."""
    if location.startswith("file://"):
        return url2pathname(urlparse(location).path)
    return location


def list_logs(path: str) -> list[LogRead]:
    """Every eval log under `path` (a folder, a prefix in object storage, or one log file).

    Nothing is read yet; `written` comes from the listing itself.
    """
    return [
        LogRead(location=native(info.name), written=(info.mtime or 0.0) / 1000)
        for info in list_eval_logs(path, recursive=True)
    ]


async def _bounded(calls: Sequence[Callable[[], Awaitable[T]]], limit: int) -> list[T]:
    """Await every call, at most `limit` at a time; results in the order of `calls`."""
    results: dict[int, T] = {}
    semaphore = anyio.Semaphore(limit)

    async def one(index: int, call: Callable[[], Awaitable[T]]) -> None:
        async with semaphore:
            results[index] = await call()

    async with anyio.create_task_group() as group:
        for index, call in enumerate(calls):
            group.start_soon(one, index, call)
    return [results[index] for index in range(len(calls))]


async def _read_one(read: LogRead) -> LogRead:
    try:
        read.header = await read_eval_log_async(read.location, header_only=True)
        read.summaries = await read_eval_log_sample_summaries_async(read.location)
        read.error = None
    except Exception as error:  # a damaged or half-copied file: named, the rest go on
        read.header, read.summaries = None, []
        read.error = f"{type(error).__name__}: {error}"
    return read


def read_logs(reads: Sequence[LogRead]) -> list[LogRead]:
    """Read the header and sample summaries of every listed log, each once (in place).

    A log that cannot be read keeps `header` None and the cause in `error`.
    """
    if not reads:
        return []

    async def read_all() -> list[LogRead]:
        calls = [partial(_read_one, read) for read in reads]
        return await _bounded(calls, CONCURRENT_LOGS)

    return run_coroutine(read_all())


def read_summaries(locations: Sequence[str]) -> list[list[EvalSampleSummary]]:
    """The sample summaries of logs whose summaries were not kept from `read_logs`."""

    async def read_all() -> list[list[EvalSampleSummary]]:
        calls = [partial(read_eval_log_sample_summaries_async, location) for location in locations]
        return await _bounded(calls, CONCURRENT_LOGS)

    return run_coroutine(read_all()) if locations else []


def read_full_samples(
    wanted: Iterable[tuple[str, Sequence[SampleKey]]],
    take: Callable[[str, EvalSample], None],
) -> None:
    """Hand every wanted sample, read in full (transcript left out), to `take(location, sample)`.

    Logs are read one after the other, each log's samples concurrently; a log's samples are
    handed over as soon as they are read and then dropped.
    """
    requests = [(location, list(keys)) for location, keys in wanted if keys]
    if not requests:
        return

    async def read_all() -> None:
        for location, keys in requests:
            if location.endswith(".json"):  # one JSON document: read it whole, once
                log = await read_eval_log_async(location, exclude_fields=set(SKIPPED_FIELDS))
                chosen = {(str(i), e) for i, e in keys}
                samples = [s for s in log.samples or [] if (str(s.id), s.epoch) in chosen]
            else:
                samples = await read_eval_log_samples_by_id_async(
                    location,
                    keys,
                    concurrency=CONCURRENT_SAMPLES,
                    exclude_fields=set(SKIPPED_FIELDS),
                )
            for sample in samples:
                take(location, sample)

    run_coroutine(read_all())
