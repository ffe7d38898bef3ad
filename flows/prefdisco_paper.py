"""The `prefdisco` paper's sweep: three conditions x sources x models, plus fixed k = 2, 4, 8.

    flow run flows/prefdisco_paper.py -A models=openai/gpt-4o-mini,anthropic/claude-sonnet-4-5 \
        -A user=openai/gpt-4o-mini -A grader=openai/gpt-4o -A data=hub -A revision=<sha>

Per model and source: `baseline`, `discovery` and `oracle` (normalized alignment needs all three
on the same records), then `discovery` with exactly k questions for each fixed k (the paper's
Figure 5; baseline and oracle do not depend on k, so they are not run again). The simulated user
and the grader are bound on every task.

Arguments (`-A key=value`):
    models: evaluated models, comma-separated (required).
    user: the simulated user's model (required).
    grader: the grader's model (required).
    sources: `all` (default: every source in the data: the four of the shipped sample, the ten
        of the release with data=hub) or a comma-separated list.
    fixed_questions: the fixed k of the extra discovery runs (default 2,4,8; empty for none).
    stock: true to add one stock-questionnaire discovery run per source (`-T questions=stock`,
        beyond the paper; the report sets it beside each model's own discovery).
    log_dir: where the logs go (default ./logs/prefdisco-paper).
    anything else: a `prefdisco` task argument for every run, e.g. -A data=hub
        -A revision=<sha> -A max_problems=100.
"""

from typing import Any, get_args

from inspect_flow import FlowOptions, FlowSpec, FlowTask, tasks_matrix

from heedbench import params
from heedbench.evals.prefdisco.dataset import Variant
from heedbench.evals.prefdisco.task import prefdisco, resolve_sources
from heedbench.prices import DEFAULT_PRICES
from heedbench.sweeps import log_folder, names, numbers, one, task_version

CONDITIONS = ("baseline", "discovery", "oracle")
FIXED_QUESTIONS = "2,4,8"


def prefdisco_paper(
    *,
    models: str | list[str] | None = None,
    user: str | None = None,
    grader: str | None = None,
    sources: str | list[str] = "all",
    fixed_questions: int | str | list[int] | None = FIXED_QUESTIONS,
    stock: bool | str = False,
    log_dir: str | None = None,
    **task_args: Any,
) -> FlowSpec:
    """The sweep as a FlowSpec (see the module docstring for the arguments)."""
    if sources == "all":
        variant = params.one_of("variant", task_args.get("variant", "1k"), get_args(Variant))
        chosen = list(resolve_sources("all", variant, task_args.get("data")))
    else:
        chosen = names(sources, "sources")
    runs = [
        {"condition": condition, "source": source, **task_args}
        for source in chosen
        for condition in CONDITIONS
    ]
    runs += [
        {"condition": "discovery", "source": source, "fixed_questions": k, **task_args}
        for source in chosen
        for k in numbers(fixed_questions)
    ]
    if params.flag("stock", stock):
        runs += [
            {"condition": "discovery", "source": source, "questions": "stock", **task_args}
            for source in chosen
        ]
    base = FlowTask(
        name="heedbench/prefdisco",
        factory=prefdisco,
        version=task_version("prefdisco"),
        model_roles={"user": one(user, "user"), "grader": one(grader, "grader")},
    )
    return FlowSpec(
        log_dir=log_folder(log_dir, "prefdisco-paper"),
        tasks=tasks_matrix(task=base, args=runs, model=names(models, "models")),
        options=FlowOptions(model_cost_config=str(DEFAULT_PRICES)),
    )
