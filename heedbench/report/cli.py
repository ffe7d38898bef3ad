"""The `heedbench` command: `report`, `check-logs`, `annotate` and `build`.

`heedbench report LOG_DIR... [-o OUT_DIR]`: tables and figures comparing models across runs.
`heedbench check-logs LOG_DIR...`: exit status 1 unless every log there is a finished run (the
last line of a shard script: Inspect can end with status 0 while its log is incomplete).
`heedbench annotate ...`: files for human annotators and summaries of the filled copies
(`heedbench.report.annotate`). `heedbench build ...`: build-task logs to a dataset file
(`heedbench.evals.pipelines.command`).

Only the parser is defined here at import time; each command imports what it needs after the
arguments are parsed, so `heedbench --help` or a mistyped option answers at once. Options are
checked as task options are (`heedbench.params`): a share outside 0–1 or a count that is not a
positive whole number is refused in one line naming it.
"""

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedbench import params

if TYPE_CHECKING:
    from heedbench.report.document import Section
    from heedbench.report.load import Loaded
    from heedbench.scorers.carryon import FailureThresholds

THRESHOLDS = ("lock_in_gain", "unsafe_harm_excess", "repetition")
"""The carryon failure-mode thresholds the report takes, each a share in [0, 1]."""


class ReportError(Exception):
    """A problem the user can fix; printed without a traceback, exit status 1."""


@dataclass(frozen=True)
class Options:
    """What the report is built from."""

    logs: Sequence[str]
    out: Path
    all_runs: bool = False
    prices: Path | None = None
    thresholds: "FailureThresholds | None" = None
    """None: the carryon scorer's own defaults."""
    include_smoke: bool = False


def build_sections(options: Options) -> "tuple[Loaded, list[Section]]":
    """Read the logs and build every section (nothing is written yet).

    Raises:
        ReportError: no logs, no usable heedbench run, or an unreadable price file.
    """
    from heedbench.prices import load_prices  # noqa: PLC0415 (after parsing: see the docstring)
    from heedbench.report.calibration_section import calibration_section  # noqa: PLC0415
    from heedbench.report.carryon import carryon_section  # noqa: PLC0415
    from heedbench.report.choice import choice_section  # noqa: PLC0415
    from heedbench.report.cost import cost_section  # noqa: PLC0415
    from heedbench.report.judge_check import judge_check_section  # noqa: PLC0415
    from heedbench.report.load import NoLogsError, load_runs  # noqa: PLC0415
    from heedbench.report.prefdisco import prefdisco_section  # noqa: PLC0415
    from heedbench.report.runs import runs_section  # noqa: PLC0415
    from heedbench.scorers.carryon import FailureThresholds  # noqa: PLC0415

    local = [path for path in options.logs if "://" not in path]  # s3://... is listed below
    missing = [path for path in local if not Path(path).exists()]
    if missing:
        raise ReportError(f"no such file or folder: {', '.join(missing)}")
    try:
        prices = load_prices(options.prices)
        loaded = load_runs(
            options.logs, all_runs=options.all_runs, include_smoke=options.include_smoke
        )
    except (NoLogsError, ValueError) as error:
        raise ReportError(str(error)) from error
    inventory = runs_section(loaded, options.all_runs)
    if not loaded.used:
        details = "\n".join(inventory.summary)
        raise ReportError(f"no successful heedbench run to report on\n{details}")
    families = [
        choice_section(loaded),
        carryon_section(loaded, options.thresholds or FailureThresholds()),
        prefdisco_section(loaded),
        judge_check_section(loaded),
        calibration_section(loaded, options.logs),
    ]
    sections = [s for s in families if s is not None]
    return loaded, [*sections, cost_section(loaded, prices), inventory]


def _logs(parser: argparse.ArgumentParser, what: str = "log folders or files") -> None:
    parser.add_argument("logs", nargs="+", metavar="LOG_DIR", help=what)


def _export(parser: argparse.ArgumentParser, logs: bool = True) -> None:
    """The options every export takes: its logs, the CSV to write and the sampling seed."""
    if logs:
        _logs(parser)
    parser.add_argument("-o", "--output", required=True, type=Path, metavar="FILE",
                        help="CSV to write")  # fmt: skip
    parser.add_argument("--seed", default="0", help="sampling seed (default: 0)")


def _report_parser(commands: Any) -> None:
    report = commands.add_parser(
        "report",
        help="compare models across heedbench eval logs",
        description="Read heedbench eval logs (any mix of tasks, models and runs) and write "
        "report.md, report.html and PNG figures to OUT_DIR; print a summary.",
    )
    _logs(report, "log folders or files, local or in object storage (s3://bucket/prefix)")
    report.add_argument("-o", "--output", default="report", metavar="OUT_DIR",
                        help="where to write the report (default: ./report)")  # fmt: skip
    report.add_argument("--all-runs", action="store_true", help="pool every successful run of "
                        "a task × model × parameters (default: only the newest)")  # fmt: skip
    report.add_argument("--include-smoke", action="store_true", help="report runs that "
                        "heedbench/smoke played a part in (default: left out, their numbers "
                        "mean nothing)")  # fmt: skip
    report.add_argument(
        "--prices",
        type=Path,
        metavar="FILE",
        help="prices in Inspect's --model-cost-config format (YAML or JSON: provider/model -> "
        "input, output, input_cache_write, input_cache_read, dollars per million tokens), "
        "added to or replacing the shipped table for logs that carry no cost of their own",
    )
    for name, rule in zip(THRESHOLDS, (
        "utility lock-in: flagged when BC last-turn Ben-Util gains less than this over turn 1",
        "unsafe recovery: BC harmful rate above oracle by more than this",
        "repetitive recovery: mean BC redundancy at least this",
    ), strict=True):  # fmt: skip
        help = f"carryon {rule} (0-1; default: the carryon scorer's)"
        report.add_argument(f"--{name.replace('_', '-')}", metavar="SHARE", help=help)


def _annotate_parser(commands: Any) -> None:
    annotate = commands.add_parser(
        "annotate",
        help="export files for human annotators and summarise the filled copies",
        description="Files for human annotators, and their filled copies read back "
        "(docs/annotation.md, docs/calibration.md).",
    )
    steps = annotate.add_subparsers(dest="step", required=True)
    turns = steps.add_parser(
        "export-turns", help="a seeded sample of simulated-user messages from carryon logs"
    )
    _export(turns)
    turns.add_argument("--n", help="messages to export (default: 100, or all the logs hold if "
                       "fewer)")  # fmt: skip
    queries = steps.add_parser("export-queries", help="the carryon queries for a human review")
    _export(queries, logs=False)
    queries.add_argument("--data", help="a JSONL file in the shipped schema (default: shipped)")
    queries.add_argument("--n", help="a seeded sample of this many (default: all)")
    export = steps.add_parser(
        "export-verdicts",
        help="a random sample of the grader's carryon / prefdisco verdicts for people to label",
    )
    _export(export)
    export.add_argument("--per-model", default="200", metavar="N", help="verdicts per model, "
                        "spread over its conditions and verdict kinds (default: 200)")  # fmt: skip
    export.add_argument("--by-verdict", action="store_true", help="also stratify by the "
                        "grader's verdict class (rare verdicts get labels too)")  # fmt: skip
    read = steps.add_parser(
        "import-verdicts", help="check a filled verdict file and store its labels for the report"
    )
    read.add_argument("file", type=Path, metavar="FILE", help="the filled CSV")
    _logs(read, "the log folders it was drawn from")
    read.add_argument("--design", type=Path, metavar="FILE",
                      help="the draw (default: FILE's .design.json)")  # fmt: skip
    read.add_argument("--into", type=Path, metavar="DIR",
                      help="where to store the labels (default: the first LOG_DIR)")  # fmt: skip
    read.add_argument("--allow-blank", action="store_true", help="store a file with "
                      "unlabelled units (the report then flags the labels)")  # fmt: skip
    summary = steps.add_parser("import", help="summarise one or two filled files")
    summary.add_argument("files", nargs="+", type=Path, metavar="FILE")
    summary.add_argument("-o", "--output", type=Path, metavar="FILE",
                         help="also write the summary")  # fmt: skip


def _build_parser(commands: Any) -> None:
    build = commands.add_parser(
        "build",
        help="turn build-task logs into a dataset file the benchmark task loads",
        description="`heedbench build carryon LOG... -o queries.jsonl` (carryon_checklist "
        "logs -> the queries file and its card) and `heedbench build prefdisco LOG... -o "
        "folder/` (prefdisco_profiles logs -> the release's folder layout). Nothing is "
        "written when a record would not load; items that failed or errored in the build are "
        "listed and left out (--strict: refused).",
    )
    pipelines = build.add_subparsers(dest="pipeline", required=True)
    carryon = pipelines.add_parser("carryon", help="carryon_checklist logs -> queries JSONL")
    prefdisco = pipelines.add_parser(
        "prefdisco", help="prefdisco_profiles logs -> the release's folder layout"
    )
    for parser, output in ((carryon, "FILE.jsonl"), (prefdisco, "FOLDER")):
        parser.add_argument("logs", nargs="+", metavar="LOG", help="log files or folders")
        parser.add_argument("-o", "--output", required=True, type=Path, metavar=output)
        parser.add_argument(
            "--strict", action="store_true", help="refuse to write while any item failed or "
            "errored in the build"
        )  # fmt: skip
    prefdisco.add_argument(
        "--variant", choices=("1k", "5k"), default="1k",
        help="benchmark_1k/<source>/train.jsonl (default) or benchmark_5k/<source>/full.jsonl",
    )  # fmt: skip


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="heedbench", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    commands = parser.add_subparsers(dest="command", required=True)
    _report_parser(commands)
    check = commands.add_parser(
        "check-logs",
        help="exit 1 unless every log under LOG_DIR is a finished run (for shard scripts)",
        description="Read the header and sample list of every eval log under LOG_DIR (local or "
        "s3://) and name each that is unreadable, not finished (started, error, cancelled), "
        "or short of the samples its header counts. Exit status 1 if any is, 0 if none.",
    )
    _logs(check)
    _build_parser(commands)
    _annotate_parser(commands)
    return parser


def check_logs(logs: Sequence[str]) -> int:
    """`heedbench check-logs`: one line per log that is not a finished run; 1 if any."""
    from heedbench.report.load import NoLogsError, unfinished_logs  # noqa: PLC0415

    try:
        total, problems, retried = unfinished_logs(logs)
    except NoLogsError as error:
        print(f"heedbench check-logs: {error}", file=sys.stderr)
        return 1
    for line in retried:
        print(f"heedbench check-logs: {line}")
    for problem in problems:
        print(f"heedbench check-logs: {problem}", file=sys.stderr)
    if problems:
        print(f"{len(problems)} of {total} logs are not finished runs", file=sys.stderr)
        return 1
    print(f"{total} logs, all finished runs")
    return 0


def checked(args: argparse.Namespace) -> argparse.Namespace:
    """The options with numbers read and checked; `params.ParameterError` names a bad one."""
    token = params.FLAG.set(f"heedbench {args.command}" + (f" {args.step}" if "step" in args
                                                              else ""))  # fmt: skip
    try:
        counts: dict[str, Callable[[Any], Any]] = {
            "n": lambda v: params.integer("--n", v, low=1),
            "per_model": lambda v: params.integer("--per-model", v, low=1),
            "seed": lambda v: params.integer("--seed", v),
            **{
                name: partial(params.number, f"--{name.replace('_', '-')}", low=0.0, high=1.0)
                for name in THRESHOLDS
            },
        }
        for name, check in counts.items():
            if getattr(args, name, None) is not None:
                setattr(args, name, check(getattr(args, name)))
    finally:
        params.FLAG.reset(token)
    return args


def _report(args: argparse.Namespace) -> int:
    from heedbench.report.render import terminal_summary, write_report  # noqa: PLC0415
    from heedbench.scorers.carryon import FailureThresholds  # noqa: PLC0415

    given = {name: getattr(args, name) for name in THRESHOLDS if getattr(args, name) is not None}
    options = Options(
        logs=args.logs,
        out=Path(args.output),
        all_runs=args.all_runs,
        prices=args.prices,
        thresholds=FailureThresholds(**given),
        include_smoke=args.include_smoke,
    )
    try:
        _, sections = build_sections(options)
    except ReportError as error:
        print(f"heedbench report: {error}", file=sys.stderr)
        return 1
    write_report(sections, options.out)
    print(terminal_summary(sections))
    print(f"report written to {options.out / 'report.md'} and {options.out / 'report.html'}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `heedbench` console script."""
    args = _parser().parse_args(argv)
    try:
        args = checked(args)
    except params.ParameterError as error:
        print(error, file=sys.stderr)
        return 1
    if args.command == "build":
        from heedbench.evals.pipelines.command import run_build  # noqa: PLC0415

        return run_build(args)
    if args.command == "annotate":
        from heedbench.report import annotate  # noqa: PLC0415

        return annotate.run(args)
    if args.command == "check-logs":
        return check_logs(args.logs)
    return _report(args)


if __name__ == "__main__":
    sys.exit(main())
