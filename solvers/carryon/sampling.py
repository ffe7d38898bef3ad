"""Seeded, stratified choice of conversation flows for each query."""

import random
from collections.abc import Sequence
from functools import cache
from typing import Literal

from heedbench.solvers.carryon.flows import flow_condition, valid_flows

ConditionFilter = Literal["bc", "nc", "all"]
DEFAULT_FLOWS_PER_QUERY = 15


@cache
def flow_strata(
    condition: ConditionFilter = "all", max_followups: int = 5
) -> dict[tuple[int, str], tuple[tuple[str, ...], ...]]:
    """Valid flows grouped by (number of follow-ups, condition), restricted to `condition`.

    Cached (every query of a run asks for the same strata); the groups are tuples, so the
    cached value cannot be changed by a caller.
    """
    strata: dict[tuple[int, str], list[tuple[str, ...]]] = {}
    for flow in valid_flows(max_followups):
        flow_cond = flow_condition(flow)
        if condition in ("all", flow_cond):
            strata.setdefault((len(flow), flow_cond), []).append(flow)
    return {key: tuple(flows) for key, flows in strata.items()}


def sample_flows(
    count: int,
    rng: random.Random,
    condition: ConditionFilter = "all",
    max_followups: int = 5,
) -> list[tuple[str, ...]]:
    """Draw `count` distinct flows spread evenly over length × condition strata.

    Strata are visited in a seeded order, one flow at a time, so lengths and conditions are
    balanced; a stratum that runs out (length-1 flows are few) passes its turn on.

    Raises:
        ValueError: `count` exceeds the number of valid flows available.
    """
    strata = flow_strata(condition, max_followups)
    pools = {key: rng.sample(flows, len(flows)) for key, flows in sorted(strata.items())}
    available = sum(len(pool) for pool in pools.values())
    if not 0 <= count <= available:
        raise ValueError(f"cannot draw {count} distinct flows; {available} are valid")
    order: Sequence[tuple[int, str]] = rng.sample(sorted(pools), len(pools))
    drawn: list[tuple[str, ...]] = []
    while len(drawn) < count:
        for key in order:
            if pools[key] and len(drawn) < count:
                drawn.append(pools[key].pop())
    return drawn
