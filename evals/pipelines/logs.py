"""Reading the products of build tasks back from their eval logs.

A build sample leaves its product in its store (`PRODUCT`). Several logs may hold the same
sample: a run and its `inspect eval-retry`, or two runs of one step. For each sample id the
newest log's successful product wins; a sample with no product anywhere is reported with the
newest reason it has (an error to retry, or a recorded failure).
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.log import list_eval_logs, read_eval_log

from heedbench.solvers.pipelines.ask import PRODUCT


class BuildLogError(ValueError):
    """A build log cannot be used; the message names the file."""


@dataclass(frozen=True)
class BuiltSample:
    """One sample of one build log."""

    log: str
    created: str
    task: str
    id: str
    product: dict[str, Any] | None
    error: str | None
    metadata: dict[str, Any]
    task_args: dict[str, Any]

    @property
    def failure(self) -> str | None:
        """Why this sample has no usable product (None when it has one)."""
        if self.error:
            return f"the sample errored ({self.error}); run `inspect eval-retry {self.log}`"
        if self.product is None:
            return "the sample has no build product"
        failure = self.product.get("failure")
        return str(failure) if failure else None


def task_name(name: str) -> str:
    """A task name without its package prefix (`heedbench/carryon_candidates`)."""
    return name.rsplit("/", 1)[-1]


def log_files(paths: Iterable[str]) -> list[str]:
    """Log files given directly, and every log under each folder given.

    Raises:
        BuildLogError: a path that does not exist, or no log at all.
    """
    files: list[str] = []
    for path in paths:
        if Path(path).is_dir():
            files.extend(info.name for info in list_eval_logs(path, descending=False))
        elif Path(path).exists():
            files.append(path)
        else:
            raise BuildLogError(f"{path}: no such file or folder")
    if not files:
        raise BuildLogError(f"no eval logs in {', '.join(paths)}")
    return files


def read_build_samples(paths: Sequence[str], tasks: Sequence[str]) -> list[BuiltSample]:
    """Every sample of the logs of `tasks` among `paths` (logs of other tasks are skipped).

    Raises:
        BuildLogError: a file that is not a readable eval log, or no log of `tasks`.
    """
    found: list[BuiltSample] = []
    seen_logs = 0
    for file in log_files(paths):
        try:
            log = read_eval_log(file)
        except Exception as error:  # an unreadable file: name it, whatever the parser raised
            raise BuildLogError(f"{file}: not a readable eval log ({error})") from error
        name = task_name(log.eval.task)
        if name not in tasks:
            continue
        seen_logs += 1
        for sample in log.samples or []:
            product = sample.store.get(PRODUCT)
            found.append(
                BuiltSample(
                    log=file,
                    created=log.eval.created,
                    task=name,
                    id=str(sample.id),
                    product=product if isinstance(product, dict) else None,
                    error=sample.error.message if sample.error else None,
                    metadata=dict(sample.metadata or {}),
                    task_args=dict(log.eval.task_args or {}),
                )
            )
    if not seen_logs:
        raise BuildLogError(
            f"no log of {' or '.join(tasks)} in {', '.join(paths)} (is this the right step?)"
        )
    return found


def newest(samples: Iterable[BuiltSample]) -> dict[str, BuiltSample]:
    """Sample id -> its newest usable sample, else its newest one (with its failure)."""
    chosen: dict[str, BuiltSample] = {}
    for sample in sorted(samples, key=lambda s: s.created):
        current = chosen.get(sample.id)
        if current is None or sample.failure is None or current.failure is not None:
            chosen[sample.id] = sample
    return chosen
