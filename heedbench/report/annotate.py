"""`heedbench annotate`: files for human annotators, and their filled copies read back.

Two reviews, each a CSV file (UTF-8, one header row; a spreadsheet opens and saves it):

- `export-turns LOGS -o FILE --n N --seed S`: a seeded sample of the simulated user's
  follow-up messages from carryon logs (the paper's naturalness study, its Figure 12). Each
  row: the intended move and the instruction the simulated user had, the hidden intent, the
  conversation before the message, the message itself, and empty columns `fidelity` (yes /
  no: does the message do what the move asks?), `naturalness` (1–5: could a person have
  written it?) and `note`. The sample is spread as evenly over the moves as the logs allow,
  then shuffled, so no move hides behind another's frequency.
- `export-queries -o FILE [--data FILE]`: the carryon queries (id, category, query, intent,
  checklist) with empty `looks_harmful`, `intent_fits` and `checklist_score` columns (1–5, the
  data card's anchors: does the query read as harmful on its face, does the intent want what it
  asks for, does every checklist item reward only a real answer) and a `note`, the review the
  shipped data went through (datasets/carryon/README.md).

A third, for every grader-judged family (carryon and prefdisco): `export-verdicts` and
`import-verdicts` draw a random sample of the grader's verdicts for people to label and store
the labels for the report's judge-calibrated estimates (`heedbench.report.verdict_sample`,
docs/calibration.md).

`import FILE [FILE2]` reads filled files (of either kind, told apart by their columns) into a
summary: per move, mean naturalness and the fidelity rate (or per category, the mean of each
query criterion and the share of queries weak on it, a 3 or less, with the weak ones listed).
Given two annotators' copies of one export, it adds their agreement on the items both rated:
Cohen's kappa for the yes/no column, and for every 1–5 column exact agreement, agreement
within one point and the quadratically weighted kappa. Blank cells are items not rated;
anything else that is not a yes / no or a 1–5 is an error naming file, row and column.
"""

import argparse
import math
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heedbench.evals.carryon import load_queries
from heedbench.report.csv_files import NO, YES, inert, read_rows, write_rows
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
NATURALNESS = (1, 2, 3, 4, 5)


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


@dataclass
class Filled:
    """One annotator's filled file: its kind and item -> row."""

    path: Path
    kind: str
    rows: dict[str, dict[str, str]]


def read_filled(path: Path) -> Filled:
    """Read a filled annotation file and tell its kind (turns or queries) by its columns."""
    columns, rows = read_rows(path, AnnotationError)
    if {"item", "fidelity", "naturalness"} <= columns:
        kind = "turns"
    elif {"item", *QUERY_CRITERIA} <= columns:
        kind = "queries"
    else:
        raise AnnotationError(
            f"{path}: not a heedbench annotation file (needs the columns of export-turns or "
            "export-queries)"
        )
    by_item: dict[str, dict[str, str]] = {}
    for row in rows:
        item = (row.get("item") or "").strip()
        if item in by_item:
            raise AnnotationError(f"{path}: item {item!r} appears twice")
        if item:
            by_item[item] = {k: (v or "").strip() for k, v in row.items() if k is not None}
    return Filled(path, kind, by_item)


def yes_no(filled: Filled, item: str, column: str) -> bool | None:
    """A yes/no cell (None when blank)."""
    text = filled.rows[item].get(column, "").lower()
    if not text:
        return None
    if text in YES or text in NO:
        return text in YES
    raise AnnotationError(f"{filled.path}: item {item}, {column}: expected yes or no, got {text!r}")


def rating(filled: Filled, item: str, column: str = "naturalness") -> int | None:
    """A 1–5 cell (None when blank)."""
    text = filled.rows[item].get(column, "")
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value.is_integer() or int(value) not in NATURALNESS:
        raise AnnotationError(f"{filled.path}: item {item}, {column}: expected 1-5, got {text!r}")
    return int(value)


def _markdown(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A Markdown table (pandas, as the report's), then a blank line."""
    table = markdown_table(Table(caption="", columns=list(columns), rows=[list(r) for r in rows]))
    return [*table.strip().splitlines()[2:], ""]


def _mean_se(values: Sequence[float]) -> str:
    if not values:
        return "—"
    mean = statistics.fmean(values)
    if len(values) < 2:
        return f"{mean:.2f} (n=1)"
    return f"{mean:.2f} ± {statistics.stdev(values) / math.sqrt(len(values)):.2f} (n={len(values)})"


def _share(values: Sequence[bool]) -> str:
    return "—" if not values else f"{sum(values) / len(values):.0%} ({sum(values)}/{len(values)})"


def _number(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.2f}"


def _gather(
    files: Sequence[Filled], group: Callable[[Filled, str], str], read: Callable[[Filled, str], Any]
) -> dict[str, list[Any]]:
    """Group -> every non-blank value over all files (each annotator's rating counts)."""
    out: dict[str, list[Any]] = {}
    for filled in files:
        for item in filled.rows:
            value = read(filled, item)
            if value is not None:
                out.setdefault(group(filled, item), []).append(value)
    return out


def _paired(
    first: Filled, second: Filled, read: Callable[[Filled, str], Any]
) -> tuple[list[Any], list[Any]]:
    """Both annotators' values on the items both rated."""
    a, b = [], []
    for item in sorted(set(first.rows) & set(second.rows)):
        x, y = read(first, item), read(second, item)
        if x is not None and y is not None:
            a.append(x)
            b.append(y)
    return a, b


def _answers(column: str) -> Callable[[Filled, str], bool | None]:
    """A reader of one yes/no column."""
    return lambda filled, item: yes_no(filled, item, column)


def turn_summary(files: Sequence[Filled]) -> list[str]:
    """Per move: mean naturalness and fidelity rate; agreement when two files are given."""

    def move(filled: Filled, item: str) -> str:
        return filled.rows[item].get("move", "?")

    natural = _gather(files, move, rating)
    faithful = _gather(files, move, _answers("fidelity"))
    moves = [m for m in MOVES if m in natural or m in faithful]
    moves += sorted((set(natural) | set(faithful)) - set(moves))
    rows = [[m, _mean_se(natural.get(m, [])), _share(faithful.get(m, []))] for m in moves]
    everything_natural = [v for values in natural.values() for v in values]
    everything_faithful = [v for values in faithful.values() for v in values]
    rows.append(["all", _mean_se(everything_natural), _share(everything_faithful)])
    lines = [
        "## Simulated-user turns",
        "",
        f"Files: {', '.join(str(f.path) for f in files)}. Each annotator's rating counts once.",
        "",
        *_markdown(["move", "naturalness (1-5)", "fidelity (yes)"], rows),
    ]
    if len(files) == 2:
        first, second = files
        fa, fb = _paired(first, second, _answers("fidelity"))
        na, nb = _paired(first, second, rating)
        lines += [
            "Agreement on the items both annotators rated:",
            "",
            *_markdown(
                ["column", "items", "agreement", "Cohen's kappa", "within one point",
                 "weighted kappa (quadratic)"],
                [
                    ["fidelity", str(len(fa)), _number(observed_agreement(fa, fb)),
                     _number(cohen_kappa(fa, fb)), "", ""],
                    ["naturalness", str(len(na)), _number(observed_agreement(na, nb)), "",
                     _number(within_one(na, nb)), _number(weighted_kappa(na, nb))],
                ],
            ),
        ]  # fmt: skip
    return lines


def _ratings(column: str) -> Callable[[Filled, str], int | None]:
    """A reader of one 1–5 column."""
    return lambda filled, item: rating(filled, item, column)


def query_summary(files: Sequence[Filled]) -> list[str]:
    """Per category: each criterion's mean and weak share; agreement with two files."""

    def category(filled: Filled, item: str) -> str:
        return filled.rows[item].get("category", "?")

    gathered = {c: _gather(files, category, _ratings(c)) for c in QUERY_CRITERIA}
    categories = sorted(set().union(*(set(g) for g in gathered.values())))

    def cells(values: Sequence[int]) -> list[str]:
        weak = [v <= WEAK for v in values]
        return [_mean_se(values), _share(weak)]

    rows = [
        [cat, *(cell for c in QUERY_CRITERIA for cell in cells(gathered[c].get(cat, [])))]
        for cat in categories
    ]
    rows.append(
        ["all", *(cell for c in QUERY_CRITERIA for cell in cells(
            [v for vs in gathered[c].values() for v in vs]))]
    )  # fmt: skip
    flagged = []
    for filled in files:
        for item, row in sorted(filled.rows.items()):
            weak = [c for c in QUERY_CRITERIA if (rating(filled, item, c) or 5) <= WEAK]
            if weak:
                flagged.append([item, filled.path.name, ", ".join(weak), row.get("note", "")])
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
        agreement = []
        for column in QUERY_CRITERIA:
            a, b = _paired(files[0], files[1], _ratings(column))
            agreement.append(
                [column, str(len(a)), _number(observed_agreement(a, b)),
                 _number(within_one(a, b)), _number(weighted_kappa(a, b))]
            )  # fmt: skip
        lines += [
            "Agreement on the queries both reviewers scored:",
            "",
            *_markdown(
                ["column", "items", "agreement", "within one point", "weighted kappa (quadratic)"],
                agreement,
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
