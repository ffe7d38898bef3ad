"""Write the report: Markdown, an HTML page linking the PNGs, and a terminal summary.

The Markdown is the one source: tables come from pandas (`DataFrame.to_markdown`, through
tabulate), and the HTML page is that Markdown rendered by markdown-it-py (CommonMark plus
tables, raw HTML off so no cell can inject markup), so emphasis, escaping and table syntax
mean the same in both files. A table wider than the page scrolls inside itself and long words
(log paths) wrap, so the page never scrolls sideways (tests/report/test_render.py measures it
in headless Chromium).

A figure is data (`figures.Figure`), so the PNG drawn from it is kept in the cache folder
(`heedbench.paths.cache_dir`) keyed by that data, the drawing code and matplotlib's version:
a repeated report redraws only the figures whose numbers changed (drawing is most of a warm
report's time).
"""

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import asdict
from importlib.metadata import version
from pathlib import Path
from string import Template
from typing import Any

import pandas as pd
from markdown_it import MarkdownIt

from heedbench.paths import cache_dir
from heedbench.report import figures
from heedbench.report.document import Section, Table
from heedbench.report.figures import Figure, draw

_PAGE = Template("""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>heedbench report</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 2em auto; padding: 0 1em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; display: block;
        max-width: 100%; overflow-x: auto; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
p, li { overflow-wrap: anywhere; }
th { background: #f3f3f3; }
img { max-width: 100%; border: 1px solid #ddd; }
</style></head>
<body>
$body
</body></html>
""")


def _escape_cell(text: str) -> str:
    """A cell's text inside a Markdown table row: no line breaks, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def markdown_table(table: Table) -> str:
    """The table as GitHub-flavoured Markdown under its bold caption, with its note."""
    frame = pd.DataFrame(
        [[_escape_cell(cell) for cell in row] for row in table.rows],
        columns=[_escape_cell(column) for column in table.columns],
    )
    body = frame.to_markdown(index=False, tablefmt="pipe", disable_numparse=True)
    parts = [f"**{table.caption}**", "", body]
    if table.note:
        parts += ["", table.note]
    return "\n".join(parts) + "\n"


def markdown(sections: Sequence[Section], figures: bool) -> str:
    """The whole report as Markdown, figures linked relatively."""
    lines = ["# heedbench report", ""]
    for section in sections:
        lines += [f"## {section.title}", ""]
        if section.intro:
            lines += [section.intro, ""]
        lines += [markdown_table(table) for table in section.tables]
        if figures:
            for figure in section.figures:
                lines += [f"![{figure.caption}]({figure.name})", "", f"*{figure.caption}*", ""]
    return "\n".join(lines)


def html_page(sections: Sequence[Section], figures: bool) -> str:
    """The report's Markdown rendered as one HTML page; images are linked relatively."""
    renderer = MarkdownIt("commonmark", {"html": False}).enable("table")
    return _PAGE.substitute(body=renderer.render(markdown(sections, figures)))


def write_report(sections: Sequence[Section], out: Path) -> None:
    """Write report.md, report.html and the PNGs into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    for figure in (figure for section in sections for figure in section.figures):
        _draw_or_reuse(figure, out / figure.name)
    (out / "report.md").write_text(markdown(sections, figures=True), encoding="utf-8")
    (out / "report.html").write_text(html_page(sections, figures=True), encoding="utf-8")


def _plain(value: Any) -> Any:
    return value.tolist() if hasattr(value, "tolist") else repr(value)  # numpy values whole


def _draw_or_reuse(figure: Figure, path: Path) -> None:
    """Draw `figure` into `path`, or copy the PNG drawn before from the same figure and code."""
    code = Path(figures.__file__).read_bytes() + version("matplotlib").encode()
    data = json.dumps(asdict(figure), sort_keys=True, default=_plain).encode()
    key = hashlib.sha256(hashlib.sha256(code).digest() + data).hexdigest()[:32]
    kept = cache_dir() / f"figure-{key}.png"
    if kept.is_file():
        shutil.copyfile(kept, path)
        return
    draw(figure, path)
    with contextlib.suppress(OSError):  # a read-only cache only costs the next call a drawing
        kept.parent.mkdir(parents=True, exist_ok=True)
        partial = kept.with_suffix(f".{os.getpid()}.part")
        shutil.copyfile(path, partial)
        partial.replace(kept)  # whole or not at all, for concurrent reports


def terminal_summary(sections: Sequence[Section]) -> str:
    """Plain-text lines for the terminal, one block per section."""
    lines: list[str] = []
    for section in sections:
        if section.summary:
            lines += [f"== {section.title}", *section.summary, ""]
    return "\n".join(lines)
