"""Token prices for cost estimates, kept in Inspect's own model-cost format.

Inspect prices model calls itself when `inspect eval` is given `--model-cost-config FILE`: a
YAML or JSON mapping of model name to `input`, `output`, `input_cache_write` and
`input_cache_read`, US dollars per million tokens (`inspect_ai.model.ModelCost`). It then
records each call's cost and writes the totals into the log (`total_cost` in
`stats.model_usage` and `stats.role_usage`), which `heedbench report` uses as they are.

The same format is the one price table here: `prices.yaml` beside this module (list prices on
PRICES_AS_OF), which can be passed to `--model-cost-config` as it is, prices the tokens of logs
made without that flag and the cost benchmarks under `benchmarks/`; `--prices FILE` adds or
replaces entries. Pricing uses Inspect's own arithmetic (`compute_model_cost`), cached tokens
included where a log counts them.
"""

import re
from collections.abc import Mapping
from pathlib import Path

import yaml
from inspect_ai.model import ModelCost
from pydantic import ValidationError

PRICES_AS_OF = "2025-10-01"
DEFAULT_PRICES = Path(__file__).with_name("prices.yaml")
"""The shipped price table, in Inspect's `--model-cost-config` format."""
FREE_PREFIXES = ("mockllm/", "heedbench/")
"""Scripted test models and the suite's own local providers (`heedbench/random`) cost nothing."""
FREE = ModelCost(input=0.0, output=0.0, input_cache_write=0.0, input_cache_read=0.0)

_SNAPSHOT = re.compile(r"^-(\d{4}-?\d{2}-?\d{2}|\d{8})$")


def read_cost_config(path: Path) -> dict[str, ModelCost]:
    """A model-cost file as Inspect reads it (YAML or JSON), every entry checked.

    Raises:
        ValueError: the file cannot be read, is not a mapping of model names to prices, or an
            entry lacks one of Inspect's four prices or holds a non-number.
    """
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise ValueError(f"cannot read prices from {path}: {error}") from error
    if not isinstance(raw, Mapping):
        raise ValueError(
            f"{path}: expected Inspect's model-cost format, a mapping of model names to "
            "{input, output, input_cache_write, input_cache_read}"
        )
    prices: dict[str, ModelCost] = {}
    for model, entry in raw.items():
        try:
            prices[str(model)] = ModelCost.model_validate(entry)
        except ValidationError as error:
            raise ValueError(
                f"{path}: price for {model!r} needs numeric input, output, input_cache_write "
                f"and input_cache_read (dollars per million tokens), got {entry!r}"
            ) from error
    return prices


def load_prices(path: Path | None = None) -> dict[str, ModelCost]:
    """The shipped table, with the entries of a model-cost file (if given) added or replaced.

    Raises:
        ValueError: the file is not in Inspect's model-cost format (see `read_cost_config`).
    """
    prices = read_cost_config(DEFAULT_PRICES)
    if path is not None:
        prices.update(read_cost_config(path))
    return prices


def price_of(model: str, prices: Mapping[str, ModelCost]) -> ModelCost | None:
    """The price of `model`, also for a dated snapshot of a listed model; None if unknown.

    A listed price wins; otherwise scripted (`mockllm/...`) and the suite's own local models
    (`heedbench/...`) are free.
    """
    if model in prices:
        return prices[model]
    if model.startswith(FREE_PREFIXES):
        return FREE
    for name, price in prices.items():
        if model.startswith(name) and _SNAPSHOT.match(model[len(name) :]):
            return price
    return None


def dollars(
    prices: Mapping[str, ModelCost], model: str, tokens_in: float, tokens_out: float
) -> float:
    """The cost of `tokens_in` input and `tokens_out` output tokens at `model`'s price.

    Token counts may be averages (the cost benchmarks estimate them), so this is Inspect's
    formula for uncached tokens rather than a `ModelUsage`, which holds whole tokens.

    Raises:
        ValueError: no price is known for `model` (add one with a prices file).
    """
    price = price_of(model, prices)
    if price is None:
        raise ValueError(f"no price for {model!r}: add it with a prices file (--prices FILE)")
    return (tokens_in * price.input + tokens_out * price.output) / 1e6
