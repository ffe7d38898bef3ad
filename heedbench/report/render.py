"""Write the report: Markdown, an HTML page linking the PNGs, and a terminal summary."""

import html
from collections.abc import Sequence
from pathlib import Path

from heedbench.report.document import Section, Table

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 2em auto; padding: 0 1em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
th { background: #f3f3f3; }
caption { caption-side: top; text-align: left; font-weight: bold; padding: 0.3em 0; }
figure { margin: 1em 0 2em; } img { max-width: 100%; border: 1px solid #ddd; }
.note { color: #555; font-size: 0.85em; }
"""


def draw_figures(sections: Sequence[Section], out: Path) -> None:
    """Draw every figure into `out`."""
    for section in sections:
        for figure in section.figures:
            figure.draw(out / figure.name)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_table(table: Table) -> list[str]:
    lines = [f"**{table.caption}**", ""]
    lines.append("| " + " | ".join(_md_cell(c) for c in table.columns) + " |")
    lines.append("|" + "---|" * len(table.columns))
    lines.extend("| " + " | ".join(_md_cell(c) for c in row) + " |" for row in table.rows)
    if table.note:
        lines += ["", table.note]
    return [*lines, ""]


def markdown(sections: Sequence[Section], figures: bool) -> str:
    """The whole report as Markdown, figures linked relatively."""
    lines = ["# heedbench report", ""]
    for section in sections:
        lines += [f"## {section.title}", ""]
        if section.intro:
            lines += [section.intro, ""]
        for table in section.tables:
            lines += _md_table(table)
        if figures:
            for figure in section.figures:
                lines += [f"![{figure.caption}]({figure.name})", "", f"*{figure.caption}*", ""]
    return "\n".join(lines)


def _html_table(table: Table) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in table.rows
    )
    note = f'<p class="note">{html.escape(table.note)}</p>' if table.note else ""
    return (
        f"<table><caption>{html.escape(table.caption)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}"
    )


def html_page(sections: Sequence[Section], figures: bool) -> str:
    """The whole report as one HTML page; images are linked relatively (same folder)."""
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>heedbench report</title>",
        f"<style>{_STYLE}</style></head><body><h1>heedbench report</h1>",
    ]
    for section in sections:
        parts.append(f"<h2>{html.escape(section.title)}</h2>")
        if section.intro:
            parts.append(f"<p>{html.escape(section.intro)}</p>")
        parts.extend(_html_table(table) for table in section.tables)
        if figures:
            for figure in section.figures:
                caption = html.escape(figure.caption)
                parts.append(
                    f'<figure><img src="{html.escape(figure.name)}" alt="{caption}">'
                    f"<figcaption>{caption}</figcaption></figure>"
                )
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(sections: Sequence[Section], out: Path) -> None:
    """Write report.md, report.html and the PNGs into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    draw_figures(sections, out)
    (out / "report.md").write_text(markdown(sections, figures=True), encoding="utf-8")
    (out / "report.html").write_text(html_page(sections, figures=True), encoding="utf-8")


def terminal_summary(sections: Sequence[Section]) -> str:
    """Plain-text lines for the terminal, one block per section."""
    lines: list[str] = []
    for section in sections:
        if section.summary:
            lines += [f"== {section.title}", *section.summary, ""]
    return "\n".join(lines)
