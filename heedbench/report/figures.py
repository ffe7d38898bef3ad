"""Matplotlib drawings (Agg backend, no display), each from plain numbers to one PNG.

Every bar and point carries its uncertainty as an error bar: the standard error, or the
bootstrap interval where the estimate has one. A missing estimate leaves a gap labelled with
why (the caller's note, else "not run") and a real zero gets a "0" label, so the two never
look alike; a series or panel with no number at all is left out rather than drawn empty.
"""

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from heedbench.report.stats import Estimate

DPI = 110
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
"""Distinct point markers: one per `choice` design (six) with room to spare."""


def _pyplot() -> Any:
    # imported on first use: loading matplotlib costs about half a second that a report
    # without figures, and every other heedbench import, need not pay
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    return plt


def _error(estimate: Estimate) -> tuple[float, float]:
    """Distances below and above the value for an error bar (0 when unknown)."""
    if estimate.missing:
        return (0.0, 0.0)
    if estimate.low is not None and estimate.high is not None:
        return (max(0.0, estimate.value - estimate.low), max(0.0, estimate.high - estimate.value))
    if estimate.stderr is not None and not math.isnan(estimate.stderr):
        return (estimate.stderr, estimate.stderr)
    return (0.0, 0.0)


def _error_bars(estimates: Sequence[Estimate]) -> list[list[float]]:
    """Matplotlib's 2×N `yerr`: distances below, distances above."""
    pairs = [_error(e) for e in estimates]
    return [[low for low, _ in pairs], [high for _, high in pairs]]


def _save(fig: Any, path: Path) -> None:
    plt = _pyplot()
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def bar_label(estimate: Estimate, note: str | None, floor: float = 0.0) -> str | None:
    """The text written at a bar, or None for a bar that speaks for itself.

    Why it is missing, the caller's note, or a value the bar cannot show (zero, or at the
    axis floor), so that a real zero never looks like a condition that was not run.
    """
    if estimate.missing:
        return note or "not run"
    if note:
        return note
    if estimate.value <= floor:
        return f"{estimate.value:g}"
    return None


def grouped_bars(
    path: Path,
    *,
    groups: Sequence[str],
    series: Mapping[str, Sequence[Estimate]],
    title: str,
    xlabel: str,
    ylabel: str,
    ylim: tuple[float, float] | None = None,
    reference: tuple[float, str] | None = None,
    notes: Mapping[str, Sequence[str]] | None = None,
) -> dict[tuple[str, str], str]:
    """Bars per group (x axis), one colour per series (legend), error bars from estimates.

    `notes` (series -> one text per group) labels each bar: above it, or in place of a
    missing bar (see `bar_label`). A series with no number is left out.

    Returns:
        The label written at each (series, group) bar, for tests and callers that report it.
    """
    plt = _pyplot()
    series = {k: v for k, v in series.items() if not all(e.missing for e in v)}
    floor = ylim[0] if ylim is not None else 0.0
    written: dict[tuple[str, str], str] = {}
    width = 0.8 / max(1, len(series))
    fig, ax = plt.subplots(figsize=(max(7.0, 1.1 * len(groups) * max(1, len(series)) ** 0.5), 4.4))
    for index, (label, estimates) in enumerate(series.items()):
        xs = [g + (index - (len(series) - 1) / 2) * width for g in range(len(groups))]
        values = [math.nan if e.missing else e.value for e in estimates]
        errors = _error_bars(estimates)
        ax.bar(xs, values, width, label=label, yerr=errors, capsize=3)
        texts = notes.get(label) if notes is not None else None
        for position, (x, estimate) in enumerate(zip(xs, estimates, strict=True)):
            text = bar_label(estimate, texts[position] if texts else None, floor)
            if text is None:
                continue
            written[(label, groups[position])] = text
            top = floor if estimate.missing else max(estimate.value + _error(estimate)[1], floor)
            ax.annotate(
                text, (x, top), xytext=(0, 2), textcoords="offset points", ha="center",
                va="bottom", fontsize=6, rotation=90, color="grey" if estimate.missing else None,
            )  # fmt: skip
    if reference is not None:
        ax.axhline(reference[0], color="grey", linestyle="--", linewidth=1, label=reference[1])
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_xticks(range(len(groups)), list(groups), rotation=20 if len(groups) > 3 else 0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if ylim is not None:
        ax.set_ylim(*ylim)
    if series or reference is not None:  # nothing drawn, nothing to explain
        ax.legend(fontsize=8, loc="best")
    ax.grid(axis="y", alpha=0.3)
    _save(fig, path)
    return written


Series = dict[str, tuple[Sequence[float], Sequence[Estimate]]]
"""Line label -> (x values, estimates)."""


def line_panels(
    path: Path,
    *,
    panels: Sequence[tuple[str, str, Series]],
    xlabel: str,
    suptitle: str,
) -> None:
    """Side-by-side line plots sharing an x axis; each panel (title, y label, series).

    A line with no number is left out, and so is a panel left with no line.
    """
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator  # noqa: PLC0415

    panels = [
        (title, ylabel, kept)
        for title, ylabel, series in panels
        if (kept := {k: v for k, v in series.items() if not all(e.missing for e in v[1])})
    ]
    if not panels:
        panels = [("no data", "", {})]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 4.0), squeeze=False)
    for ax, (title, ylabel, series) in zip(axes[0], panels, strict=True):
        for label, (xs, estimates) in series.items():
            style = "--" if label.endswith("NC") else "-"
            values = [math.nan if e.missing else e.value for e in estimates]
            errors = _error_bars(estimates)
            ax.errorbar(xs, values, yerr=errors, fmt="o" + style, capsize=3, label=label)
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    if axes[0][0].get_legend_handles_labels()[0]:
        axes[0][0].legend(fontsize=7, loc="best")
    fig.suptitle(suptitle)
    _save(fig, path)


def assign_markers(groups: Sequence[str]) -> dict[str, str]:
    """One marker per group, in order; distinct for up to `len(MARKERS)` groups."""
    return {group: MARKERS[index % len(MARKERS)] for index, group in enumerate(groups)}


def tradeoff(
    path: Path,
    *,
    points: dict[str, dict[str, tuple[Estimate, Estimate]]],
    xlabel: str,
    ylabel: str,
    title: str,
    arrow: tuple[str, str] | None = None,
    logx: bool = False,
    marker_groups: Mapping[str, str] | None = None,
    point_labels: Mapping[str, Mapping[str, str]] | None = None,
) -> None:
    """Model × condition points (x, y estimates) with 2-D error bars.

    Args:
        path: output PNG.
        points: model -> condition -> (x estimate, y estimate).
        xlabel: x axis label.
        ylabel: y axis label.
        title: figure title.
        arrow: (from condition, to condition) drawn as an arrow per model.
        logx: logarithmic x axis.
        marker_groups: condition -> the group whose marker it takes (default: the condition
            itself); the legend then lists groups.
        point_labels: model -> condition -> a short text written next to the point.
    """
    plt = _pyplot()
    from matplotlib.ticker import ScalarFormatter  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    conditions = sorted({c for by in points.values() for c in by})

    def group_of(condition: str) -> str:
        return marker_groups.get(condition, condition) if marker_groups else condition

    groups = list(dict.fromkeys(group_of(c) for c in conditions))
    if marker_groups:
        groups = list(dict.fromkeys(g for g in marker_groups.values() if g in groups))
    marker_of = assign_markers(groups)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for index, (model, by_condition) in enumerate(points.items()):
        colour = colours[index % len(colours)]
        for condition, (x, y) in by_condition.items():
            if x.missing or y.missing:
                continue
            xerr = [[v] for v in _error(x)]
            yerr = [[v] for v in _error(y)]
            marker = marker_of[group_of(condition)]
            ax.errorbar(
                [x.value], [y.value], xerr=xerr, yerr=yerr, fmt=marker, color=colour, capsize=3
            )
            text = (point_labels or {}).get(model, {}).get(condition)
            if text:
                ax.annotate(
                    text,
                    (x.value, y.value),
                    xytext=(4, 3),
                    textcoords="offset points",
                    fontsize=6,
                    color=colour,
                )
        if arrow is not None and all(c in by_condition for c in arrow):
            (x0, y0), (x1, y1) = by_condition[arrow[0]], by_condition[arrow[1]]
            if not any(e.missing for e in (x0, y0, x1, y1)):
                ax.annotate(
                    "",
                    xy=(x1.value, y1.value),
                    xytext=(x0.value, y0.value),
                    arrowprops={"arrowstyle": "->", "color": colour, "alpha": 0.6},
                )
        ax.plot([], [], color=colour, linewidth=6, label=model)
    for group in groups:
        ax.plot([], [], marker_of[group], color="black", label=group)
    if logx:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    _save(fig, path)


def histograms(
    path: Path, *, counts: dict[str, Sequence[int]], xlabel: str, ylabel: str, title: str
) -> None:
    """Side-by-side bars of how often each integer value occurs, one colour per label."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    top = max((max(values) for values in counts.values() if values), default=0)
    width = 0.8 / max(1, len(counts))
    for index, (label, values) in enumerate(counts.items()):
        heights = [sum(1 for v in values if v == k) / max(1, len(values)) for k in range(top + 1)]
        xs = [k + (index - (len(counts) - 1) / 2) * width for k in range(top + 1)]
        ax.bar(xs, heights, width, label=f"{label} (n={len(values)})")
    ax.set_xticks(range(top + 1))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, path)


FitSeries = dict[str, tuple[Sequence[float], Sequence[float], float, float, Estimate]]
"""Series label -> (x values, y values, least-squares slope, intercept, Pearson r)."""


def scatter_fits(path: Path, *, series: FitSeries, title: str, xlabel: str, ylabel: str) -> None:
    """One colour per series: its points and its least-squares line, labelled with Pearson r.

    x is jittered by up to ±0.15, so that points on equal integer values stay visible.
    """
    plt = _pyplot()
    import numpy as np  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(6.8, 4.6))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    jitter = np.random.default_rng(0)
    for index, (label, (xs, ys, slope, intercept, r)) in enumerate(series.items()):
        colour = colours[index % len(colours)]
        shifted = [x + jitter.uniform(-0.15, 0.15) for x in xs]
        r_text = "r n/a" if r.missing else f"r = {r.value:.2f}"
        ax.scatter(shifted, ys, s=14, alpha=0.5, color=colour, label=f"{label}: {r_text}")
        if xs and not math.isnan(slope):
            line_x = [min(xs), max(xs)]
            ax.plot(line_x, [intercept + slope * x for x in line_x], color=colour, linewidth=1.6)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    _save(fig, path)
