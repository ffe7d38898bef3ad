"""Read eval logs once each, from local folders or object storage, with Inspect's public API.

A log is read in at most two passes. First its header and its sample summaries, which hold
everything run identity needs and most of the numbers (score values, short metadata). Then,
only for tables that need more than a summary keeps (carryon's per-turn series, the grader
checks' details), its full samples without messages, events, store or attachments.

Every pass goes through `inspect_ai.analysis` (`evals_df`, `samples_df`), for one reason:
those functions read all their logs concurrently over one shared filesystem client. Inspect's
public async readers open a client of their own per call when none is bound, and binding one
is not public; on S3 a client costs about 0.2 s of CPU, minutes over a few hundred logs
(BENCHMARKS.md). The frames are only the vehicle: each column's path function keeps the
header or sample object Inspect hands it, so the report works on Inspect's own types. A log
that cannot be read fails its whole batch, so a failed batch is split in halves until the
unreadable logs are alone; each is named with its error and the others are read.

Header and summaries are read with range requests, which some S3-compatible servers get wrong
(s3rver answers a suffix range `bytes=-22` with the object's first bytes, so the zip's
directory is not found). A remote log whose range reads fail is read once more as a whole
object, the way Inspect reads a remote log in full, and marked `whole` so the report can say
how many logs cost a whole download.
"""

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import urlparse
from urllib.request import url2pathname

from inspect_ai.analysis import EvalColumn, SampleColumn, evals_df, samples_df
from inspect_ai.log import (
    EvalLog,
    EvalSample,
    EvalSampleSummary,
    list_eval_logs,
    read_eval_log,
)

SKIPPED_FIELDS = frozenset({"messages", "events", "attachments", "store"})
"""What a full-sample read leaves out: the transcript, which no table uses."""

T = TypeVar("T")
K = TypeVar("K")


@dataclass
class LogRead:
    """One log's header and sample summaries, or why they could not be read."""

    location: str
    """Where the log is, as the user would name it: a local path or a URL such as s3://."""
    written: float = 0.0
    """When the file was last written, in seconds since the epoch (0 if unknown)."""
    header: EvalLog | None = None
    summaries: list[EvalSampleSummary] | None = None
    """None when not read (the header was unreadable, or `wants_summaries` said no)."""
    error: str | None = None
    whole: bool = False
    """Read as one whole object: the store's range reads failed."""


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


def _isolating(
    items: Sequence[K], read: Callable[[Sequence[K]], dict[str, T]], name: Callable[[K], str]
) -> tuple[dict[str, T], dict[str, str]]:
    """`read` over all items at once; a failed batch is halved until the failures are alone."""
    try:
        return read(items), {}
    except Exception as error:
        if len(items) == 1:
            return {}, {name(items[0]): f"{type(error).__name__}: {error}"}
    half = len(items) // 2
    done, failed = _isolating(items[:half], read, name)
    more_done, more_failed = _isolating(items[half:], read, name)
    return {**done, **more_done}, {**failed, **more_failed}


def _quietly(call: Callable[[], T]) -> T:
    with warnings.catch_warnings():  # inspect_ai's own pandas deprecation, not ours
        warnings.filterwarnings("ignore", message="The inplace keyword")
        return call()


def _headers(locations: Sequence[str]) -> dict[str, EvalLog]:
    """Location -> header of every log, read concurrently over one client."""
    kept: dict[str, EvalLog] = {}

    def keep(log: EvalLog) -> str:
        kept[native(log.location)] = log
        return log.location

    _quietly(lambda: evals_df(list(locations), [EvalColumn("kept", path=keep)], quiet=True))
    return kept


def _kept_samples(
    headers: Sequence[EvalLog], full: bool
) -> dict[str, list[EvalSample | EvalSampleSummary]]:
    """Location -> the samples (summaries, or full samples without transcripts) of each log."""
    kept: list[EvalSample | EvalSampleSummary] = []

    def keep(sample: EvalSample | EvalSampleSummary) -> int:
        kept.append(sample)
        return len(kept) - 1

    frame = _quietly(
        lambda: samples_df(
            list(headers),
            [SampleColumn("kept", path=keep, full=full)],
            full=full,
            quiet=True,
            exclude_fields=set(SKIPPED_FIELDS) if full else None,
        )
    )
    found: dict[str, list[EvalSample | EvalSampleSummary]] = {
        native(header.location): [] for header in headers
    }
    if len(frame):
        for log, index in zip(frame["log"], frame["kept"], strict=True):
            found[native(str(log))].append(kept[int(index)])
    return found


def read_logs(
    reads: Sequence[LogRead], wants_summaries: Callable[[EvalLog], bool] = lambda _: True
) -> list[LogRead]:
    """Read the header of every listed log and the summaries of those `wants_summaries` picks.

    Each part of each log is read once, in place. A log that cannot be read keeps `header` or
    `summaries` None and the cause in `error`.
    """
    by_location = {read.location: read for read in reads}
    headers, failed = _isolating(list(by_location), _headers, str)
    for location, error in failed.items():
        by_location[location].error = error
    for location, header in headers.items():
        by_location[location].header = header
    wanted = [header for header in headers.values() if wants_summaries(header)]
    if wanted:
        summaries, failed = _isolating(
            wanted, lambda part: _kept_samples(part, full=False), lambda h: native(h.location)
        )
        for location, error in failed.items():
            by_location[location].header = None
            by_location[location].error = error
        for location, found in summaries.items():
            by_location[location].summaries = [s for s in found if isinstance(s, EvalSampleSummary)]
    for read in reads:
        if read.header is None and "://" in read.location:
            _read_whole(read, wants_summaries)
    return list(reads)


def _read_whole(read: LogRead, wants_summaries: Callable[[EvalLog], bool]) -> None:
    """Header and summaries of a remote log from one whole-object read.

    If that fails too, the log's own error is kept: the log is damaged, not the range reads.
    """
    try:
        log = read_eval_log(read.location, exclude_fields=set(SKIPPED_FIELDS))
    except Exception:
        return
    summaries = [sample.summary() for sample in log.samples or []]
    log.samples = None
    read.header, read.error, read.whole = log, None, True
    read.summaries = summaries if wants_summaries(log) else None


def read_full_samples(headers: Sequence[EvalLog]) -> dict[str, list[EvalSample]]:
    """Location -> every sample of each log in full, without its transcript.

    Local logs are read member by member; Inspect downloads a remote log whole, once, to a
    temporary file first (one request instead of many small ones).
    """
    if not headers:
        return {}
    found = _kept_samples(headers, full=True)
    return {
        location: [s for s in samples if isinstance(s, EvalSample)]
        for location, samples in found.items()
    }
