"""The shipped pilot logs (docs/pilot.md): every one opens, and every model in it was relayed."""

import tarfile
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

PILOT = Path(__file__).resolve().parents[1] / "logs" / "pilot"
LOGS = sorted(PILOT.glob("*.eval"))
TASKS = {"carryon", "prefdisco", "choice", "carryon_judge_check", "prefdisco_judge_check"}


def test_the_pilot_ran_every_task() -> None:
    names = {read_eval_log(str(log), header_only=True).eval.task.split("/")[-1] for log in LOGS}
    assert names >= TASKS


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name)
def test_each_pilot_log_opens_and_every_role_was_relayed(log: Path) -> None:
    header = read_eval_log(str(log), header_only=True)
    assert header.status == "success"
    assert header.eval.model == "heedbench/relay"
    roles = header.eval.model_roles or {}
    bound = [
        c for config in roles.values() for c in (config if isinstance(config, list) else [config])
    ]
    assert all(config.model == "heedbench/relay" for config in bound), roles
    needed = {"carryon": {"grader"}, "prefdisco": {"user", "grader"}}.get(
        header.eval.task.split("/")[-1], set()
    )
    assert needed <= set(roles), f"{log.name}: roles {sorted(roles)}"
    assert header.results is not None and header.results.completed_samples > 0


def test_the_relay_transcripts_hold_a_reply_for_every_role_call() -> None:
    # grader2 (the second grader, for agreement) answered copies of the grader calls after
    # the runs, so it may have left some unanswered; every call a run made has its reply
    with tarfile.open(PILOT / "relay.tar.gz") as archive:
        names = [n for n in archive.getnames() if n.endswith(".json") and "/grader2/" not in n]
    requests = {n.replace("/requests/", "/") for n in names if "/requests/" in n}
    replies = {n.replace("/replies/", "/") for n in names if "/replies/" in n}
    assert requests and requests == replies
    folders = {n.split("/")[1] for n in names}
    assert {"target-choice", "target-carryon", "user-carryon", "grader-carryon"} <= folders
