"""Find heedbench runs in log folders (local or object storage) and read their samples.

A *run group* is one family × evaluated model × task parameters. Identity works per sample:
within a group, each sample (id × epoch) counts once, from the newest successful log that
completed it (or, if every copy errored, the newest copy). So shards of one run (`--sample-id`
lists, `--limit` ranges, several machines writing to one log folder) combine into one run, a
re-run replaces what it re-ran, a sample held by two logs is counted once and flagged, and
samples of the dataset that no log holds are listed as missing. With `all_runs` every
successful log's samples are pooled instead. Logs of other suites are skipped and listed;
failed, cancelled or unfinished logs are listed and kept out of every number; a file that
cannot be read (damaged, or half copied) is named and the others are read. Two kinds of
successful log are *left out* of every number, with the reason: a run that scored fewer than
half of its samples (`heedbench.loud` noted it in the log), which must never pass for a full
run, and a run that `heedbench/smoke` played a part in (its output is meaningless), unless
`include_smoke`.

Each log is read once (`heedbench.report.logfiles`): its header and sample summaries when the
runs are loaded, kept on the `Run`. `Loaded.samples` is the one path from those logs to the
rows every section reads: each family's rows are built once and kept, from the summaries, or
from the full samples (without transcripts) when a table needs score metadata.
"""

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal

import pandas as pd
from inspect_ai.log import EvalLog, EvalSample, EvalSampleSummary
from inspect_ai.model import ModelConfig

from heedbench.loud import WARNING_KEY
from heedbench.report.document import settings_label
from heedbench.report.logfiles import LogRead, list_logs, read_full_samples, read_logs

FAMILIES = ("choice", "carryon", "prefdisco", "carryon_judge_check", "prefdisco_judge_check")
SMOKE = "heedbench/smoke"


class NoLogsError(Exception):
    """No eval logs were found where the user pointed."""


@dataclass(frozen=True)
class Run:
    """One eval log, as the report sees it."""

    eval_id: str
    log: str
    task: str
    family: str | None
    model: str
    status: str
    created: datetime
    args: dict[str, Any]
    passed_args: dict[str, Any]
    metadata: dict[str, Any]
    model_roles: dict[str, str]
    model_usage: dict[str, dict[str, int]]
    role_usage: dict[str, dict[str, int]]
    error: str | None = None
    written: float = 0.0
    """When the log file was last written (0 if unknown): breaks ties between runs created in
    the same second, which is as fine as a log's `created` time goes."""
    dataset_size: int = 0
    """Samples in the task's dataset times epochs: the denominator of every coverage count."""
    dataset_ids: tuple[str, ...] = ()
    """Every sample id of the dataset, when the task recorded them (heedbench tasks do)."""
    version: str = ""
    """The task's version (`eval.task_version`): runs of two versions are never pooled, since a
    version changes when what the task measures or how it scores changes."""
    counts: frozenset[tuple[str, int]] | None = None
    """The (sample id, epoch) pairs this log contributes to its group (None: all of them)."""
    header: EvalLog | None = field(default=None, repr=False, compare=False)
    """The log's header as read (None: not kept)."""
    summaries: tuple[EvalSampleSummary, ...] = field(default=(), repr=False, compare=False)
    """The log's sample summaries as read with its header."""
    warning: str | None = None
    """`heedbench.loud`'s note that the run scored fewer than half of its samples."""

    @property
    def order(self) -> tuple[datetime, float]:
        """Sort key from oldest to newest."""
        return (self.created, self.written)

    def settings(self, hide: Sequence[str] = ()) -> str:
        """The parameters the user passed, as `key=value` text (`hide` left out)."""
        return settings_label(dict(sorted(self.passed_args.items())), hide=hide) or "defaults"

    @property
    def smoke_roles(self) -> list[str]:
        """The parts `heedbench/smoke` played: `evaluated model` and any role."""
        roles = [role for role, model in sorted(self.model_roles.items()) if SMOKE in model]
        return (["evaluated model"] if self.model == SMOKE else []) + roles

    @property
    def key(self) -> tuple[str, str, str]:
        """Run group: family, model, task parameters and version (canonical JSON)."""
        args = {**self.args, "_version": self.version} if self.version else self.args
        return (self.family or "", self.model, json.dumps(args, sort_keys=True, default=str))


SampleState = Literal["scored", "unscored", "errored"]
SampleKey = tuple[str, int]


@dataclass
class Coverage:
    """How much of a run group's dataset its logs hold, and in what state."""

    family: str
    model: str
    settings: str
    dataset_size: int
    logs: int
    states: dict[SampleKey, SampleState] = field(default_factory=dict)
    duplicates: dict[SampleKey, int] = field(default_factory=dict)
    """Samples held by more than one log: how many copies were left out."""
    missing_ids: list[str] = field(default_factory=list)
    """Dataset ids no log holds (known when the task recorded its ids)."""

    def count(self, state: SampleState) -> int:
        """Samples in one state."""
        return sum(1 for value in self.states.values() if value == state)

    @property
    def missing(self) -> int:
        """Samples of the dataset (× epochs) that no log holds."""
        return max(self.dataset_size - len(self.states), 0)

    def describe(self) -> str:
        """`21/23 scored, 1 unscored, 1 errored` (plus missing and duplicates when any)."""
        total = self.dataset_size or len(self.states)
        parts = [f"{self.count('scored')}/{total} scored"]
        parts += [f"{self.count(s)} {s}" for s in ("unscored", "errored") if self.count(s)]
        if self.missing:
            parts.append(f"{self.missing} missing")
        if self.duplicates:
            parts.append(f"{len(self.duplicates)} held by several logs, counted once")
        return ", ".join(parts)


@dataclass
class Loaded:
    """Runs sorted into used, superseded, failed, left out and foreign, and unreadable files."""

    used: list[Run] = field(default_factory=list)
    superseded: list[Run] = field(default_factory=list)
    failed: list[Run] = field(default_factory=list)
    foreign: list[Run] = field(default_factory=list)
    left_out: list[tuple[Run, str]] = field(default_factory=list)
    """Successful heedbench runs kept out of every number, with why (smoke, few scored)."""
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    read_whole: list[str] = field(default_factory=list)
    """Remote logs read as whole objects because the store's range reads failed."""
    coverage: dict[tuple[str, str, str], Coverage] = field(default_factory=dict)
    """Per run group (`Run.key`): what its logs hold."""
    frames: dict[tuple[str, ...], tuple[bool, pd.DataFrame]] = field(
        default_factory=dict, repr=False, compare=False
    )
    """The rows already built: runs' eval ids -> (read in full?, rows)."""

    def runs(self, family: str) -> list[Run]:
        """Used runs of one family."""
        return [run for run in self.used if run.family == family]

    def samples(self, family: str, *, full: bool = False) -> pd.DataFrame:
        """One row per sample the family's used runs count: the one path from logs to rows.

        Columns: `eval_id`, `model`, `run_args` (the group's canonical parameters), `id`,
        `epoch`; sample metadata as `m_<key>`; the first score's values as `v_<key>` (NaN
        where unscored; `v_value` for a number); with `full`, its metadata (`score_metadata`)
        and answer (`score_answer`), read from the full samples once, without transcripts.
        Samples that errored are dropped (the Runs section counts them), and so are samples a
        newer log of the same run group holds. Built once per family and kept.
        """
        runs = self.runs(family)
        key = tuple(run.eval_id for run in runs)
        kept = self.frames.get(key)
        if kept is None or (full and not kept[0]):
            kept = (full, _rows(runs, full))
            self.frames[key] = kept
        return kept[1].copy(deep=False)  # a section's own columns stay its own

    def coverage_of(self, model: str, run_args: str, family: str | None = None) -> Coverage:
        """The coverage of the group a family table row names (by model and `run_args`)."""
        for (group_family, group_model, args), coverage in self.coverage.items():
            if (group_model, args) == (model, run_args) and family in (None, group_family):
                return coverage
        raise KeyError(f"no run group for {model} with {run_args}")


def _listed(paths: Sequence[str]) -> list[LogRead]:
    """The logs under `paths`, each once, with when each was written (nothing read yet).

    Raises:
        NoLogsError: a folder cannot be listed (storage unreachable, no access), or there is
            no log at all.
    """
    found: dict[str, LogRead] = {}
    for path in paths:
        try:
            listed = list_logs(path)
        except Exception as error:
            raise NoLogsError(f"cannot list {path}: {type(error).__name__}: {error}") from error
        found.update((read.location, read) for read in listed)
    if not found:
        raise NoLogsError(
            f"no Inspect eval logs (.eval or .json) found in {', '.join(paths)}; "
            "run e.g. `inspect eval heedbench/choice --model heedbench/random` first"
        )
    return [found[location] for location in sorted(found)]


def _family(task: str, metadata: dict[str, Any]) -> str | None:
    family = metadata.get("family")
    name = task.rsplit("/", maxsplit=1)[-1]
    return family if family in FAMILIES and name == family else None


def _role_model(config: ModelConfig | list[ModelConfig]) -> str:
    """The model bound to a role (a role given fallbacks: all of them, in order)."""
    if isinstance(config, list):
        return ", ".join(item.model for item in config)
    return config.model


def _run(read: LogRead, header: EvalLog) -> Run:
    """The report's view of one log, from its header (and the summaries read with it)."""
    spec = header.eval
    metadata = spec.metadata or {}
    epochs = spec.config.epochs
    task = spec.task.split("/", maxsplit=1)[-1]
    dataset_ids = tuple(str(i) for i in metadata.get("dataset_ids") or ())
    # a log's dataset is what the task built, unless a runner cut it down first (Inspect Flow
    # slices a shard's dataset to its sample ids): the ids the task recorded say the whole
    samples = max(spec.dataset.samples or 0, len(dataset_ids))
    return Run(
        eval_id=spec.eval_id,
        log=read.location,
        task=task,
        family=_family(task, metadata),
        model=spec.model,
        status=header.status,
        created=pd.Timestamp(spec.created).to_pydatetime(),
        args=dict(spec.task_args or {}),
        passed_args=dict(spec.task_args_passed or {}),
        metadata=dict(metadata),
        model_roles={
            role: _role_model(config) for role, config in (spec.model_roles or {}).items()
        },
        model_usage={
            model: usage.model_dump(exclude_none=True)
            for model, usage in header.stats.model_usage.items()
        },
        role_usage={
            role: usage.model_dump(exclude_none=True)
            for role, usage in header.stats.role_usage.items()
        },
        error=header.error.message if header.error is not None else None,
        written=read.written,
        dataset_size=samples * (epochs if isinstance(epochs, int) and epochs > 0 else 1),
        dataset_ids=dataset_ids,
        version=str(spec.task_version or ""),
        header=header,
        summaries=tuple(read.summaries or ()),
        warning=(header.metadata or {}).get(WARNING_KEY),
    )


def _reported(header: EvalLog) -> bool:
    """Whether a log's samples can count: a successful run of a heedbench task."""
    task = header.eval.task.split("/", maxsplit=1)[-1]
    return header.status == "success" and _family(task, header.eval.metadata or {}) is not None


def left_out_because(run: Run, include_smoke: bool = False) -> str | None:
    """Why a successful heedbench run is kept out of every number, or None."""
    if run.warning:
        return f"fewer than half of its samples scored ({run.warning})"
    if run.smoke_roles and not include_smoke:
        return (
            f"smoke run: {SMOKE} played the {', '.join(run.smoke_roles)}, its numbers mean "
            "nothing (--include-smoke reports it)"
        )
    return None


def load_runs(
    paths: Sequence[str], *, all_runs: bool = False, include_smoke: bool = False
) -> Loaded:
    """Sort the logs under `paths` into runs to use, and the rest with the reason.

    Raises:
        NoLogsError: there is no eval log at all, or a folder cannot be listed.
    """
    loaded = Loaded()
    groups: dict[tuple[str, str, str], list[Run]] = {}
    for read in read_logs(_listed(paths), wants_summaries=_reported):
        if read.header is None:
            loaded.unreadable.append((read.location, read.error or "unreadable"))
            continue
        if read.whole:
            loaded.read_whole.append(read.location)
        run = _run(read, read.header)
        if run.family is None:
            loaded.foreign.append(run)
        elif run.status != "success":
            loaded.failed.append(run)
        elif (why := left_out_because(run, include_smoke)) is not None:
            loaded.left_out.append((run, why))
        else:
            groups.setdefault(run.key, []).append(run)
    states = {run.eval_id: _sample_states(run) for group in groups.values() for run in group}
    for key, group in groups.items():
        group.sort(key=lambda run: run.order, reverse=True)
        used, superseded, coverage = _count_once(group, states, all_runs)
        loaded.used.extend(used)
        loaded.superseded.extend(superseded)
        loaded.coverage[key] = coverage
    loaded.used.sort(key=lambda run: (run.family or "", run.model, run.order))
    return loaded


def unfinished_logs(paths: Sequence[str]) -> tuple[int, list[str], list[str]]:
    """Logs under `paths`; a line for each that is not a finished run; a line for each retried.

    Finished: readable, status `success`, and holding every sample its header counts. One
    that is not finished is retried when a finished log of the same task (same `task_id`: its
    `inspect eval-retry`, or a resumed Flow run) lies beside it. A shard whose store was away
    too long can end with exit status 0 and only a header in the bucket: this is what a shard
    script checks instead of the exit status.

    Raises:
        NoLogsError: there is no eval log at all, or a folder cannot be listed.
    """
    reads = read_logs(_listed(paths), wants_summaries=lambda header: header.status == "success")
    problems: dict[str, str] = {}
    finished: dict[str, str] = {}
    for read in reads:
        header = read.header
        if header is None:
            problems[read.location] = f"{read.location}: unreadable ({read.error})"
            continue
        held = len(read.summaries or [])
        expected = header.results.total_samples if header.results is not None else None
        if header.status != "success":
            why = f" ({header.error.message.splitlines()[0]})" if header.error else ""
            problems[read.location] = f"{read.location}: run {header.status}, not finished{why}"
        elif expected is not None and held < expected:
            problems[read.location] = (
                f"{read.location}: holds {held} of the {expected} samples it ran"
            )
        else:
            finished[header.eval.task_id] = read.location
    left, retried = [], []
    for read in reads:
        if read.location in problems:
            task = read.header.eval.task_id if read.header is not None else None
            if task in finished:
                retried.append(f"{problems[read.location]}; finished by {finished[task]}")
            else:
                left.append(problems[read.location])
    return len(reads), left, retried


def _count_once(
    group: list[Run], states: dict[str, dict[SampleKey, SampleState]], all_runs: bool
) -> tuple[list[Run], list[Run], Coverage]:
    """Which log's copy of each sample counts (newest completed first); the group's coverage."""
    newest = group[0]
    coverage = Coverage(
        family=newest.family or "",
        model=newest.model,
        settings=newest.settings(),
        dataset_size=max(run.dataset_size for run in group),
        logs=len(group),
    )
    owner: dict[SampleKey, str] = {}
    copies: dict[SampleKey, int] = {}
    for rank in ("completed", "errored"):  # a completed copy beats any errored one
        for run in group:
            for sample, state in states.get(run.eval_id, {}).items():
                copies[sample] = copies.get(sample, 0) + (rank == "completed")
                if sample in owner or (state == "errored") != (rank == "errored"):
                    continue
                owner[sample] = run.eval_id
                coverage.states[sample] = state
    coverage.duplicates = {sample: n - 1 for sample, n in copies.items() if n > 1}
    held = {sample_id for sample_id, _ in coverage.states}
    coverage.missing_ids = [i for i in newest.dataset_ids if i not in held]
    if all_runs:
        return list(group), [], coverage
    used: list[Run] = []
    superseded: list[Run] = []
    for run in group:
        mine = frozenset(sample for sample, eval_id in owner.items() if eval_id == run.eval_id)
        (used if mine else superseded).append(replace(run, counts=mine))
    return used, superseded, coverage


def _error(sample: EvalSample | EvalSampleSummary) -> str:
    """The sample's error message ('' when it ran to the end)."""
    error = sample.error
    return "" if error is None else error if isinstance(error, str) else error.message


def _state(sample: EvalSampleSummary) -> SampleState:
    """Errored, unscored (no score, or `Score.unscored`'s NaN) or scored (even partly)."""
    if _error(sample):
        return "errored"
    first = next(iter((sample.scores or {}).values()), None)
    value = None if first is None else first.value
    numbers = list(value.values()) if isinstance(value, dict) else [value]
    return "unscored" if all(math.isnan(_number(number)) for number in numbers) else "scored"


def _sample_states(run: Run) -> dict[SampleKey, SampleState]:
    """(sample id, epoch) → scored / unscored / errored, from the log's sample summaries."""
    return {(str(summary.id), summary.epoch): _state(summary) for summary in run.summaries}


def _record(run: Run, sample: EvalSample | EvalSampleSummary) -> dict[str, Any]:
    """One row of `Loaded.samples`."""
    record: dict[str, Any] = {
        "eval_id": run.eval_id,
        "model": run.model,
        "run_args": run.key[2],
        "id": str(sample.id),
        "epoch": int(sample.epoch),
        **{f"m_{key}": value for key, value in (sample.metadata or {}).items()},
    }
    first = next(iter((sample.scores or {}).values()), None)
    if first is not None:
        values = first.value if isinstance(first.value, dict) else {"value": first.value}
        record.update({f"v_{key}": _number(number) for key, number in values.items()})
        if isinstance(sample, EvalSample):
            record["score_metadata"] = first.metadata or {}
            record["score_answer"] = first.answer
    return record


def _rows(runs: Sequence[Run], full: bool) -> pd.DataFrame:
    """The rows of `Loaded.samples`: the counted samples' summaries, or their full samples."""
    if full:
        read = read_full_samples([run.header for run in runs if run.header is not None])
        held: Sequence[tuple[Run, EvalSample | EvalSampleSummary]] = [
            (run, sample) for run in runs for sample in read.get(run.log, [])
        ]
    else:
        held = [(run, summary) for run in runs for summary in run.summaries]
    return pd.DataFrame.from_records(
        [
            _record(run, sample)
            for run, sample in held
            if not _error(sample)
            and (run.counts is None or (str(sample.id), sample.epoch) in run.counts)
        ]
    )


def _number(value: Any) -> float:
    """A score value as float; NaN for None or anything non-numeric (unscored)."""
    try:
        return math.nan if value is None else float(value)
    except (TypeError, ValueError):
        return math.nan
