"""The inventory section: which logs were used, and which were left out and why."""

from heedbench.report.document import Section, Table
from heedbench.report.load import Loaded, Run


def _row(run: Run, why: str) -> list[str]:
    return [
        run.task,
        run.model,
        run.settings(),
        run.created.strftime("%Y-%m-%d %H:%M:%S"),
        why,
        run.log.rsplit("/", 1)[-1],
    ]


def runs_section(loaded: Loaded, all_runs: bool) -> Section:
    """Every log found, with how the report treated it."""
    table = Table(
        caption="Logs read",
        columns=["task", "model", "parameters", "created", "used?", "log"],
        rows=[],
    )
    for run in loaded.used:
        roles = ", ".join(f"{role}={model}" for role, model in sorted(run.model_roles.items()))
        table.rows.append(_row(run, "used" + (f" (roles: {roles})" if roles else "")))
    for run in loaded.superseded:
        table.rows.append(_row(run, "no: a newer successful run with the same parameters"))
    for run in loaded.failed:
        reason = f"no: run {run.status}" + (f" ({run.error.splitlines()[0]})" if run.error else "")
        table.rows.append(_row(run, reason))
    for run in loaded.foreign:
        table.rows.append(_row(run, "no: not a heedbench task"))
    for log, error in loaded.unreadable:
        table.rows.append(["?", "?", "?", "?", f"no: unreadable ({error})", log])
    policy = (
        "all successful runs of a task × model × parameters are pooled"
        if all_runs
        else "only the newest successful run of each task × model × parameters is used "
        "(`--all-runs` pools them all)"
    )
    section = Section(title="Runs", intro=f"{policy.capitalize()}.", tables=[table])
    section.summary.append(
        f"logs: {len(loaded.used)} used, {len(loaded.superseded)} superseded, "
        f"{len(loaded.failed)} failed or cancelled, {len(loaded.foreign)} from other suites, "
        f"{len(loaded.unreadable)} unreadable"
    )
    for run in loaded.failed:
        section.summary.append(
            f"  excluded: {run.task} {run.model} — run {run.status} ({run.log.rsplit('/', 1)[-1]})"
        )
    for run in loaded.foreign:
        section.summary.append(
            f"  skipped (not heedbench): {run.task} ({run.log.rsplit('/', 1)[-1]})"
        )
    for log, _ in loaded.unreadable:
        section.summary.append(f"  skipped (unreadable): {log}")
    return section
