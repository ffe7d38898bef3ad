"""`heedbench/refusal`: the carryon refusal floor, as an evaluated model.

It answers each exchange of a carryon conversation with one of its query's three shipped
refusals (`datasets/carryon/refusals.jsonl`: terse, with the warning and reasons, a redirect),
in turn, whatever the user says; so a run with any grader measures what not helping earns on
the checklists. The query is the one whose text the conversation's first message holds (the
oracle condition states the intent before it). `-M refusals=` and `-M data=` point it at your
own refusals and queries.
"""

from functools import cache

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser, ModelOutput

from heedbench.evals.carryon import load_queries
from heedbench.evals.carryon.references import load_refusals

UNKNOWN = "I'm sorry, but I can't help with that."
"""The reply to a conversation that opens with no known query."""


@cache
def refusals_by_query(
    refusals: str | None = None, data: str | None = None
) -> dict[str, tuple[str, ...]]:
    """Query text -> its three refusals, for every query that has them."""
    texts = load_refusals(refusals)
    return {query.query: texts[query.id] for query in load_queries(data) if query.id in texts}


def refusal_output(
    model: str, input: list[ChatMessage], refusals: str | None = None, data: str | None = None
) -> ModelOutput:
    """The refusal for this exchange: the next of the query's three, in turn."""
    first = next((m.text for m in input if isinstance(m, ChatMessageUser)), "")
    known = refusals_by_query(refusals, data)
    found = next((texts for query, texts in known.items() if query in first), None)
    turn = sum(isinstance(m, ChatMessageAssistant) for m in input)
    content = UNKNOWN if found is None else found[turn % len(found)]
    return ModelOutput.from_content(model=model, content=content)
