"""CarryOnBench samples: single-turn (turn1, oracle) and multi-turn (BC, NC) conversations.

Each query yields one turn1 sample, one oracle sample and `flows_per_query` conversations whose
flows are drawn with a per-query seed, so a query keeps its flows whatever else is selected.
"""

import random
from collections.abc import Iterable, Sequence

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser

from heedbench.evals.carryon.dataset import CarryOnQuery, review_record
from heedbench.params import ParameterError
from heedbench.seeding import sample_seed
from heedbench.solvers.carryon.flows import flow_condition
from heedbench.solvers.carryon.prompts import ORACLE_QUERY
from heedbench.solvers.carryon.sampling import ConditionFilter, sample_flows

SINGLE_TURN = ("turn1", "oracle")
MULTI_TURN = ("bc", "nc")
CONDITIONS = SINGLE_TURN + MULTI_TURN
CONDITION_SETS: dict[str, tuple[str, ...]] = {
    "all": MULTI_TURN,
    "full": CONDITIONS,
    **{condition: (condition,) for condition in CONDITIONS},
}
"""`-T condition=` values: one condition, `all` (BC and NC), or `full` (all four)."""


def parse_conditions(condition: str | Sequence[str]) -> tuple[str, ...]:
    """The conditions named by `-T condition=` (a name, a comma list or a list), in order."""
    names = condition.split(",") if isinstance(condition, str) else list(condition)
    chosen: list[str] = []
    for name in (str(n).strip().lower() for n in names):
        if name not in CONDITION_SETS:
            raise ParameterError(
                f"-T condition: unknown condition {name!r}; use one of "
                f"{', '.join(CONDITION_SETS)} (or a comma-separated list)"
            )
        chosen += [c for c in CONDITION_SETS[name] if c not in chosen]
    if not chosen:
        raise ParameterError("-T condition: must name at least one condition")
    return tuple(c for c in CONDITIONS if c in chosen)


def _sample(query: CarryOnQuery, condition: str, flow: tuple[str, ...], text: str) -> Sample:
    name = condition if condition in SINGLE_TURN else "-".join(flow)
    return Sample(
        id=f"{query.id}/{name}",
        input=[ChatMessageUser(content=text)],
        metadata={
            "query_id": query.id,
            "category": query.category,
            "subcategory": query.subcategory,
            "condition": condition,
            "flow": list(flow),
            "exchanges": len(flow) + 1,
            "intent": query.intent,
            "review": review_record(query.review) if query.review else None,
            "checklist": [
                {"id": item.id, "question": item.question, "category": item.category}
                for item in query.checklist
            ],
        },
    )


def query_samples(
    query: CarryOnQuery,
    conditions: Sequence[str],
    flows_per_query: int,
    seed: int,
    max_followups: int = 5,
) -> Iterable[Sample]:
    """The samples of one query under the chosen conditions."""
    if "turn1" in conditions:
        yield _sample(query, "turn1", (), query.query)
    if "oracle" in conditions:
        yield _sample(
            query, "oracle", (), ORACLE_QUERY.format(intent=query.intent, query=query.query)
        )
    multi = [c for c in MULTI_TURN if c in conditions]
    if not multi or flows_per_query == 0:
        return
    which: ConditionFilter = "all" if len(multi) == 2 else "bc" if multi == ["bc"] else "nc"
    rng = random.Random(sample_seed(seed, query.id))
    for flow in sample_flows(flows_per_query, rng, which, max_followups):
        yield _sample(query, flow_condition(flow), flow, query.query)


def carryon_samples(
    queries: Sequence[CarryOnQuery],
    conditions: Sequence[str],
    flows_per_query: int = 15,
    seed: int = 0,
    max_followups: int = 5,
) -> MemoryDataset:
    """Every query's samples, in query order."""
    if flows_per_query < 0:
        raise ValueError(f"flows_per_query must be at least 0, got {flows_per_query}")
    samples = [
        sample
        for query in queries
        for sample in query_samples(query, conditions, flows_per_query, seed, max_followups)
    ]
    if not samples:
        raise ValueError("no samples: choose a multi-turn condition with flows_per_query > 0")
    return MemoryDataset(samples, name="carryon")
