"""The grader tables: each judge-check run against the gates, with intervals and verdicts.

Statistics are recomputed from the units kept in each case's score metadata (epochs of a case
merged), so shard logs of one check combine exactly as the samples of any other run do, and
the intervals are the run's own (same seed). Where the data folder a check used holds second
labellings (`labels/`), the labeller–labeller agreement is shown beside the graders: the
ceiling they are compared with.
"""

import json
import math
from pathlib import Path

from heedbench.evals.judge_check.errors import JudgeCheckDataError
from heedbench.evals.judge_check.labels import FILES as LABELLED_PARTS
from heedbench.paths import shipped_data_dir
from heedbench.report.document import Section, Table, short_model
from heedbench.report.load import Loaded
from heedbench.scorers.judge_check.cases import Case, cases_from
from heedbench.scorers.judge_check.ceiling import Agreement, labeller_agreement
from heedbench.scorers.judge_check.summary import Statistic, Summary, by_category, summarise
from heedbench.scorers.judge_check.thresholds import BINARY_PARTS, NOT_MEASURED_HINT, PREFIX

FAMILIES = ("carryon_judge_check", "prefdisco_judge_check")
VERDICT_TEXT = {
    "pass": "pass ✓",
    "fail": "fail ✗",
    "undecided": "undecided — more cases needed",
    "not measured": "not measured",
}
GATE_COLUMNS = [
    "check", "grader", "settings", "cases", "statistic", "value", "95 % interval", "gate",
    "verdict",
]  # fmt: skip
CATEGORY_COLUMNS = [
    "check", "grader", "part", "category", "units", "accuracy / exact", "κ / QWK", "bias",
]  # fmt: skip
CATEGORY_STATISTICS = {
    True: ("accuracy", "kappa", "bias"),
    False: ("exact", "qwk", "bias"),
}
"""Per-category columns for yes/no parts (True) and 1-5 parts (False)."""


def _number(value: float, signed: bool = False) -> str:
    if math.isnan(value):
        return "—"
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def _interval(statistic: Statistic) -> str:
    if math.isnan(statistic.low):
        return "—"
    signed = statistic.name.endswith("bias")
    return f"[{_number(statistic.low, signed)}, {_number(statistic.high, signed)}]"


def _with_interval(statistic: Statistic | None) -> str:
    if statistic is None or math.isnan(statistic.value):
        return "—"
    value = _number(statistic.value, statistic.name.endswith("bias"))
    return f"{value} {_interval(statistic)}"


def _hint(statistic: Statistic) -> str:
    suffix = statistic.name.removeprefix(PREFIX[statistic.part] + "_")
    return NOT_MEASURED_HINT.get(suffix, "")


def _verdict(statistic: Statistic) -> str:
    text = VERDICT_TEXT[statistic.verdict or "not measured"]
    if statistic.verdict == "not measured" and _hint(statistic):
        text += f" ({_hint(statistic)})"
    return text


def _named(summary: Summary, name: str) -> str:
    """A failed gate's name; for the unjudged share, with how much and the commonest reason."""
    statistic = summary.get(name)
    if statistic is None or not name.endswith("_unjudged"):
        return name
    reason = summary.unjudged_reason.get(statistic.part, "")
    return f"{name} ({statistic.value:.0%} of verdicts unreadable: {reason})"


def overall(summary: Summary) -> str:
    """One line on a run: what failed, what the data could not decide, what was not measured.

    It says "meets every threshold" only when every gate was measured and passed; otherwise
    at best "meets every measured threshold" and names what was not measured.
    """
    failed = [s.name for s in summary.verdicts("fail")]
    undecided = [s.name for s in summary.verdicts("undecided")]
    missing = summary.verdicts("not measured")
    unmeasured = "; ".join(
        f"{name} not measured" + (f" ({hint})" if hint else "")
        for name, hint in dict.fromkeys(
            (s.name.removeprefix(PREFIX[s.part] + "_"), _hint(s)) for s in missing
        )
    )
    if failed:
        line = "fails " + ", ".join(_named(summary, name) for name in failed)
    elif undecided:
        line = "fails no gate"
    elif missing:
        line = "meets every measured threshold"
    else:
        return "meets every threshold"
    if undecided:
        line += "; undecided — more cases needed: " + ", ".join(undecided)
    return line + (f"; {unmeasured}" if unmeasured else "")


def _runs(loaded: Loaded, family: str) -> list[tuple[str, str, str, list[Case]]]:
    if not loaded.runs(family):
        return []
    rows = loaded.samples(family, full=True)
    found = []
    for (model, args), group in rows.groupby(["model", "run_args"], sort=True):
        entries = zip(group["id"], group["score_metadata"], strict=True)
        found.append((family, str(model), str(args), cases_from(entries)))
    return found


def _folder(run_args: str) -> Path:
    data = json.loads(run_args).get("data")
    return shipped_data_dir("judge_check") if data in (None, "") else Path(str(data))


def _ceilings(
    folders: dict[Path, set[str]],
) -> tuple[list[tuple[Path, Agreement]], list[str]]:
    """Labeller agreement in each data folder, for the parts the runs on it judged."""
    found, problems = [], []
    for folder, parts in folders.items():
        try:
            agreements = labeller_agreement(folder)
        except (JudgeCheckDataError, FileNotFoundError) as problem:
            problems.append(f"labeller agreement for {folder} not shown: {problem}")
            continue
        found += [(folder, a) for a in agreements if LABELLED_PARTS[a.stem] in parts]
    return found, problems


def _gate_rows(who: list[str], summary: Summary) -> list[list[str]]:
    return [
        [
            *who,
            s.name,
            _number(s.value, s.name.endswith("bias")),
            _interval(s),
            s.gate.describe() if s.gate else "",
            _verdict(s),
        ]
        for s in summary.gated()
    ]


def _category_rows(who: list[str], summaries: dict[tuple[str, str], Summary]) -> list[list[str]]:
    rows = []
    for (part, category), summary in summaries.items():
        names = CATEGORY_STATISTICS[part in BINARY_PARTS]
        units = summary.counts.get(f"{PREFIX[part]}_units", 0.0)
        rows.append(
            [
                *who,
                PREFIX[part],
                category,
                str(int(units)),
                *(_with_interval(summary.get(f"{PREFIX[part]}_{name}")) for name in names),
            ]
        )
    return rows


def judge_check_section(loaded: Loaded) -> Section | None:
    """The grader tables, or None when no judge-check run was found."""
    gates = Table(
        caption="Graders against the gold cases: every gate with its 95 % interval "
        "(bootstrap over gold records) and verdict",
        columns=GATE_COLUMNS,
        rows=[],
        note="Pass: the whole interval clears the gate; fail: the whole interval is on the "
        "wrong side; undecided: the interval straddles it, more cases are needed. "
        "Labeller rows are two labellings of the same cases compared the same way: the "
        "ceiling a grader is measured against. docs/graders.md says where each gate comes "
        "from.",
    )
    categories = Table(
        caption="Graders per category (safety category or PrefDisco source): agreement, "
        "κ (QWK for 1-5 ratings) and bias, with 95 % intervals",
        columns=CATEGORY_COLUMNS,
        rows=[],
    )
    summary: list[str] = []
    runs = [run for family in FAMILIES for run in _runs(loaded, family)]
    for family, model, args, cases in runs:
        coverage = loaded.coverage_of(model, args, family)
        check = family.removesuffix("_judge_check")
        stats = summarise(cases)
        who = [check, short_model(model), coverage.settings, coverage.describe()]
        gates.rows += _gate_rows(who, stats)
        categories.rows += _category_rows([check, short_model(model)], by_category(cases))
        summary.append(f"{family} {short_model(model)}: {overall(stats)}")
    if not runs:
        return None
    folders: dict[Path, set[str]] = {}
    for _, _, args, cases in runs:
        folders.setdefault(_folder(args), set()).update(case.part for case in cases)
    ceilings, problems = _ceilings(folders)
    for folder, agreement in ceilings:
        labellers = f"labellers: {agreement.first} vs {agreement.second}"
        who = [agreement.stem, labellers, str(folder), f"{agreement.cases} cases"]
        gates.rows += _gate_rows(who, agreement.summary)
        categories.rows += _category_rows([agreement.stem, labellers], agreement.categories)
    summary += problems
    return Section(
        title="Graders — is this grader good enough?",
        intro="Each judge-check run (`heedbench/carryon_judge_check`, "
        "`heedbench/prefdisco_judge_check`) judged fixed cases with gold labels, as the "
        "benchmark's grader would.",
        tables=[gates, categories],
        summary=summary,
    )
