"""`heedbench report LOG_DIR... [-o OUT_DIR]`: tables and figures comparing models across runs.

`heedbench check-logs LOG_DIR...`: exit status 1 unless every log there is a finished run (the
last line of a shard script: Inspect can end with status 0 while its log is incomplete).

`heedbench annotate ...`: files for human annotators of carryon (simulated-user turns, the
queries) and summaries of the filled copies (`heedbench.report.annotate`).
"""

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from heedbench.evals.pipelines.command import add_build_parser, run_build
from heedbench.prices import load_prices
from heedbench.report import annotate
from heedbench.report.calibration_section import calibration_section
from heedbench.report.carryon import carryon_section
from heedbench.report.choice import choice_section
from heedbench.report.cost import cost_section
from heedbench.report.document import Section
from heedbench.report.judge_check import judge_check_section
from heedbench.report.load import Loaded, NoLogsError, load_runs, unfinished_logs
from heedbench.report.prefdisco import prefdisco_section
from heedbench.report.render import terminal_summary, write_report
from heedbench.report.runs import runs_section
from heedbench.scorers.carryon import FailureThresholds

DEFAULTS = FailureThresholds()


class ReportError(Exception):
    """A problem the user can fix; printed without a traceback, exit status 1."""


@dataclass(frozen=True)
class Options:
    """What the report is built from."""

    logs: Sequence[str]
    out: Path
    all_runs: bool = False
    prices: Path | None = None
    thresholds: FailureThresholds = DEFAULTS


def build_sections(options: Options) -> tuple[Loaded, list[Section]]:
    """Read the logs and build every section (nothing is written yet).

    Raises:
        ReportError: no logs, no usable heedbench run, or an unreadable price file.
    """
    local = [path for path in options.logs if "://" not in path]  # s3://... is listed below
    missing = [path for path in local if not Path(path).exists()]
    if missing:
        raise ReportError(f"no such file or folder: {', '.join(missing)}")
    try:
        prices = load_prices(options.prices)
        loaded = load_runs(options.logs, all_runs=options.all_runs)
    except (NoLogsError, ValueError) as error:
        raise ReportError(str(error)) from error
    inventory = runs_section(loaded, options.all_runs)
    if not loaded.used:
        details = "\n".join(inventory.summary)
        raise ReportError(f"no successful heedbench run to report on\n{details}")
    families = [
        choice_section(loaded),
        carryon_section(loaded, options.thresholds),
        prefdisco_section(loaded),
        judge_check_section(loaded),
        calibration_section(loaded, options.logs),
    ]
    sections = [s for s in families if s is not None]
    return loaded, [*sections, cost_section(loaded, prices), inventory]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="heedbench", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser(
        "report",
        help="compare models across heedbench eval logs",
        description="Read heedbench eval logs (any mix of tasks, models and runs) and write "
        "report.md, report.html and PNG figures to OUT_DIR; print a summary.",
    )
    report.add_argument(
        "logs",
        nargs="+",
        metavar="LOG_DIR",
        help="log folders or files, local or in object storage (s3://bucket/prefix)",
    )
    report.add_argument(
        "-o",
        "--output",
        default="report",
        metavar="OUT_DIR",
        help="where to write the report (default: ./report)",
    )
    report.add_argument(
        "--all-runs",
        action="store_true",
        help="pool every successful run of a task × model × parameters (default: only the newest)",
    )
    report.add_argument(
        "--prices",
        type=Path,
        metavar="FILE",
        help="prices in Inspect's --model-cost-config format (YAML or JSON: provider/model -> "
        "input, output, input_cache_write, input_cache_read, dollars per million tokens), "
        "added to or replacing the shipped table for logs that carry no cost of their own",
    )
    report.add_argument(
        "--lock-in-gain",
        type=float,
        default=DEFAULTS.lock_in_gain,
        help="carryon utility lock-in: flagged when BC last-turn Ben-Util "
        "gains less than this over turn-1 (default: %(default)s)",
    )
    report.add_argument(
        "--unsafe-harm-excess",
        type=float,
        default=DEFAULTS.unsafe_harm_excess,
        help="carryon unsafe recovery: BC harmful rate above oracle by more "
        "than this (default: %(default)s)",
    )
    report.add_argument(
        "--repetition",
        type=float,
        default=DEFAULTS.repetition,
        help="carryon repetitive recovery: mean BC redundancy at least this (default: %(default)s)",
    )
    check = commands.add_parser(
        "check-logs",
        help="exit 1 unless every log under LOG_DIR is a finished run (for shard scripts)",
        description="Read the header and sample list of every eval log under LOG_DIR (local or "
        "s3://) and name each that is unreadable, not finished (started, error, cancelled), "
        "or short of the samples its header counts. Exit status 1 if any is, 0 if none.",
    )
    check.add_argument("logs", nargs="+", metavar="LOG_DIR", help="log folders or files")
    add_build_parser(commands)
    annotate.add_parser(commands)
    return parser


def check_logs(logs: Sequence[str]) -> int:
    """`heedbench check-logs`: one line per log that is not a finished run; 1 if any."""
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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `heedbench` console script."""
    args = _parser().parse_args(argv)
    if args.command == "build":
        return run_build(args)
    if args.command == "annotate":
        return annotate.run(args)
    if args.command == "check-logs":
        return check_logs(args.logs)
    options = Options(
        logs=args.logs,
        out=Path(args.output),
        all_runs=args.all_runs,
        prices=args.prices,
        thresholds=FailureThresholds(
            lock_in_gain=args.lock_in_gain,
            unsafe_harm_excess=args.unsafe_harm_excess,
            repetition=args.repetition,
        ),
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


if __name__ == "__main__":
    sys.exit(main())
