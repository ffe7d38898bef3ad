"""The report reads each log once: summaries kept from loading, full samples only when asked."""

import shutil
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import eval

from heedbench.evals.choice import choice_dataset
from heedbench.evals.choice.task import choice
from heedbench.report.load import load_runs
from heedbench.report.runs import runs_section

N = 4
IDS = [str(sample.id) for sample in choice_dataset(n=N)]


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two shards of one chance run that overlap on one context."""
    folder = tmp_path_factory.mktemp("shards")
    for ids in (IDS[:13], IDS[12:]):
        eval(
            choice(n=N, method="pointwise"), model="heedbench/random", sample_id=ids,
            display="none", log_dir=str(folder),
        )  # fmt: skip
    return folder


def test_summary_tables_need_no_second_read(shards: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(shards, tmp_path / "logs")
    loaded = load_runs([str(copy)])
    shutil.rmtree(copy)  # every log is gone: only what loading kept is left
    rows = loaded.samples("choice")
    assert sorted(rows["id"]) == sorted(IDS) and rows["v_spo"].notna().all()
    with pytest.raises(FileNotFoundError):
        loaded.samples("choice", full=True)


def test_full_samples_give_the_summary_numbers_for_the_counted_samples(shards: Path) -> None:
    loaded = load_runs([str(shards)])
    brief, full = loaded.samples("choice"), loaded.samples("choice", full=True)
    assert len(full) == len(IDS) and full["id"].is_unique  # the overlap counts once
    key = ["eval_id", "id", "epoch"]
    values = sorted(c for c in brief.columns if c.startswith("v_"))
    pd.testing.assert_frame_equal(
        brief.sort_values(key)[key + values].reset_index(drop=True),
        full.sort_values(key)[key + values].reset_index(drop=True),
    )
    assert full["score_metadata"].map(bool).all()
    # built once: asking again reads nothing (the full rows serve the summary ones too)
    assert loaded.samples("choice")["score_metadata"].map(bool).all()


def test_a_damaged_log_is_named_and_the_others_are_read(shards: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(shards, tmp_path / "logs")
    first = sorted(copy.glob("*.eval"))[0]
    damaged = copy / "damaged.eval"
    damaged.write_bytes(first.read_bytes()[: first.stat().st_size // 2])
    loaded = load_runs([str(copy)])
    assert [log for log, _ in loaded.unreadable] == [str(damaged)]
    assert len(loaded.used) == 2
    [coverage] = loaded.coverage.values()
    assert coverage.count("scored") == len(IDS)
    summary = "\n".join(runs_section(loaded, all_runs=False).summary)
    assert f"skipped (unreadable): {damaged}" in summary and "1 unreadable" in summary
