"""Runs in which most samples could not be scored never look like runs.

When fewer than half of a heedbench run's samples were scored (every grader call failed, the
simulated user kept breaking, the evaluated model's provider blocked it), Inspect still ends
with "success" and a table of NaN. A hook on the end of every heedbench task then prints one
line before Inspect's summary: how many samples were scored and the commonest reason the rest
were not; and writes the same line into the log's metadata (`heedbench_warning`), where the
viewer and `heedbench report` (which lists the run under "left out") find it.
"""

import sys
from collections import Counter
from collections.abc import Iterable

from inspect_ai.hooks import Hooks, TaskEnd, hooks
from inspect_ai.log import (
    EvalLog,
    EvalSample,
    MetadataEdit,
    ProvenanceData,
    edit_eval_log,
    read_eval_log,
    write_eval_log,
)

WARNING_KEY = "heedbench_warning"
SCORED_AT_LEAST = 0.5
"""A run with a smaller share of its samples scored is reported as failed to score."""


def _reason(sample: EvalSample) -> str | None:
    """Why a sample has no score (its error, or its scorer's unscored reason), or None."""
    if sample.error is not None:
        return f"error: {sample.error.message.splitlines()[0][:160]}"
    for score in (sample.scores or {}).values():
        if isinstance(score.value, float) and score.value != score.value:  # NaN: unscored
            cause = (score.explanation or "").splitlines()[0][:160] if score.explanation else ""
            return f"{score.reason or 'unscored'}: {cause}".rstrip(": ")
    return None


def scoring_warning(total: int, samples: Iterable[EvalSample]) -> str | None:
    """The line for a run that scored fewer than half of its `total` samples, else None."""
    reasons = [reason for sample in samples if (reason := _reason(sample)) is not None]
    scored = total - len(reasons)
    if total == 0 or scored >= SCORED_AT_LEAST * total:
        return None
    commonest, count = Counter(reasons).most_common(1)[0]
    return (
        f"only {scored} of {total} samples were scored; the commonest reason "
        f"({count} samples): {commonest}"
    )


def _heedbench(log: EvalLog) -> bool:
    return log.eval.task.startswith("heedbench/") or "family" in (log.eval.metadata or {})


@hooks(name="heedbench_scoring_warning", description="Says when a run scored few samples.")
class ScoringWarning(Hooks):
    """Prints and records `scoring_warning` at the end of a heedbench task."""

    async def on_task_end(self, data: TaskEnd) -> None:
        """Warn, and note it in the log, when fewer than half of the samples were scored."""
        log = data.log
        if not _heedbench(log) or log.status != "success" or not log.location:
            return
        full = log if log.samples is not None else read_eval_log(log.location)
        total = full.results.total_samples if full.results else len(full.samples or [])
        warning = scoring_warning(total, full.samples or [])
        if warning is None:
            return
        print(f"heedbench: {full.eval.task}: {warning}", file=sys.stderr)
        edited = edit_eval_log(
            full,
            [MetadataEdit(metadata_set={WARNING_KEY: warning})],
            ProvenanceData(author="heedbench", reason="fewer than half of the samples scored"),
        )
        write_eval_log(edited, log.location)
