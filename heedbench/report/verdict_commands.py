"""`heedbench annotate export-verdicts` and `import-verdicts`: the steps around the labelling.

    heedbench annotate export-verdicts LOGS -o verdicts.csv --per-model 200 --seed 0
    (people fill the `label` column of verdicts.csv)
    heedbench annotate import-verdicts verdicts.csv LOGS

See `heedbench.report.verdict_sample` for the draw and the files, and docs/calibration.md.
"""

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from heedbench.report.graded_units import GradedSample, graded_samples
from heedbench.report.load import load_runs
from heedbench.report.verdict_sample import (
    Design,
    LabelError,
    check_against_logs,
    design_path,
    draw,
    read_filled,
    store,
    write_export,
)


def _samples(logs: Sequence[str], *, with_text: bool) -> list[GradedSample]:
    missing = [path for path in logs if not Path(path).exists()]
    if missing:
        raise LabelError(f"no such file or folder: {', '.join(missing)}")
    samples = graded_samples(load_runs(logs), with_text=with_text)
    if not samples:
        raise LabelError(f"no graded carryon or prefdisco sample in {', '.join(logs)}")
    return samples


def export_verdicts(
    logs: Sequence[str], out: Path, per_model: int, seed: int, by_verdict: bool = False
) -> str:
    """Draw and write the sample; a one-paragraph account of what was written."""
    samples = _samples(logs, with_text=True)
    design, chosen = draw(samples, per_model, seed, by_verdict, logs=[str(p) for p in logs])
    written = write_export(out, design, chosen)
    per_kind = Counter(sample.kind for sample, _ in chosen)
    kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(per_kind.items()))
    return (
        f"{len(chosen)} verdicts to label ({kinds}) written to {out}; the draw is in "
        f"{written} (keep it beside the CSV and away from the annotators)"
    )


def import_verdicts(
    filled: Path,
    logs: Sequence[str],
    design: Path | None = None,
    into: Path | None = None,
    allow_blank: bool = False,
) -> str:
    """Check a filled file against its design and the logs, and store its labels."""
    where = design or design_path(filled)
    if not where.exists():
        raise LabelError(f"no design file {where}: pass the one written by export-verdicts "
                         "with --design")  # fmt: skip
    try:
        data = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise LabelError(f"cannot read {where}: {error}") from error
    the_design = Design.from_json(data, str(where))
    labels = read_filled(filled, the_design)
    blank = [unit for unit, label in labels.labels.items() if label is None]
    if blank and not allow_blank:
        raise LabelError(
            f"{filled}: {len(blank)} of {len(labels.labels)} units have no label, first "
            f"{blank[0]}; label them (an unlabelled unit breaks the random sample), or pass "
            "--allow-blank and the report will say the labels are incomplete"
        )
    check_against_logs(the_design, _samples(logs, with_text=False), str(filled))
    folder = into or _first_folder(logs)
    path = store(labels, the_design, folder)
    done = len(labels.labels) - len(blank)
    return f"{done} labels ({len(blank)} blank) of {len(labels.labels)} units stored in {path}"


def _first_folder(logs: Sequence[str]) -> Path:
    first = Path(logs[0])
    return first if first.is_dir() else first.parent


def add_parsers(steps: Any) -> None:
    """The two subcommands, on `heedbench annotate`'s subparsers."""
    export = steps.add_parser(
        "export-verdicts",
        help="a random sample of the grader's carryon / prefdisco verdicts for people to label",
    )
    export.add_argument("logs", nargs="+", metavar="LOGS", help="log folders or files")
    export.add_argument(
        "-o", "--output", type=Path, required=True, metavar="FILE", help="CSV to write"
    )
    export.add_argument(
        "--per-model",
        type=int,
        default=200,
        metavar="N",
        help="verdicts per model, spread over its conditions and verdict kinds (default: 200)",
    )
    export.add_argument("--seed", type=int, default=0, help="sampling seed (default: 0)")
    export.add_argument(
        "--by-verdict",
        action="store_true",
        help="also stratify by the grader's verdict class (rare verdicts get labels too)",
    )
    read = steps.add_parser(
        "import-verdicts", help="check a filled verdict file and store its labels for the report"
    )
    read.add_argument("file", type=Path, metavar="FILE", help="the filled CSV")
    read.add_argument("logs", nargs="+", metavar="LOGS", help="the log folders it was drawn from")
    read.add_argument(
        "--design", type=Path, metavar="FILE", help="the draw (default: FILE's .design.json)"
    )
    read.add_argument(
        "--into",
        type=Path,
        metavar="DIR",
        help="where to store the labels (default: the first LOGS folder)",
    )
    read.add_argument(
        "--allow-blank",
        action="store_true",
        help="store a file with unlabelled units (the report then flags the labels)",
    )


def run(args: argparse.Namespace) -> str:
    """Carry out one of the two subcommands; its message."""
    if args.step == "export-verdicts":
        return export_verdicts(args.logs, args.output, args.per_model, args.seed, args.by_verdict)
    return import_verdicts(args.file, args.logs, args.design, args.into, args.allow_blank)
