"""`heedbench/carryon_judge_check` and `heedbench/prefdisco_judge_check`: test a grader first.

The grader under test is the evaluated model (`--model`). It judges a fixed, shipped set of
responses with gold labels (`datasets/judge_check/`), with the same judges, prompts and
settings the benchmark uses, and the run reports how far it agrees with the gold, how it
fares on responses that try to manipulate it, and (with `--epochs 3`) how consistent it is.
"""

from collections.abc import Callable
from typing import Any, cast

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import HeadlineMetric

from heedbench import params
from heedbench.evals.carryon.task import HARM_RUBRICS
from heedbench.evals.judge_check.dataset import carryon_cases, prefdisco_cases
from heedbench.roles import check_roles_at_build
from heedbench.scorers.carryon.judge import DEFAULT_HARM_RUBRIC, HarmRubric
from heedbench.scorers.carryon.scorer import GRADER_CONFIG as CARRYON_GRADER
from heedbench.scorers.judge import CHANNELS, DEFAULT_CHANNEL
from heedbench.scorers.judge_check import judge_check_epochs, judge_check_scorer
from heedbench.solvers.judge_check import judge_check_solver
from heedbench.solvers.judge_check.solver import CheckMode
from heedbench.solvers.prefdisco.settings import grader_config

SUBSETS = ("all", "adversarial", "clean")
PARTS = ("all", "checklist", "harm")
PREFDISCO_PARTS = ("all", "rubric", "correctness")
SCORER = "judge_check"
VERSION = "3.1.0"


def headline(statistic: str) -> HeadlineMetric:
    """The judge check's headline: a chance-corrected agreement with the gold labels.

    Kappa for yes/no verdicts and quadratic-weighted kappa for 1-5 ratings, rather than raw
    agreement: on an unbalanced set a grader that always says "fulfilled" (or "harmless")
    scores a high accuracy, and QWK counts a 1-vs-5 miss as worse than a 4-vs-5 one. The
    headline is not the whole verdict: bias, per-class recall, exact agreement, MAE and the
    injection effect have gates of their own (`gates_failed` counts the failures).
    """
    return HeadlineMetric(scorer=SCORER, score=SCORER, metric=statistic)


def _subset(dataset: MemoryDataset, subset: str) -> MemoryDataset:
    """The chosen cases; `adversarial` keeps their clean twins, which the effect needs."""
    twins = {str((s.metadata or {}).get("twin")) for s in dataset}
    keep: Callable[[Sample], bool] = {
        "all": lambda sample: True,
        "adversarial": lambda sample: _adversarial(sample) or str(sample.id) in twins,
        "clean": lambda sample: not _adversarial(sample),
    }[subset]
    samples = [s for s in dataset if keep(s)]
    return MemoryDataset(samples, name=f"{dataset.name}-{subset}", location=dataset.location)


def _adversarial(sample: Sample) -> bool:
    return bool((sample.metadata or {}).get("adversarial"))


@task
def carryon_judge_check(
    *,
    part: str = "all",
    judge: str = "per_item",
    subset: str = "all",
    verdict: str = DEFAULT_CHANNEL,
    data: str | None = None,
    harm_rubric: str = DEFAULT_HARM_RUBRIC,
    **unknown: Any,
) -> Task:
    """Is this grader good enough for carryon? Ben-Util items and harm ratings against gold.

    Args:
        part: checklist (Ben-Util item verdicts), harm (1-5 ratings) or all.
        judge: per_item (the benchmark's default), batched, or both (judges every case both
            ways and reports how far the two modes agree).
        subset: all cases, the adversarial ones (with their clean twins, which the
            injection effect is measured against), or only the clean ones.
        verdict: the verdict channel to check the grader in, as the benchmark's
            `-T verdict`: schema (default), tool or text.
        data: a folder with your own carryon_checklist.jsonl / carryon_harm.jsonl.
        harm_rubric: the carryon harm rubric to check the grader on, as `carryon`'s
            `-T harm_rubric`: policy (default) or v2.
        **unknown: refused: a parameter the task does not have is an error.
    """
    params.reject_unknown("carryon_judge_check", unknown, carryon_judge_check)
    check_roles_at_build((), allow_evaluated_model=False, task="carryon_judge_check")
    params.one_of("part", part, PARTS)
    params.one_of("harm_rubric", harm_rubric, HARM_RUBRICS)
    params.one_of("judge", judge, ("per_item", "batched", "both"))
    params.one_of("subset", subset, SUBSETS)
    channel = params.one_of("verdict", verdict, CHANNELS)
    dataset = _subset(carryon_cases(params.optional_text("data", data), part), subset)
    return Task(
        dataset=dataset,
        solver=judge_check_solver(
            mode=cast(CheckMode, judge),
            channel=channel,
            config=CARRYON_GRADER,
            harm_rubric=cast(HarmRubric, harm_rubric),
        ),
        scorer=judge_check_scorer(),
        epochs=Epochs(1, judge_check_epochs()),
        version=VERSION,
        headline_metric=headline("harm_qwk" if part == "harm" else "item_kappa"),
        metadata={
            "family": "carryon_judge_check",
            "harm_rubric": harm_rubric,
            "verdict": channel,
            "dataset_ids": [sample.id for sample in dataset],
        },
    )


@task
def prefdisco_judge_check(
    *,
    part: str = "all",
    judge: str = "per_criterion",
    subset: str = "all",
    verdict: str = DEFAULT_CHANNEL,
    data: str | None = None,
    **unknown: Any,
) -> Task:
    """Is this grader good enough for prefdisco? PrefAlign scores and correctness against gold.

    Args:
        part: rubric (PrefAlign criterion scores, 1-5), correctness (is the final answer
            right, as `-T correctness=grader` asks the grader), or all.
        judge: per_criterion (one call per criterion), batched, or both (judges every case
            both ways and reports how far the two modes agree); rubric cases only.
        subset: all cases, the adversarial ones (with their clean twins, which the
            injection effect is measured against), or only the clean ones.
        verdict: the verdict channel to check the grader in, as the benchmark's
            `-T verdict`: schema (default), tool or text.
        data: a folder with your own prefdisco_rubric.jsonl / prefdisco_correctness.jsonl.
        **unknown: refused: a parameter the task does not have is an error.
    """
    params.reject_unknown("prefdisco_judge_check", unknown, prefdisco_judge_check)
    check_roles_at_build((), allow_evaluated_model=False, task="prefdisco_judge_check")
    params.one_of("part", part, PREFDISCO_PARTS)
    params.one_of("judge", judge, ("per_criterion", "batched", "both"))
    params.one_of("subset", subset, SUBSETS)
    channel = params.one_of("verdict", verdict, CHANNELS)
    dataset = _subset(prefdisco_cases(params.optional_text("data", data), part), subset)
    mode = "per_item" if judge == "per_criterion" else judge
    settings = grader_config("paper")
    return Task(
        dataset=dataset,
        solver=judge_check_solver(mode=cast(CheckMode, mode), channel=channel, config=settings),
        scorer=judge_check_scorer(),
        epochs=Epochs(1, judge_check_epochs()),
        # the grader under test is the evaluated model: it gets the benchmark's grader
        # settings (the correctness call takes them from here)
        config=settings,
        version=VERSION,
        headline_metric=headline("correctness_kappa" if part == "correctness" else "score_qwk"),
        metadata={
            "family": "prefdisco_judge_check",
            "verdict": channel,
            "dataset_ids": [sample.id for sample in dataset],
        },
    )
