"""From pairwise answers to a rational preference: Pairwise-Score and Pairwise-SCC.

`answers[(x, y)]` is the answer to the query that presented x first: `x`, `y`, `"none"`
(indifference) or `None` (an invalid answer, ⊥).
"""

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Literal, get_args

import networkx as nx

from heedbench.preference import WeakOrder, by_score

NONE_ANSWER = "none"
"""The answer token for indifference (◇)."""

Answers = Mapping[tuple[str, str], str | None]
Comparison = Literal[">", "<", "="]
Validity = Literal["lenient", "strict"]
VALIDITY_MODES: tuple[Validity, ...] = get_args(Validity)
"""How a pair asked in both presentation orders counts towards a valid context.

`lenient` (the default) follows the paper: ≿Q must be complete, so a pair is decided when
at least one order gave a valid answer. `strict` also requires the other order to be valid:
a pair answered in one order and ⊥ in the other makes the context invalid."""


def weakly_prefers(answers: Answers, x: str, y: str) -> bool:
    """X ≿Q y: some presentation order answered x or "none"."""
    return answers.get((x, y)) in (x, NONE_ANSWER) or answers.get((y, x)) in (x, NONE_ANSWER)


def compare(answers: Answers, x: str, y: str) -> Comparison | None:
    """The queried relation between x and y; None when neither x ≿Q y nor y ≿Q x (⊥)."""
    x_over_y = weakly_prefers(answers, x, y)
    y_over_x = weakly_prefers(answers, y, x)
    if x_over_y and y_over_x:
        return "="
    if x_over_y:
        return ">"
    if y_over_x:
        return "<"
    return None


def is_complete(answers: Answers, objects: Sequence[str]) -> bool:
    """Whether ≿Q relates every pair of objects (no pair left undecided by ⊥ answers)."""
    return all(compare(answers, x, y) is not None for x, y in combinations(objects, 2))


def half_answered(answers: Answers, objects: Sequence[str]) -> int:
    """Pairs asked in both orders where exactly one order was answered ⊥.

    Under the paper's definition such a pair is still decided (by the valid order); this is
    what `-T validity=strict` refuses.
    """
    return sum(
        1
        for x, y in combinations(objects, 2)
        if (x, y) in answers
        and (y, x) in answers
        and (answers[(x, y)] is None) != (answers[(y, x)] is None)
    )


def order_consistency(answers: Answers, objects: Sequence[str]) -> float:
    """Share of pairs whose two presentation orders gave the same valid answer.

    Measures the order bias the paper warns about; NaN when no pair was asked both ways.
    """
    asked_both = [
        (x, y) for x, y in combinations(objects, 2) if (x, y) in answers and (y, x) in answers
    ]
    if not asked_both:
        return float("nan")
    agreeing = sum(
        1
        for x, y in asked_both
        if answers[(x, y)] is not None and answers[(x, y)] == answers[(y, x)]
    )
    return agreeing / len(asked_both)


def pairwise_scores(answers: Answers, objects: Sequence[str]) -> dict[str, float]:
    """score(x) = #{y : x ≻Q y} + 0.5·#{y : x ∼Q y}."""
    scores = dict.fromkeys(objects, 0.0)
    for x, y in combinations(objects, 2):
        relation = compare(answers, x, y)
        if relation == ">":
            scores[x] += 1.0
        elif relation == "<":
            scores[y] += 1.0
        elif relation == "=":
            scores[x] += 0.5
            scores[y] += 0.5
    return scores


def pairwise_score_order(answers: Answers, objects: Sequence[str]) -> WeakOrder:
    """Pairwise-Score: rank by score; equal scores are indifferent.

    Args:
        answers: answer per ordered pair, keyed by presentation order.
        objects: the alternatives; the listing order only breaks ties inside a set.

    Returns:
        A weak order, most preferred set first.
    """
    return by_score(pairwise_scores(answers, objects))


def preference_graph(answers: Answers, objects: Sequence[str]) -> "nx.DiGraph[str]":
    """Directed graph with an edge x → y whenever x ≿Q y."""
    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_nodes_from(objects)
    for x in objects:
        for y in objects:
            if x != y and weakly_prefers(answers, x, y):
                graph.add_edge(x, y)
    return graph


def pairwise_scc_order(answers: Answers, objects: Sequence[str]) -> WeakOrder:
    """Pairwise-SCC: strongly connected components of ≿Q are the indifference sets.

    Components are ordered along the condensation DAG (sources, the most preferred, first).
    With a complete ≿Q the condensation is a chain and the order is unique; otherwise ties
    between incomparable components are broken by the objects' listing order.

    Args:
        answers: answer per ordered pair, keyed by presentation order.
        objects: the alternatives.

    Returns:
        A weak order, most preferred set first.
    """
    position = {obj: i for i, obj in enumerate(objects)}
    graph = preference_graph(answers, objects)
    condensation = nx.condensation(graph)
    members: dict[int, list[str]] = {
        node: sorted(data["members"], key=position.__getitem__)
        for node, data in condensation.nodes(data=True)
    }
    ordered = nx.lexicographical_topological_sort(
        condensation, key=lambda node: position[members[node][0]]
    )
    return [members[node] for node in ordered]
