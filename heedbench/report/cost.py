"""Cost per model and role: Inspect's own figure from the log where there is one, else priced.

Each used run's `stats.role_usage` gives the usage of every bound role (user, grader) and
`eval.model_roles` the model behind it; the evaluated model's own usage is its
`stats.model_usage` entry minus any role bound to the same model name. A run made with
`inspect eval --model-cost-config FILE` carries Inspect's cost of that usage (`total_cost`),
which is taken as it is; usage without one is priced with the price table (Inspect's
model-cost format, `heedbench.prices`) by Inspect's own arithmetic, cached tokens included.
"""

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import ModelCost, ModelUsage, compute_model_cost

from heedbench.prices import DEFAULT_PRICES, PRICES_AS_OF, price_of
from heedbench.report.document import Section, Table
from heedbench.report.load import Loaded, Run

EVALUATED = "evaluated"


@dataclass
class Usage:
    """Tokens and cost of one (model, role) pair over the used runs."""

    input_tokens: int = 0
    output_tokens: int = 0
    runs: int = 0
    logged_cost: float = 0.0
    """Inspect's own cost, summed over the runs whose log has one."""
    logged_runs: int = 0
    unlogged: list[ModelUsage] = field(default_factory=list)
    """The usage of runs whose log has no cost, to be priced with the table."""


def _minus(total: ModelUsage, part: ModelUsage) -> ModelUsage:
    """`total` less `part`, field by field (never below zero); the cost only when both have one."""
    less: dict[str, Any] = {}
    for name in ModelUsage.model_fields:
        mine, theirs = getattr(total, name), getattr(part, name)
        unknown = mine is None or (name == "total_cost" and theirs is None)
        less[name] = None if unknown else max(0, mine - (theirs or 0))
    return ModelUsage(**less)


def run_usage(run: Run) -> dict[tuple[str, str], ModelUsage]:
    """(model, role) -> usage of one run; role `evaluated` for the evaluated model."""
    out: dict[tuple[str, str], ModelUsage] = {}
    own = ModelUsage.model_validate(run.model_usage.get(run.model, {}))
    for role, raw in run.role_usage.items():
        model = run.model_roles.get(role, "unknown model")
        usage = ModelUsage.model_validate(raw)
        out[(model, role)] = usage
        if model == run.model:  # a role bound to the evaluated model is counted once
            own = _minus(own, usage)
    out[(run.model, EVALUATED)] = own
    return out


def usage_by_model_role(runs: list[Run]) -> dict[tuple[str, str, str], Usage]:
    """(family, model, role) -> summed usage over the runs."""
    totals: dict[tuple[str, str, str], Usage] = defaultdict(Usage)
    for run in runs:
        for (model, role), usage in run_usage(run).items():
            total = totals[(run.family or "?", model, role)]
            total.input_tokens += usage.input_tokens
            total.output_tokens += usage.output_tokens
            total.runs += 1
            if usage.total_cost is not None:
                total.logged_cost += usage.total_cost
                total.logged_runs += 1
            else:
                total.unlogged.append(usage)
    return dict(totals)


def cost_section(loaded: Loaded, prices: Mapping[str, ModelCost]) -> Section:
    """A table of tokens and cost per family, model and role over the used runs."""
    table = Table(
        caption="Tokens and cost per task, model and role: Inspect's own cost where the log "
        "has one (runs made with `--model-cost-config`), otherwise the tokens priced with "
        f"{DEFAULT_PRICES.name} (list prices as of {PRICES_AS_OF}, US dollars per million "
        "tokens, Inspect's model-cost format; add or replace entries with `--prices FILE`)",
        columns=[
            "task",
            "model",
            "role",
            "runs",
            "input tokens",
            "output tokens",
            "price in / out",
            "cost (USD)",
        ],
        rows=[],
    )
    section = Section(
        title="Cost",
        intro='Token usage comes from the logs. A price column reading "from the log" means '
        "Inspect priced every call itself; a table price covers the runs without a logged "
        'cost, cached tokens at their own rates. A model with neither shows "no price".',
        tables=[table],
    )
    total = 0.0
    unpriced: set[str] = set()
    for (family, model, role), usage in sorted(usage_by_model_role(loaded.used).items()):
        price = price_of(model, prices)
        how: list[str] = []
        cost = usage.logged_cost
        if usage.logged_runs:
            how.append("from the log")
        if usage.unlogged and price is not None:
            how.append(f"{price.input:g} / {price.output:g}")
            cost += sum(compute_model_cost(price, one) for one in usage.unlogged)
        cost_text = f"{cost:.4f}"
        if usage.unlogged and price is None:
            unpriced.add(model)
            how.append("no price")
            cost_text = f"{cost_text} + no price" if usage.logged_runs else "no price"
        total += cost
        table.rows.append(
            [
                family,
                model,
                role,
                str(usage.runs),
                f"{usage.input_tokens:,}",
                f"{usage.output_tokens:,}",
                " + ".join(how),
                cost_text,
            ]
        )
    line = f"cost of the used runs: ${total:.4f}"
    if unpriced:
        line += f" (plus runs of models with no price: {', '.join(sorted(unpriced))})"
    section.summary.append(line)
    table.note = line
    return section
