"""Re-scoring a written log in a fresh process, for every task family.

`inspect score LOG` must find each scorer from the log alone, with the arguments it was run
with; `--scorer heedbench/<name> -S ...` must work without the task's own arguments; and the
sample store must read back typed. Scorers that need no model are re-scored through the
command line; those that need a grader also through the command line with the offline
`heedbench/random` model as grader (it never answers a judge prompt readably, so every
verdict is unscored, with a reason), and through `inspect_ai.score()` with a scripted grader.
"""

import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.util import Store, StoreModel

from heedbench.solvers.carryon.solver import CarryOnRun, Exchange
from heedbench.solvers.choice.solver import ChoiceRun
from heedbench.solvers.judge_check.solver import JudgeCheckRun
from heedbench.solvers.prefdisco.solver import PrefDiscoRun
from tests.native.logs import fresh_python, inspect_cli, metric_values, printed_json

RUNS: dict[str, type[StoreModel]] = {
    "choice": ChoiceRun,
    "carryon": CarryOnRun,
    "prefdisco": PrefDiscoRun,
    "carryon_judge_check": JudgeCheckRun,
    "prefdisco_judge_check": JudgeCheckRun,
}


@pytest.mark.parametrize("family", list(RUNS))
def test_the_store_reads_back_typed_from_a_written_log(
    logs: dict[str, EvalLog], family: str
) -> None:
    written = read_eval_log(str(logs[family].location))
    assert written.samples
    for sample in written.samples:
        run = RUNS[family](store=Store(sample.store))
        assert run.completed
        if isinstance(run, CarryOnRun):
            assert run.exchanges and all(isinstance(e, Exchange) for e in run.exchanges)
            assert run.exchanges[0].move is None  # left out of the log, back as the default


def same(a: dict[Any, float], b: dict[Any, float]) -> bool:
    """Equal dicts of numbers, NaN equal to NaN."""
    return a.keys() == b.keys() and all(
        (math.isnan(a[k]) and math.isnan(b[k])) or a[k] == pytest.approx(b[k]) for k in a
    )


def rescored(log: EvalLog, tmp_path: Path, *args: str) -> EvalLog:
    """`inspect score LOG ARGS --action overwrite` in a fresh process; the written log."""
    out = tmp_path / "rescored.eval"
    inspect_cli("score", str(log.location), *args, "--action", "overwrite",
                "--output-file", str(out), "--display", "none", cwd=tmp_path)  # fmt: skip
    return read_eval_log(str(out))


def sample_scores(log: EvalLog, scorer: str) -> list[Any]:
    assert log.samples is not None
    return [sample.scores[scorer] for sample in log.samples if sample.scores]


@pytest.mark.parametrize("family", ["choice", "carryon_judge_check", "prefdisco_judge_check"])
def test_inspect_score_finds_the_scorer_and_its_arguments_in_the_log(
    logs: dict[str, EvalLog], tmp_path: Path, family: str
) -> None:
    log = logs[family]
    again = rescored(log, tmp_path)
    assert again.eval.scorers is not None and log.eval.scorers is not None
    assert [(s.name, s.options) for s in again.eval.scorers] == [
        (s.name, s.options) for s in log.eval.scorers
    ]
    assert same(metric_values(again), metric_values(log))


def test_choice_rescored_with_another_p(logs: dict[str, EvalLog], tmp_path: Path) -> None:
    again = rescored(logs["choice"], tmp_path, "--scorer", "heedbench/choice_alignment",
                     "-S", "p=0.3")  # fmt: skip
    assert again.eval.scorers is not None
    assert again.eval.scorers[0].options == {"p": 0.3}
    changed = 0
    for before, after in zip(
        sample_scores(logs["choice"], "choice_alignment"),
        sample_scores(again, "choice_alignment"),
        strict=True,
    ):
        raw = after.metadata["raw_alignment"]
        expected = raw["discordant_pairs"] + 0.3 * raw["weakly_discordant_pairs"]
        assert after.metadata["p"] == 0.3
        assert after.value["kendall"] == pytest.approx(expected)
        changed += after.value["kendall"] != before.value["kendall"]
    assert changed, "the noisy oracle leaves weakly discordant pairs, so K(0.3) != K(0.5)"


def test_carryon_rescored_by_the_cli_reads_the_store_and_explains_a_failed_grader(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    again = rescored(logs["carryon"], tmp_path, "--model-role", "grader=heedbench/random")
    scores = sample_scores(again, "carryon_judge")
    assert len(scores) == len(sample_scores(logs["carryon"], "carryon_judge"))
    for score in scores:  # the chance model never answers a judge prompt readably
        assert isinstance(score.value, float) and math.isnan(score.value)
        assert score.reason == "grader_failed"
        assert score.explanation.startswith("the grader judged nothing readably")
        assert score.metadata["turns"], "the per-turn series is still recorded"


def test_carryon_rescored_through_the_python_api_in_a_fresh_process(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    code = f"""
import json
from inspect_ai import score
from inspect_ai.log import read_eval_log
from heedbench.scorers.carryon.scorer import carryon_judge
from heedbench.testing import scripted_model
from heedbench.testing_carryon import scripted_grader

log = read_eval_log({str(logs["carryon"].location)!r})
[logged] = log.eval.scorers
results = {{}}
for name, reply, extra in (
    ("same", scripted_grader, {{}}),
    ("nothing fulfilled", lambda prompt: scripted_grader(prompt).replace("true", "false"), {{}}),
    ("repetition 0", scripted_grader, {{"repetition": 0.0}}),
):
    grader = scripted_model(reply, "another-grader")
    scored = score(log, carryon_judge(**(logged.options | extra)), action="overwrite",
                   model_roles={{"grader": grader}}, display="none")
    results[name] = {{f"{{s.name}}/{{k}}": m.value for s in scored.results.scores
                      for k, m in s.metrics.items()}}
print(json.dumps(results))
"""
    results = printed_json(fresh_python(code, tmp_path))
    original = {
        f"{name}/{metric}": v for (name, metric), v in metric_values(logs["carryon"]).items()
    }
    assert same(results["same"], original)
    assert original["bc_last_utility/mean"] > 0
    assert results["nothing fulfilled"]["bc_last_utility/mean"] == 0.0
    # the scripted target never repeats itself: redundancy 0, flagged only at threshold 0
    assert original["carryon_judge/repetitive_recovery"] == 0.0
    assert results["repetition 0"]["carryon_judge/repetitive_recovery"] == 1.0


@pytest.mark.parametrize("scorer", [None, "heedbench/prefdisco"])
def test_prefdisco_rescored_by_the_cli_with_or_without_naming_the_scorer(
    logs: dict[str, EvalLog], tmp_path: Path, scorer: str | None
) -> None:
    named = ["--scorer", scorer] if scorer else []
    again = rescored(logs["prefdisco"], tmp_path, *named, "--model-role",
                     "grader=heedbench/random")  # fmt: skip
    for score in sample_scores(again, "prefdisco"):
        # the paper protocol grades every answer: a grader that judges nothing scores nothing
        assert isinstance(score.value, float) and math.isnan(score.value)
        assert set(score.metadata["unscored"]) == {"prefalign", "correct"}


def test_prefdisco_rescored_through_the_python_api_in_a_fresh_process(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    code = f"""
import json
from inspect_ai import score
from inspect_ai.log import read_eval_log
from heedbench.scorers.prefdisco.scorer import prefdisco_scorer
from heedbench.testing import scripted_model
from tests.prefdisco.scripted import grader_reply

log = read_eval_log({str(logs["prefdisco"].location)!r})
results = {{}}
for name, scorer in (
    ("as logged", prefdisco_scorer(**log.eval.scorers[0].options)),
    ("from the samples", prefdisco_scorer(judge_mode="batched")),
):
    scored = score(log, scorer, action="overwrite", display="none",
                   model_roles={{"grader": scripted_model(grader_reply, "grader")}})
    results[name] = {{f"{{s.name}}/{{k}}": m.value for s in scored.results.scores
                      for k, m in s.metrics.items()}}
print(json.dumps(results))
"""
    results = printed_json(fresh_python(code, tmp_path))
    original = {f"{n}/{m}": v for (n, m), v in metric_values(logs["prefdisco"]).items()}
    assert original["prefdisco/normalized_alignment"] == pytest.approx(50.0)
    assert same(results["as logged"], original)
    assert results["from the samples"]["prefdisco/normalized_alignment"] == pytest.approx(50.0)
