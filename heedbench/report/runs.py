"""The inventory section: each run group's coverage, and every log with how it was used."""

from heedbench.report.document import Section, Table, short_model
from heedbench.report.load import Coverage, Loaded, Run

MISSING_SHOWN = 8
"""Missing sample ids listed per run group (the count is always given)."""


def _row(run: Run, why: str) -> list[str]:
    return [
        run.task,
        run.model,
        run.settings(),
        run.created.strftime("%Y-%m-%d %H:%M:%S"),
        why,
        run.log.rsplit("/", 1)[-1],
    ]


def _missing(coverage: Coverage) -> str:
    if not coverage.missing:
        return ""
    if not coverage.missing_ids:
        return f"{coverage.missing} (ids not recorded)"
    shown = ", ".join(coverage.missing_ids[:MISSING_SHOWN])
    more = len(coverage.missing_ids) - MISSING_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def coverage_table(loaded: Loaded) -> Table:
    """One row per run group: how much of its dataset its logs hold, and in what state."""
    table = Table(
        caption="Runs (a run group is one task × model × parameters; its logs combine)",
        columns=[
            "task", "model", "parameters", "logs", "dataset", "scored", "unscored",
            "errored", "missing", "counted once",
        ],
        rows=[],
        note="dataset = samples × epochs; scored + unscored + errored + missing = dataset. A "
        "sample held by several logs counts once, from the newest log that completed it.",
    )  # fmt: skip
    for (family, _, _), coverage in sorted(loaded.coverage.items()):
        table.rows.append(
            [
                family,
                short_model(coverage.model),
                coverage.settings,
                str(coverage.logs),
                str(coverage.dataset_size),
                str(coverage.count("scored")),
                str(coverage.count("unscored")),
                str(coverage.count("errored")),
                _missing(coverage) or "0",
                str(len(coverage.duplicates)),
            ]
        )
    return table


def runs_section(loaded: Loaded, all_runs: bool) -> Section:
    """Every run group and every log found, with how the report treated them."""
    table = Table(
        caption="Logs read",
        columns=["task", "model", "parameters", "created", "used?", "log"],
        rows=[],
    )
    for run in loaded.used:
        roles = ", ".join(f"{role}={model}" for role, model in sorted(run.model_roles.items()))
        counted = "" if run.counts is None else f" ({len(run.counts)} samples)"
        whole = " (read as a whole object)" if run.log in loaded.read_whole else ""
        smoke = " (smoke: its numbers mean nothing)" if run.smoke_roles else ""
        table.rows.append(
            _row(run, f"used{counted}{whole}{smoke}" + (f" (roles: {roles})" if roles else ""))
        )
    not_used: list[tuple[Run, str, str | None]] = [
        (run, "no: newer logs of the same run hold all its samples", None)
        for run in loaded.superseded
    ]
    for run in loaded.failed:
        error = f" ({run.error.splitlines()[0]})" if run.error else ""
        line = f"excluded: {run.task} {run.model} — run {run.status}"
        not_used.append((run, f"no: run {run.status}{error}", line))
    not_used += [
        (run, f"no, left out: {why}", f"left out: {run.task} {run.model} — {why}")
        for run, why in loaded.left_out
    ]
    not_used += [
        (run, "no: not a heedbench task", f"skipped (not heedbench): {run.task}")
        for run in loaded.foreign
    ]
    table.rows += [_row(run, why) for run, why, _ in not_used]
    policy = (
        "all successful logs of a task × model × parameters are pooled, samples and all"
        if all_runs
        else "within a task × model × parameters, each sample counts once, from the newest "
        "successful log that completed it: shards combine, re-runs replace "
        "(`--all-runs` pools every log instead)"
    )
    section = Section(
        title="Runs",
        intro=f"{policy[0].upper()}{policy[1:]}.",
        tables=[coverage_table(loaded), table],
    )
    section.summary.append(
        f"logs: {len(loaded.used)} used, {len(loaded.superseded)} superseded, "
        f"{len(loaded.failed)} failed or cancelled, {len(loaded.left_out)} left out, "
        f"{len(loaded.foreign)} from other suites, "
        f"{len(loaded.unreadable)} unreadable"
        + (
            f"; {len(loaded.read_whole)} read as whole objects (the store answered range "
            "requests wrongly)"
            if loaded.read_whole
            else ""
        )
    )
    for (family, _, _), coverage in sorted(loaded.coverage.items()):
        section.summary.append(
            f"  {family} {short_model(coverage.model)} [{coverage.settings}]: {coverage.describe()}"
        )
        if coverage.missing_ids:
            section.summary.append(f"    missing: {_missing(coverage)}")
    section.summary += [
        f"  {line} ({run.log.rsplit('/', 1)[-1]})" for run, _, line in not_used if line
    ]
    for log, _ in loaded.unreadable:
        section.summary.append(f"  skipped (unreadable): {log}")
    return section
