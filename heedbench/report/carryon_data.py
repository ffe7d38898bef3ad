"""The carryon runs as the report reads them: variants, per-sample values, per-exchange rows.

A *variant* is a model under one setting of everything that changes the measurement: the
task parameters other than `condition` and the failure-mode thresholds (judge mode, flows per
query, longest flow, category, seed, verdict channel, data, revision, split) and the
models bound to the `user` and `grader` roles. Every row and series of the carryon section is
one variant; runs of one variant that hold different conditions (a `turn1` run and a `bc`
run, say) are read together, and two settings of one model are never pooled.

Every estimate is a mean with its standard error clustered by query (`query_id`): the
conversations of a query share its checklist and the model's first reading of it.
"""

import inspect
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from heedbench.evals.carryon.task import carryon
from heedbench.report.document import distinct_labels, per_sample, settings_label
from heedbench.report.load import Loaded, Run
from heedbench.report.stats import Estimate
from heedbench.scorers.carryon.pools import ClusteredMean, clustered_difference, clustered_mean

NOT_MEASUREMENT = ("condition", "lock_in_gain", "unsafe_harm_excess", "repetition")
"""Task parameters that do not change what is measured (which conditions a run holds, the
failure-mode thresholds); `allow_self_roles` is covered by the role models themselves."""
ROLES = ("user", "grader")
TASK_DEFAULTS: dict[str, Any] = {
    name: parameter.default for name, parameter in inspect.signature(carryon).parameters.items()
}
TURN_VALUES = ("utility", "cumulative", "redundancy", "harm")
REFUSAL_MODEL = "heedbench/refusal"
FLOOR = "refusal floor"
"""How a `heedbench/refusal` run is named: what replaying the query's refusals earns."""


@dataclass(frozen=True)
class Variant:
    """A model and the settings it was measured under."""

    model: str
    settings: tuple[tuple[str, str], ...]
    """Every measurement setting, (name, value) sorted: the variant's identity."""
    label: str = ""
    """The model, plus the settings that tell it from the model's other variants."""

    @property
    def floor(self) -> bool:
        """A run of `heedbench/refusal`: the refusal floor, not a model under test."""
        return self.model == REFUSAL_MODEL

    @property
    def text(self) -> str:
        """The settings a reader needs: task parameters off their defaults, then the roles."""
        values = {name: value for name, value in self.settings if name not in ROLES}
        roles = {name: value for name, value in self.settings if name in ROLES}
        defaults = {name: _text(value) for name, value in TASK_DEFAULTS.items()}
        parts = (settings_label(values, defaults), settings_label(roles))
        return "; ".join(part for part in parts if part) or "—"


def _text(value: Any) -> str:
    return "—" if value is None else str(value)


def _settings(run: Run) -> tuple[tuple[str, str], ...]:
    args = {**TASK_DEFAULTS, **run.args}
    chosen = {k: _text(v) for k, v in args.items() if k not in NOT_MEASUREMENT}
    chosen.pop("allow_self_roles", None)
    if run.version:  # two task versions score differently (CHANGELOG): never one variant
        chosen["version"] = run.version
    for role in ROLES:
        chosen[role] = run.model_roles.get(role, "—")
    return tuple(sorted(chosen.items()))


def variants_of(runs: Sequence[Run]) -> dict[str, Variant]:
    """Eval id -> its run's variant, labelled so that no two variants share a label.

    A `heedbench/refusal` run is labelled `refusal floor`.
    """
    keyed = {run.eval_id: (run.model, _settings(run)) for run in runs}
    labels = distinct_labels(
        {
            key: (FLOOR if model == REFUSAL_MODEL else model, {k: _short(v) for k, v in settings})
            for key, (model, settings) in keyed.items()
        }
    )
    return {key: Variant(model, settings, labels[key]) for key, (model, settings) in keyed.items()}


def _short(value: str) -> str:
    """A setting's value for a label: a data file by its name."""
    return Path(value).name if ("/" in value and not value.startswith("hf:")) else value


def estimate_of(result: ClusteredMean) -> Estimate:
    """The report's `Estimate` of a clustered mean (missing when there is no value)."""
    if result.n == 0:
        return Estimate(math.nan, 0)
    return Estimate(result.value, result.n, stderr=result.stderr, queries=result.clusters)


@dataclass
class CarryOnData:
    """Per-sample values (epochs averaged) and per-exchange rows of every used carryon run.

    Both frames have a `variant` column (the variant's label), `m_condition`,
    `m_category` and `m_query_id`.
    """

    samples: pd.DataFrame
    turns: pd.DataFrame
    variants: dict[str, Variant]
    """Label -> variant."""

    @property
    def labels(self) -> list[str]:
        """Variant labels in table order, the refusal floor last."""
        return sorted(self.variants, key=lambda label: (self.variants[label].floor, label))

    @property
    def models(self) -> list[str]:
        """The labels of the models under test (every variant but the refusal floor)."""
        return [label for label in self.labels if not self.variants[label].floor]

    def observations(self, variant: str, key: str, **where: Any) -> list[tuple[str, float]]:
        """(query, value) of one score key over a variant's samples (optionally filtered)."""
        return _pairs(self.samples, variant, f"v_{key}", where)

    def has(self, variant: str, condition: str, **where: Any) -> bool:
        """Whether the variant has samples of a condition (turn 1: any but the oracle)."""
        wanted = ("turn1", "bc", "nc") if condition == "turn1" else (condition,)
        mask = _mask(self.samples, variant, where) & self.samples["m_condition"].isin(wanted)
        return bool(mask.any())

    def estimate(self, variant: str, key: str, **where: Any) -> Estimate:
        """Mean ± query-clustered stderr of one score key over a variant's samples."""
        return estimate_of(clustered_mean(self.observations(variant, key, **where)))

    def difference(self, variant: str, first: str, second: str, **where: Any) -> Estimate:
        """Mean of key `first` − mean of key `second`, clustered over their shared queries."""
        return estimate_of(
            clustered_difference(
                self.observations(variant, first, **where),
                self.observations(variant, second, **where),
            )
        )

    def turn_estimate(self, variant: str, value: str, **where: Any) -> Estimate:
        """Mean ± query-clustered stderr of one per-exchange value (`utility`, `harm`, ...)."""
        return frame_estimate(self.turns, variant, value, where)


def _mask(frame: pd.DataFrame, variant: str, where: dict[str, Any]) -> "pd.Series[bool]":
    mask = frame["variant"] == variant
    for column, wanted in where.items():
        mask &= frame[column] == wanted
    return mask


def _pairs(
    frame: pd.DataFrame, variant: str, column: str, where: dict[str, Any]
) -> list[tuple[str, float]]:
    """(query, value) of a column over a variant's rows that match `where`."""
    if column not in frame:
        return []
    rows = frame.loc[_mask(frame, variant, where), ["m_query_id", column]]
    return [(str(q), float(v)) for q, v in rows.itertuples(index=False)]


def frame_estimate(
    frame: pd.DataFrame, variant: str, value: str, where: dict[str, Any]
) -> Estimate:
    """Mean ± query-clustered stderr of a column over a variant's rows of any frame."""
    return estimate_of(clustered_mean(_pairs(frame, variant, value, where)))


def _turn_rows(samples: pd.DataFrame) -> pd.DataFrame:
    """One row per exchange of every scored conversation, from each score's `turns`."""
    keys = ["variant", "m_condition", "m_category", "m_query_id", "id", "epoch"]
    turns = samples["score_metadata"].map(lambda m: m.get("turns") if isinstance(m, dict) else None)
    rows = samples[keys].assign(turn=turns.map(lambda t: t or None)).explode("turn")
    rows = rows[rows["turn"].notna()]
    values = pd.DataFrame(list(rows["turn"]), rows.index, ["exchange", "move", *TURN_VALUES])
    values = values.astype({"exchange": int, **dict.fromkeys(TURN_VALUES, float)})
    return pd.concat([rows[keys], values], axis=1).reset_index(drop=True)


def carryon_data(loaded: Loaded) -> CarryOnData | None:
    """Read the used carryon runs, or None when there are none."""
    runs = loaded.runs("carryon")
    raw = loaded.samples("carryon", full=True)
    if raw.empty:
        return None
    by_run = variants_of(runs)
    raw["variant"] = [by_run[str(eval_id)].label for eval_id in raw["eval_id"]]
    if "m_query_id" not in raw:
        raw["m_query_id"] = raw["id"]
    samples = per_sample(raw, ["variant", "m_condition", "m_category", "m_query_id"])
    variants = {variant.label: variant for variant in by_run.values()}
    return CarryOnData(samples=samples, turns=_turn_rows(raw), variants=variants)
