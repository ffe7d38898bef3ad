"""The `choice` paper's sweep: designs x templates x models, one log folder.

    flow run flows/choice_paper.py -A models=openai/gpt-4o,anthropic/claude-sonnet-4-5
    flow run flows/choice_paper.py -A models=heedbench/random -A templates=default -A n=10

Arguments (`-A key=value`):
    models: evaluated models, comma-separated (required).
    designs: `paper` (default: the paper's five designs), `all` (adds pairwise_sort) or a
        comma-separated list.
    templates: `all` (default: every template that fits each design, as the paper searched
        for the best one) or `default` (the paper's best per design only).
    cache: cache model answers (default true): pairwise_score and pairwise_scc ask the same
        questions with the same template, so the second design's questions cost nothing once
        the first has run (set `--set options.max_tasks=1` so they run one after the other).
    log_dir: where the logs go (default ./logs/choice-paper).
    anything else: a `choice` task argument for every run, e.g. -A n=10 -A validity=strict.
"""

from typing import Any

from inspect_flow import FlowOptions, FlowSpec, FlowTask, tasks_matrix

from heedbench.evals.choice.task import choice, fitting_templates, resolve_template
from heedbench.prices import DEFAULT_PRICES
from heedbench.solvers.choice import CHOICE_METHODS
from heedbench.sweeps import PAPER_CHOICE_DESIGNS, log_folder, names, task_version


def choice_paper(
    *,
    models: str | list[str] | None = None,
    designs: str | list[str] = "paper",
    templates: str = "all",
    cache: bool = True,
    log_dir: str | None = None,
    **task_args: Any,
) -> FlowSpec:
    """The sweep as a FlowSpec (see the module docstring for the arguments)."""
    presets: dict[str, list[str]] = {
        "paper": list(PAPER_CHOICE_DESIGNS),
        "all": list(CHOICE_METHODS),
    }
    chosen = presets.get(str(designs)) or names(designs, "designs")
    if templates not in ("all", "default"):
        raise ValueError(f"-A templates: all or default, got {templates!r}")
    base = FlowTask(name="heedbench/choice", factory=choice, version=task_version("choice"))
    tasks: list[FlowTask] = []
    for design in chosen:
        fitting = (
            fitting_templates(design) if templates == "all" else [resolve_template(design, None)]
        )
        tasks += tasks_matrix(
            task=base,
            args=[{"method": design, "template": t, "cache": cache, **task_args} for t in fitting],
            model=names(models, "models"),
        )
    return FlowSpec(
        log_dir=log_folder(log_dir, "choice-paper"),
        tasks=tasks,
        options=FlowOptions(
            model_cost_config=str(DEFAULT_PRICES),
            log_realtime=False,  # the live sample buffer costs a third of each query's CPU
        ),
    )
