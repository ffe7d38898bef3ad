"""Provider faults never become numbers: each family against a fault-injecting server.

A stub OpenAI-compatible server on 127.0.0.1 plays every role of a run. The same run is made
once against a clean server and once against one that injects 429s, 500s, hangs, dropped
connections, malformed bodies, empty content, replies without choices and the HTTP 400s that
Inspect turns into ordinary-looking output. Every sample of the faulty run must then be either
scored exactly as in the clean run, or unscored / errored with its reason.
"""

import math
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from benchmarks.fault_mix import HEADLINE, MIX, by_id, compare, family_run, headline, run
from heedbench.evals.choice.task import choice
from tests.stub_server import FaultPlan, StubServer, choice_reply, start_stub_server

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("family", ["carryon", "choice", "prefdisco"])
def test_faults_never_become_scores(family: str, tmp_path: Path) -> None:
    task, responder = family_run(family, tmp_path)
    clean, _ = run(task, responder, None, tmp_path / "clean")
    task, responder = family_run(family, tmp_path)
    faulty, server = run(task, responder, FaultPlan(MIX, seed=7), tmp_path / "faulty")
    tally = compare(clean, faulty)  # raises on any sample scored differently or silently
    injected = server.stats.snapshot().faults
    # The mix really happened, and the run still reports every sample one way or another.
    assert len(injected) >= 4 and sum(injected.values()) >= 10, injected
    assert tally["scored"] + tally["unscored"] + tally["errored"] == len(by_id(clean))
    assert tally["scored"] > 0
    key = HEADLINE[family]
    ids = tally["scored_ids"]
    assert headline(faulty, key, ids) == pytest.approx(headline(clean, key, ids))


@pytest.mark.parametrize("kind", ["context_length", "content_filter", "no_choices", "empty"])
def test_a_failed_target_call_is_never_a_choice_answer(kind: str, tmp_path: Path) -> None:
    # Every call fails the same way: no context may count the failure as the model's ⊥.
    rates = {kind: 1.0}
    log, _ = run(choice(n=3), choice_reply, FaultPlan(rates), tmp_path)
    assert log.samples
    for sample in log.samples:
        if kind in ("no_choices", "empty"):  # a glitch: retried, then the sample errors
            assert sample.error is not None and "after 3 attempts" in sample.error.message
            continue
        assert sample.scores is not None
        score = next(iter(sample.scores.values()))
        assert isinstance(score.value, float) and math.isnan(score.value)
        assert score.reason == "no_response"  # Inspect's ScoreReason; the cause is explained
        assert score.explanation and kind.replace("_", " ").split()[0] in score.explanation


@pytest.fixture
def stub() -> Iterator[tuple[StubServer, str]]:
    server, url = start_stub_server(
        latency=0.02, responder=choice_reply, faults=FaultPlan({"rate_limit": 0.05}, seed=3)
    )
    yield server, url
    server.stop()


def _inspect(*args: str, url: str, cwd: Path) -> subprocess.Popen[str]:
    inspect = Path(sys.executable).parent / "inspect"
    env = {"PATH": str(Path(sys.executable).parent), "STUB_BASE_URL": url, "STUB_API_KEY": "k"}
    return subprocess.Popen(
        [str(inspect), *args, "--display", "none"],
        cwd=cwd, env={**env, "HOME": str(cwd)}, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip


def test_kill_then_eval_retry_reproduces_the_uninterrupted_run(
    tmp_path: Path, stub: tuple[StubServer, str]
) -> None:
    server, url = stub
    args = ["heedbench/choice", "-T", "n=8", "--model", "openai-api/stub/target"]
    whole = _inspect("eval", *args, "--log-dir", "whole", url=url, cwd=tmp_path)
    assert whole.wait(timeout=600) == 0, whole.stdout.read() if whole.stdout else ""
    started = server.stats.snapshot().requests
    cut = _inspect("eval", *args, "--log-dir", "cut", url=url, cwd=tmp_path)
    while server.stats.snapshot().requests < started + 400:  # part of the 23 × 56 queries
        time.sleep(0.05)
        assert cut.poll() is None, "the run finished before it could be interrupted"
    cut.kill()
    cut.wait()
    [partial] = list((tmp_path / "cut").glob("*.eval"))
    assert read_eval_log(str(partial), header_only=True).status != "success"
    retry = _inspect("eval-retry", str(partial), "--log-dir", "cut", url=url, cwd=tmp_path)
    assert retry.wait(timeout=600) == 0, retry.stdout.read() if retry.stdout else ""
    [uninterrupted] = list((tmp_path / "whole").glob("*.eval"))
    done = [p for p in (tmp_path / "cut").glob("*.eval") if p != partial]
    assert len(done) == 1
    first, second = read_eval_log(str(uninterrupted)), read_eval_log(str(done[0]))
    assert second.status == "success"
    assert len(second.samples or []) == len(first.samples or []) == 23
    assert second.results is not None and first.results is not None
    for a, b in zip(first.results.scores, second.results.scores, strict=True):
        for name, metric in a.metrics.items():
            assert b.metrics[name].value == pytest.approx(metric.value, nan_ok=True), name
