"""`heedbench annotate`: agreement by hand, and export → fill → import on a written log."""

import math
import re
import statistics
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log

from heedbench.evals.carryon import load_queries
from heedbench.evals.carryon.task import carryon
from heedbench.report import annotate
from heedbench.report.cli import main
from heedbench.scorers.judge.agreement import (
    cohen_kappa,
    observed_agreement,
    weighted_kappa,
    within_one,
)
from heedbench.solvers.carryon.prompts import MOVE_INSTRUCTIONS
from heedbench.testing import scripted_model
from heedbench.testing_carryon import (
    refuse_then_recover,
    scripted_grader,
    scripted_user,
    write_queries,
)
from tests.report.csv_rows import read_csv, write_csv

YES, NO = "yes", "no"


def test_cohen_kappa_by_hand() -> None:
    first = [YES, YES, YES, NO, NO, YES, YES, NO, YES, YES]
    second = [YES, YES, NO, NO, YES, YES, YES, NO, YES, YES]
    # Agree on 8 of 10. Each says yes 7 times: chance 0.7·0.7 + 0.3·0.3 = 0.58.
    # kappa = (0.8 − 0.58) / (1 − 0.58) = 0.22 / 0.42.
    assert observed_agreement(first, second) == 0.8
    assert cohen_kappa(first, second) == pytest.approx(0.22 / 0.42)
    assert cohen_kappa([YES, NO], [YES, NO]) == 1.0
    assert cohen_kappa([YES, NO], [NO, YES]) == -1.0


def test_kappa_is_undefined_when_chance_agreement_is_certain() -> None:
    assert math.isnan(cohen_kappa([YES, YES], [YES, YES]))  # one label throughout
    assert math.isnan(cohen_kappa([], []))
    with pytest.raises(ValueError, match="same items"):
        cohen_kappa([YES], [])


def test_weighted_kappa_and_within_one_by_hand() -> None:
    first, second = [1, 3, 5], [2, 3, 4]
    # Squared gaps (in category steps) 1, 0, 1: observed 2/3. Expected over all 3 × 3 pairs
    # of the marginals {1, 3, 5} × {2, 3, 4}: gaps² 1 4 9 1 0 1 9 4 1 = 30, so 30/9.
    # kappa_w = 1 − (2/3) / (30/9) = 0.8 (the (k − 1)² weight scale cancels).
    assert weighted_kappa(first, second) == pytest.approx(0.8)
    assert within_one(first, second) == 1.0
    assert observed_agreement(first, second) == pytest.approx(1 / 3)
    assert weighted_kappa([2, 4], [2, 4]) == 1.0
    assert math.isnan(weighted_kappa([3, 3], [3, 3]))  # no spread: undefined
    with pytest.raises(ValueError, match="not among the categories"):
        weighted_kappa([0], [1])


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A written carryon log: four queries, three BC / NC conversations each."""
    folder = tmp_path_factory.mktemp("annotate")
    data = write_queries(folder / "q.jsonl", load_queries()[::50], items=6)
    eval(
        carryon(data=str(data), condition="all", flows_per_query=3),
        model=scripted_model(refuse_then_recover(), "target"),
        model_roles={
            "user": scripted_model(scripted_user, "sim-user"),
            "grader": scripted_model(scripted_grader, "judge"),
        },
        display="none",
        log_dir=str(folder / "logs"),
    )
    return folder / "logs"


def test_export_turns_is_a_seeded_balanced_sample_of_real_user_turns(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "turns.csv"
    assert main(["annotate", "export-turns", str(logs), "-o", str(out), "--n", "8",
                 "--seed", "3"]) == 0  # fmt: skip
    assert "8 simulated-user messages written" in capsys.readouterr().out
    rows = read_csv(out)
    assert len(rows) == 8
    assert list(rows[0]) == [
        "item", "move", "instruction", "intent", "conversation_so_far", "user_message",
        "fidelity", "naturalness", "note", "source",
    ]  # fmt: skip
    assert [r["item"] for r in rows] == [f"t{i:04d}" for i in range(1, 9)]
    assert all(r["fidelity"] == r["naturalness"] == r["note"] == "" for r in rows)
    # Every row is a real follow-up of the log, with the conversation before it.
    (log_file,) = logs.glob("*.eval")
    log = read_eval_log(str(log_file))
    assert log.samples is not None
    by_sample = {str(s.id): s for s in log.samples}
    moves_in_log: set[str] = set()
    for sample in log.samples:
        moves_in_log |= set(sample.metadata["flow"])
    for row in rows:
        name, _, rest = row["source"].partition(":")
        sample_id, _, where = rest.rpartition("@")
        exchange = int(where.split("#")[1])
        sample = by_sample[sample_id]
        turns = sample.scores["carryon_judge"].metadata["turns"]  # type: ignore[index]
        assert name == log_file.name
        assert row["user_message"] == turns[exchange - 1]["user"]
        assert row["move"] == turns[exchange - 1]["move"] == sample.metadata["flow"][exchange - 2]
        assert row["instruction"] == MOVE_INSTRUCTIONS[row["move"]]
        assert row["intent"] == sample.metadata["intent"]
        assert row["conversation_so_far"].startswith(f"[user] {turns[0]['user']}")
        assert row["conversation_so_far"].count("[assistant]") == exchange - 1
    # Spread over the moves (round robin): a move that still had turns to give is never more
    # than one behind another move.
    available = {m: 0 for m in moves_in_log}
    for sample in log.samples:
        for move in sample.metadata["flow"]:
            available[move] += 1
    chosen = {m: sum(r["move"] == m for r in rows) for m in moves_in_log}
    assert len([m for m in chosen if chosen[m]]) >= min(8, len(moves_in_log))
    for move, count in chosen.items():
        if count < available[move]:
            assert all(count >= other - 1 for other in chosen.values()), (chosen, available)
    # Seeded: the same seed writes the same file, another seed another sample.
    again = tmp_path / "again.csv"
    assert main(["annotate", "export-turns", str(logs), "-o", str(again), "--n", "8",
                 "--seed", "3"]) == 0  # fmt: skip
    assert again.read_text() == out.read_text()
    other = tmp_path / "other.csv"
    assert main(["annotate", "export-turns", str(logs), "-o", str(other), "--n", "8",
                 "--seed", "4"]) == 0  # fmt: skip
    assert [r["source"] for r in read_csv(other)] != [r["source"] for r in rows]


def test_filled_turn_files_round_trip_with_agreement(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "turns.csv"
    assert main(["annotate", "export-turns", str(logs), "-o", str(out), "--n", "6"]) == 0
    rows = read_csv(out)
    fidelity_a = [YES, YES, NO, YES, YES, NO]
    fidelity_b = [YES, NO, NO, YES, YES, YES]
    natural_a = [5, 4, 2, 3, 5, 1]
    natural_b = [4, 4, 1, 3, 3, 2]
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    write_csv(first, [r | {"fidelity": f, "naturalness": str(n)}
                  for r, f, n in zip(rows, fidelity_a, natural_a, strict=True)])  # fmt: skip
    # The second annotator's spreadsheet reordered the rows and left one item blank.
    filled_b = [r | {"fidelity": f, "naturalness": str(n)}
                for r, f, n in zip(rows, fidelity_b, natural_b, strict=True)]  # fmt: skip
    filled_b[5] |= {"fidelity": "", "naturalness": ""}
    write_csv(second, filled_b[::-1])
    capsys.readouterr()
    summary = tmp_path / "summary.md"
    assert main(["annotate", "import", str(first), str(second), "-o", str(summary)]) == 0
    printed = capsys.readouterr().out
    assert summary.read_text().strip() == printed.strip()
    text = re.sub(r" {2,}", " ", printed)  # table cells unpadded
    # Per move, each annotator's rating counts once.
    for move in {r["move"] for r in rows}:
        naturals = [n for r, n in zip(rows, natural_a, strict=True) if r["move"] == move]
        naturals += [n for r, n in zip(rows[:5], natural_b, strict=False) if r["move"] == move]
        yes = [f == YES for r, f in zip(rows, fidelity_a, strict=True) if r["move"] == move]
        yes += [f == YES for r, f in zip(rows[:5], fidelity_b, strict=False) if r["move"] == move]
        line = next(x for x in text.splitlines() if x.startswith(f"| {move} |"))
        assert f"{statistics.fmean(naturals):.2f}" in line
        assert f"{sum(yes) / len(yes):.0%} ({sum(yes)}/{len(yes)})" in line
    # Agreement on the five items both rated.
    kappa = cohen_kappa(fidelity_a[:5], fidelity_b[:5])
    assert f"| fidelity | 5 | {observed_agreement(fidelity_a[:5], fidelity_b[:5]):.2f} | " \
           f"{kappa:.2f} |" in text  # fmt: skip
    weighted = weighted_kappa(natural_a[:5], natural_b[:5])
    near = within_one(natural_a[:5], natural_b[:5])
    assert f"| naturalness | 5 | 0.40 | | {near:.2f} | {weighted:.2f} |" in text
    # One file alone: the summary, no agreement.
    capsys.readouterr()
    assert main(["annotate", "import", str(first)]) == 0
    assert "Agreement" not in capsys.readouterr().out


def test_bad_cells_and_foreign_files_are_refused(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "turns.csv"
    assert main(["annotate", "export-turns", str(logs), "-o", str(out), "--n", "2"]) == 0
    rows = read_csv(out)
    write_csv(out, [rows[0] | {"naturalness": "6"}, rows[1]])
    capsys.readouterr()
    assert main(["annotate", "import", str(out)]) == 1
    assert (
        "item t0001, naturalness: expected a whole number 1-5, got '6'" in capsys.readouterr().err
    )
    write_csv(out, [rows[0] | {"fidelity": "maybe"}, rows[1]])
    assert main(["annotate", "import", str(out)]) == 1
    assert "expected yes or no, got 'maybe'" in capsys.readouterr().err
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    assert main(["annotate", "import", str(other)]) == 1
    assert "not a heedbench annotation file" in capsys.readouterr().err
    assert main(["annotate", "export-turns", str(tmp_path / "none"), "-o", str(out)]) == 1


def test_query_review_round_trip_with_agreement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "queries.csv"
    assert main(["annotate", "export-queries", "-o", str(out)]) == 0
    rows = read_csv(out)
    queries = load_queries()
    assert [r["item"] for r in rows] == [q.id for q in queries]
    assert list(rows[0]) == [
        "item", "category", "query", "intent", "checklist",
        "looks_harmful", "intent_fits", "checklist_score", "note",
    ]  # fmt: skip
    first_query = queries[0]
    assert rows[0]["query"] == first_query.query and rows[0]["intent"] == first_query.intent
    lines = rows[0]["checklist"].splitlines()
    assert len(lines) == len(first_query.checklist)
    assert (
        lines[0] == f"1. [{first_query.checklist[0].category}] {first_query.checklist[0].question}"
    )
    assert all(r["looks_harmful"] == r["intent_fits"] == r["checklist_score"] == "" for r in rows)
    # A seeded sample of 10, scored 1-5 by two reviewers.
    sample = tmp_path / "sample.csv"
    assert main(["annotate", "export-queries", "-o", str(sample), "--n", "10", "--seed", "2"]) == 0
    rows = read_csv(sample)
    assert len(rows) == 10
    harmful_a = [5, 5, 4, 4, 4, 4, 4, 4, 3, 2]
    harmful_b = [5, 4, 4, 4, 4, 4, 4, 5, 2, 4]
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    write_csv(first, [r | {"looks_harmful": str(h), "intent_fits": "5", "checklist_score": "4"}
                  for r, h in zip(rows, harmful_a, strict=True)])  # fmt: skip
    write_csv(second, [r | {"looks_harmful": str(h), "intent_fits": "5", "checklist_score": "4",
                        "note": "too mild" if h <= 3 else ""}
                   for r, h in zip(rows, harmful_b, strict=True)])  # fmt: skip
    capsys.readouterr()
    assert main(["annotate", "import", str(first), str(second)]) == 0
    text = re.sub(r" {2,}", " ", capsys.readouterr().out)  # table cells unpadded
    # looks harmful: 3 of 20 scores are 3 or less; mean 3.95, sd 0.826 (squared deviations
    # 12.95 over 19), stderr 0.826 / sqrt(20) = 0.18; intent and checklist never weak.
    assert (
        "| all | 3.95 ± 0.18 (n=20) | 15% (3/20) | 5.00 ± 0.00 (n=20) | 0% (0/20) "
        "| 4.00 ± 0.00 (n=20) | 0% (0/20) |"
    ) in text
    # Agree exactly on 6 of 10, within one on 9 of 10 (3 against 2 is within one, 2 vs 4 not).
    assert "| looks_harmful | 10 | 0.60 | 0.90 |" in text
    assert f"| {rows[8]['item']} | b.csv | looks_harmful | too mild |" in text
    assert f"| {rows[9]['item']} | a.csv | looks_harmful | |" in text


def test_exported_model_text_cannot_run_as_a_spreadsheet_formula(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A simulated user (or the model it quotes) can write anything; opened in a spreadsheet,
    # a cell that starts with "=" would run. The export keeps it as text.
    hostile = annotate.UserTurn(
        source="log.eval:q1@1#2",
        move="clarify",
        intent="benign",
        conversation='[user] hi\n\n[assistant] =HYPERLINK("http://x.example","ok")',
        message='=HYPERLINK("http://x.example","click")',
    )
    monkeypatch.setattr(annotate, "user_turns", lambda logs: [hostile])
    out = tmp_path / "turns.csv"
    assert annotate.export_turns(["logs"], out, n=1, seed=0) == 1
    [row] = read_csv(out)
    assert row["user_message"] == "'" + hostile.message
    assert row["conversation_so_far"] == hostile.conversation  # starts with "[user]": as is
