"""Independent recomputation of report numbers straight from the logs (no report code)."""

import math
import os
import re
import statistics
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log


def logs_of(log_dir: Path, task: str, model: str) -> list[EvalLog]:
    """Successful logs of a task and model, newest first."""
    found = []
    for info in list_eval_logs(str(log_dir)):
        log = read_eval_log(info.name)
        same = log.eval.task.split("/")[-1] == task and log.eval.model == model
        if same and log.status == "success":
            written = os.path.getmtime(info.name.removeprefix("file://"))
            found.append((log.eval.created, written, log))
    # `created` has whole seconds; the file's write time orders runs of the same second
    return [log for _, _, log in sorted(found, key=lambda row: row[:2], reverse=True)]


def sample_rows(log: EvalLog) -> list[tuple[dict[str, Any], dict[str, float], dict[str, Any]]]:
    """(sample metadata, score value, score metadata) per sample."""
    rows = []
    for sample in log.samples or []:
        assert sample.scores is not None
        score = next(iter(sample.scores.values()))
        assert isinstance(score.value, dict)
        value = {k: math.nan if v is None else float(v) for k, v in score.value.items()}
        rows.append((sample.metadata, value, score.metadata or {}))
    return rows


def mean_and_se(values: list[float]) -> tuple[float, float, int]:
    data = [v for v in values if not math.isnan(v)]
    if not data:
        return math.nan, math.nan, 0
    se = statistics.stdev(data) / math.sqrt(len(data)) if len(data) > 1 else math.nan
    return statistics.fmean(data), se, len(data)


def clustered(observations: list[tuple[str, float]]) -> tuple[float, float, int]:
    """Mean, query-clustered stderr and count, written out independently of the report:
    sqrt(C / (C - 1) * sum over queries of (sum of x - mean)^2) / n."""
    data = [(q, v) for q, v in observations if not math.isnan(v)]
    if not data:
        return math.nan, math.nan, 0
    mean = statistics.fmean(v for _, v in data)
    sums: dict[str, float] = {}
    for query, value in data:
        sums[query] = sums.get(query, 0.0) + value - mean
    count = len(sums)
    if count < 2:
        return mean, math.nan, len(data)
    return (
        mean,
        math.sqrt(count / (count - 1) * sum(s * s for s in sums.values())) / len(data),
        len(data),
    )


def report_markdown(path: Path) -> str:
    """report.md with table cells unpadded, so a test can look for `| a | b |`.

    pandas (through tabulate) pads every cell to its column's width; the cells are what the
    tests check, not the padding.
    """
    lines = path.read_text(encoding="utf-8").splitlines()
    return "\n".join(
        re.sub(r" {2,}", " ", line) if line.startswith("|") else line for line in lines
    )
