"""The guide's several-machines recipe, run as written against a local S3 server.

Two `inspect eval` processes (the two machines) write their halves of one `choice` run to one
bucket; `heedbench report` reads the bucket and finds one complete run with the numbers of an
unsharded run; the Flow shard spec does the same with an `s3://` log folder (its resumption
is in test_failures.py). The
evals run as processes of their own; the report command runs in this process (saving a
process start), with the same arguments and the same environment.
"""

import os
from pathlib import Path

import pytest
from inspect_ai import eval

from heedbench.evals.choice.task import choice
from heedbench.report.cli import main as heedbench
from heedbench.report.load import load_runs
from tests.s3.s3rver import S3rver
from tests.s3.storage import (
    DOC_BUCKET,
    DOC_MODEL,
    ROOT,
    Bucket,
    commands,
    environment,
    exported,
    finish,
    guide_blocks,
    run,
    start,
)

pytestmark = pytest.mark.s3
CHANCE = "heedbench/random"


def report(command: list[str], cwd: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The guide's `heedbench report` command, run in this process (its environment points at
    the server, as the command's would); its terminal summary."""
    assert command[:2] == ["heedbench", "report"]
    capsys.readouterr()
    here = Path.cwd()
    os.chdir(cwd)
    try:
        assert heedbench(command[1:]) == 0
    finally:
        os.chdir(here)
    return capsys.readouterr().out


def spo_by_context(path: str) -> dict[str, float]:
    rows = load_runs([path]).samples("choice")
    return dict(zip(rows["id"], rows["v_spo"], strict=True))


@pytest.fixture(scope="module")
def unsharded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, float]:
    """SPO per context of the whole run, on local disk (chance answers depend on the prompt)."""
    folder = tmp_path_factory.mktemp("unsharded")
    eval(choice(method="pointwise"), model=CHANCE, display="none", log_dir=str(folder))
    return spo_by_context(str(folder))


def test_the_guide_exports_what_the_tests_set(bucket: Bucket) -> None:
    first, _ = guide_blocks()
    assert exported(first) == {"AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}
    assert exported(first) <= set(bucket.server.env)


def test_two_machines_write_one_bucket_and_the_report_reads_one_run(
    any_bucket: Bucket,
    tmp_path: Path,
    unsharded: dict[str, float],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """On moto's server and on s3rver, whose answer to a suffix range request is the object's
    first bytes: there the report reads each log (over 64 KiB) as a whole object, and says so."""
    bucket = any_bucket
    first, _ = guide_blocks()
    machine_1, machine_2, checking, reporting, _ = commands(
        first, {DOC_MODEL: CHANCE, DOC_BUCKET: bucket.name}
    )
    env = environment(bucket.server)
    env.pop("AWS_DEFAULT_REGION")  # the guide sets none; s3fs needs none for an endpoint
    one, two = start(machine_1, env, tmp_path), start(machine_2, env, tmp_path)
    finish(one), finish(two)
    assert len(bucket.logs("choice-2x")) == 2
    capsys.readouterr()
    assert heedbench(checking[1:]) == 0
    assert capsys.readouterr().out.strip() == "2 logs, all finished runs"

    summary = report(reporting, tmp_path, capsys)
    assert f"{CHANCE} [method=pointwise]: 23/23 scored" in summary
    assert "logs: 2 used, 0 superseded, 0 failed" in summary
    whole = "2 read as whole objects (the store answered range requests wrongly)"
    assert (whole in summary) == isinstance(bucket.server, S3rver), summary
    assert (tmp_path / "report" / "report.md").is_file()
    # the shards hold exactly the unsharded run's samples, each once, with its numbers
    assert spo_by_context(bucket.url("choice-2x")) == pytest.approx(unsharded)


def test_the_flow_shard_spec_writes_to_the_bucket(
    bucket: Bucket, tmp_path: Path, unsharded: dict[str, float], capsys: pytest.CaptureFixture[str]
) -> None:
    _, second = guide_blocks()
    shard_0, shard_1, checking, reporting = commands(
        second, {DOC_MODEL: CHANCE, DOC_BUCKET: bucket.name}
    )
    env = environment(bucket.server)
    run(shard_0, env, ROOT)
    loaded = load_runs([bucket.url("choice-flow")])
    [coverage] = loaded.coverage.values()
    assert coverage.count("scored") == 12 and len(coverage.missing_ids) == 11

    run(shard_1, env, ROOT)
    logs = bucket.logs("choice-flow")
    assert [log.split("/")[-2] for log in logs] == ["shard-0-of-2", "shard-1-of-2"]
    assert heedbench(checking[1:]) == 0
    summary = report(reporting, tmp_path, capsys)
    assert f"{CHANCE} [method=pointwise]: 23/23 scored" in summary
    assert spo_by_context(bucket.url("choice-flow")) == pytest.approx(unsharded)
