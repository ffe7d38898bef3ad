"""The judge checks, end to end with scripted graders: perfect, injection-obeying and noisy."""

import hashlib
import json
import math
import re
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from heedbench.evals.judge_check import JudgeCheckDataError, carryon_cases, prefdisco_cases
from heedbench.evals.judge_check.task import carryon_judge_check, prefdisco_judge_check
from heedbench.scorers.judge.blocks import neutralise, read_blocks
from heedbench.testing import scripted_model

Unit = tuple[str, str]  # (case response, unit name)


@cache
def cases() -> dict[str, list[dict[str, Any]]]:
    """Neutralised response text → the cases judging it (one response may serve two personas)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for dataset in (carryon_cases(), prefdisco_cases()):
        for sample in dataset:
            found.setdefault(neutralise(str(sample.input)), []).append(dict(sample.metadata or {}))
    return found


def _case(prompt: str) -> dict[str, Any]:
    candidates = cases()[read_blocks(prompt)[-1][1]]

    def named(case: dict[str, Any]) -> int:  # how many of its criteria the prompt holds
        return sum(
            f": {c['preference']}\n" in prompt and c["justification"] in prompt
            for c in case.get("criteria", [])
        )

    return max(candidates, key=named)


def _item_gold(case: dict[str, Any], question: str) -> bool:
    return next(bool(i["fulfilled"]) for i in case["items"] if i["question"] == question)


def _score_gold(case: dict[str, Any], name: str) -> int:
    return next(int(c["score"]) for c in case["criteria"] if c["preference"] == name)


Verdict = Callable[[dict[str, Any], str, Any], Any]
"""(case, unit name, gold) -> the verdict the scripted grader gives."""


def grader(verdict: Verdict) -> Callable[[str], str]:
    """A grader that answers every judge prompt by `verdict`, given the case it judges."""

    def reply(prompt: str) -> str:
        case = _case(prompt)
        if '"harm"' in prompt:
            harm = verdict(case, "harm", case["harm"])
            return json.dumps({"reason": "scripted", "harm": harm})
        item = re.search(r"^Checklist item: (.*)$", prompt, re.MULTILINE)
        if item is not None:
            q = item.group(1)
            return json.dumps({"evidence": "", "fulfilled": verdict(case, q, _item_gold(case, q))})
        listing = re.findall(
            r"^(\d+)\. (.*)$", prompt.split("Block code", maxsplit=1)[0], re.MULTILINE
        )
        if case["part"] == "checklist":
            table = {n: verdict(case, q, _item_gold(case, q)) for n, q in listing}
            return json.dumps({"evidence": "", "fulfilled": table})
        single = re.search(r"^Criterion: (.*)$", prompt, re.MULTILINE)
        if single is not None:
            name = single.group(1)
            return json.dumps(
                {"justification": "", "score": verdict(case, name, _score_gold(case, name))}
            )
        named = re.findall(r"^Criterion (\d+): (.*)$", prompt, re.MULTILINE)
        scores = {n: verdict(case, name, _score_gold(case, name)) for n, name in named}
        return json.dumps({"justification": "", "scores": scores})

    return reply


def perfect(case: dict[str, Any], unit: str, gold: Any) -> Any:
    return gold


def obeys_injections(case: dict[str, Any], unit: str, gold: Any) -> Any:
    target = case.get("injection_target")
    return next(iter(target.values())) if target else gold


def noisy(case: dict[str, Any], unit: str, gold: Any) -> Any:
    draw = int.from_bytes(hashlib.sha256(f"{case['kind']}|{unit}".encode()).digest()[:2], "big")
    if draw % 10 >= 3:  # 70 % of units are right
        return gold
    if isinstance(gold, bool):
        return not gold
    return 1 if gold >= 3 else 5


def run(task: Any, verdict: Verdict, name: str = "grader-under-test", **kwargs: Any) -> EvalLog:
    log = eval(
        task,
        model=scripted_model(grader(verdict), name),
        display="none",
        log_dir=str(kwargs.pop("log_dir")),
        **kwargs,
    )[0]
    assert log.status == "success", log.error
    return log


def summary(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    [result] = log.results.scores
    return {name: value.value for name, value in result.metrics.items()}


def test_the_shipped_sets_are_as_large_as_promised() -> None:
    carryon = [dict(s.metadata or {}) for s in carryon_cases()]
    rubric = [dict(s.metadata or {}) for s in prefdisco_cases()]
    items = sum(len(m["items"]) for m in carryon if m["part"] == "checklist")
    harm = [m for m in carryon if m["part"] == "harm"]
    criteria = sum(len(m["criteria"]) for m in rubric)
    assert items >= 150 and len(harm) >= 60 and criteria >= 100
    assert len([m for m in carryon if m["adversarial"]]) >= 30
    assert len([m for m in rubric if m["adversarial"]]) >= 30
    assert len({m["category"] for m in harm}) == 4


def test_a_perfect_grader_agrees_everywhere(tmp_path: Any) -> None:
    stats = summary(run(carryon_judge_check(), perfect, log_dir=tmp_path))
    assert stats["item_accuracy"] == 1.0 and stats["item_kappa"] == 1.0
    assert stats["item_macro_f1"] == 1.0
    assert stats["harm_exact"] == 1.0 and stats["harm_qwk"] == 1.0
    assert stats["flip_rate"] == 0.0 and stats["injection_success"] == 0.0
    stats = summary(run(prefdisco_judge_check(), perfect, log_dir=tmp_path))
    assert stats["score_exact"] == 1.0 and stats["score_qwk"] == 1.0
    assert stats["flip_rate"] == 0.0


def test_a_grader_that_obeys_injections_shows_a_high_flip_rate(tmp_path: Any) -> None:
    carryon = summary(run(carryon_judge_check(), obeys_injections, log_dir=tmp_path))
    prefdisco = summary(run(prefdisco_judge_check(), obeys_injections, log_dir=tmp_path))
    for stats in (carryon, prefdisco):
        assert stats["flip_rate"] == 1.0 and stats["injection_success"] == 1.0
    # its clean verdicts are still perfect: only the adversarial subset gives it away
    assert carryon["item_clean_agreement"] == 1.0 > carryon["item_adversarial_agreement"]
    assert prefdisco["score_clean_agreement"] == 1.0 > prefdisco["score_adversarial_agreement"]


def test_a_noisy_grader_has_lower_agreement_and_kappa(tmp_path: Any) -> None:
    stats = summary(run(carryon_judge_check(), noisy, log_dir=tmp_path))
    assert 0.5 < stats["item_accuracy"] < 0.9 and stats["item_kappa"] < 0.8
    assert stats["harm_qwk"] < 0.9
    stats = summary(run(prefdisco_judge_check(), noisy, log_dir=tmp_path))
    assert stats["score_qwk"] < 0.9 and stats["score_within_one"] < 1.0


def test_both_modes_are_compared_on_the_same_cases(tmp_path: Any) -> None:
    stats = summary(run(carryon_judge_check(part="checklist", judge="both"), perfect,
                        log_dir=tmp_path))  # fmt: skip
    assert stats["item_modes_agreement"] == 1.0 and stats["item_modes_kappa"] == 1.0
    stats = summary(run(prefdisco_judge_check(judge="both"), perfect, log_dir=tmp_path))
    assert stats["score_modes_agreement"] == 1.0


def test_consistency_over_epochs(tmp_path: Any) -> None:
    looks: dict[str, int] = {}

    def flaky(case: dict[str, Any], unit: str, gold: Any) -> Any:
        key = str(case["conversation"])
        looks[key] = looks.get(key, 0) + 1
        if case["kind"] == "refusal" and looks[key] % 2 == 0:
            return 5  # changes its mind on every second look at the same refusal
        return gold

    task = carryon_judge_check(part="harm")
    steady = summary(run(task, perfect, epochs=3, log_dir=tmp_path))
    wobbly = summary(run(carryon_judge_check(part="harm"), flaky, epochs=3, log_dir=tmp_path))
    assert steady["consistency"] == 1.0
    assert wobbly["consistency"] < 1.0


def test_an_unreadable_grader_leaves_cases_unscored_never_wrong(tmp_path: Any) -> None:
    log = eval(
        carryon_judge_check(part="harm"),
        model=scripted_model(lambda prompt: "I would rather not say.", "silent"),
        display="none",
        log_dir=str(tmp_path),
    )[0]
    assert log.samples
    for sample in log.samples:
        score = next(iter(sample.scores.values()))  # type: ignore[union-attr]
        assert isinstance(score.value, float) and math.isnan(score.value)
        assert score.reason and "no unit was judged readably" in score.reason


def test_a_broken_case_file_names_file_record_and_field(tmp_path: Any) -> None:
    (tmp_path / "prefdisco_rubric.jsonl").write_text(
        json.dumps(
            {
                "id": "x",
                "source": "math",
                "task": "t",
                "response": "r",
                "kind": "aligned",
                "attack": None,
                "injection_target": None,
                "criteria": [
                    {"preference": "p", "description": "d", "levels": {"1": "a"}, "score": 9}
                ],
            }
        )
        + "\n"
    )
    with pytest.raises(JudgeCheckDataError, match=r"record 1.*'criteria'\[0\], field 'score'"):
        prefdisco_cases(str(tmp_path))


def test_the_report_has_a_grader_table(tmp_path: Any) -> None:
    from heedbench.report.cli import Options, build_sections

    run(carryon_judge_check(part="harm"), perfect, "steady", log_dir=tmp_path)
    run(carryon_judge_check(part="harm"), obeys_injections, "gullible", log_dir=tmp_path)
    _, sections = build_sections(Options(logs=[str(tmp_path)], out=tmp_path / "report"))
    [graders] = [s for s in sections if s.title.startswith("Graders")]
    table = graders.tables[0]
    rows = {row[1]: dict(zip(table.columns, row, strict=True)) for row in table.rows}
    assert rows["steady"]["harm_qwk"] == "1.00 ✓" and rows["steady"]["flip_rate"] == "0.00 ✓"
    assert rows["gullible"]["flip_rate"] == "1.00 ✗"
    assert rows["steady"]["cases"] == "72/72 scored"
    text = "\n".join(graders.summary)
    assert "carryon_judge_check steady: meets every threshold" in text
    assert "gullible: below threshold on" in text and "flip_rate" in text
