"""What a report section is made of: tables, figures and summary lines, before rendering."""

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

MISSING = "—"


@dataclass
class Table:
    """A captioned table of formatted cells (strings), rendered as Markdown and HTML."""

    caption: str
    columns: list[str]
    rows: list[list[str]]
    note: str = ""


@dataclass
class Figure:
    """A PNG drawn on demand; `draw` writes it to the given path."""

    name: str
    caption: str
    draw: Callable[[Path], None]


@dataclass
class Section:
    """One task family's part of the report."""

    title: str
    intro: str = ""
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)
    """Short lines for the terminal."""


def per_sample(samples: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Average the value columns over epochs (and pooled runs) of each sample, as Inspect does.

    Rows are grouped by model, run group, sample id and `keys`; NaNs are skipped (a sample
    unscored in every epoch stays NaN).
    """
    values = [column for column in samples.columns if column.startswith("v_")]
    group = ["model", "run_args", "id", *keys]
    return samples.groupby(group, dropna=False, sort=False)[values].mean().reset_index()


def short_model(model: str) -> str:
    """The model name without a `mockllm/` prefix (scripted test models)."""
    return model.removeprefix("mockllm/")
