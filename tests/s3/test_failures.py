"""Failures on the way to the bucket: a shard killed with its store away, a store outage,
an interrupted Flow shard run again.

The evaluated model is a local OpenAI-compatible stub answering `choice` prompts at chance
(`tests.stub_server`), except that every query of one context is held until the test
releases it: the shard's other samples finish and Inspect flushes them to the bucket, while
the held one keeps the run from ending. The store
is a server of the test's own whose writes survive a restart, as a real store's do.
"""

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries

from heedbench.evals.choice import choice_dataset
from heedbench.report.cli import main as heedbench
from heedbench.report.load import load_runs
from tests.s3.moto_server import start_s3_server
from tests.s3.storage import (
    DOC_BUCKET,
    DOC_MODEL,
    ROOT,
    Bucket,
    commands,
    environment,
    finish,
    guide_blocks,
    point_at,
    run,
    start,
)
from tests.stub_server import StubServer, choice_reply, start_stub_server

pytestmark = pytest.mark.s3
MODEL = "openai-api/stub/target"
CONTEXTS = [str(sample.id) for sample in choice_dataset()]
SHARD = CONTEXTS[:12]  # `--limit 1-12`
HELD = SHARD[-1]
QUERIES = 40
"""Pointwise queries per context (one per object)."""
OTHERS = (len(SHARD) - 1) * QUERIES
"""Queries of the shard's contexts that are not held."""
WAIT = 300.0


class Stub:
    """The stub server, and the gate that holds every query of the held context."""

    def __init__(self, held_id: str = HELD) -> None:
        self.gate = threading.Event()
        held = next(s for s in choice_dataset() if s.id == held_id).metadata
        assert held is not None
        context = str(held["context"])

        def reply(prompt: str) -> str:
            if context in prompt:
                self.gate.wait(timeout=WAIT)
            return choice_reply(prompt)

        self.server: StubServer
        self.server, self.url = start_stub_server(latency=0.0, responder=reply)

    @property
    def requests(self) -> int:
        """Requests answered so far."""
        return self.server.stats.snapshot().requests

    def env(self) -> dict[str, str]:
        """What Inspect's `openai-api/stub/...` provider reads."""
        return {"STUB_BASE_URL": self.url, "STUB_API_KEY": "stub-key"}


@pytest.fixture
def stub() -> Iterator[Stub]:
    stub = Stub()
    yield stub
    stub.gate.set()
    stub.server.stop()


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Bucket]:
    """A bucket on a durable server of this test's own; this process points at it."""
    server = start_s3_server(tmp_path / "store", durable=True)
    point_at(server, monkeypatch)
    try:
        yield Bucket.create(server, "heedbench-failures")
    finally:
        server.stop()


def wait_for(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def flushed(bucket: Bucket, prefix: str = "choice-2x") -> int:
    """Samples in the shard's log in the bucket (0 before the first flush, or while a flush
    replaces the object between two of the reader's range requests)."""
    logs = bucket.logs(prefix)
    try:
        return len(read_eval_log_sample_summaries(logs[0])) if logs else 0
    except Exception:  # the object changed under the reader: look again
        return 0


def only_the_held_sample_runs(bucket: Bucket, stub: Stub, prefix: str = "choice-2x") -> None:
    """Wait until every other context is answered and some samples are in the bucket."""
    wait_for(lambda: stub.requests >= OTHERS and flushed(bucket, prefix) > 0)
    time.sleep(1.0)  # a flush under way lands


def shard_and_retry(bucket: Bucket, stopped: str = "") -> tuple[list[str], list[str]]:
    first, _ = guide_blocks()
    replace = {DOC_MODEL: MODEL, DOC_BUCKET: bucket.name}
    if stopped:
        replace["<log of the shard that stopped>.eval"] = stopped.rsplit("/", 1)[-1]
    machine_1, _, _, _, retry = commands(first, replace)
    return machine_1, retry


def test_a_shard_killed_while_its_store_is_away_is_finished_by_eval_retry(
    store: Bucket, stub: Stub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = environment(store.server, stub.env())
    machine_1, _ = shard_and_retry(store)
    shard = start(machine_1, env, tmp_path)
    only_the_held_sample_runs(store, stub)
    assert shard.poll() is None
    store.server.stop()  # the store goes away mid-run ...
    shard.kill()  # ... and the machine dies before it comes back
    shard.wait()
    store.server.start()
    [stopped] = store.logs("choice-2x")
    kept = {(s.id, s.epoch): s for s in read_eval_log_sample_summaries(stopped)}
    assert read_eval_log(stopped, header_only=True).status == "started"
    assert 0 < len(kept) < len(SHARD) and (HELD, 1) not in kept
    capsys.readouterr()  # the guide's shard check names the stopped shard's log
    assert heedbench(["check-logs", store.url("choice-2x")]) == 1
    assert f"{stopped}: run started, not finished" in capsys.readouterr().err

    stub.gate.set()  # the dead process's held queries are answered to nobody
    wait_for(lambda: stub.requests >= OTHERS + QUERIES)
    asked = stub.requests
    _, retry = shard_and_retry(store, stopped)
    run(retry, env, tmp_path)
    # only the samples the stopped log did not hold were run again, each in full
    assert stub.requests - asked == (len(SHARD) - len(kept)) * QUERIES
    [done] = [log for log in store.logs("choice-2x") if log != stopped]
    capsys.readouterr()  # the retry finished the shard: the check passes and says why
    assert heedbench(["check-logs", store.url("choice-2x")]) == 0
    assert f"{stopped}: run started, not finished; finished by {done}" in capsys.readouterr().out
    finished = read_eval_log(done)
    assert finished.status == "success"
    ids = [str(sample.id) for sample in finished.samples or []]
    assert sorted(ids) == sorted(SHARD)  # nothing lost, nothing twice
    for sample in finished.samples or []:
        if (sample.id, sample.epoch) in kept:
            old = kept[(sample.id, sample.epoch)].scores or {}
            assert sample.scores is not None
            assert sample.scores["choice_alignment"].value == old["choice_alignment"].value

    # a half-written copy lands in the bucket too: the report names it and goes on
    fs = store.fs()
    whole = fs.cat(done.removeprefix("s3://"))
    fs.pipe(f"{store.name}/choice-2x/half-written.eval", whole[: len(whole) // 2])
    loaded = load_runs([store.url("choice-2x")])
    [coverage] = loaded.coverage.values()
    assert (coverage.count("scored"), coverage.missing, coverage.duplicates) == (12, 11, {})
    assert [run.log for run in loaded.failed] == [stopped]
    assert [log for log, _ in loaded.unreadable] == [
        f"s3://{store.name}/choice-2x/half-written.eval"
    ]
    capsys.readouterr()
    assert heedbench(["report", store.url("choice-2x"), "-o", str(tmp_path / "report")]) == 0
    summary = capsys.readouterr().out
    assert f"skipped (unreadable): s3://{store.name}/choice-2x/half-written.eval" in summary
    assert "12/23 scored, 11 missing" in summary and "run started" in summary


def test_a_store_outage_during_a_write_is_ridden_out(
    store: Bucket, stub: Stub, tmp_path: Path
) -> None:
    env = environment(store.server, stub.env())
    machine_1, _ = shard_and_retry(store)
    shard = start(machine_1, env, tmp_path)
    only_the_held_sample_runs(store, stub)
    store.server.stop()
    asked = stub.requests
    stub.gate.set()  # the last sample finishes while the store is away: its writes fail
    wait_for(lambda: stub.requests - asked >= QUERIES)
    time.sleep(2.0)
    assert shard.poll() is None  # still trying to write its log
    store.server.start()
    finish(shard)
    [log] = store.logs("choice-2x")
    finished = read_eval_log(log)
    assert finished.status == "success"
    assert sorted(str(sample.id) for sample in finished.samples or []) == sorted(SHARD)


def test_a_bucket_without_logs_is_one_readable_line(
    bucket: Bucket, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert heedbench(["report", bucket.url("nothing-here"), "-o", str(tmp_path)]) == 1
    error = capsys.readouterr().err.strip()
    assert error.startswith("heedbench report: no Inspect eval logs")
    assert bucket.url("nothing-here") in error and "\n" not in error


def test_an_interrupted_flow_shard_resumes_from_the_bucket(bucket: Bucket, tmp_path: Path) -> None:
    shard_ids = [str(sample.id) for sample in choice_dataset()][0::2]  # shard 0 of 2
    stub = Stub(held_id=shard_ids[-1])
    try:
        _, second = guide_blocks()
        shard_0, _, _, _ = commands(second, {DOC_MODEL: MODEL, DOC_BUCKET: bucket.name})
        env = environment(bucket.server, stub.env())
        prefix = "choice-flow/shard-0-of-2"
        flow = start(shard_0, env, ROOT)
        only_the_held_sample_runs(bucket, stub, prefix)
        flow.kill()
        flow.wait()
        [stopped] = bucket.logs(prefix)
        kept = len(read_eval_log_sample_summaries(stopped))
        assert 0 < kept < len(shard_ids)

        stub.gate.set()
        wait_for(lambda: stub.requests >= OTHERS + QUERIES)
        asked = stub.requests
        run(shard_0, env, ROOT)  # the same command again: the eval set resumes
        assert stub.requests - asked == (len(shard_ids) - kept) * QUERIES
    finally:
        stub.gate.set()
        stub.server.stop()
    loaded = load_runs([bucket.url("choice-flow")])
    [coverage] = loaded.coverage.values()
    assert coverage.count("scored") == len(shard_ids) and coverage.duplicates == {}
    assert sorted(coverage.missing_ids) == sorted(set(CONTEXTS) - set(shard_ids))
