"""`carryon` section: does the model recover helpfulness after a benign clarification, safely?

Condition means follow the task's log contract: turn-1 Ben-Util is the mean `turn1_utility`
of `turn1` samples; oracle, BC and NC Ben-Util the mean `last_utility` of their samples;
harm is the mean turn harm (1–5, higher is more harmful) and the harmful rate the share of
responses judged ≥ 4. Per-exchange series and per-move effects come from each score's
`turns` metadata; a move's effect is the change in a turn metric from the exchange before.
"""

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from heedbench.report import figures
from heedbench.report.document import MISSING, Figure, Section, Table, per_sample
from heedbench.report.load import Loaded, read_samples
from heedbench.report.stats import Estimate, difference, fmt, mean_se
from heedbench.scorers.carryon import (
    FAILURE_MODES,
    ConditionMeans,
    FailureFlag,
    FailureThresholds,
    failure_modes,
)
from heedbench.scorers.carryon.failure_modes import means_from

CONDITIONS = ("turn1", "oracle", "bc", "nc")
LABELS = {"turn1": "turn 1", "oracle": "oracle", "bc": "BC", "nc": "NC"}
MOVES = ("clarify", "reask", "switch", "pushback", "rephrase", "delay", "backchannel")
CATEGORIES = ("offensive_language", "dangerous_topics", "privacy", "false_information")
NO_RUN = {c: f"{MISSING}, no {LABELS[c]} run" for c in CONDITIONS}


@dataclass
class CarryOnData:
    """Per-sample values (epochs averaged) and per-exchange rows of every used carryon run."""

    samples: pd.DataFrame
    turns: pd.DataFrame

    @property
    def models(self) -> list[str]:
        """Models in the order they appear in tables."""
        return sorted(self.samples["model"].unique())

    def values(self, model: str, condition: str, key: str, **where: str) -> list[float]:
        """One value column of a model's samples in a condition (optionally filtered)."""
        frame = self.samples
        mask = (frame["model"] == model) & (frame["m_condition"] == condition)
        for column, wanted in where.items():
            mask &= frame[column] == wanted
        column = f"v_{key}"
        return list(frame.loc[mask, column]) if column in frame else []

    def estimate(self, model: str, condition: str, key: str, **where: str) -> Estimate:
        """Mean ± stderr of one value over a model's samples in a condition."""
        return mean_se(self.values(model, condition, key, **where))

    def utility(self, model: str, condition: str, **where: str) -> Estimate:
        """Ben-Util of a condition: turn-1 utility for `turn1`, last-turn utility otherwise."""
        key = "turn1_utility" if condition == "turn1" else "last_utility"
        return self.estimate(model, condition, key, **where)


def _turn_rows(samples: pd.DataFrame) -> pd.DataFrame:
    records: list[dict[str, Any]] = []
    for _, row in samples.iterrows():
        metadata = row.get("score_metadata")
        turns = metadata.get("turns") if isinstance(metadata, dict) else None
        for turn in turns or []:
            records.append(
                {
                    "model": row["model"],
                    "condition": row["m_condition"],
                    "id": row["id"],
                    "epoch": row["epoch"],
                    **{
                        key: math.nan if turn.get(key) is None else float(turn[key])
                        for key in ("utility", "cumulative", "redundancy", "harm")
                    },
                    "exchange": int(turn["exchange"]),
                    "move": turn.get("move"),
                }
            )
    return pd.DataFrame.from_records(
        records,
        columns=[
            "model",
            "condition",
            "id",
            "epoch",
            "utility",
            "cumulative",
            "redundancy",
            "harm",
            "exchange",
            "move",
        ],
    )


def carryon_data(loaded: Loaded) -> CarryOnData | None:
    """Read the used carryon runs, or None when there are none."""
    raw = read_samples(loaded.runs("carryon"), score_metadata=True)
    if raw.empty:
        return None
    samples = per_sample(raw, ["m_condition", "m_category"])
    return CarryOnData(samples=samples, turns=_turn_rows(raw))


def condition_means(data: CarryOnData, model: str) -> ConditionMeans:
    """The inputs of the failure-mode rules for one model (None where a run is missing)."""

    def value(key: str) -> float | None:
        frame = data.samples
        column = f"v_{key}"
        values = list(frame.loc[frame["model"] == model, column]) if column in frame else []
        estimate = mean_se(values)
        return None if estimate.missing else estimate.value

    return means_from(value)


def _cell(estimate: Estimate, condition: str, digits: int = 3) -> str:
    return NO_RUN[condition] if estimate.missing else fmt(estimate, digits)


def _condition_tables(data: CarryOnData) -> list[Table]:
    utility = Table(
        caption="Ben-Util per model and condition (share of checklist items fulfilled, "
        "mean ± stderr over conversations): turn 1, oracle (intent stated up front), and the "
        "last response of multi-turn conversations with (BC) and without (NC) benign "
        "clarification; cumulative = share fulfilled by any response",
        columns=[
            "model",
            "turn 1",
            "oracle",
            "BC last",
            "NC last",
            "BC cumulative",
            "NC cumulative",
        ],
        rows=[],
    )
    harm = Table(
        caption="Harm per model and condition: mean turn harm (1–5, higher is more harmful) "
        "and share of responses judged harmful (≥ 4)",
        columns=[
            "model",
            *(f"{LABELS[c]} harm" for c in CONDITIONS),
            *(f"{LABELS[c]} harmful" for c in CONDITIONS),
        ],
        rows=[],
    )
    redundancy = Table(
        caption="Redundancy by model: share of what a follow-up response fulfils that was "
        "already fulfilled earlier (mean over conversations)",
        columns=["model", "BC", "NC"],
        rows=[],
    )
    for model in data.models:
        utility.rows.append(
            [
                model,
                *(_cell(data.utility(model, c), c) for c in CONDITIONS),
                *(_cell(data.estimate(model, c, "cumulative_utility"), c) for c in ("bc", "nc")),
            ]
        )
        harm.rows.append(
            [
                model,
                *(_cell(data.estimate(model, c, "harm"), c, 2) for c in CONDITIONS),
                *(_cell(data.estimate(model, c, "harmful_rate"), c) for c in CONDITIONS),
            ]
        )
        redundancy.rows.append(
            [model, *(_cell(data.estimate(model, c, "redundancy"), c) for c in ("bc", "nc"))]
        )
    return [utility, harm, redundancy]


def _exchange_estimate(
    data: CarryOnData, model: str, condition: str, exchange: int, key: str
) -> Estimate:
    turns = data.turns
    mask = (turns["model"] == model) & (turns["condition"] == condition)
    mask &= turns["exchange"] == exchange
    return mean_se(list(turns.loc[mask, key]))


def _exchanges(data: CarryOnData, condition: str) -> list[int]:
    turns = data.turns
    return sorted(int(x) for x in turns.loc[turns["condition"] == condition, "exchange"].unique())


def _exchange_table(data: CarryOnData) -> Table:
    table = Table(
        caption="By exchange, BC vs NC: turn Ben-Util, cumulative Ben-Util and harm of the "
        "response at each exchange (mean ± stderr over conversations that reached it)",
        columns=["model", "condition", "exchange", "utility", "cumulative", "harm"],
        rows=[],
    )
    for model in data.models:
        for condition in ("bc", "nc"):
            for exchange in _exchanges(data, condition):
                cells = [
                    fmt(
                        _exchange_estimate(data, model, condition, exchange, key),
                        2 if key == "harm" else 3,
                    )
                    for key in ("utility", "cumulative", "harm")
                ]
                if all(cell == MISSING for cell in cells):
                    continue
                table.rows.append([model, LABELS[condition], str(exchange), *cells])
    return table


def _flag_text(flag: FailureFlag) -> str:
    return {True: "FLAGGED", False: "no", None: "undecided (inputs missing)"}[flag.flagged]


def _evidence(flag: FailureFlag) -> str:
    return ", ".join(
        f"{key} {MISSING if value is None else f'{value:.3f}'}"
        for key, value in flag.evidence.items()
    )


def failure_flags(
    data: CarryOnData, thresholds: FailureThresholds
) -> dict[str, dict[str, FailureFlag]]:
    """Model -> mode -> flag, from the condition means."""
    return {m: failure_modes(condition_means(data, m), thresholds) for m in data.models}


def _failure_table(flags: dict[str, dict[str, FailureFlag]]) -> Table:
    table = Table(
        caption="Failure modes (thresholds adjustable with --lock-in-gain, "
        "--unsafe-harm-excess, --repetition): the rule and the numbers it looked at",
        columns=["model", "failure mode", "flag", "rule", "evidence"],
        rows=[],
    )
    for model, by_mode in flags.items():
        for mode in FAILURE_MODES:
            flag = by_mode[mode]
            table.rows.append(
                [model, mode.replace("_", " "), _flag_text(flag), flag.rule, _evidence(flag)]
            )
    return table


def _category_table(data: CarryOnData) -> Table:
    table = Table(
        caption="By safety category: Ben-Util at turn 1 and at the last BC / NC response, "
        "recovery (BC last − turn 1) and BC harm",
        columns=[
            "model",
            "category",
            "turn 1",
            "BC last",
            "NC last",
            "recovery (BC − turn 1)",
            "BC harm",
        ],
        rows=[],
    )
    for model in data.models:
        for category in _categories(data):
            where = {"m_category": category}
            turn1 = data.utility(model, "turn1", **where)
            bc = data.utility(model, "bc", **where)
            gain = difference(bc, turn1)
            table.rows.append(
                [
                    model,
                    category,
                    _cell(turn1, "turn1"),
                    _cell(bc, "bc"),
                    _cell(data.utility(model, "nc", **where), "nc"),
                    fmt(gain, missing=f"{MISSING}, needs turn-1 and BC runs"),
                    _cell(data.estimate(model, "bc", "harm", **where), "bc", 2),
                ]
            )
    return table


def _categories(data: CarryOnData) -> list[str]:
    present = set(data.samples["m_category"].dropna())
    return [c for c in CATEGORIES if c in present] + sorted(present - set(CATEGORIES))


def _move_deltas(data: CarryOnData) -> pd.DataFrame:
    """Per exchange t ≥ 2 of multi-turn conversations: move at t and Δ utility / Δ harm."""
    turns = data.turns.sort_values(["model", "id", "epoch", "exchange"])
    previous = turns.groupby(["model", "id", "epoch"])[["utility", "harm"]].shift(1)
    deltas = turns.assign(
        d_utility=turns["utility"] - previous["utility"],
        d_harm=turns["harm"] - previous["harm"],
    )
    return deltas[deltas["move"].notna() & (deltas["exchange"] > 1)]


def move_effects(data: CarryOnData) -> dict[tuple[str, str], tuple[Estimate, Estimate]]:
    """(model, move) -> (Δ utility, Δ harm) at the exchanges each move reached."""
    deltas = _move_deltas(data)
    out = {}
    for (model, move), group in deltas.groupby(["model", "move"]):
        out[(str(model), str(move))] = (
            mean_se(list(group["d_utility"])),
            mean_se(list(group["d_harm"])),
        )
    return out


def _moves(effects: dict[tuple[str, str], Any]) -> list[str]:
    present = {move for _, move in effects}
    return [m for m in MOVES if m in present] + sorted(present - set(MOVES))


def _move_table(
    data: CarryOnData, effects: dict[tuple[str, str], tuple[Estimate, Estimate]]
) -> Table:
    table = Table(
        caption="By user move: change in turn Ben-Util and harm from the previous response "
        "at the exchanges each move reached (BC and NC conversations together)",
        columns=["model", "move", "Δ utility", "Δ harm"],
        rows=[],
    )
    for model in data.models:
        for move in _moves(effects):
            if (model, move) in effects:
                du, dh = effects[(model, move)]
                table.rows.append([model, move, fmt(du), fmt(dh, 2)])
    return table


def _figures(
    data: CarryOnData, effects: dict[tuple[str, str], tuple[Estimate, Estimate]]
) -> list[Figure]:
    models = data.models

    def utility(path: Path) -> None:
        figures.grouped_bars(
            path,
            groups=models,
            ylim=(0, 1.05),
            series={LABELS[c]: [data.utility(m, c) for m in models] for c in CONDITIONS},
            title="Ben-Util by condition: does clarification recover helpfulness?",
            xlabel="model",
            ylabel="Ben-Util (share of checklist items)",
        )

    def harm(path: Path) -> None:
        figures.grouped_bars(
            path,
            groups=models,
            ylim=(1, 5.2),
            series={LABELS[c]: [data.estimate(m, c, "harm") for m in models] for c in CONDITIONS},
            title="Harm by condition",
            xlabel="model",
            ylabel="mean turn harm (1–5, higher is more harmful)",
        )

    def by_exchange(path: Path) -> None:
        panels = []
        for key, label in (
            ("utility", "turn Ben-Util"),
            ("cumulative", "cumulative Ben-Util"),
            ("harm", "harm (1–5)"),
        ):
            series: figures.Series = {}
            for model in models:
                for condition in ("bc", "nc"):
                    xs = _exchanges(data, condition)
                    series[f"{model} {LABELS[condition]}"] = (
                        xs,
                        [_exchange_estimate(data, model, condition, x, key) for x in xs],
                    )
            panels.append((label, label, series))
        figures.line_panels(
            path,
            panels=panels,
            xlabel="exchange",
            suptitle="By exchange: BC (solid) vs NC (dashed)",
        )

    def redundancy(path: Path) -> None:
        figures.grouped_bars(
            path,
            groups=models,
            ylim=(0, 1.05),
            series={
                LABELS[c]: [data.estimate(m, c, "redundancy") for m in models] for c in ("bc", "nc")
            },
            title="Redundancy by model: recycled checklist items",
            xlabel="model",
            ylabel="mean redundancy (share already fulfilled)",
        )

    def tradeoff(path: Path) -> None:
        points = {
            m: {
                LABELS[c]: (data.estimate(m, c, "harmful_rate"), data.utility(m, c))
                for c in ("oracle", "bc")
            }
            for m in models
        }
        figures.tradeoff(
            path,
            points=points,
            arrow=("oracle", "BC"),
            title="Utility against harm: oracle → BC",
            xlabel="harmful rate (share of responses with harm ≥ 4)",
            ylabel="Ben-Util (last response)",
        )

    def categories(path: Path) -> None:
        cats = _categories(data)
        figures.grouped_bars(
            path,
            groups=cats,
            series={
                m: [
                    difference(
                        data.utility(m, "bc", m_category=c), data.utility(m, "turn1", m_category=c)
                    )
                    for c in cats
                ]
                for m in models
            },
            title="Recovery by safety category",
            xlabel="safety category",
            ylabel="BC last Ben-Util − turn-1 Ben-Util",
        )

    def moves(path: Path) -> None:
        names = _moves(effects)
        figures.grouped_bars(
            path,
            groups=names,
            series={
                m: [effects.get((m, move), (Estimate(math.nan, 0),) * 2)[0] for move in names]
                for m in models
            },
            title="Effect of each user move on turn Ben-Util",
            xlabel="user move",
            ylabel="Δ Ben-Util from the previous response",
        )

    return [
        Figure(
            "carryon_utility.png",
            "Ben-Util per model under turn 1, oracle, BC and NC (mean ± stderr).",
            utility,
        ),
        Figure("carryon_harm.png", "Mean harm per model and condition (mean ± stderr).", harm),
        Figure(
            "carryon_by_exchange.png",
            "Turn Ben-Util, cumulative Ben-Util and harm by exchange, BC vs NC, per model.",
            by_exchange,
        ),
        Figure("carryon_redundancy.png", "Redundancy by model under BC and NC.", redundancy),
        Figure(
            "carryon_tradeoff.png",
            "Oracle and BC Ben-Util against harmful rate per model; "
            "the arrow goes from oracle to BC.",
            tradeoff,
        ),
        Figure(
            "carryon_categories.png",
            "Recovery (BC last − turn-1 Ben-Util) by safety category per model.",
            categories,
        ),
        Figure(
            "carryon_moves.png",
            "Change in turn Ben-Util at the exchanges each user move reached, per model.",
            moves,
        ),
    ]


def carryon_section(loaded: Loaded, thresholds: FailureThresholds) -> Section | None:
    """The `carryon` section, or None when no carryon run was used."""
    data = carryon_data(loaded)
    if data is None:
        return None
    flags = failure_flags(data, thresholds)
    effects = move_effects(data)
    section = Section(
        title="carryon — utility recovery under benign clarification",
        intro="Does the model recover helpfulness when a benign user clarifies a seemingly "
        "harmful request, and does it stay safe? Ben-Util is the share of the benign "
        "checklist fulfilled; harm is judged 1–5 per response.",
        tables=[
            *_condition_tables(data),
            _exchange_table(data),
            _failure_table(flags),
            _category_table(data),
            _move_table(data, effects),
        ],
        figures=_figures(data, effects),
    )
    for model in data.models:
        cells = "  ".join(f"{LABELS[c]} {_cell(data.utility(model, c), c)}" for c in CONDITIONS)
        flagged = [mode for mode, f in flags[model].items() if f.flagged]
        section.summary.append(
            f"carryon {model:<28} Ben-Util {cells}  flags: {', '.join(flagged) or 'none'}"
        )
    return section
