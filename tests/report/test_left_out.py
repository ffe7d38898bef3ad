"""Runs the report must not count as measurements, and the one it must read every number against.

Real offline carryon runs: a scripted model, `heedbench/refusal` replaying refusals written
for the test queries (the refusal floor), a run graded by `heedbench/smoke` (left out unless
`--include-smoke`) and a run whose grader never answers in shape (`heedbench.loud` notes it
in the log; left out with that note).
"""

import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import Model, get_model

from heedbench.evals.carryon import load_queries
from heedbench.evals.carryon.task import carryon
from heedbench.loud import WARNING_KEY
from heedbench.report.carryon import FLOOR_NOTE, NO_FLOOR_NOTE
from heedbench.report.carryon_data import FLOOR
from heedbench.report.cli import Options, build_sections, main
from heedbench.report.document import Section, Table
from heedbench.testing import scripted_model
from heedbench.testing_carryon import (
    refuse_then_recover,
    scripted_grader,
    scripted_user,
    write_queries,
)

STYLES = ("terse", "warning", "redirect")


def _run(data: Path, logs: Path, model: Model, grader: Model, condition: str = "full") -> str:
    user = scripted_model(scripted_user, "sim-user")
    [log] = inspect_eval(
        carryon(data=str(data), condition=condition, flows_per_query=1),
        model=model,
        model_roles={"user": user, "grader": grader},
        display="none",
        log_dir=str(logs),
    )
    assert log.status == "success"
    return log.location


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("left-out")
    queries = load_queries()[::50]
    data = write_queries(root / "queries.jsonl", queries)
    refusals = root / "refusals.jsonl"
    records = [
        {"id": q.id, "refusals": [{"style": s, "text": f"I can't help ({s})."} for s in STYLES]}
        for q in queries
    ]
    refusals.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    logs = root / "logs"
    grader = scripted_model(scripted_grader, "judge")
    _run(data, logs, scripted_model(refuse_then_recover(), "recoverer"), grader)
    floor = get_model("heedbench/refusal", refusals=str(refusals), data=str(data))
    _run(data, logs, floor, grader)
    _run(data, logs, scripted_model(refuse_then_recover(), "smoked"), get_model("heedbench/smoke"),
         "turn1")  # fmt: skip
    unread = _run(data, logs, scripted_model(refuse_then_recover(), "unread"),
                  scripted_model(lambda _: "no", "mute-judge"), "oracle")  # fmt: skip
    assert WARNING_KEY in read_eval_log(unread, header_only=True).metadata
    return logs


def _sections(logs: Path, tmp_path: Path, include_smoke: bool = False) -> dict[str, Section]:
    _, sections = build_sections(Options([str(logs)], tmp_path, include_smoke=include_smoke))
    return {section.title.split(" ")[0]: section for section in sections}


def _table(section: Section, starts: str) -> Table:
    [table] = [t for t in section.tables if t.caption.startswith(starts)]
    return table


def test_the_refusal_floor_is_a_row_of_the_condition_and_category_tables(
    logs: Path, tmp_path: Path
) -> None:
    carryon_section = _sections(logs, tmp_path)["carryon"]
    utility = _table(carryon_section, "Ben-Util per model and condition")
    rows = {row[0]: row for row in utility.rows}
    assert list(rows) == ["mockllm/recoverer", FLOOR]  # the floor last, beside the models
    floor = rows[FLOOR]
    assert all(cell[0].isdigit() for cell in floor[2:6]), floor  # turn 1, oracle, BC, NC
    assert float(floor[2].split()[0]) < float(rows["mockllm/recoverer"][4].split()[0]), rows
    assert utility.note == FLOOR_NOTE
    categories = _table(carryon_section, "By safety category")
    floor_categories = [row for row in categories.rows if row[0] == FLOOR]
    assert len(floor_categories) == len({q.category for q in load_queries()[::50]})
    assert categories.note == FLOOR_NOTE
    flags = _table(carryon_section, "Failure modes")
    assert {row[0] for row in flags.rows} == {"mockllm/recoverer"}  # the floor is no model


def test_without_a_refusal_run_the_tables_say_how_to_get_one(logs: Path, tmp_path: Path) -> None:
    headers = {p: read_eval_log(str(p), header_only=True) for p in logs.iterdir()}
    [recoverer] = [path for path, log in headers.items() if "recoverer" in log.eval.model]
    _, sections = build_sections(Options([str(recoverer)], tmp_path))
    [carryon_section] = [s for s in sections if s.title.startswith("carryon")]
    assert _table(carryon_section, "Ben-Util per model").note == NO_FLOOR_NOTE


def test_smoke_runs_are_left_out_unless_asked(logs: Path, tmp_path: Path) -> None:
    by_title = _sections(logs, tmp_path)
    utility = _table(by_title["carryon"], "Ben-Util per model and condition")
    assert "mockllm/smoked" not in {row[0] for row in utility.rows}
    runs = by_title["Runs"]
    [smoked] = [row for table in runs.tables for row in table.rows if "mockllm/smoked" in row]
    assert any("left out: smoke run: heedbench/smoke played the grader" in c for c in smoked)
    assert any("left out: carryon mockllm/smoked" in line for line in runs.summary)
    included = _sections(logs, tmp_path, include_smoke=True)
    utility = _table(included["carryon"], "Ben-Util per model and condition")
    assert "mockllm/smoked" in {row[0] for row in utility.rows}


def test_a_run_that_scored_too_few_samples_is_left_out_with_its_note(
    logs: Path, tmp_path: Path
) -> None:
    by_title = _sections(logs, tmp_path, include_smoke=True)
    utility = _table(by_title["carryon"], "Ben-Util per model and condition")
    assert "mockllm/unread" not in {row[0] for row in utility.rows}
    [line] = [line for line in by_title["Runs"].summary if "mockllm/unread" in line]
    assert "left out" in line and "only 0 of" in line and "samples were scored" in line


def test_include_smoke_is_an_option_of_the_command(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(logs), "-o", str(tmp_path / "out"), "--include-smoke"]) == 0
    assert "mockllm/smoked" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["report", str(logs), "-o", str(tmp_path / "out2"), "--repetition", "7"]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("heedbench report --repetition:") and "0 to 1" in line
