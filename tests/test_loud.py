"""A heedbench run that scored fewer than half of its samples says so, in the terminal and the log."""

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalSample, read_eval_log
from inspect_ai.scorer import Score

from heedbench.evals.carryon import load_queries
from heedbench.evals.carryon.task import carryon
from heedbench.loud import WARNING_KEY, scoring_warning
from heedbench.testing import scripted_model
from heedbench.testing_carryon import (
    refuse_then_recover,
    scripted_grader,
    scripted_user,
    write_queries,
)


def _sample(number: int, value: float, reason: str | None = None) -> EvalSample:
    score = Score(value=value, explanation="the grader's reply was not JSON", reason=reason)
    return EvalSample(id=number, epoch=1, input="x", target="", scores={"s": score})


def test_the_warning_names_the_scored_share_and_the_commonest_reason() -> None:
    nan = float("nan")
    samples = [_sample(1, 1.0), _sample(2, nan, "unjudged"), _sample(3, nan, "unjudged")]
    warning = scoring_warning(3, samples)
    assert warning is not None
    assert warning.startswith("only 1 of 3 samples were scored")
    assert "(2 samples): unjudged: the grader's reply was not JSON" in warning


def test_half_scored_is_no_warning() -> None:
    assert scoring_warning(2, [_sample(1, 1.0), _sample(2, float("nan"))]) is None
    assert scoring_warning(0, []) is None


@pytest.mark.parametrize(("grader", "warned"), [(scripted_grader, False), (lambda _: "no", True)])
def test_a_run_whose_grader_never_answers_in_shape_is_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], grader: object, warned: bool
) -> None:
    data = write_queries(tmp_path / "q.jsonl", load_queries()[:2], 3)
    log = inspect_eval(
        carryon(data=str(data), condition="oracle"),
        model=scripted_model(refuse_then_recover(), "target"),
        model_roles={
            "user": scripted_model(scripted_user, "user"),
            "grader": scripted_model(grader, "grader"),  # type: ignore[arg-type]
        },
        display="none",
        log_dir=str(tmp_path / "logs"),
    )[0]
    assert log.status == "success"
    stored = read_eval_log(log.location, header_only=True)
    metadata = stored.metadata
    printed = capsys.readouterr().err
    if warned:
        assert metadata[WARNING_KEY].startswith("only 0 of 2 samples were scored")
        assert f"heedbench: {log.eval.task}: only 0 of 2" in printed
    else:
        assert WARNING_KEY not in metadata
        assert "samples were scored" not in printed
