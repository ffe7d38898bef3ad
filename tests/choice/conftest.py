"""The choice tests keep simulated chance rows in their own cache folder."""

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def chance_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    folder = tmp_path_factory.getbasetemp() / "chance-cache"
    monkeypatch.setenv("HEEDBENCH_CACHE_DIR", str(folder))
    yield folder
