"""Run identity per sample: shards combine into one run, overlaps count once, gaps are listed."""

import shutil
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from heedbench.evals.choice import choice_dataset
from heedbench.evals.choice.task import choice
from heedbench.report.load import Loaded, load_runs
from heedbench.report.runs import runs_section
from heedbench.testing import choice_oracle, scripted_model, user_ranks

N = 4
IDS = [str(sample.id) for sample in choice_dataset(n=N)]


def _run(
    log_dir: Path,
    sample_id: list[str] | None = None,
    noise: float = 0.3,
    limit: tuple[int, int] | None = None,
) -> EvalLog:
    model = scripted_model(choice_oracle(user_ranks(N), noise=noise), "noisy")
    return eval(
        choice(n=N, method="pointwise"),
        model=model,
        sample_id=sample_id,
        limit=limit,
        display="none",
        log_dir=str(log_dir),
    )[0]


def _spo(loaded: Loaded) -> tuple[float, int]:
    rows = loaded.samples("choice")
    return float(rows["v_spo"].mean()), len(rows)


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("whole")
    _run(folder)
    return folder


def test_two_shards_are_one_run_with_the_unsharded_metrics(whole: Path, tmp_path: Path) -> None:
    _run(tmp_path, IDS[:12])
    _run(tmp_path, IDS[12:])
    sharded, unsharded = load_runs([str(tmp_path)]), load_runs([str(whole)])
    assert len(sharded.used) == 2 and not sharded.superseded
    [coverage] = sharded.coverage.values()
    assert coverage.count("scored") == 23 and coverage.missing == 0 and not coverage.duplicates
    assert coverage.logs == 2
    assert _spo(sharded) == pytest.approx(_spo(unsharded))
    assert _spo(sharded)[1] == 23


def test_limit_ranges_shard_a_run_like_sample_ids(whole: Path, tmp_path: Path) -> None:
    # `--limit 1-12` and `--limit 13-23` (Inspect's ranges are 1-based and inclusive)
    _run(tmp_path, limit=(0, 12))
    partial = load_runs([str(tmp_path)])
    [coverage] = partial.coverage.values()
    assert coverage.count("scored") == 12 and sorted(coverage.missing_ids) == sorted(IDS[12:])
    _run(tmp_path, limit=(12, 23))
    sharded = load_runs([str(tmp_path)])
    [coverage] = sharded.coverage.values()
    assert coverage.count("scored") == 23 and coverage.missing == 0 and not coverage.duplicates
    assert _spo(sharded) == pytest.approx(_spo(load_runs([str(whole)])))


def test_a_sample_in_two_logs_counts_once_from_the_newest(tmp_path: Path) -> None:
    _run(tmp_path, IDS[:13], noise=0.0)  # the first shard's copy of IDS[12] is exact
    _run(tmp_path, IDS[12:], noise=0.9)  # the newer shard re-runs IDS[12] badly
    loaded = load_runs([str(tmp_path)])
    [coverage] = loaded.coverage.values()
    assert coverage.duplicates == {(IDS[12], 1): 1}
    rows = loaded.samples("choice")
    assert len(rows) == 23 and rows["id"].tolist().count(IDS[12]) == 1
    newest = max(loaded.used, key=lambda run: run.order)
    assert newest.counts is not None and (IDS[12], 1) in newest.counts
    summary = "\n".join(runs_section(loaded, all_runs=False).summary)
    assert "23/23 scored" in summary and "1 held by several logs, counted once" in summary


def test_samples_no_log_holds_are_listed_as_missing(tmp_path: Path) -> None:
    _run(tmp_path, IDS[:10])
    _run(tmp_path, IDS[11:20])
    loaded = load_runs([str(tmp_path)])
    [coverage] = loaded.coverage.values()
    assert coverage.missing == 4
    assert coverage.missing_ids == [IDS[10], *IDS[20:]]
    summary = "\n".join(runs_section(loaded, all_runs=False).summary)
    assert "19/23 scored, 4 missing" in summary and IDS[10] in summary


def test_a_full_rerun_supersedes_the_older_log(whole: Path, tmp_path: Path) -> None:
    shutil.copytree(whole, tmp_path, dirs_exist_ok=True)
    _run(tmp_path)
    loaded = load_runs([str(tmp_path)])
    assert len(loaded.used) == 1 and len(loaded.superseded) == 1
    assert loaded.used[0].order > loaded.superseded[0].order


def test_errored_samples_are_counted_against_the_dataset(tmp_path: Path) -> None:
    ranks = user_ranks(N)
    answer = choice_oracle(ranks)
    doomed = {str(s.metadata["context"]) for s in choice_dataset(n=N) if s.id in IDS[:5]}  # type: ignore[index]

    def reply(prompt: str) -> str:
        if any(context in prompt for context in doomed):
            raise RuntimeError("provider exploded")
        return answer(prompt)

    eval(
        choice(n=N, method="pointwise"),
        model=scripted_model(reply, "fragile"),
        fail_on_error=False,
        display="none",
        log_dir=str(tmp_path),
    )
    loaded = load_runs([str(tmp_path)])
    [coverage] = loaded.coverage.values()
    assert (coverage.count("scored"), coverage.count("errored")) == (18, 5)
    summary = "\n".join(runs_section(loaded, all_runs=False).summary)
    assert "18/23 scored, 5 errored" in summary


def test_check_logs_names_every_log_that_is_not_a_finished_run(
    whole: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a shard script runs last: exit 1 for a started log (a shard whose store was away
    too long), a log short of the samples its header counts, and a damaged file; 0 otherwise."""
    from inspect_ai.log import read_eval_log, write_eval_log

    from heedbench.report.cli import main

    folder = Path(shutil.copytree(whole, tmp_path / "logs"))
    assert main(["check-logs", str(folder)]) == 0
    assert capsys.readouterr().out.strip() == "1 logs, all finished runs"

    [done] = folder.glob("*.eval")
    log = read_eval_log(str(done))
    assert log.samples is not None

    def copy(name: str, keep: slice, task: str = "", **update: object) -> None:  # its own ids
        ids = {"eval_id": name, "run_id": name, "task_id": task or name}
        spec = log.eval.model_copy(update=ids)
        samples = [s.model_copy(update={"uuid": f"{s.uuid}-{name}"}) for s in log.samples or []]
        changed = {"eval": spec, "samples": samples[keep], **update}
        write_eval_log(log.model_copy(update=changed), folder / f"{name}.eval")

    copy("a", slice(3), status="started", results=None)
    copy("b", slice(1, None))
    (folder / "c.eval").write_bytes(done.read_bytes()[:500])
    # an interrupted log of the finished run's own task: what eval-retry leaves beside its log
    copy("d", slice(2), task=log.eval.task_id, status="started", results=None)
    assert main(["check-logs", str(folder)]) == 1
    out, err = capsys.readouterr()
    assert out.strip() == (
        f"heedbench check-logs: {folder / 'd.eval'}: run started, not finished; finished by {done}"
    )
    lines = err.splitlines()
    assert lines[0] == f"heedbench check-logs: {folder / 'a.eval'}: run started, not finished"
    assert (
        lines[1] == f"heedbench check-logs: {folder / 'b.eval'}: holds 22 of the 23 samples it ran"
    )
    assert lines[2].startswith(f"heedbench check-logs: {folder / 'c.eval'}: unreadable (")
    assert lines[3] == "3 of 5 logs are not finished runs"
