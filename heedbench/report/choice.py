"""`choice` section: partial and full alignment per design × model (the paper's Tables 1–2).

SPO, K(p) and K(p) per pair are averaged over *valid* contexts only, as in the paper's
"score / valid" tables; `valid` counts them. The chance model `heedbench/random` is the
reference row of every design.
"""

from dataclasses import dataclass
from pathlib import Path

from heedbench.report import figures
from heedbench.report.document import MISSING, Figure, Section, Table, per_sample
from heedbench.report.load import Loaded, Run, read_samples
from heedbench.report.stats import Estimate, fmt, mean_se
from heedbench.solvers.choice import CHOICE_METHODS

CHANCE_MODEL = "heedbench/random"
KEYS = (
    "spo",
    "kendall",
    "kendall_norm",
    "indifference_sets",
    "invalid_rate",
    "order_consistency",
    "queries",
)
SPO_ONLY = ("pairwise_test",)


@dataclass(frozen=True)
class ChoiceRow:
    """One design × template × model (× other settings) row."""

    method: str
    template: str
    model: str
    settings: str
    contexts: int
    valid: int
    estimates: dict[str, Estimate]
    user_sets: float


def choice_rows(loaded: Loaded) -> list[ChoiceRow]:
    """One row per run group, from per-context scores (epochs averaged per context)."""
    runs = loaded.runs("choice")
    samples = read_samples(runs)
    if samples.empty:
        return []
    by_key = {(run.model, run.key[2]): run for run in runs}
    contexts = per_sample(samples, [])
    user_sets = {
        key: group["m_user_order"].map(len).mean()
        for key, group in samples.groupby(["model", "run_args"])
    }
    rows = []
    for (model, args), group in contexts.groupby(["model", "run_args"], sort=False):
        run: Run = by_key[(model, args)]
        valid = group[group["v_valid"] > 0]
        rows.append(
            ChoiceRow(
                method=str(run.metadata.get("method", "?")),
                template=str(run.metadata.get("template", "?")),
                model=str(model),
                settings=run.settings(hide=("method", "template")),
                contexts=len(group),
                valid=len(valid),
                estimates={
                    key: mean_se(list((valid if key != "invalid_rate" else group)[f"v_{key}"]))
                    for key in KEYS
                },
                user_sets=float(user_sets[(model, args)]),
            )
        )
    order = {method: index for index, method in enumerate(CHOICE_METHODS)}
    rows.sort(
        key=lambda r: (order.get(r.method, 99), r.template, r.settings, r.model == CHANCE_MODEL)
    )
    return rows


def _cell(row: ChoiceRow, key: str, digits: int = 3) -> str:
    if key != "spo" and row.method in SPO_ONLY and key in ("kendall", "kendall_norm"):
        return f"{MISSING} (SPO only)"
    if row.valid == 0:
        return f"{MISSING}, no valid context"
    return fmt(row.estimates[key], digits)


def _chance_missing(rows: list[ChoiceRow]) -> list[str]:
    """Designs with model rows but no chance-model row to compare with."""
    methods = {r.method for r in rows}
    with_chance = {r.method for r in rows if r.model == CHANCE_MODEL}
    return [m for m in CHOICE_METHODS if m in methods - with_chance]


def _tables(rows: list[ChoiceRow]) -> list[Table]:
    alignment = Table(
        caption="Alignment per design × model (paper Tables 1–2): SPO ↑ (partial alignment), "
        "K(p) ↓ and K(p) per pair ↓ (full alignment), mean ± stderr over valid contexts",
        columns=[
            "method",
            "template",
            "model",
            "settings",
            "SPO ↑",
            "K(p) ↓",
            "K(p)/pairs ↓",
            "valid",
        ],
        rows=[],
        note=f"`{CHANCE_MODEL}` is the chance reference row of each design.",
    )
    diagnostics = Table(
        caption="Diagnostics: indifference sets produced (the model user's mean in brackets), "
        "share of invalid (⊥) answers, presentation-order consistency and queries per context",
        columns=[
            "method",
            "template",
            "model",
            "indifference sets",
            "⊥ rate",
            "order consistency",
            "queries / context",
            "queries total",
        ],
        rows=[],
    )
    for row in rows:
        model = f"{row.model} (chance)" if row.model == CHANCE_MODEL else row.model
        alignment.rows.append(
            [
                row.method,
                row.template,
                model,
                row.settings,
                _cell(row, "spo"),
                _cell(row, "kendall", 1),
                _cell(row, "kendall_norm"),
                f"{row.valid}/{row.contexts}",
            ]
        )
        queries = row.estimates["queries"]
        sets = (
            f"{MISSING} (SPO only)"
            if row.method in SPO_ONLY
            else f"{_cell(row, 'indifference_sets', 2)} [{row.user_sets:.2f}]"
        )
        diagnostics.rows.append(
            [
                row.method,
                row.template,
                model,
                sets,
                fmt(row.estimates["invalid_rate"]),
                _cell(row, "order_consistency")
                if not row.estimates["order_consistency"].missing
                else f"{MISSING}, one order per pair",
                fmt(queries, 1),
                MISSING if queries.missing else f"{queries.value * queries.n:.0f}",
            ]
        )
    missing = _chance_missing(rows)
    for method in missing:
        alignment.rows.append(
            [
                method,
                MISSING,
                f"{CHANCE_MODEL} (chance)",
                MISSING,
                f"{MISSING}, no chance run",
                f"{MISSING}, no chance run",
                MISSING,
                MISSING,
            ]
        )
    return [alignment, diagnostics]


def _figures(rows: list[ChoiceRow]) -> list[Figure]:
    methods = [m for m in CHOICE_METHODS if any(r.method == m for r in rows)]
    models = sorted({r.model for r in rows}, key=lambda m: (m == CHANCE_MODEL, m))

    def series(key: str) -> dict[str, list[Estimate]]:
        out: dict[str, list[Estimate]] = {}
        for model in models:
            found = {r.method: r for r in rows if r.model == model}
            out[model] = [
                found[m].estimates[key]
                if m in found and not (key != "spo" and m in SPO_ONLY)
                else Estimate(float("nan"), 0)
                for m in methods
            ]
        return out

    def spo(path: Path) -> None:
        figures.grouped_bars(
            path,
            groups=methods,
            series=series("spo"),
            ylim=(0, 1.05),
            title="Partial alignment: share of the user's strict preferences kept",
            xlabel="design (method)",
            ylabel="SPO (higher is better)",
        )

    def kendall(path: Path) -> None:
        figures.grouped_bars(
            path,
            groups=methods,
            series=series("kendall_norm"),
            title="Full alignment: Kendall distance with penalty, per pair",
            xlabel="design (method)",
            ylabel="K(p) / (n(n−1)/2) (lower is better)",
        )

    def cost(path: Path) -> None:
        points = {
            model: {
                r.method: (r.estimates["queries"], r.estimates["spo"])
                for r in rows
                if r.model == model
            }
            for model in models
        }
        figures.tradeoff(
            path,
            points=points,
            logx=True,
            title="Alignment per query spent (marker = design, colour = model)",
            xlabel="queries per context (log scale)",
            ylabel="SPO (higher is better)",
        )

    return [
        Figure(
            "choice_spo.png",
            "Partial alignment (SPO) per design and model, mean ± stderr "
            "over valid contexts; n/a marks a design a model was not run with.",
            spo,
        ),
        Figure(
            "choice_kendall.png",
            "Full alignment: K(p) per pair of objects per design and "
            "model (lower is better; SPO-only designs are n/a).",
            kendall,
        ),
        Figure(
            "choice_queries.png",
            "What alignment costs: SPO against queries per context for every design and model.",
            cost,
        ),
    ]


def choice_section(loaded: Loaded) -> Section | None:
    """The `choice` section, or None when no choice run was used."""
    rows = choice_rows(loaded)
    if not rows:
        return None
    section = Section(
        title="choice — rational choice functions",
        intro="Does the LLM-implemented choice function keep the user's strict preferences "
        "(SPO, partial alignment) and match strict preferences and indifferences (K(p), full "
        "alignment)? One run per design × model; alignment is averaged over the contexts "
        "where the design produced a complete rational preference (`valid`).",
        tables=_tables(rows),
        figures=_figures(rows),
    )
    for row in rows:
        section.summary.append(
            f"choice {row.method:<15} {row.model:<28} SPO {_cell(row, 'spo')}  "
            f"K(p) {_cell(row, 'kendall', 1)}  valid {row.valid}/{row.contexts}"
        )
    return section
