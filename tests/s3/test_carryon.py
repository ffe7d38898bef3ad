"""A `carryon` run with its `user` and `grader` roles, written to a bucket and reported from it.

A local OpenAI-compatible stub plays all three roles (`tests.stub_server`, responder
`carryon`: the model refuses, then recovers once the user clarifies). The report read from the
bucket must be the report read from a local copy of the same log: the per-turn series, which
need the full samples, included.
"""

from pathlib import Path

import pytest

from heedbench.evals.carryon import load_queries
from heedbench.report.carryon import carryon_data
from heedbench.report.cli import Options, build_sections
from heedbench.report.document import Section
from heedbench.report.load import load_runs
from heedbench.testing_carryon import write_queries
from tests.s3.storage import Bucket, environment, run
from tests.stub_server import start_stub_server

pytestmark = pytest.mark.s3


def carryon_section(sections: list[Section]) -> Section:
    return next(section for section in sections if section.title.startswith("carryon"))


def test_a_carryon_run_with_roles_reports_from_the_bucket_as_from_disk(
    bucket: Bucket, tmp_path: Path
) -> None:
    data = write_queries(tmp_path / "queries.jsonl", load_queries()[:2], items=4)
    stub, url = start_stub_server(latency=0.0, responder="carryon")
    try:
        env = environment(bucket.server, {"STUB_BASE_URL": url, "STUB_API_KEY": "stub-key"})
        run(
            ["inspect", "eval", "heedbench/carryon", "-T", f"data={data}",
             "-T", "flows_per_query=2", "--model", "openai-api/stub/target",
             "--model-role", "user=openai-api/stub/user",
             "--model-role", "grader=openai-api/stub/grader",
             "--log-dir", bucket.url("carryon")],
            env, tmp_path,
        )  # fmt: skip
    finally:
        stub.stop()
    [log] = bucket.logs("carryon")
    local = tmp_path / "local"
    local.mkdir()
    bucket.fs().get(log.removeprefix("s3://"), str(local / log.rsplit("/", 1)[-1]))

    loaded = load_runs([bucket.url("carryon")])
    [run_] = loaded.runs("carryon")
    assert run_.model_roles == {"user": "openai-api/stub/user", "grader": "openai-api/stub/grader"}
    found = carryon_data(loaded)
    assert found is not None and not found.turns.empty  # per-turn series, from full samples
    assert set(found.turns["m_condition"]) == {"turn1", "oracle", "bc", "nc"}
    assert found.turns["exchange"].max() > 1

    _, remote = build_sections(Options(logs=[bucket.url("carryon")], out=tmp_path / "remote"))
    _, on_disk = build_sections(Options(logs=[str(local)], out=tmp_path / "disk"))
    mine, theirs = carryon_section(remote), carryon_section(on_disk)
    assert mine.tables == theirs.tables and mine.summary == theirs.summary
    assert len(mine.tables) > 3
