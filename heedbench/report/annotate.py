"""`heedbench annotate`: files for human annotators, and their filled copies read back.

The steps and the columns of each file are in docs/annotation.md (`export-turns`: the simulated
user's messages; `export-queries`: the carryon queries) and docs/calibration.md
(`export-verdicts` / `import-verdicts`: `heedbench.report.verdict_sample`). `import` reads one
or two filled copies of an export (told apart by their columns) into a Markdown summary, with
the two annotators' agreement on the items both rated. The files are CSV (UTF-8, one header
row) so a spreadsheet opens and saves them; a blank cell is an item not rated, anything else
that is not a yes / no or a 1–5 is an error naming file, row and column.
"""

import argparse
import math
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from heedbench.evals.carryon import load_queries
from heedbench.report.csv_files import inert, parse_cell, read_rows, write_rows
from heedbench.report.document import Table
from heedbench.report.graded_units import conversation_text
from heedbench.report.load import NoLogsError, load_runs
from heedbench.report.render import markdown_table
from heedbench.report.verdict_sample import LabelError, export_verdicts, import_verdicts
from heedbench.scorers.judge.agreement import (
    cohen_kappa,
    observed_agreement,
    weighted_kappa,
    within_one,
)
from heedbench.solvers.carryon.flows import MOVES
from heedbench.solvers.carryon.prompts import MOVE_INSTRUCTIONS

TURN_COLUMNS = (
    "item", "move", "instruction", "intent", "conversation_so_far", "user_message",
    "fidelity", "naturalness", "note", "source",
)  # fmt: skip
QUERY_CRITERIA = ("looks_harmful", "intent_fits", "checklist_score")
"""The data review's criteria, each 1–5 (the carryon data card's anchors)."""
WEAK = 3
"""A criterion scored this or lower marks the query weak, as in the data card."""
QUERY_COLUMNS = (
    "item", "category", "query", "intent", "checklist", *QUERY_CRITERIA, "note",
)  # fmt: skip


class AnnotationError(Exception):
    """A problem with the files the user gave; printed without a traceback."""


@dataclass(frozen=True)
class UserTurn:
    """One simulated-user message and what an annotator needs to judge it."""

    source: str
    move: str
    intent: str
    conversation: str
    message: str


def user_turns(logs: Sequence[str]) -> list[UserTurn]:
    """Every simulated-user follow-up in the carryon runs under `logs`, in a stable order."""
    loaded = load_runs(logs)
    runs = loaded.runs("carryon")
    if not runs:
        raise AnnotationError(f"no successful carryon run in {', '.join(logs)}")
    frame = loaded.samples("carryon", full=True)
    log_names = {run.eval_id: Path(run.log).name for run in runs}
    found: list[UserTurn] = []
    for _, row in frame.iterrows():
        metadata = row.get("score_metadata")
        turns: list[dict[str, Any]] = (
            metadata.get("turns") or [] if isinstance(metadata, dict) else []
        )
        for index, turn in enumerate(turns):
            if index == 0 or not turn.get("move") or not turn.get("user"):
                continue
            found.append(
                UserTurn(
                    source=f"{log_names[str(row['eval_id'])]}:{row['id']}@{row['epoch']}"
                    f"#{turn['exchange']}",
                    move=str(turn["move"]),
                    intent=str(row.get("m_intent", "")),
                    conversation=conversation_text(turns[:index]),
                    message=str(turn["user"]),
                )
            )
    return sorted(found, key=lambda turn: turn.source)


def balanced_sample(items: Sequence[UserTurn], n: int, rng: random.Random) -> list[UserTurn]:
    """`n` items spread as evenly over moves as they allow, then shuffled.

    Each move's items are shuffled; moves then take turns giving one item until `n` are
    chosen or every move has run out.
    """
    by_move: dict[str, list[UserTurn]] = {}
    for item in items:
        by_move.setdefault(item.move, []).append(item)
    for pool in by_move.values():
        rng.shuffle(pool)
    chosen: list[UserTurn] = []
    order = sorted(by_move, key=lambda m: (MOVES.index(m) if m in MOVES else len(MOVES), m))
    while len(chosen) < n and any(by_move.values()):
        for move in order:
            if by_move[move] and len(chosen) < n:
                chosen.append(by_move[move].pop())
    rng.shuffle(chosen)
    return chosen


DEFAULT_TURNS = 100


def _count(n: int | None, held: int, what: str) -> int:
    """`n` items of the `held` ones; more than are held is refused, None is all (or 100)."""
    if n is not None and not 1 <= n <= held:
        raise AnnotationError(f"--n {n}: must be from 1 to {held}, the {what} there are")
    return n if n is not None else held if what == "queries" else min(DEFAULT_TURNS, held)


def export_turns(logs: Sequence[str], out: Path, n: int | None, seed: int) -> int:
    """Write the annotation file of a seeded sample of user turns; return how many rows."""
    found = user_turns(logs)
    chosen = _count(n, len(found), "simulated-user turns")
    turns = balanced_sample(found, chosen, random.Random(seed))
    rows = (
        {
            "item": f"t{index:04d}",
            "move": turn.move,
            "instruction": MOVE_INSTRUCTIONS.get(turn.move, ""),
            "intent": turn.intent,
            "conversation_so_far": inert(turn.conversation),  # model text: untrusted
            "user_message": inert(turn.message),
            "source": turn.source,
        }
        for index, turn in enumerate(turns, start=1)
    )
    return write_rows(out, TURN_COLUMNS, rows)


def export_queries(out: Path, data: str | None, n: int | None, seed: int) -> int:
    """Write the query review file (every query, or a seeded sample of `n`)."""
    queries = load_queries(data)
    if n is not None:
        chosen = _count(n, len(queries), "queries")
        queries = sorted(random.Random(seed).sample(queries, chosen), key=lambda q: q.id)
    rows = (
        {
            "item": query.id,
            "category": query.category,
            "query": query.query,
            "intent": query.intent,
            "checklist": "\n".join(
                f"{i}. [{item.category}] {item.question}"
                for i, item in enumerate(query.checklist, start=1)
            ),
        }
        for query in queries
    )
    return write_rows(out, QUERY_COLUMNS, rows)


CELLS: dict[str, dict[str, bool]] = {
    "turns": {"fidelity": True, "naturalness": False},
    "queries": dict.fromkeys(QUERY_CRITERIA, False),
}
"""Per kind of file: its rated columns, each yes/no (True) or 1–5 (False)."""


@dataclass
class Filled:
    """One annotator's filled file: its kind and one row per item (rated cells as numbers)."""

    path: Path
    kind: str
    frame: pd.DataFrame
    """Indexed by item; a rated column is 1/0 or 1–5, NaN where blank; the rest text."""


def read_filled(path: Path) -> Filled:
    """Read a filled annotation file, tell its kind by its columns and read its rated cells."""
    columns, rows = read_rows(path, AnnotationError)
    kind = next((k for k, rated in CELLS.items() if {"item", *rated} <= columns), None)
    if kind is None:
        raise AnnotationError(
            f"{path}: not a heedbench annotation file (needs the columns of export-turns or "
            "export-queries)"
        )
    by_item: dict[str, dict[str, Any]] = {}
    for row in rows:
        item = (row.get("item") or "").strip()
        if item in by_item:
            raise AnnotationError(f"{path}: item {item!r} appears twice")
        if item:
            cells: dict[str, Any] = {k: (v or "").strip() for k, v in row.items() if k is not None}
            for column, yes_no in CELLS[kind].items():
                where = f"{path}: item {item}, {column}"
                cells[column] = parse_cell(cells[column], yes_no, where, AnnotationError)
            by_item[item] = cells
    frame = pd.DataFrame(list(by_item.values()), index=list(by_item), columns=sorted(columns))
    frame[list(CELLS[kind])] = frame[list(CELLS[kind])].astype(float)
    return Filled(path, kind, frame.sort_index())


def _markdown(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A Markdown table (pandas, as the report's), then a blank line."""
    table = markdown_table(Table(caption="", columns=list(columns), rows=[list(r) for r in rows]))
    return [*table.strip().splitlines()[2:], ""]


def _mean_se(values: pd.Series) -> str:
    values = values.dropna()
    if values.empty:
        return "—"
    if len(values) < 2:
        return f"{values.mean():.2f} (n=1)"
    return f"{values.mean():.2f} ± {values.sem():.2f} (n={len(values)})"


def _share(values: pd.Series) -> str:
    values = values.dropna()
    yes = int(values.sum())
    return "—" if values.empty else f"{yes / len(values):.0%} ({yes}/{len(values)})"


def _number(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.2f}"


def _agreement(files: Sequence[Filled], column: str, yes_no: bool) -> list[str]:
    """Agreement of two annotators on the items both rated in `column`: one table row."""
    both = pd.concat([f.frame[column] for f in files], axis=1, join="inner").dropna()
    a, b = (both.iloc[:, i].astype(int).tolist() for i in (0, 1))
    if yes_no:
        tail = [_number(cohen_kappa(a, b)), "", ""]
    else:
        tail = [_number(within_one(a, b)), _number(weighted_kappa(a, b))]
        tail = ["", *tail] if files[0].kind == "turns" else tail  # turns: a kappa column too
    return [column, str(len(a)), _number(observed_agreement(a, b)), *tail]


def _combined(files: Sequence[Filled], group: str) -> pd.DataFrame:
    """Every file's rows (each annotator's rating counts once), `group` "?" where absent."""
    frame = pd.concat([f.frame for f in files])
    return frame if group in frame else frame.assign(**{group: "?"})


def turn_summary(files: Sequence[Filled]) -> list[str]:
    """Per move: mean naturalness and fidelity rate; agreement when two files are given."""
    frame = _combined(files, "move").dropna(how="all", subset=list(CELLS["turns"]))
    found = set(frame["move"])
    moves = [m for m in MOVES if m in found] + sorted(found - set(MOVES))
    groups = [*((m, frame[frame["move"] == m]) for m in moves), ("all", frame)]
    rows = [[m, _mean_se(g["naturalness"]), _share(g["fidelity"])] for m, g in groups]
    lines = [
        "## Simulated-user turns",
        "",
        f"Files: {', '.join(str(f.path) for f in files)}. Each annotator's rating counts once.",
        "",
        *_markdown(["move", "naturalness (1-5)", "fidelity (yes)"], rows),
    ]
    if len(files) == 2:
        lines += [
            "Agreement on the items both annotators rated:",
            "",
            *_markdown(
                ["column", "items", "agreement", "Cohen's kappa", "within one point",
                 "weighted kappa (quadratic)"],
                [_agreement(files, column, yes_no) for column, yes_no in CELLS["turns"].items()],
            ),
        ]  # fmt: skip
    return lines


def query_summary(files: Sequence[Filled]) -> list[str]:
    """Per category: each criterion's mean and weak share; agreement with two files."""
    frame = _combined(files, "category")
    categories = sorted(set(frame.dropna(how="all", subset=list(QUERY_CRITERIA))["category"]))

    def cells(rows: pd.DataFrame) -> list[str]:
        pairs = ((_mean_se(rows[c]), _share(rows[c].dropna() <= WEAK)) for c in QUERY_CRITERIA)
        return [cell for pair in pairs for cell in pair]

    rows = [[c, *cells(frame[frame["category"] == c])] for c in categories]
    rows.append(["all", *cells(frame)])
    flagged = [
        [item, filled.path.name, ", ".join(weak), row.get("note", "")]
        for filled in files
        for item, row in filled.frame.iterrows()
        if (weak := [c for c in QUERY_CRITERIA if row[c] <= WEAK])
    ]
    header = ["category"] + [f"{c} {part}" for c in QUERY_CRITERIA for part in ("(1-5)", "weak")]
    lines = [
        "## Query review",
        "",
        f"Files: {', '.join(str(f.path) for f in files)}. Each reviewer's score counts once; "
        f"weak = {WEAK} or less.",
        "",
        *_markdown(header, rows),
        "Queries scored weak on some criterion:",
        "",
        *(_markdown(["query", "file", "weak on", "note"], flagged) if flagged else ["none", ""]),
    ]
    if len(files) == 2:
        lines += [
            "Agreement on the queries both reviewers scored:",
            "",
            *_markdown(
                ["column", "items", "agreement", "within one point", "weighted kappa (quadratic)"],
                [_agreement(files, column, False) for column in QUERY_CRITERIA],
            ),
        ]
    return lines


def import_files(paths: Sequence[Path]) -> str:
    """The summary of one or two filled files of the same export, as Markdown."""
    if not 1 <= len(paths) <= 2:
        raise AnnotationError("give one filled file, or two annotators' copies of one export")
    files = [read_filled(path) for path in paths]
    if len({f.kind for f in files}) > 1:
        raise AnnotationError("the two files are of different kinds (turns vs queries)")
    summary = turn_summary if files[0].kind == "turns" else query_summary
    return "\n".join(summary(files))


def run(args: argparse.Namespace) -> int:
    """Carry out an `annotate` subcommand; 1 with a message on a problem the user can fix."""
    try:
        if args.step == "export-turns":
            count = export_turns(args.logs, args.output, args.n, args.seed)
            print(f"{count} simulated-user messages written to {args.output}")
        elif args.step == "export-verdicts":
            print(export_verdicts(args.logs, args.output, args.per_model, args.seed,
                                  args.by_verdict))  # fmt: skip
        elif args.step == "import-verdicts":
            print(import_verdicts(args.file, args.logs, args.design, args.into, args.allow_blank))
        elif args.step == "export-queries":
            count = export_queries(args.output, args.data, args.n, args.seed)
            print(f"{count} queries written to {args.output}")
        else:
            text = import_files(args.files)
            print(text)
            if args.output is not None:
                args.output.write_text(text + "\n", encoding="utf-8")
    except (AnnotationError, LabelError, NoLogsError, ValueError, FileNotFoundError) as error:
        print(f"heedbench annotate: {error}", file=sys.stderr)
        return 1
    return 0
