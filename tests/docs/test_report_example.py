"""docs/report.md's example output is what its seeded commands write today.

The guide shows excerpts (some columns left out) of the report that three `heedbench/random`
choice runs give. This test runs the same commands and checks every row of every excerpt
against the report: each shown column's cell must equal the report's cell of the same row.
On a mismatch it prints the rows as they now are, to paste into the guide.
"""

import re
from pathlib import Path

from inspect_ai import eval as inspect_eval

from heedbench.evals.choice import choice
from heedbench.report.cli import main
from heedbench.solvers.choice import ChoiceMethod
from tests.docs.commands import ROOT

GUIDE = ROOT / "docs" / "report.md"
METHODS: tuple[ChoiceMethod, ...] = ("pointwise", "pairwise_score", "pairwise_sort")
COMMANDS = f"""for m in {" ".join(METHODS)}; do
  inspect eval heedbench/choice --model heedbench/random -T n=10 -T method=$m --log-dir logs/demo
done
heedbench report logs/demo -o report"""

Table = tuple[list[str], list[list[str]]]


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def tables(markdown: str) -> list[Table]:
    """Every Markdown table: header cells and row cells."""
    found, lines = [], markdown.splitlines()
    for index, line in enumerate(lines[:-1]):
        starts = line.startswith("|") and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[index + 1])
        if starts and (index == 0 or not lines[index - 1].startswith("|")):
            rows = []
            for row in lines[index + 2 :]:
                if not row.startswith("|"):
                    break
                rows.append(_cells(row))
            found.append((_cells(line), rows))
    return found


def _excerpts() -> list[Table]:
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index(COMMANDS)
    return tables(text[start : text.index("**What it reports.**", start)])


def _match(excerpt: Table, report: list[Table]) -> tuple[Table, list[str]] | None:
    """The first report table holding the excerpt's columns and the keys of its rows (their
    first cells), and the excerpt's rows as that table now has them (shown columns only)."""
    columns, rows = excerpt
    for header, body in report:
        if not set(columns) <= set(header):
            continue
        at = [header.index(column) for column in columns]
        by_key: dict[str, list[str]] = {}
        for row in body:
            by_key.setdefault(row[at[0]], row)
        now = []
        for row in rows:
            if row[0] not in by_key:
                break
            now.append("| " + " | ".join(by_key[row[0]][i] for i in at) + " |")
        else:
            return (header, body), now
    return None


def test_the_guide_shows_what_its_commands_write(tmp_path: Path) -> None:
    assert COMMANDS in GUIDE.read_text(encoding="utf-8")
    logs = tmp_path / "logs" / "demo"
    for method in METHODS:
        inspect_eval(choice(n=10, method=method), model="heedbench/random", display="none",
                     log_dir=str(logs))  # fmt: skip
    assert main(["report", str(logs), "-o", str(tmp_path / "report")]) == 0
    report = tables((tmp_path / "report" / "report.md").read_text(encoding="utf-8"))
    excerpts = _excerpts()
    assert len(excerpts) == 3
    stale = []
    for columns, rows in excerpts:
        found = _match((columns, rows), report)
        assert found is not None, f"no report table has the rows of {columns}"
        if ["| " + " | ".join(row) + " |" for row in rows] != found[1]:
            stale.append("\n".join(["| " + " | ".join(columns) + " |", *found[1]]))
    assert not stale, "docs/report.md is stale; its excerpts now read:\n\n" + "\n\n".join(stale)
    reversed_kp = next(row[6] for row in excerpts[2][1] if row[0] == "user order reversed")
    stated = f"the user ranks {reversed_kp.split()[0]} of the 45 pairs"
    assert stated in GUIDE.read_text(encoding="utf-8").replace("\n", " ")
