"""Shared test configuration. Scripted models live in `heedbench.testing`."""

import sys
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def cache_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Every test keeps reference rows and figures in the session's cache, not the user's."""
    folder = tmp_path_factory.getbasetemp() / "heedbench-cache"
    monkeypatch.setenv("HEEDBENCH_CACHE_DIR", str(folder))
    return folder


collect_ignore_glob = [] if sys.version_info >= (3, 11) else ["*/test_metric_epochs.py"]
"""pytest-inspect-evals, which those tests use, needs Python 3.11."""


@pytest.fixture
def offline_metric_evals(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Let pytest_inspect_evals' metric evals run offline.

    Its helpers evaluate on `mockllm/model`, whose outputs carry no token usage, so mockllm
    reaches for a tiktoken download (the offline pitfall in the Inspect notes). Here the same
    evals run on a scripted mockllm model that reports its usage; the metrics never see it.
    """
    import pytest_inspect_evals.metrics as helpers

    from heedbench.testing import scripted_model

    run = helpers.inspect_eval  # type: ignore[attr-defined]  # imported there, not exported

    def offline(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("model") == "mockllm/model":
            kwargs["model"] = scripted_model(lambda _prompt: "-", name="model")
        return run(*args, **kwargs)

    monkeypatch.setattr(helpers, "inspect_eval", offline)
    yield
