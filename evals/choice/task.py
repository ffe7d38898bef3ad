"""`heedbench/choice`: does an LLM-implemented choice function respect a user's preferences?"""

from typing import Any, Literal

from inspect_ai import Task, task
from inspect_ai.log import HeadlineMetric
from inspect_ai.model import CachePolicy
from inspect_ai.viewer import (
    ScoreColorScale,
    TaskSamplesColumn,
    TaskSamplesSort,
    TaskSamplesView,
    ViewerConfig,
)

from heedbench import params
from heedbench.evals.choice.dataset import choice_dataset
from heedbench.roles import check_roles_at_build
from heedbench.scorers.choice import choice_alignment
from heedbench.solvers.choice import CHOICE_METHODS, ChoiceMethod, choice_solver
from heedbench.solvers.choice.prompts import TEMPLATES, TemplateId, TemplateKind, template_ids
from heedbench.solvers.choice.relation import VALIDITY_MODES, Validity

TEMPLATE_KIND: dict[ChoiceMethod, TemplateKind] = {
    "pairwise_score": "pairwise",
    "pairwise_scc": "pairwise",
    "pairwise_test": "pairwise",
    "pairwise_sort": "pairwise",
    "pointwise": "pointwise",
    "listwise": "listwise",
}
DEFAULT_TEMPLATE: dict[ChoiceMethod, TemplateId] = {
    "pairwise_score": "T1",
    "pairwise_scc": "T4",
    "pairwise_test": "T5",
    "pairwise_sort": "T1",
    "pointwise": "T7",
    "listwise": "T9",
}
"""The paper's best template for GPT-4 per design (Table 1); T1 for the sort-based method."""
BEST: Literal["best"] = "best"
"""`-T template=best` (the default): the design's entry in `DEFAULT_TEMPLATE`."""

SCORER = "choice_alignment"
HEADLINE = HeadlineMetric(scorer=SCORER, score="spo_context", metric="mean")
"""Mean `spo_context` over valid contexts: SPO on the pairs the context decides (the paper's
SPO stands beside it in the viewer and the report)."""
VIEWER = ViewerConfig(
    task_samples_view=TaskSamplesView(
        name="contexts",
        columns=[
            TaskSamplesColumn(id="sampleId"),
            *(
                TaskSamplesColumn.score(SCORER, key)
                for key in (
                    "spo_context",
                    "spo",
                    "kendall",
                    "kendall_context",
                    "valid",
                    "indifference_sets",
                    "invalid_rate",
                )
            ),
            *(
                TaskSamplesColumn.score(SCORER, key, visible=False)
                for key in ("kendall_norm", "order_consistency", "queries", "context_pairs")
            ),
        ],
        sort=[TaskSamplesSort.score(SCORER, "spo_context")],
        score_labels={
            "spo": "SPO ↑",
            "spo_context": "SPO, context pairs ↑",
            "kendall": "K(p) ↓",
            "kendall_context": "K(p)/pair, context pairs ↓",
            "kendall_norm": "K(p)/pairs ↓",
            "valid": "valid",
            "indifference_sets": "indifference sets",
            "invalid_rate": "⊥ rate ↓",
            "order_consistency": "order consistency",
            "context_pairs": "context pairs",
        },
        score_color_scales={
            "spo": ScoreColorScale(palette="good-high", min=0.0, max=1.0),
            "spo_context": ScoreColorScale(palette="good-high", min=0.0, max=1.0),
            "kendall": "good-low",
            "kendall_context": ScoreColorScale(palette="good-low", min=0.0, max=1.0),
            "kendall_norm": ScoreColorScale(palette="good-low", min=0.0, max=1.0),
            "invalid_rate": ScoreColorScale(palette="good-low", min=0.0, max=1.0),
            "order_consistency": ScoreColorScale(palette="good-high", min=0.0, max=1.0),
        },
    )
)
"""The sample list: a row per context with `spo_context` first, then SPO and K(p) each beside
its value on the pairs the context decides, worst `spo_context` on top."""


def fitting_templates(method: str) -> list[TemplateId]:
    """The templates a design accepts (pairwise_test: only those without "none")."""
    design = params.one_of("method", method, CHOICE_METHODS)
    allowed = [TEMPLATES[t].id for t in template_ids(TEMPLATE_KIND[design])]
    if design == "pairwise_test":
        allowed = [t for t in allowed if not TEMPLATES[t].allows_none]
    return allowed


def resolve_template(method: str, template: str | None) -> TemplateId:
    """Check the method/template pair; `best` (or None) is the design's default template."""
    allowed = fitting_templates(method)
    if template is None or str(template).lower() == BEST:
        return DEFAULT_TEMPLATE[params.one_of("method", method, CHOICE_METHODS)]
    for option in allowed:
        if str(template).upper() == option:
            return option
    raise params.ParameterError(
        f"-T template: {str(template).upper()!r} does not fit method {method!r}; "
        f"use one of {', '.join(allowed)} (or {BEST})"
    )


@task
def choice(
    *,
    method: ChoiceMethod = "pairwise_score",
    template: TemplateId | Literal["best"] = BEST,
    n: int | None = None,
    score_low: int = 1,
    score_high: int = 5,
    p: float = 0.5,
    seed: int = 0,
    cache: bool = False,
    data: str | None = None,
    validity: Validity = "lenient",
    **unknown: Any,
) -> Task:
    """Rational choice functions with LLMs: alignment with a model user's weak order.

    Args:
        method: design that turns answers into a choice function: pairwise_score,
            pairwise_scc, pairwise_test, pointwise, listwise, or pairwise_sort (tie-aware merge
            sort, O(n log n) queries).
        template: prompt template T1–T13 that fits the method, or `best` (the default): the
            paper's best for GPT-4 (T1, T4, T5, T7, T9; T1 for pairwise_sort), recorded in the
            task metadata. pairwise_test takes only templates without "none": T3, T5, T6.
        n: use a seeded subset of n of the 40 objects in every context (default: all).
        score_low: lowest pointwise score.
        score_high: highest pointwise score.
        p: penalty of a weakly discordant pair in K(p), in [0, 1].
        seed: seed for the object subset and the presentation order.
        cache: cache model queries with Inspect's cache (re-runs cost nothing).
        data: folder with your own objects.json and contexts.jsonl, `contrast` for the
            split of minimal twin contexts (scored per factor by `contrast`), or `v3` / `v2`
            for the data of task versions 3 and 2 (default: the shipped data).
        validity: when a context counts as valid for the designs that ask both presentation
            orders (pairwise_score, pairwise_scc, pairwise_sort): `lenient` (default, the
            paper's definition: every pair decided by at least one order) or `strict` (a
            pair answered in one order and ⊥ in the other makes the context invalid).
        **unknown: refused: a parameter the task does not have is an error, not a warning.
    """
    params.reject_unknown("choice", unknown, choice)
    check_roles_at_build((), allow_evaluated_model=False, task="choice")
    design = params.one_of("method", method, CHOICE_METHODS)
    chosen_template = resolve_template(design, template)
    checked_validity = params.one_of("validity", validity, VALIDITY_MODES)
    n = params.optional_integer("n", n, low=2)
    score_low = params.integer("score_low", score_low)
    score_high = params.integer("score_high", score_high)
    if score_low >= score_high:
        raise params.ParameterError(
            f"-T score_low ({score_low}) must be below -T score_high ({score_high})"
        )
    p = params.number("p", p, low=0.0, high=1.0)
    seed = params.integer("seed", seed)
    cache = params.flag("cache", cache)
    data = params.optional_text("data", data)
    dataset = choice_dataset(data, n=n, seed=seed)
    return Task(
        dataset=dataset,
        solver=choice_solver(
            method=design,
            template=chosen_template,
            score_low=score_low,
            score_high=score_high,
            seed=seed,
            cache=CachePolicy() if cache else False,
            validity=checked_validity,
        ),
        scorer=choice_alignment(p=p, validity=checked_validity),
        version="4.0.0",
        headline_metric=HEADLINE,
        viewer=VIEWER,
        metadata={
            "family": "choice",
            "method": design,
            "template": chosen_template,
            "dataset_ids": [sample.id for sample in dataset],
            "validity": checked_validity,
        },
    )
