"""`prefdisco` section: does asking questions personalise the answer, and at what cost?

PrefAlign (1–5) per condition; normalized alignment 100·(D − B)/(O − B) over the records
(problem × persona) scored in all three conditions, with a bootstrap interval that resamples
those records; the share of records whose discovery answer aligns worse than the baseline
(D < B, paired by problem and persona); accuracy; and questions asked in discovery.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from heedbench.report import figures
from heedbench.report.document import MISSING, Figure, Section, Table, per_sample
from heedbench.report.load import Loaded, read_samples
from heedbench.report.stats import Estimate, bootstrap, fmt, mean_se
from heedbench.scorers import normalized_alignment

CONDITIONS = ("baseline", "discovery", "oracle")
ALL = "all sources"
UNIT = ["m_problem_id", "m_persona_id"]


@dataclass(frozen=True)
class PrefDiscoRow:
    """One model × user type × source (or all sources) row."""

    model: str
    user_type: str
    source: str
    prefalign: dict[str, Estimate]
    accuracy: dict[str, Estimate]
    normalized: Estimate
    worse: Estimate
    questions: Estimate
    question_counts: list[int]
    missing: str
    """Why normalized alignment is missing ('' when it is not)."""


def _paired(group: pd.DataFrame) -> pd.DataFrame:
    """Records (problem × persona) as rows, PrefAlign per condition as columns."""
    scored = group[group["v_prefalign"].notna()]
    return scored.pivot_table(
        index=UNIT, columns="m_condition", values="v_prefalign", aggfunc="mean"
    )


def _normalized(paired: pd.DataFrame, rng: np.random.Generator) -> tuple[Estimate, str]:
    missing = [c for c in CONDITIONS if c not in paired.columns]
    if missing:
        return Estimate(math.nan, 0), f"{MISSING}, no {' or '.join(missing)} run"
    complete = paired[list(CONDITIONS)].dropna()
    if complete.empty:
        return Estimate(math.nan, 0), f"{MISSING}, no record scored in all three conditions"
    units = [tuple(row) for row in complete.itertuples(index=False)]

    def statistic(sample: Sequence[object]) -> float:
        b, d, o = (float(np.mean([u[i] for u in sample])) for i in range(3))  # type: ignore[index]
        return normalized_alignment(b, d, o)

    estimate = bootstrap(units, statistic, rng=rng)
    if math.isnan(estimate.value):
        return estimate, f"{MISSING}, oracle = baseline (scale undefined)"
    return estimate, ""


def _worse(paired: pd.DataFrame) -> Estimate:
    if not {"baseline", "discovery"} <= set(paired.columns):
        return Estimate(math.nan, 0)
    both = paired[["baseline", "discovery"]].dropna()
    return mean_se([float(d < b) for b, d in both.itertuples(index=False)])


def _row(
    model: str, user_type: str, source: str, group: pd.DataFrame, rng: np.random.Generator
) -> PrefDiscoRow:
    paired = _paired(group)
    normalized, missing = _normalized(paired, rng)

    def values(condition: str, key: str) -> list[float]:
        return list(group.loc[group["m_condition"] == condition, f"v_{key}"])

    discovery_questions = [q for q in values("discovery", "questions") if not math.isnan(q)]
    return PrefDiscoRow(
        model=model,
        user_type=user_type,
        source=source,
        prefalign={c: mean_se(values(c, "prefalign")) for c in CONDITIONS},
        accuracy={c: mean_se(values(c, "correct")) for c in CONDITIONS},
        normalized=normalized,
        worse=_worse(paired),
        questions=mean_se(discovery_questions),
        question_counts=[int(q) for q in discovery_questions],
        missing=missing,
    )


def prefdisco_rows(loaded: Loaded, rng: np.random.Generator | None = None) -> list[PrefDiscoRow]:
    """Rows per model × user type: one per source, then one over all sources."""
    raw = read_samples(loaded.runs("prefdisco"))
    if raw.empty:
        return []
    generator = rng if rng is not None else np.random.default_rng(0)
    if "m_user_type" not in raw:
        raw["m_user_type"] = "—"
    for key in ("prefalign", "correct", "questions"):
        if f"v_{key}" not in raw:
            raw[f"v_{key}"] = math.nan
    samples = per_sample(raw, ["m_condition", "m_source", *UNIT, "m_user_type"])
    rows = []
    for (model, user_type), by_model in samples.groupby(["model", "m_user_type"]):
        for source, group in by_model.groupby("m_source"):
            rows.append(_row(str(model), str(user_type), str(source), group, generator))
        rows.append(_row(str(model), str(user_type), ALL, by_model, generator))
    return rows


def _cell(estimate: Estimate, condition: str, digits: int = 2) -> str:
    return fmt(estimate, digits, missing=f"{MISSING}, no {condition} run")


def _tables(rows: list[PrefDiscoRow]) -> list[Table]:
    alignment = Table(
        caption="PrefAlign (1–5, mean ± stderr) per condition, normalized alignment "
        "100·(D − B)/(O − B) [95% bootstrap interval over problem × persona records], and the "
        "share of records where discovery aligns worse than baseline (D < B)",
        columns=[
            "model",
            "user",
            "source",
            "baseline",
            "discovery",
            "oracle",
            "normalized alignment",
            "D < B",
        ],
        rows=[],
    )
    accuracy = Table(
        caption="Accuracy (share correct, mean ± stderr) per condition, and questions asked "
        "in discovery",
        columns=["model", "user", "source", "baseline", "discovery", "oracle", "questions"],
        rows=[],
    )
    for row in rows:
        head = [row.model, row.user_type, f"**{row.source}**" if row.source == ALL else row.source]
        alignment.rows.append(
            [
                *head,
                *(_cell(row.prefalign[c], c) for c in CONDITIONS),
                row.missing or fmt(row.normalized, 1),
                fmt(row.worse, missing=f"{MISSING}, needs baseline and discovery runs"),
            ]
        )
        accuracy.rows.append(
            [
                *head,
                *(_cell(row.accuracy[c], c, 3) for c in CONDITIONS),
                _cell(row.questions, "discovery"),
            ]
        )
    return [alignment, accuracy]


def _figures(rows: list[PrefDiscoRow]) -> list[Figure]:
    overall = [r for r in rows if r.source == ALL]
    labels = [r.model if r.user_type == "—" else f"{r.model} ({r.user_type})" for r in overall]
    sources = sorted({r.source for r in rows if r.source != ALL})

    def prefalign(path: Path) -> None:
        figures.grouped_bars(
            path,
            groups=labels,
            ylim=(1, 5.2),
            series={c: [r.prefalign[c] for r in overall] for c in CONDITIONS},
            title="PrefAlign by condition (all sources)",
            xlabel="model",
            ylabel="PrefAlign (1–5, higher is better)",
        )

    def normalized(path: Path) -> None:
        series = {}
        for label, row in zip(labels, overall, strict=True):
            found = {
                r.source: r.normalized
                for r in rows
                if (r.model, r.user_type) == (row.model, row.user_type)
            }
            series[label] = [found.get(s, Estimate(math.nan, 0)) for s in [*sources, ALL]]
        figures.grouped_bars(
            path,
            groups=[*sources, ALL],
            series=series,
            reference=(100.0, "oracle level (100)"),
            title="Normalized alignment (0 = baseline, 100 = oracle)",
            xlabel="source task",
            ylabel="100·(D − B)/(O − B)",
        )

    def questions(path: Path) -> None:
        figures.histograms(
            path,
            counts={label: r.question_counts for label, r in zip(labels, overall, strict=True)},
            title="Questions asked in discovery",
            xlabel="questions asked before answering",
            ylabel="share of discovery conversations",
        )

    def accuracy(path: Path) -> None:
        figures.grouped_bars(
            path,
            groups=labels,
            ylim=(0, 1.05),
            series={c: [r.accuracy[c] for r in overall] for c in CONDITIONS},
            title="Accuracy by condition (all sources)",
            xlabel="model",
            ylabel="share of correct final answers",
        )

    return [
        Figure(
            "prefdisco_prefalign.png",
            "PrefAlign per model under baseline, discovery and "
            "oracle (mean ± stderr, all sources).",
            prefalign,
        ),
        Figure(
            "prefdisco_normalized.png",
            "Normalized alignment per source and model with 95% "
            "bootstrap intervals; 0 = no better than baseline, 100 = oracle.",
            normalized,
        ),
        Figure(
            "prefdisco_questions.png",
            "How many questions each model asked in discovery.",
            questions,
        ),
        Figure(
            "prefdisco_accuracy.png", "Accuracy per model and condition (all sources).", accuracy
        ),
    ]


def prefdisco_section(loaded: Loaded) -> Section | None:
    """The `prefdisco` section, or None when no prefdisco run was used."""
    rows = prefdisco_rows(loaded)
    if not rows:
        return None
    section = Section(
        title="prefdisco — discovering a user's preferences",
        intro="Does the model ask the right questions and adapt its answer to the user? "
        "Baseline answers the task alone, oracle is told the preference profile, discovery "
        "may ask the simulated user first.",
        tables=_tables(rows),
        figures=_figures(rows),
    )
    for row in rows:
        if row.source == ALL:
            section.summary.append(
                f"prefdisco {row.model:<28} PrefAlign B/D/O "
                + " / ".join(fmt(row.prefalign[c], 2, missing=MISSING) for c in CONDITIONS)
                + f"  normalized {row.missing or fmt(row.normalized, 1)}"
                + f"  questions {fmt(row.questions, 2)}"
            )
    return section
