"""Model prices used by the cost benchmarks, in one place so they are easy to check and change.

USD per million tokens (input, output), list prices for standard (non-batch, uncached) API
calls as published on the providers' pricing pages; checked 2025-08 (openai.com/api/pricing,
anthropic.com/pricing). Prices change: override with `--prices my_prices.json`
({"provider/model": [input, output], ...}).
"""

import json
from pathlib import Path

PRICES_CHECKED = "2025-08"
PRICES: dict[str, tuple[float, float]] = {
    "openai/gpt-4o-mini": (0.15, 0.60),
    "openai/gpt-4o": (2.50, 10.00),
    "openai/gpt-4.1-mini": (0.40, 1.60),
    "anthropic/claude-sonnet-4-5": (3.00, 15.00),
}


def load_prices(path: str | None) -> dict[str, tuple[float, float]]:
    """The default table, with any entries from a JSON file replacing or adding to it."""
    prices = dict(PRICES)
    if path:
        for model, (price_in, price_out) in json.loads(Path(path).read_text()).items():
            prices[model] = (float(price_in), float(price_out))
    return prices


def dollars(prices: dict[str, tuple[float, float]], model: str, tokens_in: float,
            tokens_out: float) -> float:  # fmt: skip
    """The cost of the tokens at `model`'s prices."""
    price_in, price_out = prices[model]
    return (tokens_in * price_in + tokens_out * price_out) / 1e6
