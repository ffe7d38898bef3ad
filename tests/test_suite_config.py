"""The README's test command runs every test it collects, slow ones included.

pytest-inspect-evals (a [test] dependency) skips tests marked `slow` unless a flag, an
environment variable or an ini option asks for them; the suite sets the ini option, since
its slow tests (fault injection, kill and retry) are behaviour nothing else covers.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_slow_test_runs_under_the_suites_configuration(tmp_path: Path) -> None:
    (tmp_path / "test_marked.py").write_text(
        "import pytest\n\n@pytest.mark.slow\ndef test_marked():\n    assert True\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "RUN_SLOW_TESTS"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"),
         "--rootdir", str(tmp_path), "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True, text=True, timeout=120, env=env, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert "1 passed" in done.stdout, done.stdout + done.stderr
    assert "skipped" not in done.stdout
