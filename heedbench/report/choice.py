"""`choice` section: partial and full alignment per design × template × model.

Every run is one row, keyed by design, template and any other setting: two templates of one
design never merge. Above the per-run tables stand the paper's Tables 1 and 2 (designs ×
models, the best template picked per cell); below them the reference rows, computed on exactly
the contexts and objects the runs scored, which give K(p) its scale. SPO and K(p) average over
*valid* contexts only, as the paper's "score / valid" tables do; contexts left unscored (a
provider that blocked calls, a solver that did not finish) are counted apart, never as invalid.
"""

import functools
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.dataset import Sample

from heedbench.evals.choice.dataset import PREVIOUS_VERSIONS, ChoiceDataError, choice_dataset
from heedbench.evals.choice.reference import (
    CHANCE_MODEL,
    ReferenceRow,
    rows_on,
    select_contexts,
)
from heedbench.report.document import MISSING, Section, Table, per_sample
from heedbench.report.figures import Bars, Figure, Points
from heedbench.report.load import Loaded, Run
from heedbench.report.stats import Estimate, fmt, mean_se, plus_minus
from heedbench.report.tables import table
from heedbench.scorers.choice.metrics import TwinContext, twin_contrasts
from heedbench.scorers.choice.scorer import chosen_relation
from heedbench.solvers.choice import CHOICE_METHODS
from heedbench.solvers.choice.prompts import TEMPLATES

__all__ = ["CHANCE_MODEL", "ChoiceRow", "choice_rows", "choice_section", "runs_data"]

SCORE_COLUMNS = {
    "SPO on context pairs ↑": ("spo_context", 3),
    "SPO ↑": ("spo", 3),
    "K(p) ↓": ("kendall", 1),
    "K(p)/pairs ↓": ("kendall_norm", 3),
    "K(p)/pair on context pairs ↓": ("kendall_context", 3),
}
"""The score columns (then `valid`) of the runs table and the reference rows, so they line up:
header -> (score key, digits)."""
KEYS = (
    *(key for key, _ in SCORE_COLUMNS.values()),
    "indifference_sets",
    "invalid_rate",
    "order_consistency",
    "queries",
    "context_pairs",
)
ALL_CONTEXT_KEYS = ("invalid_rate", "queries", "context_pairs")
"""Averaged over every scored context: answers go wrong and queries are spent on invalid ones
too, and the pairs a context decides are a property of the data."""
SPO_ONLY = ("pairwise_test",)
WEAK_ORDER_KEYS = ("kendall", "kendall_norm", "kendall_context", "indifference_sets")
"""What an SPO-only design, with no weak order, does not have."""
NOT_A_SETTING = ("method", "template", "cache")
"""Task parameters that do not change what a run measures (cache) or that key the row."""
NOT_RUN = "not run"
NO_VALUE = Estimate(math.nan, 0)
REFERENCE_NOTE = (
    "The reversed user order violates every strict preference: its K(p) is the number of "
    "strict pairs, the scale of K(p). Everything indifferent scores p × strict pairs. The "
    "context-blind rows never read the context they are scored on: each object's mean level "
    "in the other contexts of the data (the leave-one-out order that `spo_context` is measured "
    "against, so it scores 0 there), the same cut to the user's set sizes, and one global "
    "order; what they score is what knowing which objects are generally useful earns. Chance "
    "rows simulate heedbench/random (-M seed=0) offline with the runs' designs, templates and "
    "seed: exactly what a chance run scores; expected values are exact averages over its "
    "randomness."
)
TEMPLATE_ORDER = {template: index for index, template in enumerate(TEMPLATES)}


@dataclass(frozen=True)
class ChoiceRow:
    """One run: design × template × model × settings."""

    method: str
    template: str
    model: str
    settings: str
    """The parameters the user passed, besides method and template."""
    group: str
    """Canonical JSON of the parameters that change the numbers (n, p, seed, data, ...)."""
    group_label: str
    contexts: int
    """Scored contexts (unscored ones are counted in `unscored`, not here)."""
    valid: int
    estimates: dict[str, Estimate]
    user_sets: float
    args: dict[str, Any]
    unscored: int = 0
    """Contexts the run held but could not score."""
    context_ids: tuple[str, ...] = ()
    """The scored contexts, in the order the report read them."""
    user_orders: dict[str, Any] = field(default_factory=dict)
    """The user order each scored context was scored against, as logged."""
    dataset_ids: tuple[str, ...] = ()
    """Every context id of the run's dataset, as the task recorded it."""
    contrast: dict[str, list[float]] = field(default_factory=dict)
    """Per factor, the `contrast` of each twin pair the run scored (data with twins)."""

    @property
    def config(self) -> str:
        """Design and template: what keys a bar or point within one settings group."""
        return f"{self.method} {self.template}"

    @property
    def name(self) -> str:
        """How the run is named in text: design, template, settings and model."""
        settings = "" if self.settings == "defaults" else f" [{self.settings}]"
        return f"{self.method} {self.template}{settings} · {self.model}"

    @property
    def fully_valid(self) -> bool:
        """Every scored context produced a valid preference."""
        return self.contexts > 0 and self.valid == self.contexts

    @property
    def valid_label(self) -> str:
        """`valid/scored`, with unscored contexts named apart: `1/1 (5 unscored)`."""
        extra = f" ({self.unscored} unscored)" if self.unscored else ""
        return f"{self.valid}/{self.contexts}{extra}"


def _group(run: Run) -> tuple[str, str]:
    args = {k: v for k, v in run.args.items() if k not in NOT_A_SETTING}
    return json.dumps(args, sort_keys=True, default=str), run.settings(hide=NOT_A_SETTING)


def choice_rows(loaded: Loaded) -> list[ChoiceRow]:
    """One row per run group, from per-context scores (epochs averaged per context)."""
    runs = loaded.runs("choice")
    samples = loaded.samples("choice")
    if samples.empty:
        return []
    twins = any(run.args.get("data") is not None for run in runs)
    contrasts = _contrasts(loaded.samples("choice", full=True)) if twins else {}
    by_key = {(run.model, run.key[2]): run for run in runs}
    contexts = per_sample(samples, [])
    user_sets = {
        key: group["m_user_order"].map(len).mean()
        for key, group in samples.groupby(["model", "run_args"])
    }
    labels: dict[str, str] = {}
    rows = []
    if "v_valid" not in contexts:
        contexts["v_valid"] = math.nan  # every sample of every run unscored
    for (model, args), held in contexts.groupby(["model", "run_args"], sort=False):
        run: Run = by_key[(model, args)]
        found = held[held["v_valid"].notna()]  # an unscored context has no value dict
        valid = found[found["v_valid"] > 0]
        group, label = _group(run)
        labels.setdefault(group, label)
        rows.append(
            ChoiceRow(
                method=str(run.metadata.get("method", "?")),
                template=str(run.metadata.get("template", "?")),
                model=str(model),
                settings=run.settings(hide=("method", "template")),
                group=group,
                group_label=labels[group],
                contexts=len(found),
                valid=len(valid),
                estimates={
                    key: mean_se(_column(found if key in ALL_CONTEXT_KEYS else valid, key))
                    for key in KEYS
                },
                user_sets=float(user_sets[(model, args)]),
                args=dict(run.args),
                unscored=len(held) - len(found),
                context_ids=tuple(str(i) for i in found["id"]),
                user_orders=_user_orders(samples, model, args, found["id"]),
                dataset_ids=tuple(run.dataset_ids),
                contrast=contrasts.get((str(model), str(args)), {}),
            )
        )
    rows.sort(key=_row_order)
    return rows


def _contrasts(samples: Any) -> dict[tuple[str, str], dict[str, list[float]]]:
    """Per run (model, arguments), `contrast` per factor from the logged chosen orders."""
    found: dict[tuple[str, str], dict[str, list[float]]] = {}
    if samples.empty or "m_twins" not in samples:
        return {}
    for (model, args), held in samples.groupby(["model", "run_args"], sort=False):
        contexts: dict[str, TwinContext] = {}
        for _, sample in held.iterrows():  # the first epoch of each context
            valid = sample.get("v_valid") == 1
            metadata = sample["score_metadata"] if valid else None
            contexts.setdefault(
                str(sample["id"]),
                (sample["m_user_order"], chosen_relation(metadata) if valid else None,
                 sample["m_twins"] if isinstance(sample["m_twins"], dict) else {}),
            )  # fmt: skip
        by_factor = twin_contrasts(contexts)
        if by_factor:
            found[(str(model), str(args))] = by_factor
    return found


def _user_orders(samples: Any, model: str, args: str, ids: Any) -> dict[str, Any]:
    """The logged user order of each scored context of one run (first epoch's copy)."""
    wanted = {str(i) for i in ids}
    mine = samples[(samples["model"] == model) & (samples["run_args"] == args)]
    orders: dict[str, Any] = {}
    for _, sample in mine.iterrows():
        if str(sample["id"]) in wanted:
            orders.setdefault(str(sample["id"]), sample["m_user_order"])
    return orders


def _column(frame: Any, key: str) -> list[float]:
    """A value column, or nothing when no sample has the key (logs of an older version)."""
    column = f"v_{key}"
    return list(frame[column]) if column in frame else []


def _design_order(method: str, template: str) -> tuple[int, int]:
    known = CHOICE_METHODS.index(method) if method in CHOICE_METHODS else len(CHOICE_METHODS)
    return known, TEMPLATE_ORDER.get(template, 99)


def _row_order(row: ChoiceRow) -> tuple[Any, ...]:
    design = _design_order(row.method, row.template)
    return (row.group_label, *design, row.model == CHANCE_MODEL, row.model)


def _model_label(model: str) -> str:
    return f"{model} (chance)" if model == CHANCE_MODEL else model


def _models(rows: Iterable[ChoiceRow]) -> list[str]:
    return sorted({r.model for r in rows}, key=lambda m: (m == CHANCE_MODEL, m))


def _groups(rows: list[ChoiceRow]) -> list[tuple[str, str, list[ChoiceRow]]]:
    """(group key, label, rows) per settings group, in row order."""
    found: dict[str, tuple[str, list[ChoiceRow]]] = {}
    for row in rows:
        found.setdefault(row.group, (row.group_label, []))[1].append(row)
    return [(key, label, members) for key, (label, members) in found.items()]


def _cell(row: ChoiceRow, key: str, digits: int = 3) -> str:
    if row.method in SPO_ONLY and key in WEAK_ORDER_KEYS:
        return f"{MISSING} (SPO only)"
    if row.valid == 0 and key not in ALL_CONTEXT_KEYS:
        return f"{MISSING}, 0 valid contexts"
    return fmt(row.estimates[key], digits)


def _short(row: ChoiceRow, key: str, digits: int = 3) -> str:
    """A cell without its count, for one line of the terminal summary."""
    return _cell(row, key, digits).split(" (n=")[0]


# --- the paper's Tables 1 and 2 -----------------------------------------------------------


def best_for_spo(candidates: list[ChoiceRow]) -> ChoiceRow | None:
    """Table 1's pick: the highest mean SPO among runs with a valid context.

    Ties go to more valid contexts, then to the earlier template.
    """
    scored = [r for r in candidates if r.valid > 0 and not r.estimates["spo"].missing]
    if not scored:
        return None
    return min(
        scored,
        key=lambda r: (-r.estimates["spo"].value, -r.valid, TEMPLATE_ORDER.get(r.template, 99)),
    )


def best_for_kendall(candidates: list[ChoiceRow]) -> ChoiceRow | None:
    """Table 2's pick: the lowest mean K(p) among fully valid runs (the paper's rule)."""
    scored = [r for r in candidates if r.fully_valid and not r.estimates["kendall"].missing]
    if not scored:
        return None
    return min(
        scored, key=lambda r: (r.estimates["kendall"].value, TEMPLATE_ORDER.get(r.template, 99))
    )


def _pivot_cell(
    candidates: list[ChoiceRow],
    best: ChoiceRow | None,
    key: str,
    digits: int,
    no_pick: Callable[[list[ChoiceRow]], str],
) -> str:
    if not candidates:
        return NOT_RUN
    if best is None:
        return no_pick(candidates)
    value = plus_minus(best.estimates[key], digits)
    context = best.estimates[f"{'spo' if key == 'spo' else 'kendall'}_context"]
    if not context.missing:
        name = "SPO" if key == "spo" else "K(p)"
        value = f"{plus_minus(context)} ({name} {value})"
    return f"{value} / {best.valid_label} / {best.template}"


def _most_valid(candidates: list[ChoiceRow]) -> ChoiceRow:
    return max(candidates, key=lambda r: (r.valid, -TEMPLATE_ORDER.get(r.template, 99)))


def _no_valid(candidates: list[ChoiceRow]) -> str:
    templates = ", ".join(r.template for r in candidates)
    return f"{MISSING} / {candidates[0].valid_label} / {templates} (0 valid contexts)"


def _no_fully_valid(candidates: list[ChoiceRow]) -> str:
    most = _most_valid(candidates)
    return f"{MISSING} (no fully valid run; most valid: {most.valid_label} with {most.template})"


def _paper_tables(label: str, rows: list[ChoiceRow]) -> list[Table]:
    """Tables 1 and 2 and the indifference sets: one row per design, one column per model."""
    methods = [m for m in CHOICE_METHODS if any(r.method == m for r in rows)]
    weak = [m for m in methods if m not in SPO_ONLY]
    suffix = "" if label == "defaults" else f" — settings: {label}"
    user_sets = rows[0].user_sets if rows else math.nan

    def per_model(cell: Callable[[list[ChoiceRow]], str]) -> dict[str, Callable[[str], str]]:
        def of(model: str) -> Callable[[str], str]:
            return lambda method: cell([r for r in rows if (r.method, r.model) == (method, model)])

        return {"design": str, **{_model_label(m): of(m) for m in _models(rows)}}

    return [
        table(
            "Table 1 — partial alignment on the pairs the context decides (`spo_context` ↑, "
            "the paper's SPO in brackets): mean ± stderr / valid of scored contexts / best "
            f"template{suffix}",
            per_model(lambda found: _pivot_cell(found, best_for_spo(found), "spo", 3, _no_valid)),
            methods,
            note="`spo_context` is SPO on the user's strict pairs that the context-blind order "
            "(each object's mean level in the other contexts) does not already rank the same "
            "way: that order scores 0 there, chance about 0.5, and the reference rows show what "
            "reading a single factor earns. Best template per design × model by mean SPO over "
            "its valid contexts (ties: more valid contexts, then the earlier template), as in "
            "the paper's Table 1.",
        ),
        table(
            "Table 2 — full alignment on the pairs the context decides (K(p) per pair ↓, the "
            "paper's K(p) in brackets): mean ± stderr / valid of scored contexts / best "
            f"template{suffix}",
            per_model(
                lambda found: _pivot_cell(
                    found, best_for_kendall(found), "kendall", 1, _no_fully_valid
                )
            ),
            weak,
            note="`kendall_context` is K(p) per pair on the pairs where the context-blind order "
            "and the user disagree (0 = aligned; the context-blind order itself scores at least "
            "p there). Best template per design × model by mean K(p), among runs valid in every "
            "scored context, as in the paper's Table 2 (pairwise_test has no rational "
            "preference and no K(p)).",
        ),
        table(
            f"Indifference sets per design (the paper's diagnostic){suffix}",
            {
                **per_model(
                    lambda found: _sets_cell(found, best_for_spo(found), best_for_kendall(found))
                ),
                "model user": lambda _: f"{user_sets:.2f}",
            },
            weak,
            note="Mean indifference sets of the run picked in Table 1 (template in brackets), "
            "and of Table 2's pick where it differs.",
        ),
    ]


def _sets_cell(found: list[ChoiceRow], first: ChoiceRow | None, second: ChoiceRow | None) -> str:
    if not found:
        return NOT_RUN
    picks = [r for r in (first, second) if r is not None]
    if not picks:
        return f"{MISSING}, 0 valid contexts"
    parts = [f"{picks[0].estimates['indifference_sets'].value:.2f} ({picks[0].template})"]
    if len(picks) == 2 and picks[1] is not picks[0]:
        parts.append(
            f"{picks[1].estimates['indifference_sets'].value:.2f} ({picks[1].template}, Table 2)"
        )
    return "; ".join(parts)


# --- reference rows -------------------------------------------------------------------------


def runs_data(
    rows: list[ChoiceRow], contexts: tuple[str, ...]
) -> tuple[list[Sample], list[Sample], str | None] | str:
    """The runs' data (every context, the scored ones, an earlier version's name if used).

    A run on the shipped data is read with the shipped data, or with the earlier shipped
    version its logged user orders match (a log written before the data changed).
    """
    args = rows[0].args
    named = args.get("data")
    logged = {context: order for row in rows for context, order in row.user_orders.items()}
    changed: list[str] = []
    for data in [named] if named is not None else [None, *PREVIOUS_VERSIONS]:
        try:
            everyone = list(choice_dataset(data, n=args.get("n"), seed=args.get("seed", 0)))
            samples = select_contexts(everyone, contexts)
        except (ChoiceDataError, OSError, ValueError) as error:
            return f"reference rows not computed: the data of these runs cannot be read ({error})"
        changed = [
            str(sample.id)
            for sample in samples
            if sample.metadata is not None
            and str(sample.id) in logged
            and logged[str(sample.id)] != sample.metadata["user_order"]
        ]
        if not changed:
            return everyone, samples, None if data == named else str(data)
    return (
        "reference rows not computed: the user orders these runs were scored against match "
        f"no data the report can read ({', '.join(changed[:3])} differ)"
    )


def _reference_rows(
    rows: list[ChoiceRow], contexts: tuple[str, ...]
) -> tuple[list[ReferenceRow], str | None] | str:
    """The reference rows on the given contexts of one settings group, or why not computed."""
    args = rows[0].args
    found_data = runs_data(rows, contexts)
    if isinstance(found_data, str):
        return found_data
    everyone, samples, version = found_data
    designs = sorted(
        {(r.method, r.template) for r in rows if r.method in CHOICE_METHODS},
        key=lambda d: _design_order(*d),
    )
    found = rows_on(
        samples,
        everyone,
        data=args.get("data") or version,
        designs=designs,
        seed=int(args.get("seed", 0)),
        p=float(args.get("p", 0.5)),
        score_low=int(args.get("score_low", 1)),
        score_high=int(args.get("score_high", 5)),
        validity="strict" if args.get("validity") == "strict" else "lenient",
    )
    return found, version


def _context_sets(rows: list[ChoiceRow]) -> list[tuple[tuple[str, ...], list[ChoiceRow]]]:
    """Runs grouped by the exact set of contexts they scored, in row order."""
    found: dict[frozenset[str], tuple[tuple[str, ...], list[ChoiceRow]]] = {}
    for row in rows:
        key = frozenset(row.context_ids)
        found.setdefault(key, (row.context_ids, []))[1].append(row)
    return [entry for key, entry in found.items() if key]


def _reference_tables(label: str, rows: list[ChoiceRow]) -> list[Table]:
    """One reference table per settings group and set of scored contexts."""
    suffix = "" if label == "defaults" else f" — settings: {label}"
    sets = _context_sets(rows)
    tables = []
    for contexts, members in sets:
        objects = rows[0].args.get("n") or "all"
        which = (
            f" ({len(contexts)} scored contexts: {', '.join(sorted(contexts))})"
            if len(sets) > 1 or len(contexts) < len(_dataset_ids(members))
            else ""
        )
        computed = _reference_rows(members, contexts)
        references, version = ([], None) if isinstance(computed, str) else computed
        data = "" if version is None else f" — data {version}, which these runs were scored on"
        tables.append(
            table(
                f"Reference rows on the {len(contexts)} contexts and {objects} objects these "
                f"runs scored{which}{suffix}{data}",
                {
                    "reference": lambda ref: ref.label,
                    "design": lambda ref: ref.method or MISSING,
                    "template": lambda ref: ref.template or MISSING,
                    "how": lambda ref: ref.how,
                    **_scores(lambda ref, key, digits: fmt(mean_se(ref.column(key)), digits)),
                    "valid": lambda ref: f"{ref.valid}/{ref.contexts}",
                },
                references,
                note=computed if isinstance(computed, str) else REFERENCE_NOTE,
            )
        )
        if isinstance(computed, str):
            continue
        contrast = _contrast_table(members, references, suffix)
        if contrast is not None:
            tables.append(contrast)
    return tables


def _contrast_table(
    members: list[ChoiceRow], references: list[ReferenceRow], suffix: str
) -> Table | None:
    """`contrast` per factor for the runs and reference choosers on data with twins."""
    named: list[tuple[str, Mapping[str, Sequence[float]]]] = [
        (r.name, r.contrast) for r in members if r.contrast
    ]
    named += [
        (f"{ref.label}{f' ({ref.method} {ref.template})' if ref.method else ''}", ref.contrast)
        for ref in references
        if ref.contrast and ref.kind not in ("reversed", "indifferent")
    ]
    factors = sorted({factor for _, found in named for factor in found})
    if not factors:
        return None
    table = Table(
        caption=f"Contrast per factor: how the chosen order follows the user between minimal "
        f"twin contexts, mean ± stderr over twin pairs{suffix}",
        columns=["run or reference", *factors, "all twin pairs"],
        rows=[],
        note="Of the object pairs whose user order changes between two contexts that differ "
        "in one factor, the share whose chosen order changes the same way: 0 for a chooser "
        "blind to that factor (a context-blind or other-factor chooser scores 0 by "
        "construction), 1 for one that follows the user. Reference choosers learn from the "
        "default data; chance answers at random in each twin.",
    )
    for label, found in named:
        pooled = [value for values in found.values() for value in values]
        cells = [plus_minus(mean_se(found.get(factor, []))) for factor in factors]
        table.rows.append([label, *cells, plus_minus(mean_se(pooled))])
    return table


def _dataset_ids(rows: list[ChoiceRow]) -> list[str]:
    """The dataset's context ids as the runs recorded them (empty when unknown)."""
    recorded = rows[0].dataset_ids
    return list(recorded) if recorded else list(rows[0].context_ids)


# --- per-run tables ---------------------------------------------------------------------------


def _chance_missing(rows: list[ChoiceRow]) -> list[str]:
    """Designs with model rows but no chance-model run to compare with."""
    methods = {r.method for r in rows}
    with_chance = {r.method for r in rows if r.model == CHANCE_MODEL}
    return [m for m in CHOICE_METHODS if m in methods - with_chance]


def _consistency(row: ChoiceRow) -> str:
    if row.method == "pairwise_test":
        return f"{MISSING}, one order per pair"
    if row.method in ("pointwise", "listwise"):
        return f"{MISSING}, no pairs asked"
    return _cell(row, "order_consistency")


def _sets(row: ChoiceRow) -> str:
    sets = _cell(row, "indifference_sets", 2)
    return sets if row.method in SPO_ONLY else f"{sets} [{row.user_sets:.2f}]"


def _total(estimate: Estimate) -> str:
    return MISSING if estimate.missing else f"{estimate.value * estimate.n:.0f}"


RUN_KEYS: dict[str, Callable[[ChoiceRow], str]] = {
    "method": lambda r: r.method,
    "template": lambda r: r.template,
    "model": lambda r: _model_label(r.model),
    "settings": lambda r: r.settings,
}


def _scores(cell: Callable[..., str]) -> dict[str, Callable[[Any], str]]:
    """The score columns but `valid`, read by `cell(item, key, digits)` (runs and references)."""
    return {
        column: functools.partial(cell, key=key, digits=digits)
        for column, (key, digits) in SCORE_COLUMNS.items()
    }


def _run_tables(rows: list[ChoiceRow]) -> list[Table]:
    alignment = table(
        "Alignment per run (design × template × model × settings): SPO ↑ (partial "
        "alignment), K(p) ↓ and K(p) per pair ↓ (full alignment), mean ± stderr over valid "
        "contexts",
        {**RUN_KEYS, **_scores(_cell), "valid": lambda r: r.valid_label},
        rows,
        note=f"`{CHANCE_MODEL}` is the chance reference row of each design. `valid` counts "
        "valid contexts among the scored ones; unscored contexts are named apart. The "
        "context-pair columns are SPO and K(p) per pair on the pairs a context-blind order "
        "gets wrong (`spo_context`, `kendall_context`).",
    )
    no_chance = f"{MISSING}, no chance run"
    alignment.rows += [
        [
            m,
            MISSING,
            f"{CHANCE_MODEL} (chance)",
            MISSING,
            no_chance,
            MISSING,
            no_chance,
            *[MISSING] * 3,
        ]
        for m in _chance_missing(rows)
    ]
    diagnostics = table(
        "Diagnostics per run: indifference sets produced (the model user's mean in brackets), "
        "share of invalid (⊥) answers, presentation-order consistency and queries per context",
        {
            **RUN_KEYS,
            "indifference sets": _sets,
            "⊥ rate": lambda r: fmt(r.estimates["invalid_rate"]),
            "order consistency": _consistency,
            "queries / context": lambda r: fmt(r.estimates["queries"], 1),
            "queries total": lambda r: _total(r.estimates["queries"]),
        },
        rows,
    )
    return [alignment, diagnostics]


# --- figures ----------------------------------------------------------------------------------


def _configs(rows: list[ChoiceRow], many_groups: bool) -> list[str]:
    return list(dict.fromkeys(_config_label(row, many_groups) for row in rows))


def _config_label(row: ChoiceRow, many_groups: bool) -> str:
    if many_groups and row.group_label != "defaults":
        return f"{row.config}\n{row.group_label}"
    return row.config


def _valid_note(row: ChoiceRow | None) -> str:
    if row is None:
        return NOT_RUN
    if row.valid == 0:
        return f"0 valid of {row.valid_label.split('/', 1)[1]}"
    return row.valid_label


def _figures(rows: list[ChoiceRow]) -> list[Figure]:
    many_groups = len({r.group for r in rows}) > 1
    lookup = {(r.model, _config_label(r, many_groups)): r for r in rows}

    def bars(key: str, configs: list[str], ylim: tuple[float, float] | None = None) -> Bars:
        found = {_model_label(m): [lookup.get((m, c)) for c in configs] for m in _models(rows)}
        return Bars(
            groups=configs,
            series={
                model: [NO_VALUE if r is None or r.valid == 0 else r.estimates[key] for r in runs]
                for model, runs in found.items()
            },
            notes={model: [_valid_note(r) for r in runs] for model, runs in found.items()},
            ylim=ylim,
        )

    points: dict[str, dict[str, tuple[Estimate, Estimate]]] = {}
    labels: dict[str, dict[str, str]] = {}
    for row in rows:
        config, model = _config_label(row, many_groups), _model_label(row.model)
        points.setdefault(model, {})[config] = (row.estimates["queries"], row.estimates["spo"])
        labels.setdefault(model, {})[config] = f"{row.template} {_valid_note(row)}"
    markers = {_config_label(row, many_groups): row.method for row in rows}
    no_valid = [r.name for r in rows if r.valid == 0]
    missing_note = f" Runs with 0 valid contexts have no SPO to plot: {'; '.join(no_valid)}."
    valid_above = "design and template (valid contexts above each bar)"
    return [
        Figure(
            "choice_spo.png",
            "Partial alignment (SPO) per design, template and model, mean ± stderr over valid "
            "contexts; each bar is labelled with its valid contexts, '0 valid' marks a run "
            "with no valid context and 'not run' a combination that was not run.",
            "Partial alignment: share of the user's strict preferences kept",
            valid_above,
            "SPO (higher is better)",
            bars("spo", _configs(rows, many_groups), ylim=(0, 1.12)),
        ),
        Figure(
            "choice_kendall.png",
            "Full alignment: K(p) per pair of objects per design, template and model (lower is "
            "better; SPO-only designs are left out), labelled with valid contexts.",
            "Full alignment: Kendall distance with penalty, per pair",
            valid_above,
            "K(p) / (n(n−1)/2) (lower is better)",
            bars(
                "kendall_norm", _configs([r for r in rows if r.method not in SPO_ONLY], many_groups)
            ),
        ),
        Figure(
            "choice_queries.png",
            "What alignment costs: SPO against queries per context for every run; the marker "
            "is the design, the colour the model, the label the template and valid contexts."
            + (missing_note if no_valid else ""),
            "Alignment per query spent (marker = design, colour = model)",
            "queries per context (log scale)",
            "SPO (higher is better)",
            Points(points, logx=True, marker_groups=markers, point_labels=labels),
        ),
    ]


def choice_section(loaded: Loaded) -> Section | None:
    """The `choice` section, or None when no choice run was used."""
    rows = choice_rows(loaded)
    if not rows:
        return None
    tables: list[Table] = []
    for _, label, members in _groups(rows):
        tables += _paper_tables(label, members)
    tables += _run_tables(rows)
    for _, label, members in _groups(rows):
        tables += _reference_tables(label, members)
    section = Section(
        title="choice — rational choice functions",
        intro="Does the LLM-implemented choice function keep the user's strict preferences "
        "(SPO, partial alignment) and match strict preferences and indifferences (K(p), full "
        "alignment)? Tables 1 and 2 follow the paper: the best template per design × model. "
        "Every run is also listed on its own (design × template × model × settings); "
        "alignment is averaged over the contexts where the design produced a complete "
        "rational preference (`valid`). The reference rows give K(p) its scale.",
        tables=tables,
        figures=_figures(rows),
    )
    for row in rows:
        section.summary.append(
            f"choice {row.method:<15} {row.template:<4} {row.model:<28} "
            f"{'' if row.settings == 'defaults' else '[' + row.settings + '] '}"
            f"spo_context {_short(row, 'spo_context')} (SPO {_short(row, 'spo')})  "
            f"K(p) {_short(row, 'kendall', 1)}  valid {row.valid_label}"
        )
    return section
