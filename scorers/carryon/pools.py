"""Pooling conversations' score values by group, for per-group means and failure modes."""

import math
from collections.abc import Iterable, Mapping, Sequence


def group_pools(
    rows: Iterable[tuple[str, Mapping[str, float]]], keys: Sequence[str]
) -> dict[tuple[str, str], list[float]]:
    """The (group, key) -> values of (group, score values) rows, NaN (unscored) left out."""
    pools: dict[tuple[str, str], list[float]] = {}
    for group, values in rows:
        for key in keys:
            number = values.get(key)
            if number is not None and not math.isnan(number):
                pools.setdefault((group, key), []).append(float(number))
    return pools
