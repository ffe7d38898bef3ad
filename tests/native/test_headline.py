"""Each task declares the paper's headline number, and the log reports it first."""

import math
from pathlib import Path

import pytest
from inspect_ai.analysis import evals_df
from inspect_ai.log import EvalLog

from heedbench.evals.carryon.task import carryon
from heedbench.evals.judge_check.task import carryon_judge_check
from heedbench.evals.prefdisco.task import prefdisco
from tests.native.logs import carryon_queries

HEADLINES = {
    "choice": ("choice_alignment", "spo_context", "mean"),
    "carryon": ("carryon_judge", "bc_last_utility", "mean"),
    "prefdisco": ("prefdisco", "prefdisco", "normalized_alignment"),
    "carryon_judge_check": ("judge_check", "judge_check", "item_kappa"),
    "prefdisco_judge_check": ("judge_check", "judge_check", "score_qwk"),
}
"""family -> (scorer, score, metric) of its headline: SPO on the pairs the context decides
(choice leads with it rather than the paper's SPO, which a context-blind chooser mostly earns);
BC last-turn Ben-Util; normalized
alignment; the judge checks' chance-corrected agreement (kappa for yes/no items, QWK for
1-5 scores)."""


@pytest.mark.parametrize("family", list(HEADLINES))
def test_the_log_headline_is_the_papers_number(logs: dict[str, EvalLog], family: str) -> None:
    log = logs[family]
    assert log.results is not None and log.results.headline is not None
    headline = log.results.headline
    scorer, score, metric = HEADLINES[family]
    assert (headline.scorer, headline.score, headline.metric) == (scorer, score, metric)
    [result] = [s for s in log.results.scores if (s.scorer, s.name) == (scorer, score)]
    assert not math.isnan(result.metrics[metric].value)
    row = evals_df(str(log.location), quiet=True).iloc[0]
    assert (row["score_headline_score"], row["score_headline_metric"]) == (score, metric)
    assert row["score_headline_value"] == pytest.approx(result.metrics[metric].value)


def test_runs_without_the_headline_condition_fall_back_to_one_they_hold(tmp_path: Path) -> None:
    data = str(carryon_queries(tmp_path))
    declared = {
        "turn1": carryon(condition="turn1", data=data).headline_metric,
        "nc": carryon(condition="nc", data=data, allow_self_roles=True).headline_metric,
        "oracle": prefdisco(condition="oracle").headline_metric,
        "harm": carryon_judge_check(part="harm").headline_metric,
    }
    assert {k: (v.score, v.metric) for k, v in declared.items() if v is not None} == {
        "turn1": ("turn1_utility", "mean"),
        "nc": ("nc_last_utility", "mean"),
        "oracle": ("prefalign", "mean"),
        "harm": ("judge_check", "harm_qwk"),
    }
