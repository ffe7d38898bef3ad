"""The keyless tryout (`heedbench/smoke` in every role) plays discovery in each marker style."""

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from heedbench.evals.prefdisco.task import prefdisco
from heedbench.solvers.prefdisco.settings import Protocol


@pytest.mark.parametrize("protocol", ["paper", "budgeted"])
def test_smoke_asks_once_then_answers_in_the_runs_markers(
    tmp_path: Path, protocol: Protocol
) -> None:
    smoke = "heedbench/smoke"
    [log] = inspect_eval(
        prefdisco(protocol=protocol), model=smoke, model_roles={"user": smoke, "grader": smoke},
        limit=3, display="none", log_dir=str(tmp_path),
    )  # fmt: skip
    assert log.status == "success", log.error
    [discovery] = [s for s in log.samples or [] if s.metadata["condition"] == "discovery"]
    score = discovery.scores["prefdisco"]  # type: ignore[index]
    assert isinstance(score.value, dict) and score.value["questions"] == 1
    marker = "###ACTION###: 'final_answer'" if protocol == "paper" else "FINAL ANSWER:"
    assert discovery.output.completion.startswith(marker)
    assert score.value["prefalign"] == score.value["prefalign"]  # scored, not NaN
    assert score.metadata is not None and score.metadata["questions_from"] == "model"
