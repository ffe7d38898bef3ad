"""The report's "Correcting for the grader" section: raw and judge-calibrated headlines.

Shown only when label files (`heedbench annotate import-verdicts`) lie beside the logs.
"""

import math
from collections.abc import Sequence

from heedbench.report.calibration import Calibration, calibrate
from heedbench.report.document import MISSING, Section, Table
from heedbench.report.graded_units import graded_samples
from heedbench.report.load import Loaded
from heedbench.report.stats import Estimate, fmt
from heedbench.report.verdict_sample import LabelError, find_label_files, read_label_set


def _interval(estimate: Estimate | None, digits: int = 3) -> str:
    """`value [low, high]`; a zero-width interval is no interval and is not shown as one."""
    if estimate is None or estimate.missing:
        return MISSING
    if estimate.low is None or estimate.high is None or estimate.high - estimate.low <= 0:
        return f"{estimate.value:.{digits}f} (no interval)"
    return f"{estimate.value:.{digits}f} [{estimate.low:.{digits}f}, {estimate.high:.{digits}f}]"


def _bound(value: float) -> str:
    return "∞" if value == math.inf else "−∞" if value == -math.inf else f"{value:.0f}"


def calibration_tables(found: Calibration) -> list[Table]:
    """The estimates, the paired differences and normalized alignment."""
    tables = [
        Table(
            caption="Raw grader means and judge-calibrated estimates (95 % interval counting "
            "the grader's error; labels = labelled samples of that model × condition)",
            columns=[
                "headline",
                "model",
                "condition",
                "grader",
                "raw (mean ± se)",
                "calibrated [95 % CI]",
                "labels",
                "note",
            ],
            rows=[
                [
                    row.headline,
                    row.model,
                    row.condition,
                    row.grader,
                    fmt(row.raw),
                    _interval(row.calibrated),
                    str(row.labels),
                    row.note,
                ]
                for row in found.rows
                if row.labels or row.calibrated is not None or row.note != "no labels"
            ],
            note="Models × conditions without labels are left out; the calibrated number "
            "assumes the labels are the random sample drawn by export-verdicts and the same "
            "grader judged labelled and unlabelled samples.",
        )
    ]
    if found.differences:
        tables.append(
            Table(
                caption="Paired differences between models (calibrated, on shared clusters)",
                columns=[
                    "headline",
                    "condition",
                    "difference",
                    "first − second [95 % CI]",
                    "reading",
                ],
                rows=[
                    [
                        d.headline,
                        d.condition,
                        f"{d.first} − {d.second}",
                        f"{d.value:+.3f}"
                        + ("" if d.high <= d.low else f" [{d.low:+.3f}, {d.high:+.3f}]"),
                        d.reading
                        + (f" ({d.basis})" if d.basis not in ("", "prompt_cluster_paired") else ""),
                    ]
                    for d in found.differences
                ],
            )
        )
    if found.ratios:
        tables.append(
            Table(
                caption="Normalized alignment 100·(D − B)/(O − B) from raw and calibrated "
                "PrefAlign (all samples of each condition; Fieller 95 % interval)",
                columns=["model", "raw", "calibrated [95 % CI]", "note"],
                rows=[
                    [
                        r.model,
                        f"{r.raw * 100:.0f}" if math.isfinite(r.raw) else MISSING,
                        MISSING
                        if math.isnan(r.value)
                        else f"{r.value:.0f} [{_bound(r.low)}, {_bound(r.high)}]",
                        r.note,
                    ]
                    for r in found.ratios
                ],
            )
        )
    return tables


def calibration_section(loaded: Loaded, logs: Sequence[str]) -> Section | None:
    """The section, or None when no label file lies beside the logs."""
    files = find_label_files(logs)
    if not files:
        return None
    label_sets, problems = [], []
    for path in files:
        try:
            label_sets.append(read_label_set(path))
        except LabelError as error:
            problems.append(str(error))
    found = calibrate(graded_samples(loaded), label_sets)
    found.problems = problems + found.problems
    intro = (
        "Each headline below is a mean of the grader's verdicts. People labelled a random "
        "sample of those verdicts (`heedbench annotate export-verdicts` / `import-verdicts`); "
        "the calibrated estimate (CJE, calibrated judge evaluation) maps the grader's verdict "
        "to the human label and widens the interval by the grader's error. Label files: "
        + ", ".join(f"`{path.name}`" for path in files)
        + "."
    )
    if found.problems:
        intro += "\n\n" + "\n".join(f"- {problem}" for problem in found.problems)
    summary = [f"calibration: {problem}" for problem in found.problems]
    for row in found.rows:
        if row.calibrated is not None:
            summary.append(
                f"calibrated {row.headline} {row.model} · {row.condition}: raw "
                f"{row.raw.value:.3f}, calibrated {_interval(row.calibrated)}"
                + (f" — {row.note}" if row.note else "")
            )
    return Section(
        title="Correcting for the grader — judge-calibrated estimates",
        intro=intro,
        tables=[] if found.missing_library else calibration_tables(found),
        summary=summary,
    )
