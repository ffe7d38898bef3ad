"""`prefdisco` section: does asking questions personalise the answer, and at what cost?

Every row, series and summary line belongs to one model under one *setting*: the task
parameters that change what is measured (`SETTING_KEYS`, with the protocol's switches from
`solvers/prefdisco/settings.py`). Runs of a model that differ only in anything else (the
condition, `source`, `strict`, `allow_self_roles`) are pooled; runs that differ in a setting
never are, so two measurements are never averaged into one number. docs/report.md lists the
tables; normalized alignment over all sources comes from the source-averaged means, with a
bootstrap that resamples records within each source.
"""

import functools
import inspect
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from heedbench.evals.prefdisco.task import CONDITIONS, prefdisco
from heedbench.report.document import (
    MISSING,
    Section,
    Table,
    per_sample,
    settings_label,
    short_model,
)
from heedbench.report.figures import Bars, Figure, Fits, Lines, Series, shares
from heedbench.report.load import Loaded
from heedbench.report.stats import BOOTSTRAP_RESAMPLES, Estimate, fmt, mean_se
from heedbench.report.tables import table
from heedbench.scorers import normalized_alignment
from heedbench.solvers.prefdisco.settings import DEFAULTS, SWITCH_NAMES
from heedbench.solvers.prefdisco.settings import LEGACY as LEGACY_SWITCHES

ALL = "all sources"
PROVIDERS = "all providers"
UNIT = ["m_problem_id", "m_persona_id"]
PAPER_NEGATIVE_SHARE = 0.29
"""The paper's share of model × task pairs with negative normalized alignment (29.0%)."""

MEASURED = ("protocol", "judge", "max_turns", "fixed_questions", "questions", "user_type",
            "verdict", "data", "revision", "variant", "max_problems", "seed")  # fmt: skip
SETTING_DEFAULTS: dict[str, Any] = {
    name: inspect.signature(prefdisco).parameters[name].default for name in MEASURED
}
"""The task parameters that change the measurement, with the task's defaults."""
SWITCHES = SWITCH_NAMES
"""Task parameters whose default depends on the protocol (`solvers/prefdisco/settings.py`)."""
SETTING_KEYS = (*SETTING_DEFAULTS, *SWITCHES)
ALWAYS_SHOWN = ("protocol", "judge", "user_type")
LEGACY: dict[str, Any] = {"protocol": "budgeted", "judge": "batched"}
"""What a log written before a parameter existed ran with (before `protocol`, every run was
what is now `budgeted`; before per-criterion became the default, judging was batched)."""
DRAW_SEED = 42
"""The seed a `max_problems` draw uses when `seed` is unset."""


def run_setting(args: Mapping[str, Any]) -> dict[str, Any]:
    """The measurement setting of a run, from its task arguments (defaults included).

    A switch left unset is the protocol's own choice; one missing from the arguments altogether
    (a log written before it existed) is what every run used then (`LEGACY_SWITCHES`).
    """
    setting = {
        key: args.get(key, LEGACY.get(key, default)) for key, default in SETTING_DEFAULTS.items()
    }
    if setting["max_problems"] is not None and setting["seed"] is None:
        setting["seed"] = DRAW_SEED
    own, legacy = protocol_switches(setting["protocol"]), LEGACY_SWITCHES.record()
    for key in SWITCHES:
        given = args.get(key, legacy[key])
        setting[key] = own.get(key, legacy[key]) if given is None else given
    return setting


def protocol_switches(protocol: str) -> dict[str, Any]:
    """The switches' values a protocol chooses by itself."""
    return DEFAULTS[protocol].record() if protocol in DEFAULTS else {}


def _default(setting: Mapping[str, Any], key: str) -> Any:
    if key in SWITCHES:
        return protocol_switches(setting["protocol"]).get(key)
    return SETTING_DEFAULTS[key]


def setting_label(setting: Mapping[str, Any], hide: Sequence[str] = ()) -> str:
    """`key=value` text: protocol, judge and user type, then every key off its default.

    A switch is off its default when it differs from the protocol's own choice.
    """
    values = {key: setting[key] for key in SETTING_KEYS}
    defaults = {key: _default(setting, key) for key in SETTING_KEYS}
    return settings_label(values, defaults, first=ALWAYS_SHOWN, hide=hide)


def provider_of(model: str) -> str:
    """The provider a model name starts with (after a `mockllm/` test prefix)."""
    return short_model(model).split("/", maxsplit=1)[0]


@dataclass(frozen=True)
class PrefDiscoRow:
    """One model × setting × source (or all sources) row."""

    model: str
    setting: dict[str, Any]
    source: str
    prefalign: dict[str, Estimate]
    accuracy: dict[str, Estimate]
    normalized: Estimate
    worse: Estimate
    questions: Estimate
    question_counts: list[int]
    missing: str
    """Why normalized alignment is missing ('' when it is not)."""

    @property
    def settings(self) -> str:
        """The setting as shown in tables, figures and summary lines."""
        return setting_label(self.setting)


def _paired(group: pd.DataFrame) -> pd.DataFrame:
    """Records (problem × persona) as rows, PrefAlign per condition as columns."""
    scored = group[group["v_prefalign"].notna()]
    return scored.pivot_table(
        index=UNIT, columns="m_condition", values="v_prefalign", aggfunc="mean"
    )


Units = np.ndarray[Any, np.dtype[np.float64]]
"""Records × 3: baseline, discovery and oracle PrefAlign of each record."""
NO_UNITS: Units = np.zeros((0, 3))


def _complete(paired: pd.DataFrame) -> tuple[Units, str]:
    missing = [c for c in CONDITIONS if c not in paired.columns]
    if missing:
        return NO_UNITS, f"{MISSING}, no {' or '.join(missing)} run"
    complete = paired[list(CONDITIONS)].dropna()
    if complete.empty:
        return NO_UNITS, f"{MISSING}, no record scored in all three conditions"
    return complete.to_numpy(dtype=np.float64), ""


def _alignments(means: Units) -> Units:
    """100·(D − B)/(O − B) for each row of condition means; NaN where O = B."""
    gap = means[..., 2] - means[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        values = 100.0 * (means[..., 1] - means[..., 0]) / gap
    return np.where(gap == 0, np.nan, values)


def _resampled(units: Units, rng: np.random.Generator) -> Units:
    """Condition means of `BOOTSTRAP_RESAMPLES` resamples of the records (resamples × 3).

    Each resample draws as many records as there are, with replacement.
    """
    picks = rng.integers(0, len(units), (BOOTSTRAP_RESAMPLES, len(units)))
    means: Units = units[picks].mean(axis=1)
    return means


def _interval(point: float, n: int, draws: Units) -> Estimate:
    defined = draws[~np.isnan(draws)]
    if not len(defined):
        return Estimate(point, n)
    low, high = np.percentile(defined, [2.5, 97.5])
    return Estimate(point, n, low=float(low), high=float(high))


def _normalized(
    sources: Mapping[str, pd.DataFrame], rng: np.random.Generator
) -> tuple[Estimate, str]:
    """Normalized alignment from the source-averaged condition means (each source counts once).

    The bootstrap interval resamples records within each source, keeping their counts; with
    one source it is that source's paired normalized alignment.
    """
    found = {source: _complete(paired) for source, paired in sources.items()}
    complete = [units for units, _ in found.values() if len(units)]
    if not complete:
        return Estimate(math.nan, 0), sorted(reason for _, reason in found.values())[0]
    n = sum(len(units) for units in complete)
    point = float(_alignments(np.mean([units.mean(axis=0) for units in complete], axis=0)))
    if math.isnan(point):
        return Estimate(math.nan, n), f"{MISSING}, oracle = baseline (scale undefined)"
    draws = np.mean([_resampled(units, rng) for units in complete], axis=0)
    return _interval(point, n, _alignments(draws)), ""


def _worse(paired: pd.DataFrame) -> Estimate:
    if not {"baseline", "discovery"} <= set(paired.columns):
        return Estimate(math.nan, 0)
    both = paired[["baseline", "discovery"]].dropna()
    return mean_se([float(d < b) for b, d in both.itertuples(index=False)])


def _row(
    model: str,
    setting: dict[str, Any],
    source: str,
    group: pd.DataFrame,
    normalized: tuple[Estimate, str],
) -> PrefDiscoRow:
    def values(condition: str, key: str) -> list[float]:
        return list(group.loc[group["m_condition"] == condition, f"v_{key}"])

    discovery_questions = [q for q in values("discovery", "questions") if not math.isnan(q)]
    return PrefDiscoRow(
        model=model,
        setting=setting,
        source=source,
        prefalign={c: mean_se(values(c, "prefalign")) for c in CONDITIONS},
        accuracy={c: mean_se(values(c, "correct")) for c in CONDITIONS},
        normalized=normalized[0],
        worse=_worse(_paired(group)),
        questions=mean_se(discovery_questions),
        question_counts=[int(q) for q in discovery_questions],
        missing=normalized[1],
    )


def _samples(loaded: Loaded) -> pd.DataFrame:
    """Per-sample scores (epochs averaged) with each run's setting as a `setting` column."""
    raw = loaded.samples("prefdisco")
    if raw.empty:
        return raw
    for key in ("prefalign", "correct", "questions"):
        if f"v_{key}" not in raw:
            raw[f"v_{key}"] = math.nan
    samples = per_sample(raw, ["m_condition", "m_source", *UNIT])
    settings = {args: run_setting(json.loads(args)) for args in samples["run_args"].unique()}
    samples["setting"] = samples["run_args"].map(lambda a: json.dumps(settings[a]))
    return samples


def prefdisco_rows(
    loaded: Loaded, rng: np.random.Generator | None = None, samples: pd.DataFrame | None = None
) -> list[PrefDiscoRow]:
    """Rows per model × setting: one per source, then one over all sources.

    `samples` are `_samples(loaded)` when the caller has read them already.
    """
    samples = _samples(loaded) if samples is None else samples
    if samples.empty:
        return []
    generator = rng if rng is not None else np.random.default_rng(0)
    rows = []
    for (model, setting), by_model in samples.groupby(["model", "setting"], sort=False):
        values = json.loads(str(setting))
        sources = {str(s): group for s, group in by_model.groupby("m_source")}
        normalized = {}
        for source, group in sources.items():
            normalized[source] = _normalized({source: _paired(group)}, generator)
            rows.append(_row(str(model), values, source, group, normalized[source]))
        pooled = (
            next(iter(normalized.values()))  # one source: the same estimate, not a second draw
            if len(sources) == 1
            else _normalized({s: _paired(g) for s, g in sources.items()}, generator)
        )
        rows.append(_row(str(model), values, ALL, by_model, pooled))
    rows.sort(key=lambda r: (r.model, r.settings, r.source == ALL, r.source))
    return rows


# --- the paper's summaries ----------------------------------------------------------------


@dataclass(frozen=True)
class NegativeShare:
    """Model × source pairs of one setting with a normalized alignment, and how many < 0."""

    settings: str
    pairs: list[tuple[str, str, float]]
    share: Estimate


def negative_shares(rows: Sequence[PrefDiscoRow]) -> list[NegativeShare]:
    """Per setting: the share of model × source pairs whose normalized alignment is < 0."""
    by_setting: dict[str, list[tuple[str, str, float]]] = {}
    for row in rows:
        if row.source != ALL and not row.normalized.missing:
            by_setting.setdefault(row.settings, []).append(
                (row.model, row.source, row.normalized.value)
            )
    return [
        NegativeShare(settings, pairs, mean_se([float(v < 0) for _, _, v in pairs]))
        for settings, pairs in sorted(by_setting.items())
    ]


@dataclass(frozen=True)
class QuestionFit:
    """Questions asked against PrefAlign in one provider's (or all) discovery conversations.

    Under one setting, with Pearson r and the least-squares line.
    """

    setting: dict[str, Any]
    provider: str
    questions: list[float]
    prefalign: list[float]
    r: Estimate
    p_value: float
    slope: Estimate
    intercept: float

    @property
    def settings(self) -> str:
        """The setting as shown in tables and summary lines."""
        return setting_label(self.setting)


def _correlations(xs: Units, ys: Units) -> Units:
    """Pearson r of each row pair of `xs` and `ys` (same shape); NaN where one is constant."""
    dx = xs - xs.mean(axis=-1, keepdims=True)
    dy = ys - ys.mean(axis=-1, keepdims=True)
    spread = np.sqrt((dx * dx).sum(axis=-1) * (dy * dy).sum(axis=-1))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (dx * dy).sum(axis=-1) / spread
    return np.where(spread > 1e-12, r, np.nan)


def _pearson(xs: Sequence[float], ys: Sequence[float], rng: np.random.Generator) -> Estimate:
    """Pearson r with a bootstrap interval over the points (resampled whole)."""
    x, y = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
    if len(x) < 2:
        return Estimate(math.nan, len(x))
    point = float(_correlations(x, y))
    if math.isnan(point):
        return Estimate(math.nan, len(x))
    picks = rng.integers(0, len(x), (BOOTSTRAP_RESAMPLES, len(x)))
    return _interval(point, len(x), _correlations(x[picks], y[picks]))


def _fisher_p(r: float, n: int) -> float:
    """Two-sided p-value of r ≠ 0 by Fisher's z transform (normal approximation)."""
    if math.isnan(r) or n < 4:
        return math.nan
    if abs(r) >= 1:
        return 0.0
    z = math.atanh(r) * math.sqrt(n - 3)
    return math.erfc(abs(z) / math.sqrt(2))


def _line(xs: Sequence[float], ys: Sequence[float]) -> tuple[Estimate, float]:
    """Least-squares slope (with its standard error) and intercept of y on x."""
    x, y = np.array(xs, dtype=float), np.array(ys, dtype=float)
    n = len(x)
    sxx = float(((x - x.mean()) ** 2).sum()) if n else 0.0
    if n < 2 or sxx == 0:
        return Estimate(math.nan, n), math.nan
    slope = float(((x - x.mean()) * (y - y.mean())).sum() / sxx)
    intercept = float(y.mean() - slope * x.mean())
    if n < 3:
        return Estimate(slope, n, stderr=math.nan), intercept
    residual = float(((y - (intercept + slope * x)) ** 2).sum())
    return Estimate(slope, n, stderr=math.sqrt(residual / (n - 2) / sxx)), intercept


def question_fits(samples: pd.DataFrame, rng: np.random.Generator) -> list[QuestionFit]:
    """Per free-discovery setting: one fit per provider, then one over all providers."""
    discovery = samples[(samples["m_condition"] == "discovery") & samples["v_prefalign"].notna()]
    fits = []
    for setting, group in discovery.groupby("setting", sort=False):
        values = json.loads(str(setting))
        if values["fixed_questions"] is not None:
            continue
        providers = {provider_of(str(m)) for m in group["model"]}
        parts = [(p, group[group["model"].map(provider_of) == p]) for p in sorted(providers)]
        if len(parts) > 1:
            parts.append((PROVIDERS, group))
        for provider, part in parts:
            xs, ys = list(part["v_questions"]), list(part["v_prefalign"])
            r = _pearson(xs, ys, rng)
            slope, intercept = _line(xs, ys)
            fits.append(
                QuestionFit(
                    values, provider, xs, ys, r, _fisher_p(r.value, len(xs)), slope, intercept
                )
            )
    return fits


def fixed_rows(rows: Sequence[PrefDiscoRow]) -> dict[tuple[str, str], list[PrefDiscoRow]]:
    """Rows of fixed-k runs beside their free-discovery counterparts.

    Grouped by model × the rest of the setting; free discovery, when run, sorts first.
    """
    groups: dict[tuple[str, str], list[PrefDiscoRow]] = {}
    for row in rows:
        groups.setdefault(
            (row.model, setting_label(row.setting, hide=("fixed_questions",))), []
        ).append(row)
    fixed = {}
    for key, group in groups.items():
        if any(r.setting["fixed_questions"] is not None for r in group):
            group.sort(key=lambda r: (r.setting["fixed_questions"] or 0, r.source == ALL, r.source))
            fixed[key] = group
    return fixed


@dataclass(frozen=True)
class StockRow:
    """The stock questionnaire beside a model's own discovery, on the same records."""

    model: str
    settings: str
    source: str
    own: Estimate
    stock: Estimate
    share: float
    """(D_stock − B)/(D_own − B): the part of the model's own discovery gain that the
    questionnaire earns (NaN when its own discovery gained nothing)."""


STOCK_COLUMNS = ("baseline", "own", "stock", "oracle")


def _stock_units(group: pd.DataFrame) -> Units:
    """Records × (B, own D, stock D, O); B and O from every run of the setting."""
    scored = group[group["v_prefalign"].notna()].copy()
    asked = scored["setting"].map(lambda s: json.loads(s)["questions"])
    scored["column"] = scored["m_condition"].where(
        scored["m_condition"] != "discovery", asked.map({"model": "own", "stock": "stock"})
    )
    paired = scored.pivot_table(index=UNIT, columns="column", values="v_prefalign")
    if any(column not in paired.columns for column in STOCK_COLUMNS):
        return np.zeros((0, 4))
    units: Units = paired[list(STOCK_COLUMNS)].dropna().to_numpy(dtype=np.float64)
    return units


def _stock_row(
    model: str, settings: str, source: str, *, n: int, means: Units, draws: Units
) -> StockRow:
    b, own, stock, o = (float(x) for x in means)
    both = [(own, draws[:, [0, 1, 3]]), (stock, draws[:, [0, 2, 3]])]
    found = [_interval(normalized_alignment(b, d, o), n, _alignments(x)) for d, x in both]
    share = (stock - b) / (own - b) if own > b else math.nan
    return StockRow(model, settings, source, found[0], found[1], share)


def stock_rows(samples: pd.DataFrame, rng: np.random.Generator) -> list[StockRow]:
    """Per model × setting (apart from `questions`) × source with both own and stock discovery.

    Normalized alignment of each on the records scored in all four; over all sources from the
    source-averaged means, as the main table.
    """
    if samples.empty:
        return []
    rest = samples["setting"].map(
        lambda s: setting_label({**json.loads(s), "questions": "model"}, hide=("questions",))
    )
    rows = []
    for (model, settings), group in samples.groupby([samples["model"], rest], sort=False):
        found = {str(src): _stock_units(part) for src, part in group.groupby("m_source")}
        found = {src: units for src, units in found.items() if len(units)}
        if not found:
            continue
        resampled = {src: _resampled(units, rng) for src, units in found.items()}
        for src, units in found.items():
            means = units.mean(axis=0)
            found_row = _stock_row(
                str(model), settings, src, n=len(units), means=means, draws=resampled[src]
            )
            rows.append(found_row)
        if len(found) > 1:
            n = sum(len(units) for units in found.values())
            means = np.mean([units.mean(axis=0) for units in found.values()], axis=0)
            draws = np.mean(list(resampled.values()), axis=0)
            rows.append(_stock_row(str(model), settings, ALL, n=n, means=means, draws=draws))
    return rows


# --- rendering ------------------------------------------------------------------------------


def _varying(settings: Sequence[Mapping[str, Any]]) -> list[str]:
    """The setting keys that take more than one value among `settings`, in display order."""
    order = [*ALWAYS_SHOWN, *(key for key in SETTING_KEYS if key not in ALWAYS_SHOWN)]
    return [key for key in order if len({json.dumps(s[key]) for s in settings}) > 1]


def _part(key: str, value: Any) -> str:
    if key == "fixed_questions":
        return "free discovery" if value is None else f"k={value}"
    return f"{key}={value}"


def _series_label(name: str, setting: Mapping[str, Any], keys: Sequence[str]) -> str:
    """A figure's series name: the full model name (as the tables have it) and its settings.

    Only the settings that tell the series apart are named.
    """
    parts = ", ".join(_part(key, setting[key]) for key in keys)
    return f"{name} ({parts})" if parts else name


def _shared(settings: Sequence[Mapping[str, Any]], hide: Sequence[str] = ()) -> str:
    """A caption's note on the settings every series of a figure shares."""
    if not settings:
        return ""
    common = setting_label(settings[0], hide=[*_varying(settings), *hide])
    return f" Settings of every series: {common}." if common else ""


def _cell(estimate: Estimate, condition: str, digits: int = 2) -> str:
    return fmt(estimate, digits, missing=f"{MISSING}, no {condition} run")


def _bold(name: str, overall: str) -> str:
    return f"**{name}**" if name == overall else name


def _percent(estimate: Estimate) -> str:
    if estimate.missing:
        return MISSING
    spread = "" if estimate.stderr is None or math.isnan(estimate.stderr) else (
        f" ± {100 * estimate.stderr:.1f}%"
    )  # fmt: skip
    return f"{100 * estimate.value:.1f}%{spread}"


def _negatives(share: NegativeShare) -> list[tuple[str, str, float]]:
    return [(m, s, v) for m, s, v in share.pairs if v < 0]


Head = dict[str, Callable[[PrefDiscoRow], str]]
HEAD: Head = {
    "model": lambda r: r.model,
    "settings": lambda r: r.settings,
    "source": lambda r: _bold(r.source, ALL),
}
NORMALIZED: Callable[[PrefDiscoRow], str] = lambda r: r.missing or fmt(r.normalized, 1)  # noqa: E731
FLAT = f"{MISSING}, questions or PrefAlign do not vary"


def _tables(
    rows: list[PrefDiscoRow],
    shares: list[NegativeShare],
    fits: list[QuestionFit],
    fixed: dict[tuple[str, str], list[PrefDiscoRow]],
    stock: list[StockRow],
) -> list[Table]:
    """Every prefdisco table, each declared as its columns (the ones with no rows left out)."""

    def per_condition(of: Callable[..., str]) -> Head:
        return {c: functools.partial(of, condition=c) for c in CONDITIONS}

    found = [
        table(
            "PrefAlign (1–5, mean ± stderr) per condition, normalized alignment "
            "100·(D − B)/(O − B) [95% bootstrap interval over problem × persona records scored "
            "in all three conditions; over all sources, from the source-averaged means], and "
            "the share of records where discovery aligns worse than baseline (D < B)",
            {
                **HEAD,
                **per_condition(lambda r, condition: _cell(r.prefalign[condition], condition)),
                "normalized alignment": NORMALIZED,
                "D < B": lambda r: fmt(
                    r.worse, missing=f"{MISSING}, needs baseline and discovery runs"
                ),
            },
            rows,
            note="Settings: protocol, judge and user type, then every other setting that "
            "differs from the task's defaults; runs of a model under different settings are "
            "never pooled.",
        ),
        table(
            "Accuracy (share correct, mean ± stderr) per condition, and questions asked in "
            "discovery",
            {
                **HEAD,
                **per_condition(lambda r, condition: _cell(r.accuracy[condition], condition, 3)),
                "questions": lambda r: _cell(r.questions, "discovery"),
            },
            rows,
        ),
        table(
            "Share of model × source pairs whose normalized alignment is negative (discovery "
            f"aligns worse than baseline; the paper: {100 * PAPER_NEGATIVE_SHARE:.1f}% of 21 "
            "models × 10 tasks), per setting, mean ± stderr",
            {
                "settings": lambda s: s.settings,
                "pairs": lambda s: str(len(s.pairs)),
                "negative": lambda s: str(len(_negatives(s))),
                "share": lambda s: _percent(s.share),
                "negative pairs": lambda s: (
                    "; ".join(f"{m} {src} ({v:.1f})" for m, src, v in _negatives(s)) or MISSING
                ),
            },
            shares,
        ),
        table(
            "Questions asked in discovery against PrefAlign, one point per conversation (the "
            "paper's Figure 3: r = 0.445): Pearson r [95% bootstrap interval], its p-value "
            "(Fisher z), and the least-squares line PrefAlign = intercept + slope × questions "
            "per provider (the model name's first part)",
            {
                "settings": lambda f: f.settings,
                "provider": lambda f: _bold(f.provider, PROVIDERS),
                "conversations": lambda f: str(len(f.questions)),
                "questions": lambda f: fmt(mean_se(f.questions), 2),
                "PrefAlign": lambda f: fmt(mean_se(f.prefalign), 2),
                "Pearson r": lambda f: FLAT if f.r.missing else fmt(f.r, 3),
                "p": lambda f: MISSING if math.isnan(f.p_value) else f"{f.p_value:.3g}",
                "slope ± se": lambda f: FLAT if f.slope.missing else fmt(f.slope, 3),
                "intercept": lambda f: MISSING if math.isnan(f.intercept) else f"{f.intercept:.2f}",
            },
            fits,
        ),
        table(
            "Fixed numbers of questions (the paper's Figure 5: k = 2, 4, 8): discovery "
            "PrefAlign, normalized alignment and questions asked per k and source, beside free "
            "discovery under the same other settings where it was run",
            {
                "model": lambda e: e[0][0],
                "settings": lambda e: e[0][1],
                "k": lambda e: "free" if (k := e[1].setting["fixed_questions"]) is None else str(k),
                "source": lambda e: _bold(e[1].source, ALL),
                "discovery PrefAlign": lambda e: _cell(e[1].prefalign["discovery"], "discovery"),
                "normalized alignment": lambda e: NORMALIZED(e[1]),
                "questions": lambda e: _cell(e[1].questions, "discovery"),
            },
            [(key, row) for key, group in fixed.items() for row in group],
        ),
        table(
            "The stock questionnaire (`-T questions=stock`: k generic questions about "
            "expertise, length, format, tone and examples, answered by the same simulated "
            "user) beside each model's own discovery: normalized alignment of each [95% "
            "bootstrap interval] on the records scored in baseline, oracle and both "
            "discoveries, and the share of the model's own discovery gain, (D_stock − B)/"
            "(D_own − B), that the questionnaire already earns (not in the paper)",
            {
                "model": lambda s: s.model,
                "settings": lambda s: s.settings,
                "source": lambda s: _bold(s.source, ALL),
                "own discovery": lambda s: fmt(s.own, 1),
                "stock questionnaire": lambda s: fmt(s.stock, 1),
                "share": lambda s: (
                    f"{100 * s.share:.0f}%"
                    if not math.isnan(s.share)
                    else f"{MISSING}, own discovery gained nothing"
                ),
            },
            stock,
        ),
    ]
    return [t for index, t in enumerate(found) if index < 3 or t.rows]


def _figures(
    rows: list[PrefDiscoRow],
    fits: list[QuestionFit],
    fixed: dict[tuple[str, str], list[PrefDiscoRow]],
) -> list[Figure]:
    overall = [r for r in rows if r.source == ALL]
    keys = _varying([r.setting for r in overall])
    labels = [_series_label(r.model, r.setting, keys) for r in overall]
    shared = _shared([r.setting for r in overall])
    sources = [*sorted({r.source for r in rows if r.source != ALL}), ALL]
    fitted = [fit for fit in fits if fit.provider != PROVIDERS]
    fit_keys = _varying([fit.setting for fit in fitted])
    panels = list(fixed.values())
    panel_keys = [k for k in _varying([g[0].setting for g in panels]) if k != "fixed_questions"]
    normalized = {
        label: [
            next(
                (
                    r.normalized
                    for r in rows
                    if (r.model, r.settings, r.source) == (row.model, row.settings, s)
                ),
                Estimate(math.nan, 0),
            )
            for s in sources
        ]
        for label, row in zip(labels, overall, strict=True)
    }
    drawn = []
    for group in panels:
        with_k = [r for r in group if r.setting["fixed_questions"] is not None]
        names = sorted({r.source for r in with_k if r.source != ALL})
        series: Series = {}
        for source in names if len(names) == 1 else [*names, ALL]:
            points = sorted(
                (r.setting["fixed_questions"], r.prefalign["discovery"])
                for r in with_k
                if r.source == source
            )
            series[source] = ([k for k, _ in points], [e for _, e in points])
        title = _series_label(group[0].model, group[0].setting, panel_keys)
        drawn.append((title, "discovery PrefAlign (1–5)", series))

    def by_condition(of: Callable[[PrefDiscoRow], dict[str, Estimate]]) -> dict[str, Any]:
        return {c: [of(r)[c] for r in overall] for c in CONDITIONS}

    found = [
        Figure(
            "prefdisco_prefalign.png",
            "PrefAlign per model under baseline, discovery and oracle (mean ± stderr, all "
            f"sources).{shared}",
            "PrefAlign by condition (all sources)",
            "model",
            "PrefAlign (1–5, higher is better)",
            Bars(labels, by_condition(lambda r: r.prefalign), ylim=(1, 5.2)),
        ),
        Figure(
            "prefdisco_normalized.png",
            "Normalized alignment per source and model with 95% bootstrap intervals; "
            f"0 = no better than baseline, 100 = oracle.{shared}",
            "Normalized alignment (0 = baseline, 100 = oracle)",
            "source task",
            "100·(D − B)/(O − B)",
            Bars(sources, normalized, reference=(100.0, "oracle level (100)")),
        ),
        Figure(
            "prefdisco_questions.png",
            f"How many questions each model asked in discovery.{shared}",
            "Questions asked in discovery",
            "questions asked before answering",
            "share of discovery conversations",
            shares({label: r.question_counts for label, r in zip(labels, overall, strict=True)}),
        ),
        Figure(
            "prefdisco_accuracy.png",
            f"Accuracy per model and condition (all sources).{shared}",
            "Accuracy by condition (all sources)",
            "model",
            "share of correct final answers",
            Bars(labels, by_condition(lambda r: r.accuracy), ylim=(0, 1.05)),
        ),
    ]
    if fitted:
        found.append(
            Figure(
                "prefdisco_questions_vs_prefalign.png",
                "Questions asked against PrefAlign, one point per free discovery conversation "
                "(jittered sideways), with each provider's least-squares line and Pearson r "
                f"(the paper's Figure 3).{_shared([fit.setting for fit in fitted])}",
                "Questions asked vs PrefAlign (paper Figure 3)",
                "questions asked in the discovery conversation",
                "PrefAlign of the final answer (1–5)",
                Fits(
                    {
                        _series_label(f.provider, f.setting, fit_keys): (
                            f.questions,
                            f.prefalign,
                            f.slope.value,
                            f.intercept,
                            f.r,
                        )
                        for f in fitted
                    }
                ),
            )
        )
    if panels:
        found.append(
            Figure(
                "prefdisco_fixed_questions.png",
                "Discovery PrefAlign per fixed number of questions k, one line per source "
                "(mean ± stderr; the paper's Figure 5)."
                + _shared([g[0].setting for g in panels], hide=("fixed_questions",)),
                "PrefAlign by fixed k (paper Figure 5)",
                "questions the model had to ask (k)",
                "",
                Lines(drawn),
            )
        )
    return found


def _summary(
    rows: list[PrefDiscoRow],
    shares: list[NegativeShare],
    fits: list[QuestionFit],
    stock: list[StockRow],
) -> list[str]:
    lines = [
        f"prefdisco {row.model} [{row.settings}] PrefAlign B/D/O "
        + " / ".join(fmt(row.prefalign[c], 2, missing=MISSING) for c in CONDITIONS)
        + f"  normalized {row.missing or fmt(row.normalized, 1)}"
        + f"  questions {fmt(row.questions, 2)}"
        for row in rows
        if row.source == ALL
    ]
    lines += [
        f"prefdisco [{share.settings}] negative normalized alignment: {len(_negatives(share))} "
        f"of {len(share.pairs)} model × source pairs ({_percent(share.share)}; "
        f"the paper: {100 * PAPER_NEGATIVE_SHARE:.1f}%)"
        for share in shares
    ]
    lines += [
        f"prefdisco {beside.model} [{beside.settings}] stock questionnaire: normalized "
        f"{fmt(beside.stock, 1)} against {fmt(beside.own, 1)} for its own discovery"
        for beside in stock
        if beside.source == ALL or len({x.source for x in stock}) == 1
    ]
    for fit in fits:
        found = (
            f"r {fmt(fit.r, 3)}, slope {fmt(fit.slope, 3)}"
            if not fit.r.missing
            else f"no r: questions or PrefAlign do not vary (n={len(fit.questions)})"
        )
        lines.append(f"prefdisco [{fit.settings}] questions vs PrefAlign, {fit.provider}: {found}")
    return lines


def prefdisco_section(loaded: Loaded) -> Section | None:
    """The `prefdisco` section, or None when no prefdisco run was used."""
    generator = np.random.default_rng(0)
    samples = _samples(loaded)  # read once: every table below is computed from these
    rows = prefdisco_rows(loaded, generator, samples=samples)
    if not rows:
        return None
    shares = negative_shares(rows)
    fits = question_fits(samples, generator)
    fixed = fixed_rows(rows)
    stock = stock_rows(samples, generator)
    return Section(
        title="prefdisco — discovering a user's preferences",
        intro="Does the model ask the right questions and adapt its answer to the user? "
        "Baseline answers the task alone, oracle is told the preference profile, discovery "
        "may ask the simulated user first. Every row is one model under one setting.",
        tables=_tables(rows, shares, fits, fixed, stock),
        figures=_figures(rows, fits, fixed),
        summary=_summary(rows, shares, fits, stock),
    )
