"""What a report section is made of (tables, figures, summary lines), and how settings read.

`settings_label` is the one way a run's settings are written (`key=value, ...`), and
`distinct_labels` the one way runs of one model under several settings are told apart.
"""

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pandas as pd

from heedbench.report.figures import Figure

MISSING = "—"
K = TypeVar("K", bound=Hashable)


@dataclass
class Table:
    """A captioned table of formatted cells (strings), rendered as Markdown and HTML."""

    caption: str
    columns: list[str]
    rows: list[list[str]]
    note: str = ""


@dataclass
class Section:
    """One part of the report: tables, figures, and short lines for the terminal."""

    title: str
    intro: str = ""
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)


def settings_label(
    values: Mapping[str, Any],
    defaults: Mapping[str, Any] | None = None,
    *,
    first: Sequence[str] = (),
    hide: Sequence[str] = (),
) -> str:
    """`key=value, ...`: the `first` keys, then every other key off its default, in order.

    With no `defaults` every key is shown (the parameters a user passed); `hide` leaves keys
    out. A key missing from `defaults` is always shown.
    """
    keys = [*first, *(key for key in values if key not in first)]
    return ", ".join(
        f"{key}={values[key]}"
        for key in keys
        if key not in hide
        and (
            key in first or defaults is None or key not in defaults or values[key] != defaults[key]
        )
    )


def distinct_labels(variants: Mapping[K, tuple[str, Mapping[str, str]]]) -> dict[K, str]:
    """Key -> its model, plus `[k=v, ...]` of the settings that tell it from the model's others.

    A model measured under one setting is labelled by its name alone.
    """
    by_model: dict[str, list[Mapping[str, str]]] = {}
    for model, settings in variants.values():
        by_model.setdefault(model, []).append(settings)
    labels = {}
    for key, (model, settings) in variants.items():
        others = by_model[model]
        differing = sorted(k for k in settings if len({s.get(k) for s in others}) > 1)
        shown = settings_label({k: settings[k] for k in differing})
        labels[key] = f"{model} [{shown}]" if shown else model
    return labels


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
