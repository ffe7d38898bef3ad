"""Figures as data: what to plot, from which numbers; `draw` turns one into a PNG (matplotlib).

A section declares its figures (`Figure`, holding `Bars`, `Lines`, `Points` or `Fits` of
`Estimate`s) and `draw` renders any of them, so no section holds plotting code. Every bar and
point carries its uncertainty as an error bar: the standard error, or the bootstrap interval
where the estimate has one. A missing estimate leaves a gap labelled with why (the caller's
note, else "not run"), and a value at or near the axis floor (a real 0, harm 1) is written
as a number, so the two never look alike; a series or panel with no number is left out.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from heedbench.report.stats import Estimate

DPI = 110
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
"""Distinct point markers: one per `choice` design (six) with room to spare."""
NEAR_FLOOR = 0.02
"""A bar lower than this share of the axis height reads as empty: its value is written."""
Series = dict[str, tuple[Sequence[float], Sequence[Estimate]]]
"""Line label -> (x values, estimates)."""
FitSeries = dict[str, tuple[Sequence[float], Sequence[float], float, float, Estimate]]
"""Series label -> (x values, y values, least-squares slope, intercept, Pearson r)."""


@dataclass(frozen=True)
class Bars:
    """Bars per group (x axis), one colour per series; `notes` (one per group) label bars."""

    groups: Sequence[str]
    series: Mapping[str, Sequence[Estimate]]
    notes: Mapping[str, Sequence[str]] = field(default_factory=dict)
    ylim: tuple[float, float] | None = None
    reference: tuple[float, str] | None = None
    """A dashed horizontal line: (height, legend text)."""


@dataclass(frozen=True)
class Lines:
    """Side-by-side line panels sharing the x axis: (title, y label, series) each."""

    panels: Sequence[tuple[str, str, Mapping[str, tuple[Sequence[float], Sequence[Estimate]]]]]


@dataclass(frozen=True)
class Points:
    """Model -> condition -> (x, y) estimates, with 2-D error bars.

    `arrow` joins two conditions per model; `marker_groups` maps a condition to the group
    whose marker it takes (the legend then lists groups); `point_labels` writes a short text
    next to a model's point of a condition.
    """

    points: Mapping[str, Mapping[str, tuple[Estimate, Estimate]]]
    arrow: tuple[str, str] | None = None
    logx: bool = False
    marker_groups: Mapping[str, str] = field(default_factory=dict)
    point_labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Fits:
    """Per series: its points (x jittered by up to ±0.15) and least-squares line, with r."""

    series: FitSeries


@dataclass(frozen=True)
class Figure:
    """One PNG of the report: its file name, caption, titles and what it plots."""

    name: str
    caption: str
    title: str
    xlabel: str
    ylabel: str
    plot: Bars | Lines | Points | Fits


def shares(counts: Mapping[str, Sequence[int]]) -> Bars:
    """How often each whole number occurs, as bars of shares per label (`label (n=…)`)."""
    top = max((max(values) for values in counts.values() if values), default=0)
    series = {
        f"{label} (n={len(values)})": [
            Estimate(sum(v == k for v in values) / len(values), len(values)) if values else
            Estimate(math.nan, 0)
            for k in range(top + 1)
        ]
        for label, values in counts.items()
    }  # fmt: skip
    return Bars(groups=[str(k) for k in range(top + 1)], series=series)


def assign_markers(groups: Sequence[str]) -> dict[str, str]:
    """One marker per group, in order; distinct for up to `len(MARKERS)` groups."""
    return {group: MARKERS[index % len(MARKERS)] for index, group in enumerate(groups)}


def bar_label(
    estimate: Estimate, note: str | None, floor: float = 0.0, top: float = 1.0
) -> str | None:
    """The text written at a bar, or None for a bar that speaks for itself.

    Why it is missing, the caller's note, or a value the bar cannot show (at or near the axis
    floor `floor`, on an axis up to `top`), so a real zero never looks like a condition not run.
    """
    if estimate.missing:
        return note or "not run"
    if note:
        return note
    if estimate.value - floor <= NEAR_FLOOR * (top - floor):
        return f"{estimate.value:.3g}"
    return None


def draw(figure: Figure, path: Path) -> dict[tuple[str, str], str]:
    """Draw one figure into `path`; the text written at each (series, group) bar, if any."""
    import matplotlib  # noqa: PLC0415  (half a second that no other heedbench call should pay)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    plot, written = figure.plot, {}
    if isinstance(plot, Lines):
        panels = [(title, ylabel, kept) for title, ylabel, series in plot.panels
                  if (kept := {k: v for k, v in series.items() if not _empty(v[1])})]  # fmt: skip
        panels = panels or [("no data", "", {})]
        fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 4.0), squeeze=False)
        for ax, (title, ylabel, series) in zip(axes[0], panels, strict=True):
            _lines(ax, series)
            ax.set(title=title, xlabel=figure.xlabel, ylabel=ylabel)
        if axes[0][0].get_legend_handles_labels()[0]:
            axes[0][0].legend(fontsize=7, loc="best")
        fig.suptitle(figure.title)
    else:
        fig, ax = plt.subplots(figsize=_size(plot))
        if isinstance(plot, Bars):
            written = _bars(ax, plot)
        elif isinstance(plot, Points):
            _points(ax, plot, plt.rcParams["axes.prop_cycle"].by_key()["color"])
        else:
            _fits(ax, plot, plt.rcParams["axes.prop_cycle"].by_key()["color"])
        ax.set(title=figure.title, xlabel=figure.xlabel, ylabel=figure.ylabel)
        if ax.get_legend_handles_labels()[0]:  # nothing drawn, nothing to explain
            ax.legend(fontsize=8, loc="best")
        ax.grid(axis="y" if isinstance(plot, Bars) else "both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return written


def _empty(estimates: Sequence[Estimate]) -> bool:
    return all(e.missing for e in estimates)


def _size(plot: Bars | Points | Fits) -> tuple[float, float]:
    if isinstance(plot, Bars):
        count = max(1, sum(not _empty(v) for v in plot.series.values()))
        return (min(16.0, max(7.0, 1.1 * len(plot.groups) * count**0.5)), 4.4)
    return (6.4, 4.8) if isinstance(plot, Points) else (6.8, 4.6)


def _error(estimate: Estimate) -> tuple[float, float]:
    """Distances below and above the value for an error bar (0 when unknown)."""
    if estimate.missing:
        return (0.0, 0.0)
    if estimate.low is not None and estimate.high is not None:
        return (max(0.0, estimate.value - estimate.low), max(0.0, estimate.high - estimate.value))
    if estimate.stderr is not None and not math.isnan(estimate.stderr):
        return (estimate.stderr, estimate.stderr)
    return (0.0, 0.0)


def _values(estimates: Sequence[Estimate]) -> tuple[list[float], list[list[float]]]:
    """Values (NaN where missing) and matplotlib's 2×N error distances."""
    pairs = [_error(e) for e in estimates]
    values = [math.nan if e.missing else e.value for e in estimates]
    return values, [[low for low, _ in pairs], [high for _, high in pairs]]


def _bars(ax: Any, plot: Bars) -> dict[tuple[str, str], str]:
    series = {k: v for k, v in plot.series.items() if not _empty(v)}
    floor, top = plot.ylim if plot.ylim is not None else (0.0, 1.0)
    if plot.ylim is None:  # the axis as matplotlib will draw it
        top = max([e.value + _error(e)[1] for v in series.values() for e in v if not e.missing]
                  + [floor + 1e-9])  # fmt: skip
    written: dict[tuple[str, str], str] = {}
    width = 0.8 / max(1, len(series))
    for index, (label, estimates) in enumerate(series.items()):
        xs = [g + (index - (len(series) - 1) / 2) * width for g in range(len(plot.groups))]
        values, errors = _values(estimates)
        ax.bar(xs, values, width, label=label, yerr=errors, capsize=3)
        notes = plot.notes.get(label) or [""] * len(xs)
        for x, group, estimate, note in zip(xs, plot.groups, estimates, notes, strict=True):
            text = bar_label(estimate, note, floor, top)
            if text is None:
                continue
            written[(label, group)] = text
            at = floor if estimate.missing else max(estimate.value + _error(estimate)[1], floor)
            ax.annotate(
                text, (x, at), xytext=(0, 2), textcoords="offset points", ha="center",
                va="bottom", fontsize=6, rotation=90, color="grey" if estimate.missing else None,
            )  # fmt: skip
    if plot.reference is not None:
        ax.axhline(plot.reference[0], color="grey", linestyle="--", linewidth=1,
                   label=plot.reference[1])  # fmt: skip
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_xticks(range(len(plot.groups)), list(plot.groups),
                  rotation=20 if len(plot.groups) > 3 else 0)  # fmt: skip
    if plot.ylim is not None:
        ax.set_ylim(*plot.ylim)
    return written


def _lines(ax: Any, series: Mapping[str, tuple[Sequence[float], Sequence[Estimate]]]) -> None:
    from matplotlib.ticker import MaxNLocator  # noqa: PLC0415

    for label, (xs, estimates) in series.items():
        values, errors = _values(estimates)
        style = "--" if label.endswith("NC") else "-"
        ax.errorbar(xs, values, yerr=errors, fmt="o" + style, capsize=3, label=label)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)


def _points(ax: Any, plot: Points, colours: Sequence[str]) -> None:
    conditions = sorted({c for by in plot.points.values() for c in by})
    groups = list(dict.fromkeys(plot.marker_groups.get(c, c) for c in conditions))
    if plot.marker_groups:
        groups = list(dict.fromkeys(g for g in plot.marker_groups.values() if g in groups))
    marker_of = assign_markers(groups)
    for index, (model, by_condition) in enumerate(plot.points.items()):
        colour = colours[index % len(colours)]
        for condition, (x, y) in by_condition.items():
            if x.missing or y.missing:
                continue
            marker = marker_of[plot.marker_groups.get(condition, condition)]
            xerr, yerr = [[v] for v in _error(x)], [[v] for v in _error(y)]
            ax.errorbar([x.value], [y.value], xerr=xerr, yerr=yerr, fmt=marker, color=colour,
                        capsize=3)  # fmt: skip
            text = plot.point_labels.get(model, {}).get(condition)
            if text:
                ax.annotate(text, (x.value, y.value), xytext=(4, 3), textcoords="offset points",
                            fontsize=6, color=colour)  # fmt: skip
        ends = [by_condition.get(c) for c in plot.arrow or ()]
        if plot.arrow and all(e is not None and not (e[0].missing or e[1].missing) for e in ends):
            (x0, y0), (x1, y1) = ends  # type: ignore[misc]
            ax.annotate("", xy=(x1.value, y1.value), xytext=(x0.value, y0.value),
                        arrowprops={"arrowstyle": "->", "color": colour, "alpha": 0.6})  # fmt: skip
        ax.plot([], [], color=colour, linewidth=6, label=model)
    for group in groups:
        ax.plot([], [], marker_of[group], color="black", label=group)
    if plot.logx:
        from matplotlib.ticker import ScalarFormatter  # noqa: PLC0415

        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(ScalarFormatter())


def _fits(ax: Any, plot: Fits, colours: Sequence[str]) -> None:
    import numpy as np  # noqa: PLC0415

    jitter = np.random.default_rng(0)
    for index, (label, (xs, ys, slope, intercept, r)) in enumerate(plot.series.items()):
        colour = colours[index % len(colours)]
        shifted = [x + jitter.uniform(-0.15, 0.15) for x in xs]
        r_text = "r n/a" if r.missing else f"r = {r.value:.2f}"
        ax.scatter(shifted, ys, s=14, alpha=0.5, color=colour, label=f"{label}: {r_text}")
        if xs and not math.isnan(slope):
            ends = [min(xs), max(xs)]
            ax.plot(ends, [intercept + slope * x for x in ends], color=colour, linewidth=1.6)
