"""One small offline log per task family, shared by the tests of this folder."""

import pytest
from inspect_ai.log import EvalLog

from tests.native.logs import FAMILIES, launch


@pytest.fixture(scope="session")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    """family -> its log, written in this process from the task function."""
    folder = tmp_path_factory.mktemp("written")
    return {family: launch(family, folder) for family in FAMILIES}
