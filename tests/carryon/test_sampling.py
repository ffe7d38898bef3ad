"""Flow sampling: seeded, distinct, valid, balanced over length and condition."""

import random
from collections import Counter

import pytest

from heedbench.solvers import is_valid_flow
from heedbench.solvers.carryon import flow_condition, flow_strata, sample_flows


def test_same_seed_same_flows() -> None:
    assert sample_flows(15, random.Random(7)) == sample_flows(15, random.Random(7))
    assert sample_flows(15, random.Random(7)) != sample_flows(15, random.Random(8))


def test_flows_are_distinct_valid_and_balanced() -> None:
    flows = sample_flows(15, random.Random(0))
    assert len(set(flows)) == 15 and all(is_valid_flow(f) for f in flows)
    strata = Counter((len(f), flow_condition(f)) for f in flows)
    # 10 strata (5 lengths x BC/NC), 15 draws: every stratum at least once, none more than twice.
    assert len(strata) == 10 and max(strata.values()) == 2


@pytest.mark.parametrize("condition", ["bc", "nc"])
def test_condition_filter(condition: str) -> None:
    flows = sample_flows(15, random.Random(1), condition=condition)  # type: ignore[arg-type]
    assert {flow_condition(f) for f in flows} == {condition}
    assert {len(f) for f in flows} == {1, 2, 3, 4, 5}


def test_small_strata_pass_their_turn_on() -> None:
    # Only 2 BC flows have one follow-up (clarify, reask), 3 NC ones.
    sizes = {key: len(flows) for key, flows in flow_strata(max_followups=1).items()}
    assert sizes == {(1, "bc"): 2, (1, "nc"): 3}
    assert sorted(sample_flows(5, random.Random(0), max_followups=1)) == sorted(
        f for flows in flow_strata(max_followups=1).values() for f in flows
    )
    with pytest.raises(ValueError, match="cannot draw 6"):
        sample_flows(6, random.Random(0), max_followups=1)
