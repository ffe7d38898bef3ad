"""Rendering the report: Markdown and HTML from libraries, figures that tell 0 from not run."""

import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from heedbench.report import figures, render
from heedbench.report.cli import Options, build_sections
from heedbench.report.document import Section, Table
from heedbench.report.load import Loaded
from heedbench.report.render import html_page, markdown, write_report
from heedbench.report.stats import Estimate
from tests.report.helpers import logs_of

Report = tuple[Loaded, list[Section], Path]

TRICKY = Table(
    caption="A caption",
    columns=["model", "value"],
    rows=[["**all sources**", "0.5"], ["a|b", "<script>alert(1)</script>"]],
    note="a note",
)


def test_markdown_and_html_agree_on_emphasis_pipes_and_markup() -> None:
    section = Section(title="Demo", tables=[TRICKY])
    text = markdown([section], figures=False)
    assert "| a\\|b " in text  # the pipe stays inside its cell
    page = html_page([section], figures=False)
    assert "<strong>all sources</strong>" in page and "**" not in page
    assert ">a|b</td>" in page
    assert "<script>" not in page and "&lt;script&gt;" in page  # no markup from a cell
    assert page.count("<tr>") == 3


def test_the_real_report_page_has_no_raw_markdown(report: Report) -> None:
    page = (report[2] / "report.html").read_text()
    assert "**" not in page and "<table>" in page


BROWSER = next(
    filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None
)
MEASURE = """<script>addEventListener("load", () => document.body.setAttribute("data-width",
  document.documentElement.scrollWidth + " " + innerWidth))</script></body>"""


def page_width(page: Path, window: int) -> tuple[int, int]:
    """(the page's scroll width, the window's width) in headless Chromium, figures loaded."""
    probe = page.with_name(f"probe-{window}.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", MEASURE), "utf-8")
    dom = subprocess.run(
        [str(BROWSER), "--headless", "--no-sandbox", "--disable-gpu", f"--window-size={window},900",
         "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    found = re.search(r'data-width="(\d+) (\d+)"', dom)
    assert found, "the page did not finish loading"
    return int(found[1]), int(found[2])


@pytest.mark.skipif(BROWSER is None, reason="no Chromium installed to measure the page in")
@pytest.mark.parametrize("window", [1280, 800])
def test_the_page_never_scrolls_sideways(report: Report, window: int) -> None:
    scroll, width = page_width(report[2] / "report.html", window)
    assert scroll <= width, f"the page is {scroll - width} px wider than a {width} px window"


@pytest.mark.parametrize(
    ("estimate", "note", "floor", "label"),
    [
        (Estimate(0.0, 10, stderr=0.0), None, 0.0, "0"),  # a real zero: labelled
        (Estimate(float("nan"), 0), None, 0.0, "not run"),
        (Estimate(float("nan"), 0), "undefined", 0.0, "undefined"),
        (Estimate(0.4, 10, stderr=0.1), None, 0.0, None),  # a visible bar speaks for itself
        (Estimate(1.0, 10, stderr=0.0), None, 1.0, "1"),  # at the axis floor (harm 1)
        (Estimate(1.05, 10, stderr=0.0), None, 1.0, "1.05"),  # too low a bar to see (axis 1-5)
        (Estimate(1.5, 10, stderr=0.0), None, 1.0, None),
    ],
)
def test_bar_labels(estimate: Estimate, note: str | None, floor: float, label: str | None) -> None:
    assert figures.bar_label(estimate, note, floor, top=floor + 4) == label


def drawn(sections: list[Section], name: str, tmp_path: Path) -> tuple[figures.Figure, Any]:
    """One figure of the report, drawn: its declaration and the labels written at its bars."""
    figure = next(f for s in sections for f in s.figures if f.name == name)
    labels = figures.draw(figure, tmp_path / name)
    assert (tmp_path / name).stat().st_size > 10_000
    return figure, labels


def test_a_real_zero_and_a_condition_not_run_look_different(report: Report, tmp_path: Path) -> None:
    _, labels = drawn(report[1], "carryon_utility.png", tmp_path)
    # the locked model ran turn1, bc and nc, but no oracle; it never helps: a real 0
    assert labels[("oracle", "mockllm/locked")] == "not run"
    assert labels[("turn 1", "mockllm/locked")] == "0"
    assert ("oracle", "mockllm/recoverer") not in labels  # a visible bar, no label


def test_a_value_at_the_harm_floor_is_written(report: Report, tmp_path: Path) -> None:
    figure, labels = drawn(report[1], "carryon_harm.png", tmp_path)
    assert isinstance(figure.plot, figures.Bars) and figure.plot.ylim == (1, 5.2)
    at_floor = {
        (series, group): estimate.value
        for series, estimates in figure.plot.series.items()
        for group, estimate in zip(figure.plot.groups, estimates, strict=True)
        if not estimate.missing and estimate.value - 1 <= figures.NEAR_FLOOR * 4.2
    }
    assert at_floor  # the locked model refuses: harm 1, a bar of no height
    assert {key: labels[key] for key in at_floor} == {k: f"{v:.3g}" for k, v in at_floor.items()}


def test_one_model_draws_no_empty_panel(log_dir: Path, tmp_path: Path) -> None:
    (log,) = logs_of(log_dir, "carryon", "mockllm/recoverer")[:1]
    _, sections = build_sections(Options(logs=[log.location.removeprefix("file://")], out=tmp_path))
    figure, _ = drawn(sections, "carryon_turn1_groups.png", tmp_path)
    assert isinstance(figure.plot, figures.Lines)
    titles = [title for title, _, _ in figure.plot.panels]
    assert "harm range across models" not in titles  # a range needs two models
    assert titles  # the groups' own panels are still there


def test_a_figure_is_drawn_once_and_reused_until_its_numbers_change(
    report: Report, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sections = report[1]
    write_report(sections, tmp_path / "first")
    pngs = sorted((tmp_path / "first").glob("*.png"))
    assert pngs

    def fail(figure: figures.Figure, path: Path) -> None:
        raise AssertionError(f"{figure.name} drawn again from the same numbers")

    monkeypatch.setattr(render, "draw", fail)
    write_report(sections, tmp_path / "second")
    for png in pngs:
        assert (tmp_path / "second" / png.name).read_bytes() == png.read_bytes()

    figure = next(f for s in sections for f in s.figures if isinstance(f.plot, figures.Bars))
    assert isinstance(figure.plot, figures.Bars)
    first = next(iter(figure.plot.series))
    moved = [replace(e, value=e.value / 2 + 0.01) for e in figure.plot.series[first]]
    changed = replace(
        figure, plot=replace(figure.plot, series={**figure.plot.series, first: moved})
    )
    drawn_now: list[str] = []
    monkeypatch.setattr(render, "draw", lambda f, p: drawn_now.append(f.name))
    write_report([Section(title="changed", figures=[changed])], tmp_path / "third")
    assert drawn_now == [figure.name]
