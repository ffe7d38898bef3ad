"""One model query per call: fill a template, generate, parse, and keep count.

Counting lives here so every design reports queries spent and ⊥ answers the same way.
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import CachePolicy, ChatMessage, ChatMessageSystem, ChatMessageUser, Model

from heedbench.calls import FailedCall, generate_checked
from heedbench.solvers.choice.parse import parse_pairwise, parse_ranking, parse_score
from heedbench.solvers.choice.prompts import ChoiceTemplate

MAX_INVALID_EXAMPLES = 5
"""Raw ⊥ replies kept per sample, enough to diagnose a format problem in the log."""


@dataclass
class ChoiceQuerier:
    """Asks the evaluated model about one context and tallies what came back."""

    model: Model
    template: ChoiceTemplate
    context: str
    score_low: int = 1
    score_high: int = 5
    cache: bool | CachePolicy = False
    queries: int = 0
    invalid: int = 0
    invalid_examples: list[dict[str, Any]] = field(default_factory=list)
    failed_calls: list[str] = field(default_factory=list)
    """Why calls gave no answer at all (blocked, context overflow): not ⊥, not the model's."""
    stop_reasons: Counter[str] = field(default_factory=Counter)

    def prompt(self, **fields: Any) -> tuple[str, str]:
        """The system and the user message of one query with these fields filled in."""
        fields = {"context": self.context, "score_low": self.score_low,
                  "score_high": self.score_high, **fields}  # fmt: skip
        return self.template.system.format(**fields), self.template.user.format(**fields)

    async def _ask(self, **fields: Any) -> str | None:
        self.queries += 1
        return await self.reply(*self.prompt(**fields))

    async def reply(self, system: str, user: str) -> str | None:
        """The model's reply to one query; None (and the reason kept) when the call failed."""
        messages: list[ChatMessage] = [
            ChatMessageSystem(content=system),
            ChatMessageUser(content=user),
        ]
        try:
            output = await generate_checked(self.model, messages, role="target", cache=self.cache)
        except FailedCall as failure:
            self.failed_calls.append(str(failure))
            return None
        self.stop_reasons[output.stop_reason] += 1
        return output.completion

    def _count(self, parsed: Any, reply: str | None, query: dict[str, Any]) -> None:
        if parsed is None and reply is not None:
            self.invalid += 1
            if len(self.invalid_examples) < MAX_INVALID_EXAMPLES:
                self.invalid_examples.append({**query, "reply": reply[:500]})

    async def pairwise(self, first: str, second: str) -> str | None:
        """Q(first, second): `first`, `second`, `"none"` or None (⊥)."""
        reply = await self._ask(object1=first, object2=second)
        if reply is None:
            return None
        answer = parse_pairwise(reply, first, second, self.template.allows_none)
        self._count(answer, reply, {"object1": first, "object2": second})
        return answer

    async def score(self, obj: str) -> int | None:
        """The pointwise score of one object, or None (⊥)."""
        reply = await self._ask(object=obj)
        if reply is None:
            return None
        value = parse_score(reply, self.score_low, self.score_high)
        self._count(value, reply, {"object": obj})
        return value

    async def ranking(self, objects: Sequence[str]) -> list[str] | None:
        """A full ranking of `objects`, or None unless it is an exact permutation."""
        reply = await self._ask(objects=", ".join(objects))
        if reply is None:
            return None
        ranking = parse_ranking(reply, objects)
        self._count(ranking, reply, {"objects": len(objects)})
        return ranking

    @property
    def invalid_rate(self) -> float:
        """Share of answered queries that were ⊥ (failed calls are not answers)."""
        answered = self.queries - len(self.failed_calls)
        return self.invalid / answered if answered else float("nan")
