"""`heedbench/relay` answered from a script: every role of every task, and replies that come
late, malformed or never (provider errors, never answers)."""

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, Model, get_model

from heedbench.evals.carryon import load_queries
from heedbench.evals.carryon.task import carryon
from heedbench.evals.choice.task import choice
from heedbench.evals.judge_check.task import carryon_judge_check
from heedbench.evals.prefdisco.task import prefdisco
from heedbench.models.chance import chance_reply
from heedbench.models.relay import RelayError, output_of, relay_output, request_of
from heedbench.testing import log_metric
from heedbench.testing_carryon import (
    refuse_then_recover,
    scripted_grader,
    scripted_user,
    write_queries,
)
from tests.judge_check.graders import grader as gold_grader
from tests.judge_check.graders import perfect
from tests.prefdisco.scripted import asks, grader_reply

Answer = Callable[[str], str]


@contextmanager
def answering(folder: Path, answer: Answer, delay: float = 0.0) -> Iterator[list[str]]:
    """A thread that answers every request in `folder` as `answer` would, until the block ends."""
    stop, seen = threading.Event(), []

    def loop() -> None:
        while not stop.is_set():
            for request in sorted((folder / "requests").glob("*.json")):
                reply = folder / "replies" / request.name
                if reply.exists():
                    continue
                body = json.loads(request.read_text(encoding="utf-8"))
                prompt = "\n".join(m["content"] for m in body["messages"])
                seen.append(prompt)
                time.sleep(delay)
                temporary = reply.with_suffix(".tmp")
                temporary.write_text(json.dumps({"text": answer(prompt)}), encoding="utf-8")
                temporary.replace(reply)
            stop.wait(0.05)

    (folder / "requests").mkdir(parents=True, exist_ok=True)
    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        stop.set()
        thread.join()


def relayed(folder: Path, timeout: float = 60) -> Model:
    return get_model("heedbench/relay", folder=str(folder), timeout=timeout, memoize=False)


def test_choice_with_the_evaluated_model_relayed(tmp_path: Path) -> None:
    with answering(tmp_path / "target", chance_reply) as seen:
        [log] = eval(choice(method="pointwise", n=2), model=relayed(tmp_path / "target"),
                     display="none", log_dir=str(tmp_path / "logs"))  # fmt: skip
    assert log.status == "success" and seen and log.samples
    assert log.eval.model == "heedbench/relay"
    assert all(s.scores and not s.error for s in log.samples)


def test_carryon_with_every_role_relayed(tmp_path: Path) -> None:
    data = write_queries(tmp_path / "q.jsonl", load_queries()[:1], items=2)
    folders = {role: tmp_path / role for role in ("target", "user", "grader")}
    with (
        answering(folders["target"], refuse_then_recover()),
        answering(folders["user"], scripted_user),
        answering(folders["grader"], scripted_grader) as graded,
    ):
        [log] = eval(
            carryon(data=str(data), condition="bc", flows_per_query=1, max_followups=1),
            model=relayed(folders["target"]),
            model_roles={"user": relayed(folders["user"]), "grader": relayed(folders["grader"])},
            display="none",
            log_dir=str(tmp_path / "logs"),
        )
    assert log.status == "success" and graded
    roles = log.eval.model_roles or {}
    assert {r: getattr(m, "model", None) for r, m in roles.items()} == {
        "user": "heedbench/relay",
        "grader": "heedbench/relay",
    }
    assert log_metric(log, "bc_last_utility") == log_metric(log, "bc_last_utility")  # not NaN


def test_prefdisco_with_every_role_relayed(tmp_path: Path) -> None:
    folders = {role: tmp_path / role for role in ("target", "user", "grader")}
    with (
        answering(folders["target"], asks(1)),
        answering(
            folders["user"], lambda prompt: json.dumps({"thought": "t", "response": "Short."})
        ),
        answering(folders["grader"], grader_reply),
    ):
        [log] = eval(
            prefdisco(condition="discovery"),
            model=relayed(folders["target"]),
            model_roles={"user": relayed(folders["user"]), "grader": relayed(folders["grader"])},
            limit=1,
            display="none",
            log_dir=str(tmp_path / "logs"),
        )
    assert log.status == "success"
    assert log_metric(log, "prefdisco", "prefalign_discovery") == 3.0


def test_a_judge_check_with_the_grader_relayed(tmp_path: Path) -> None:
    folder = tmp_path / "grader"
    with answering(folder, gold_grader(perfect)):
        [log] = eval(carryon_judge_check(part="harm"), model=relayed(folder), limit=3,
                     display="none", log_dir=str(tmp_path / "logs"))  # fmt: skip
    assert log.status == "success" and log.samples
    assert all(next(iter(s.scores.values())).value == 1.0 for s in log.samples)  # type: ignore[union-attr]


def _call(folder: Path, timeout: float) -> object:
    messages: list[ChatMessage] = [ChatMessageUser(content="Say hi.")]
    return asyncio.run(
        relay_output(
            "heedbench/relay",
            messages,
            [],
            "auto",
            GenerateConfig(),
            folder=folder,
            timeout=timeout,
        )
    )


def test_a_late_reply_within_the_timeout_is_the_answer(tmp_path: Path) -> None:
    with answering(tmp_path, lambda prompt: "hi", delay=1.0):
        output = _call(tmp_path, timeout=10)
    assert output.completion == "hi"  # type: ignore[attr-defined]


def test_a_missing_reply_ends_the_call_as_a_provider_error(tmp_path: Path) -> None:
    with pytest.raises(RelayError, match=r"no reply .* within 1 s"):
        _call(tmp_path, timeout=1)


def test_a_malformed_reply_ends_the_call_as_a_provider_error(tmp_path: Path) -> None:
    body = request_of([ChatMessageUser(content="Say hi.")], [], "auto", GenerateConfig())
    (tmp_path / "replies").mkdir(parents=True)
    (tmp_path / "replies" / f"{body['id']}.json").write_text("{broken", encoding="utf-8")
    with pytest.raises(RelayError, match="not valid JSON"):
        _call(tmp_path, timeout=5)


@pytest.mark.parametrize(
    "reply",
    [{"text": 3}, {"object": "x"}, {"tool_call": {"name": "t"}}, {"text": "a", "object": {}}, []],
)
def test_a_reply_of_no_known_shape_is_a_provider_error(reply: object) -> None:
    with pytest.raises(RelayError):
        output_of("m", {"id": "x", "tool_choice": None}, reply)


def test_each_reply_shape_becomes_its_output() -> None:
    request = {"id": "x", "tool_choice": "submit_verdict"}
    assert output_of("m", request, {"text": "hello"}).completion == "hello"
    assert json.loads(output_of("m", request, {"object": {"a": 1}}).completion) == {"a": 1}
    call = output_of("m", request, {"tool_call": {"arguments": {"a": 1}}}).message.tool_calls
    assert (
        call is not None and call[0].function == "submit_verdict" and call[0].arguments == {"a": 1}
    )


def test_each_sample_and_epoch_gets_its_own_answer_and_a_rerun_finds_it(tmp_path: Path) -> None:
    # Two conversations of a query open with the same call, and epochs repeat every call; a
    # real model samples each anew, so the relay must not hand one reply to all of them.
    folder = tmp_path / "target"
    with answering(folder, chance_reply) as seen:
        [log] = eval(choice(method="listwise", n=2), model=relayed(folder), limit=1, epochs=2,
                     display="none", log_dir=str(tmp_path / "logs"))  # fmt: skip
    assert log.status == "success" and len(seen) == 2  # one request per epoch
    assert len(set(seen)) == 1  # the same prompt both times: only the id tells them apart
    with answering(folder, lambda prompt: "unused") as again:  # a rerun: every reply is there
        [log] = eval(choice(method="listwise", n=2), model=relayed(folder), limit=1, epochs=2,
                     display="none", log_dir=str(tmp_path / "logs"))  # fmt: skip
    assert log.status == "success" and again == []
