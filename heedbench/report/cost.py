"""Cost per model and role from the runs' token usage and the price table.

Each used run's `stats.role_usage` gives the tokens of every bound role (user, grader) and
`eval.model_roles` the model behind it; the evaluated model's own tokens are its
`stats.model_usage` entry minus any role bound to the same model name.
"""

from collections import defaultdict
from dataclasses import dataclass

from heedbench.prices import PRICES_AS_OF, Price, price_of
from heedbench.report.document import Section, Table
from heedbench.report.load import Loaded, Run

EVALUATED = "evaluated"


@dataclass
class Usage:
    """Tokens of one (model, role) pair over the used runs."""

    input_tokens: int = 0
    output_tokens: int = 0
    runs: int = 0


def _tokens(usage: dict[str, int]) -> tuple[int, int]:
    return int(usage.get("input_tokens", 0) or 0), int(usage.get("output_tokens", 0) or 0)


def run_usage(run: Run) -> dict[tuple[str, str], tuple[int, int]]:
    """(model, role) -> (input, output tokens) of one run; role `evaluated` for the model."""
    out: dict[tuple[str, str], tuple[int, int]] = {}
    own_in, own_out = _tokens(run.model_usage.get(run.model, {}))
    for role, usage in run.role_usage.items():
        model = run.model_roles.get(role, "unknown model")
        tokens = _tokens(usage)
        out[(model, role)] = tokens
        if model == run.model:  # a role bound to the evaluated model is counted once
            own_in, own_out = own_in - tokens[0], own_out - tokens[1]
    out[(run.model, EVALUATED)] = (max(0, own_in), max(0, own_out))
    return out


def usage_by_model_role(
    runs: list[Run],
) -> dict[tuple[str, str, str], Usage]:
    """(family, model, role) -> summed usage over the runs."""
    totals: dict[tuple[str, str, str], Usage] = defaultdict(Usage)
    for run in runs:
        for (model, role), (tokens_in, tokens_out) in run_usage(run).items():
            usage = totals[(run.family or "?", model, role)]
            usage.input_tokens += tokens_in
            usage.output_tokens += tokens_out
            usage.runs += 1
    return dict(totals)


def dollars(usage: Usage, price: Price) -> float:
    """Cost in US dollars (prices are per million tokens)."""
    return (usage.input_tokens * price.input + usage.output_tokens * price.output) / 1e6


def cost_section(loaded: Loaded, prices: dict[str, Price]) -> Section:
    """A table of tokens and cost per family, model and role over the used runs."""
    table = Table(
        caption=f"Tokens and cost per task, model and role (list prices as of {PRICES_AS_OF}, "
        "US dollars per million tokens; override with `--prices FILE`)",
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
        intro="Token usage comes from the logs; cached-token discounts are not modelled. "
        'A model missing from the price table shows "no price".',
        tables=[table],
    )
    total = 0.0
    unpriced = set()
    for (family, model, role), usage in sorted(usage_by_model_role(loaded.used).items()):
        price = price_of(model, prices)
        if price is None:
            unpriced.add(model)
            price_text, cost_text = "no price", "no price"
        else:
            cost = dollars(usage, price)
            total += cost
            price_text = f"{price.input:g} / {price.output:g}"
            cost_text = f"{cost:.4f}"
        table.rows.append(
            [
                family,
                model,
                role,
                str(usage.runs),
                f"{usage.input_tokens:,}",
                f"{usage.output_tokens:,}",
                price_text,
                cost_text,
            ]
        )
    line = f"cost of the used runs: ${total:.4f}"
    if unpriced:
        line += f" (plus runs of models with no price: {', '.join(sorted(unpriced))})"
    section.summary.append(line)
    table.note = line
    return section
