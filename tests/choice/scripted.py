"""Scripted evaluated models for `choice`: answer from a known weak order, or break it."""

import hashlib
import json
import re
from collections.abc import Callable

from heedbench.evals.choice import choice_dataset
from heedbench.preference import rank_map

_FIELD = re.compile(r"^(Object 1|Object 2|Object|Objects|Context):[ \t]*(.*)$", re.MULTILINE)
_RANGE = re.compile(r"from (\d+) to (\d+)")

Ranks = dict[str, dict[str, int]]


def user_ranks(n: int | None = None, seed: int = 0) -> Ranks:
    """Context text -> object -> index of its indifference set in the user's order."""
    ranks: Ranks = {}
    for sample in choice_dataset(n=n, seed=seed):
        assert sample.metadata is not None
        ranks[sample.metadata["context"]] = rank_map(sample.metadata["user_order"])
    return ranks


def oracle(ranks: Ranks, invert: bool = False, noise: float = 0.0) -> Callable[[str], str]:
    """Answer every query from the user's weak order (reversed when `invert`).

    With `noise`, a deterministic share of pairwise answers is flipped.
    """

    def reply(prompt: str) -> str:
        fields = {key: value.strip() for key, value in _FIELD.findall(prompt)}
        rank = ranks[fields["Context"]]
        sign = -1 if invert else 1

        def key(obj: str) -> int:
            return sign * rank[obj]

        if "Object 1" in fields:
            first, second = fields["Object 1"], fields["Object 2"]
            if key(first) == key(second):
                answer = "none" if "answer none" in prompt else first
            else:
                answer = first if key(first) < key(second) else second
                if noise and _unit(first + "|" + second) < noise:
                    answer = second if answer == first else first
            return json.dumps({"answer": answer})
        if "Objects" in fields:
            objects = [o.strip() for o in fields["Objects"].split(",")]
            return json.dumps({"ranking": sorted(objects, key=key)})
        match = _RANGE.search(prompt)
        assert match, prompt
        high = int(match.group(2))
        return json.dumps(
            {"score": high - rank[fields["Object"]] if not invert else 1 + rank[fields["Object"]]}
        )

    return reply


def malformed(prompt: str) -> str:
    """Prose instead of JSON: every answer is ⊥."""
    return "Honestly, I would pack whatever feels right for the trip."


def _unit(text: str) -> float:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") / 2**32
