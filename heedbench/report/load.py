"""Find heedbench runs in log folders and read their samples with `inspect_ai.analysis`.

A *run group* is one family × evaluated model × task parameters. Identity works per sample:
within a group, each sample (id × epoch) counts once, from the newest successful log that
completed it (or, if every copy errored, the newest copy). So shards of one run (`--sample-id`
lists, `--limit` ranges, several machines writing to one log folder) combine into one run, a
re-run replaces what it re-ran, a sample held by two logs is counted once and flagged, and
samples of the dataset that no log holds are listed as missing. With `all_runs` every
successful log's samples are pooled instead. Logs of other suites are skipped and listed;
failed, cancelled or unfinished logs are listed and kept out of every number.
"""

import json
import math
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal

import pandas as pd
from inspect_ai.analysis import (
    EvalColumn,
    EvalInfo,
    EvalModel,
    EvalResults,
    EvalTask,
    SampleColumn,
    evals_df,
    samples_df,
)
from inspect_ai.log import EvalSample, EvalSampleSummary, list_eval_logs

FAMILIES = ("choice", "carryon", "prefdisco", "carryon_judge_check", "prefdisco_judge_check")

_EXTRA_EVAL_COLUMNS = [
    EvalColumn("task_metadata", path="eval.metadata"),
    EvalColumn("task_args_json", path="eval.task_args"),
    EvalColumn("task_args_passed_json", path="eval.task_args_passed"),
    EvalColumn("stats_model_usage", path="stats.model_usage"),
    EvalColumn("stats_role_usage", path="stats.role_usage"),
    EvalColumn("dataset_samples", path="eval.dataset.samples"),
    EvalColumn("epochs", path="eval.config.epochs"),
]
_EVAL_COLUMNS = EvalInfo + EvalTask + EvalModel + EvalResults + _EXTRA_EVAL_COLUMNS


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
    counts: frozenset[tuple[str, int]] | None = None
    """The (sample id, epoch) pairs this log contributes to its group (None: all of them)."""

    @property
    def order(self) -> tuple[datetime, float]:
        """Sort key from oldest to newest."""
        return (self.created, self.written)

    def settings(self, hide: Sequence[str] = ()) -> str:
        """The parameters the user passed, as `key=value` text (`hide` left out)."""
        shown = {k: v for k, v in sorted(self.passed_args.items()) if k not in hide}
        return ", ".join(f"{k}={v}" for k, v in shown.items()) or "defaults"

    @property
    def key(self) -> tuple[str, str, str]:
        """Run group: family, model, task parameters (canonical JSON)."""
        return (self.family or "", self.model, json.dumps(self.args, sort_keys=True, default=str))


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
    """Runs sorted into used, superseded, failed and foreign, plus unreadable files."""

    used: list[Run] = field(default_factory=list)
    superseded: list[Run] = field(default_factory=list)
    failed: list[Run] = field(default_factory=list)
    foreign: list[Run] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    coverage: dict[tuple[str, str, str], Coverage] = field(default_factory=dict)
    """Per run group (`Run.key`): what its logs hold."""

    def runs(self, family: str) -> list[Run]:
        """Used runs of one family."""
        return [run for run in self.used if run.family == family]

    def coverage_of(self, model: str, run_args: str, family: str | None = None) -> Coverage:
        """The coverage of the group a family table row names (by model and `run_args`)."""
        for (group_family, group_model, args), coverage in self.coverage.items():
            if (group_model, args) == (model, run_args) and family in (None, group_family):
                return coverage
        raise KeyError(f"no run group for {model} with {run_args}")


def find_logs(paths: Sequence[str]) -> list[str]:
    """Every eval log file under the given folders (or the files themselves)."""
    found: list[str] = []
    for path in paths:
        infos = list_eval_logs(path, recursive=True)
        found.extend(info.name for info in infos)
    if not found:
        raise NoLogsError(
            f"no Inspect eval logs (.eval or .json) found in {', '.join(paths)}; "
            "run e.g. `inspect eval heedbench/choice --model heedbench/random` first"
        )
    return sorted(set(found))


def _json(value: Any, default: Any) -> Any:
    """A JSON column's value (pandas gives JSON text, or NA where absent) as Python data."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return default
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return default
    return value


def _roles(value: Any) -> dict[str, str]:
    roles = _json(value, {}) or {}
    out: dict[str, str] = {}
    for role, spec in roles.items():
        out[role] = spec.get("model", str(spec)) if isinstance(spec, dict) else str(spec)
    return out


def _family(task: str, metadata: dict[str, Any]) -> str | None:
    family = metadata.get("family")
    name = task.rsplit("/", maxsplit=1)[-1]
    return family if family in FAMILIES and name == family else None


def _read_evals(logs: list[str]) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """Eval-level rows for every readable log; unreadable files with their error."""
    try:
        frame = evals_df(logs, columns=_EVAL_COLUMNS, quiet=True)
        return frame, []
    except Exception:  # one bad file spoils the batch: fall back to reading one by one
        pass
    frames, bad = [], []
    for log in logs:
        try:
            frames.append(evals_df([log], columns=_EVAL_COLUMNS, quiet=True))
        except Exception as error:
            bad.append((log, f"{type(error).__name__}: {error}"))
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return frame, bad


def _run(row: pd.Series) -> Run:
    metadata = _json(row.get("task_metadata"), {}) or {}
    epochs = _json(row.get("epochs"), 1)
    task = str(row["task_name"])
    error = row.get("error_message")
    dataset_ids = tuple(str(i) for i in metadata.get("dataset_ids") or ())
    # a log's dataset is what the task built, unless a runner cut it down first (Inspect Flow
    # slices a shard's dataset to its sample ids): the ids the task recorded say the whole
    samples = max(int(_number(row.get("dataset_samples")) or 0), len(dataset_ids))
    return Run(
        eval_id=str(row["eval_id"]),
        log=str(row["log"]),
        task=task,
        family=_family(task, metadata),
        model=str(row["model"]),
        status=str(row["status"]),
        created=pd.Timestamp(row["created"]).to_pydatetime(),
        args=_json(row.get("task_args_json"), {}) or {},
        passed_args=_json(row.get("task_args_passed_json"), {}) or {},
        metadata=metadata,
        model_roles=_roles(row.get("model_roles")),
        model_usage=_json(row.get("stats_model_usage"), {}) or {},
        role_usage=_json(row.get("stats_role_usage"), {}) or {},
        error=None if error is None or pd.isna(error) else str(error),
        written=_written(str(row["log"])),
        dataset_size=samples * int(epochs if isinstance(epochs, int) and epochs > 0 else 1),
        dataset_ids=dataset_ids,
    )


def _written(log: str) -> float:
    """The log file's modification time, for local logs (0 for remote ones)."""
    path = log.removeprefix("file://")
    return os.path.getmtime(path) if os.path.exists(path) else 0.0


def load_runs(paths: Sequence[str], *, all_runs: bool = False) -> Loaded:
    """Sort the logs under `paths` into runs to use, and the rest with the reason.

    Raises:
        NoLogsError: there is no eval log at all.
    """
    logs = find_logs(paths)
    frame, unreadable = _read_evals(logs)
    loaded = Loaded(unreadable=unreadable)
    groups: dict[tuple[str, str, str], list[Run]] = {}
    for _, row in frame.iterrows():
        run = _run(row)
        if run.family is None:
            loaded.foreign.append(run)
        elif run.status != "success":
            loaded.failed.append(run)
        else:
            groups.setdefault(run.key, []).append(run)
    states = _sample_states([run for group in groups.values() for run in group])
    for key, group in groups.items():
        group.sort(key=lambda run: run.order, reverse=True)
        used, superseded, coverage = _count_once(group, states, all_runs)
        loaded.used.extend(used)
        loaded.superseded.extend(superseded)
        loaded.coverage[key] = coverage
    loaded.used.sort(key=lambda run: (run.family or "", run.model, run.order))
    return loaded


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


def _state(error: Any, score: Any) -> SampleState:
    """Errored, unscored (no score, or `Score.unscored`'s NaN) or scored (even partly)."""
    if isinstance(error, str) and error:
        return "errored"
    value = (_json(score, {}) or {}).get("value")
    numbers = list(value.values()) if isinstance(value, dict) else [value]
    if all(_number(number) != _number(number) for number in numbers):  # all NaN / missing
        return "unscored"
    return "scored"


def _sample_states(runs: Sequence[Run]) -> dict[str, dict[SampleKey, SampleState]]:
    """Eval id → (sample id, epoch) → scored / unscored / errored, from the sample summaries."""
    if not runs:
        return {}
    columns = [
        SampleColumn("id", path="id", required=True, type=str),
        SampleColumn("epoch", path="epoch", required=True),
        SampleColumn("sample_error", path="error", default=""),
        SampleColumn("first_score", path=_first_score),
    ]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The inplace keyword")
        frame = samples_df([run.log for run in runs], columns=columns, quiet=True)
    states: dict[str, dict[SampleKey, SampleState]] = {}
    for _, row in frame.iterrows():
        key = (str(row["id"]), int(row["epoch"]))
        states.setdefault(str(row["eval_id"]), {})[key] = _state(
            row.get("sample_error"), row.get("first_score")
        )
    return states


def _first_score(sample: EvalSample | EvalSampleSummary) -> dict[str, Any]:
    first = next(iter((sample.scores or {}).values()), None)
    return {"value": None if first is None else first.value}


def _scores(sample: EvalSample | EvalSampleSummary) -> dict[str, Any]:
    return {
        name: {"value": score.value, "metadata": score.metadata}
        for name, score in (sample.scores or {}).items()
    }


def _sample_columns(full: bool) -> list[SampleColumn]:
    return [
        SampleColumn("id", path="id", required=True, type=str),
        SampleColumn("epoch", path="epoch", required=True),
        SampleColumn("metadata", path=lambda s: s.metadata, full=full),
        SampleColumn("scores", path=_scores, full=full),
        SampleColumn("sample_error", path="error", default=""),
    ]


def read_samples(runs: Sequence[Run], *, score_metadata: bool = False) -> pd.DataFrame:
    """One row per sample of the given runs: ids, model, metadata and score columns.

    Score values of dict scores become `v_<key>` columns (NaN where unscored), sample
    metadata `m_<key>` columns, the first score's metadata the `score_metadata` column.
    Samples that errored are dropped (their run reported them). Full samples are read (without
    messages and events) only when `score_metadata` is needed, since summaries trim it.
    """
    if not runs:
        return pd.DataFrame()
    by_id = {run.eval_id: run for run in runs}
    with warnings.catch_warnings():  # inspect_ai's own pandas deprecation, not ours
        warnings.filterwarnings("ignore", message="The inplace keyword")
        frame = samples_df(
            [run.log for run in runs],
            columns=_sample_columns(score_metadata),
            full=score_metadata,
            quiet=True,
            exclude_fields=(
                {"messages", "events", "attachments", "store"} if score_metadata else None
            ),
        )
    records = []
    for _, row in frame.iterrows():
        if row.get("sample_error"):
            continue
        run = by_id[str(row["eval_id"])]
        if run.counts is not None and (str(row["id"]), int(row["epoch"])) not in run.counts:
            continue  # a newer log of the same run group holds this sample
        record: dict[str, Any] = {
            "eval_id": run.eval_id,
            "model": run.model,
            "run_args": run.key[2],
            "id": str(row["id"]),
            "epoch": int(row["epoch"]),
        }
        for key, value in (_json(row["metadata"], {}) or {}).items():
            record[f"m_{key}"] = value
        scores = _json(row["scores"], {}) or {}
        first = next(iter(scores.values()), None)
        if first is not None:
            value = first.get("value")
            if isinstance(value, dict):
                for key, number in value.items():
                    record[f"v_{key}"] = _number(number)
            else:
                record["v_value"] = _number(value)
            record["score_metadata"] = first.get("metadata") or {}
        records.append(record)
    return pd.DataFrame.from_records(records)


def _number(value: Any) -> float:
    """A score value as float; NaN for None or anything non-numeric (unscored)."""
    try:
        return math.nan if value is None else float(value)
    except (TypeError, ValueError):
        return math.nan
