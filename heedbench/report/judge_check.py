"""The grader table: each judge-check run's agreement with the gold, against our thresholds.

Statistics are recomputed from the units kept in each case's score metadata, so shard logs of
one check combine exactly as the samples of any other run do.
"""

import math
from typing import Any

from heedbench.report.document import Section, Table, short_model
from heedbench.report.load import Loaded, read_samples
from heedbench.scorers.judge_check.scorer import summarise
from heedbench.scorers.judge_check.thresholds import RECOMMENDED, verdict

FAMILIES = ("carryon_judge_check", "prefdisco_judge_check")
SHOWN = (
    "item_accuracy",
    "item_kappa",
    "harm_within_one",
    "harm_qwk",
    "score_within_one",
    "score_qwk",
    "flip_rate",
    "consistency",
    "item_modes_kappa",
    "score_modes_kappa",
)


def _cell(stats: dict[str, float], name: str) -> str:
    value = stats.get(name, math.nan)
    if math.isnan(value):
        return "—"
    mark = {True: " ✓", False: " ✗", None: ""}[verdict(name, value)]
    return f"{value:.2f}{mark}"


def _statistics(loaded: Loaded, family: str) -> list[tuple[Any, dict[str, float]]]:
    runs = loaded.runs(family)
    if not runs:
        return []
    rows = read_samples(runs, score_metadata=True)
    out = []
    for (model, args), group in rows.groupby(["model", "run_args"], sort=True):
        parts: dict[str, list[dict[str, Any]]] = {}
        for metadata in group["score_metadata"]:
            if isinstance(metadata, dict) and "part" in metadata:
                parts.setdefault(str(metadata["part"]), []).extend(metadata.get("units") or [])
        out.append(((family, model, args), summarise(parts) if parts else {}))
    return out


def judge_check_section(loaded: Loaded) -> Section | None:
    """The grader table, or None when no judge-check run was found."""
    table = Table(
        caption="Graders against the gold cases (✓ meets our recommended threshold, ✗ does not)",
        columns=["check", "grader", "settings", "cases", *SHOWN],
        rows=[],
        note="Thresholds: "
        + "; ".join(f"{name} {rule}" for name, (rule, _) in RECOMMENDED.items())
        + ". README, 'Before trusting a grader', says why.",
    )
    summary: list[str] = []
    checks = [item for check in FAMILIES for item in _statistics(loaded, check)]
    for (family, model, args), stats in checks:
        coverage = loaded.coverage_of(model, args, family)
        table.rows.append(
            [
                family.removesuffix("_judge_check"),
                short_model(model),
                coverage.settings,
                coverage.describe(),
                *(_cell(stats, name) for name in SHOWN),
            ]
        )
        failed = [name for name in RECOMMENDED if verdict(name, stats.get(name, math.nan)) is False]
        summary.append(
            f"{family} {short_model(model)}: "
            + ("meets every threshold" if not failed else "below threshold on " + ", ".join(failed))
        )
    if not table.rows:
        return None
    return Section(
        title="Graders — is this grader good enough?",
        intro="Each judge-check run (`heedbench/carryon_judge_check`, "
        "`heedbench/prefdisco_judge_check`) judged fixed cases with gold labels, as the "
        "benchmark's grader would.",
        tables=[table],
        summary=summary,
    )
