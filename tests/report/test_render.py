"""Rendering the report: Markdown and HTML from libraries, figures that tell 0 from not run."""

from pathlib import Path
from typing import Any

import pytest

from heedbench.report import figures
from heedbench.report.cli import Options, build_sections
from heedbench.report.document import Section, Table
from heedbench.report.load import Loaded
from heedbench.report.render import html_page, markdown
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


@pytest.mark.parametrize(
    ("estimate", "note", "floor", "label"),
    [
        (Estimate(0.0, 10, stderr=0.0), None, 0.0, "0"),  # a real zero: labelled
        (Estimate(float("nan"), 0), None, 0.0, "not run"),
        (Estimate(float("nan"), 0), "undefined", 0.0, "undefined"),
        (Estimate(0.4, 10, stderr=0.1), None, 0.0, None),  # a visible bar speaks for itself
        (Estimate(1.0, 10, stderr=0.0), None, 1.0, "1"),  # at the axis floor (harm 1)
    ],
)
def test_bar_labels(estimate: Estimate, note: str | None, floor: float, label: str | None) -> None:
    assert figures.bar_label(estimate, note, floor) == label


def drawn(sections: list[Section], name: str, tmp_path: Path, monkeypatch: Any) -> Any:
    """Draw one figure of the report, returning what its plotting call recorded."""
    seen: dict[str, Any] = {}
    real_bars, real_panels = figures.grouped_bars, figures.line_panels

    def bars(path: Path, **kwargs: Any) -> Any:
        seen["series"] = list(kwargs["series"])
        seen["labels"] = real_bars(path, **kwargs)
        return seen["labels"]

    def panels(path: Path, **kwargs: Any) -> None:
        seen["panels"] = [title for title, _, _ in kwargs["panels"]]
        real_panels(path, **kwargs)

    monkeypatch.setattr(figures, "grouped_bars", bars)
    monkeypatch.setattr(figures, "line_panels", panels)
    figure = next(f for s in sections for f in s.figures if f.name == name)
    figure.draw(tmp_path / name)
    assert (tmp_path / name).stat().st_size > 10_000
    return seen


def test_a_real_zero_and_a_condition_not_run_look_different(
    report: Report, tmp_path: Path, monkeypatch: Any
) -> None:
    seen = drawn(report[1], "carryon_utility.png", tmp_path, monkeypatch)
    labels = seen["labels"]
    # the locked model ran turn1, bc and nc, but no oracle; it never helps: a real 0
    assert labels[("oracle", "mockllm/locked")] == "not run"
    assert labels[("turn 1", "mockllm/locked")] == "0"
    assert ("oracle", "mockllm/recoverer") not in labels  # a visible bar, no label


def test_one_model_draws_no_empty_panel(log_dir: Path, tmp_path: Path, monkeypatch: Any) -> None:
    (log,) = logs_of(log_dir, "carryon", "mockllm/recoverer")[:1]
    _, sections = build_sections(Options(logs=[log.location.removeprefix("file://")], out=tmp_path))
    seen = drawn(sections, "carryon_turn1_groups.png", tmp_path, monkeypatch)
    assert "harm range across models" not in seen["panels"]  # a range needs two models
    assert seen["panels"]  # the groups' own panels are still there
