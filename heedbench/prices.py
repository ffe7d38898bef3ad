"""Token prices for cost estimates: one dated table, overridable with `--prices FILE`.

Used by `heedbench report` and by the cost benchmarks under `benchmarks/`.

Prices are list prices in US dollars per million tokens (input, output) as published by the
providers on PRICES_AS_OF; they change, so check them before quoting a cost. A JSON file given
with `--prices` maps model names to `{"input": ..., "output": ...}` (dollars per million tokens)
and replaces or adds entries. Cached-token discounts are not modelled: every input token is
charged at the input price.
"""

import json
import re
from dataclasses import dataclass
from pathlib import Path

PRICES_AS_OF = "2025-10-01"


@dataclass(frozen=True)
class Price:
    """Dollars per million input and output tokens."""

    input: float
    output: float


PRICES: dict[str, Price] = {
    # local and scripted models cost nothing
    "heedbench/random": Price(0.0, 0.0),
    "mockllm/model": Price(0.0, 0.0),
    # OpenAI
    "openai/gpt-4o": Price(2.50, 10.00),
    "openai/gpt-4o-mini": Price(0.15, 0.60),
    "openai/gpt-4.1": Price(2.00, 8.00),
    "openai/gpt-4.1-mini": Price(0.40, 1.60),
    "openai/gpt-4.1-nano": Price(0.10, 0.40),
    "openai/gpt-5": Price(1.25, 10.00),
    "openai/gpt-5-mini": Price(0.25, 2.00),
    # Anthropic
    "anthropic/claude-sonnet-4-5": Price(3.00, 15.00),
    "anthropic/claude-sonnet-4-0": Price(3.00, 15.00),
    "anthropic/claude-opus-4-1": Price(15.00, 75.00),
    "anthropic/claude-haiku-4-5": Price(1.00, 5.00),
    "anthropic/claude-3-5-haiku-latest": Price(0.80, 4.00),
}
"""Model name as Inspect writes it in logs -> list price."""

_SNAPSHOT = re.compile(r"^-(\d{4}-?\d{2}-?\d{2}|\d{8})$")


def load_prices(path: Path | None) -> dict[str, Price]:
    """The shipped table, with entries from a JSON file (if given) added or replaced.

    Raises:
        ValueError: the file is not a JSON object of `{"input": x, "output": y}` entries.
    """
    prices = dict(PRICES)
    if path is None:
        return prices
    try:
        raw = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"cannot read prices from {path}: {error}") from error
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: expected a JSON object of model -> {{input, output}}")
    for model, entry in raw.items():
        try:
            prices[str(model)] = Price(float(entry["input"]), float(entry["output"]))
        except (TypeError, KeyError, ValueError) as error:
            raise ValueError(
                f"{path}: price for {model!r} needs numeric 'input' and 'output' "
                f"(dollars per million tokens), got {entry!r}"
            ) from error
    return prices


def price_of(model: str, prices: dict[str, Price]) -> Price | None:
    """The price of `model`, also for a dated snapshot of a listed model; None if unknown.

    `mockllm/<anything>` (scripted test models) is free.
    """
    if model in prices:
        return prices[model]
    if model.startswith("mockllm/"):
        return Price(0.0, 0.0)
    for name, price in prices.items():
        if model.startswith(name) and _SNAPSHOT.match(model[len(name) :]):
            return price
    return None


def dollars(prices: dict[str, Price], model: str, tokens_in: float, tokens_out: float) -> float:
    """The cost of `tokens_in` input and `tokens_out` output tokens at `model`'s price.

    Raises:
        ValueError: no price is known for `model` (add one with a prices file).
    """
    price = price_of(model, prices)
    if price is None:
        raise ValueError(f"no price for {model!r}: add it with a prices file (--prices FILE)")
    return (tokens_in * price.input + tokens_out * price.output) / 1e6
