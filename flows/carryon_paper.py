"""The `carryon` paper's sweep: turn 1, oracle, BC and NC for every model, one log folder.

    flow run flows/carryon_paper.py -A models=openai/gpt-4o-mini,anthropic/claude-sonnet-4-5 \
        -A user=openai/gpt-4o-mini -A grader=openai/gpt-4o

Every model runs four tasks, one per condition (`turn1`, `oracle`, `bc`, `nc`), with the same
simulated user and grader bound on all four, so `heedbench report` reads them as one setting
of the model (the report pools conditions across runs, never settings).

Arguments (`-A key=value`):
    models: evaluated models, comma-separated (required).
    user: the simulated user's model (required).
    grader: the grader's model (required).
    conditions: which of turn1, oracle, bc, nc to run (default: all four).
    flows_per_query: conversations per query in each of bc and nc (default 8; the paper's 15
        per query were split over both).
    log_dir: where the logs go (default ./logs/carryon-paper).
    anything else: a `carryon` task argument for every run, e.g. -A judge=batched.
"""

from typing import Any

from inspect_flow import FlowOptions, FlowSpec, FlowTask, tasks_matrix

from heedbench.evals.carryon.task import carryon
from heedbench.prices import DEFAULT_PRICES
from heedbench.sweeps import log_folder, names, one, task_version

CONDITIONS = "turn1,oracle,bc,nc"
FLOWS_PER_CONDITION = 8


def carryon_paper(
    *,
    models: str | list[str] | None = None,
    user: str | None = None,
    grader: str | None = None,
    conditions: str | list[str] = CONDITIONS,
    flows_per_query: int = FLOWS_PER_CONDITION,
    log_dir: str | None = None,
    **task_args: Any,
) -> FlowSpec:
    """The sweep as a FlowSpec (see the module docstring for the arguments)."""
    base = FlowTask(
        name="heedbench/carryon",
        factory=carryon,
        version=task_version("carryon"),
        model_roles={"user": one(user, "user"), "grader": one(grader, "grader")},
    )
    return FlowSpec(
        log_dir=log_folder(log_dir, "carryon-paper"),
        tasks=tasks_matrix(
            task=base,
            args=[
                {"condition": condition, "flows_per_query": flows_per_query, **task_args}
                for condition in names(conditions, "conditions")
            ],
            model=names(models, "models"),
        ),
        options=FlowOptions(model_cost_config=str(DEFAULT_PRICES)),
    )
