"""A local S3-compatible server for the tests under tests/s3, a bucket per test.

The server (`benchmarks.s3_server`: moto's server application in a process of its own) is
started once per test process and stopped by its PID at the end. Commands reach it as a user
reaches any S3-compatible store: `AWS_ENDPOINT_URL` and a key pair in their environment.
"""

from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

import pytest

pytest.importorskip("moto", reason="the S3 tests need the s3 extra: pip install -e '.[s3]'")

from benchmarks.s3_server import S3Server, start_s3_server
from tests.s3.storage import Bucket, point_at


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    server = start_s3_server(tmp_path_factory.mktemp("s3-server"))
    yield server
    server.stop()


@pytest.fixture
def bucket(s3_server: S3Server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Bucket:
    """A new bucket; this process's environment points at the server, as a user's would."""
    point_at(s3_server, monkeypatch)
    return Bucket.create(s3_server, f"heedbench-{uuid4().hex[:16]}")
