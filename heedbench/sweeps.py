"""What the Inspect Flow specs under `flows/` share: arguments, task versions, shards.

Plain functions without Inspect Flow itself (an optional extra), so the package imports only
its declared dependencies; the spec files import them.
"""

import os
from collections.abc import Sequence
from importlib.resources import files
from typing import Any

import yaml

from heedbench.params import ParameterError

PAPER_CHOICE_DESIGNS = ("pairwise_score", "pairwise_scc", "pairwise_test", "pointwise", "listwise")
"""The paper's five designs; `pairwise_sort` is ours (pass `designs=all` to add it)."""


def names(value: str | Sequence[str] | None, flag: str) -> list[str]:
    """A `-A key=a,b` argument as a list (Flow hands over a string for one value, else a list).

    Raises:
        ParameterError: nothing was given; the message names the flag.
    """
    if value is None:
        raise ParameterError(f"pass -A {flag}=<value>[,<value>...]")
    items = value.split(",") if isinstance(value, str) else [str(v) for v in value]
    chosen = [item.strip() for item in items if item.strip()]
    if not chosen:
        raise ParameterError(f"pass -A {flag}=<value>[,<value>...]")
    return chosen


def one(value: str | None, flag: str) -> str:
    """A single-model argument such as the `user` or `grader` role.

    Raises:
        ParameterError: nothing was given, or a list; the message names the flag.
    """
    if not isinstance(value, str) or not value.strip() or "," in value:
        raise ParameterError(f"pass -A {flag}=<provider/model> (one model)")
    return value.strip()


def numbers(value: int | str | Sequence[int | str] | None) -> list[int]:
    """`-A fixed_questions=2,4,8` (or one number, or nothing) as a list of ints."""
    if value is None or value == "":
        return []
    items = value.split(",") if isinstance(value, str) else value
    if isinstance(items, int):
        return [items]
    return [int(item) for item in items]


def log_folder(value: str | None, default: str) -> str:
    """The log folder: as given, else `logs/<default>` under the current directory.

    Flow resolves a relative `log_dir` against the spec file's folder; a sweep's logs belong
    where the command runs, beside `inspect eval`'s own `./logs`, so the default is absolute.
    """
    return value if value else os.path.abspath(os.path.join("logs", default))


def task_version(family: str) -> str:
    """The version `evals/<family>/eval.yaml` describes (tests keep it equal to the task's).

    A Flow task with this `version` refuses to run if the installed task has moved on.
    """
    text = files("heedbench.evals").joinpath(family, "eval.yaml").read_text(encoding="utf-8")
    version: Any = yaml.safe_load(text)["version"]
    return str(version)


def shard_ids(ids: Sequence[str], shard: int, shards: int) -> list[str]:
    """The sample ids of one shard: every `shards`-th id, starting at `shard` (0-based).

    Raises:
        ParameterError: `shards` below 1, or `shard` outside 0 to shards - 1.
    """
    if shards < 1 or not 0 <= shard < shards:
        raise ParameterError(
            f"-A shard={shard} -A shards={shards}: need shards >= 1 and 0 <= shard < shards"
        )
    return list(ids[shard::shards])
