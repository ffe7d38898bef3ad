"""Local S3-compatible servers for the tests under tests/s3, a bucket per test.

moto's server application (`tests.s3.moto_server`, in a process of its own) serves every test;
s3rver (`tests.s3.s3rver`, from npm) serves those that must hold on any S3-compatible store
(`any_bucket`). Each is started once per test process and stopped by its PID at the end.
Commands reach them as a user reaches any store: `AWS_ENDPOINT_URL` and a key pair in their
environment.
"""

import os
from collections.abc import Iterator
from uuid import uuid4

import pytest

pytest.importorskip("moto", reason="the S3 tests need the test servers: pip install -e '.[dev]'")

from tests.s3.moto_server import S3Server, start_s3_server
from tests.s3.s3rver import INSTALL, S3rver, s3rver_program
from tests.s3.storage import Bucket, point_at


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    server = start_s3_server(tmp_path_factory.mktemp("s3-server"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def s3rver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3rver]:
    program = s3rver_program()
    if program is None:
        message = f"s3rver is not installed: {INSTALL}"
        if os.environ.get("CI"):  # CI installs it; a missing install must not pass as a skip
            pytest.fail(message)
        pytest.skip(message)
    server = S3rver(program, tmp_path_factory.mktemp("s3rver")).start()
    yield server
    server.stop()


@pytest.fixture
def bucket(s3_server: S3Server, monkeypatch: pytest.MonkeyPatch) -> Bucket:
    """A new bucket on moto's server; this process's environment points at it, as a user's would."""
    point_at(s3_server, monkeypatch)
    return Bucket.create(s3_server, f"heedbench-{uuid4().hex[:16]}")


@pytest.fixture(params=["moto", "s3rver"])
def any_bucket(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Bucket:
    """A new bucket on each server in turn."""
    server = request.getfixturevalue("s3_server" if request.param == "moto" else "s3rver")
    point_at(server, monkeypatch)
    return Bucket.create(server, f"heedbench-{uuid4().hex[:16]}")
