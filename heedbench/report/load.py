"""Find heedbench runs in log folders and read their samples with `inspect_ai.analysis`.

A *run group* is one family × evaluated model × task parameters. By default only its newest
successful run counts (re-runs replace earlier ones); with `all_runs` the samples of every
successful run in the group are pooled. Logs of other suites are skipped and listed; failed,
cancelled or unfinished runs are listed and kept out of every number.
"""

import json
import math
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

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

FAMILIES = ("choice", "carryon", "prefdisco")

_EXTRA_EVAL_COLUMNS = [
    EvalColumn("task_metadata", path="eval.metadata"),
    EvalColumn("task_args_json", path="eval.task_args"),
    EvalColumn("task_args_passed_json", path="eval.task_args_passed"),
    EvalColumn("stats_model_usage", path="stats.model_usage"),
    EvalColumn("stats_role_usage", path="stats.role_usage"),
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


@dataclass
class Loaded:
    """Runs sorted into used, superseded, failed and foreign, plus unreadable files."""

    used: list[Run] = field(default_factory=list)
    superseded: list[Run] = field(default_factory=list)
    failed: list[Run] = field(default_factory=list)
    foreign: list[Run] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)

    def runs(self, family: str) -> list[Run]:
        """Used runs of one family."""
        return [run for run in self.used if run.family == family]


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
    task = str(row["task_name"])
    error = row.get("error_message")
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
    newest: dict[tuple[str, str, str], list[Run]] = {}
    for _, row in frame.iterrows():
        run = _run(row)
        if run.family is None:
            loaded.foreign.append(run)
        elif run.status != "success":
            loaded.failed.append(run)
        else:
            newest.setdefault(run.key, []).append(run)
    for group in newest.values():
        group.sort(key=lambda run: run.order, reverse=True)
        if all_runs:
            loaded.used.extend(group)
        else:
            loaded.used.append(group[0])
            loaded.superseded.extend(group[1:])
    loaded.used.sort(key=lambda run: (run.family or "", run.model, run.order))
    return loaded


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
