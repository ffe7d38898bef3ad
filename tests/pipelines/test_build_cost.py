"""The data-building guide's build cost figures are what `tools/build_cost.py` prints."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


def estimate(*args: str) -> str:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "build_cost.py"), *args],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    return result.stdout


@pytest.mark.parametrize(
    ("args", "total"),
    [
        (["carryon", "--queries", "398", "--generators",
          "openai/gpt-4o,anthropic/claude-sonnet-4-5,openai/gpt-4.1"], "$27.68"),
        (["carryon", "--queries", "5", "--generators",
          "openai/gpt-4o,anthropic/claude-sonnet-4-5"], "$0.25"),
        (["prefdisco"], "$40.09"),
    ],
)  # fmt: skip
def test_the_readme_quotes_the_tool(args: list[str], total: str) -> None:
    printed = estimate(*args)
    assert f"**{total}**" in printed
    assert total in (ROOT / "docs" / "building-data.md").read_text()
    calls = sum(int(line.split("|")[3].replace(",", "")) for line in printed.splitlines()[2:-1])
    assert f"| {calls:,} | {total}" in (ROOT / "docs" / "building-data.md").read_text()
