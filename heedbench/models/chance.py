"""`heedbench/random`: a seeded chance-level chooser, the reference row of every `choice` table.

(Served by `heedbench.models.api`; this module is the pure answer function.)

It reads heedbench's own prompt formats and answers in the requested JSON: a random option
for a pairwise query (including "none" when the prompt offers it), a random integer in the
offered range for a pointwise query, a random permutation for a listwise query. Answers are a
function of the seed and the prompt only, so runs are reproducible at any concurrency.
"""

import hashlib
import json
import random
import re

_FIELD = re.compile(r"^(Object 1|Object 2|Object|Objects|Context):[ \t]*(.*)$", re.MULTILINE)
_RANGE = re.compile(r"(-?\d+) to (-?\d+)")
_OFFERS_NONE = re.compile(r"\banswer none\b", re.IGNORECASE)
FALLBACK_REPLY = "I am a random baseline and only answer heedbench choice prompts."


def chance_answer(prompt: str, rng: random.Random) -> str:
    """A uniformly random, well-formed answer to a heedbench choice prompt."""
    fields = {key: value.strip() for key, value in _FIELD.findall(prompt)}
    if "Object 1" in fields and "Object 2" in fields:
        options = [fields["Object 1"], fields["Object 2"]]
        if _OFFERS_NONE.search(prompt):
            options.append("none")
        return json.dumps({"answer": rng.choice(options)})
    if "Objects" in fields:
        objects = [obj.strip() for obj in fields["Objects"].split(",") if obj.strip()]
        rng.shuffle(objects)
        return json.dumps({"ranking": objects})
    bounds = _RANGE.search(prompt)
    if "Object" in fields and bounds:
        low, high = sorted((int(bounds.group(1)), int(bounds.group(2))))
        return json.dumps({"score": rng.randint(low, high)})
    return FALLBACK_REPLY


def chance_reply(prompt: str, seed: int = 0) -> str:
    """What `heedbench/random` with `-M seed=<seed>` answers to `prompt`.

    The prompt is the chat's messages joined by newlines. A pure function, so the chance
    rows of the `choice` reference table can be computed offline without running a model.
    """
    digest = hashlib.sha256(f"{seed}\n{prompt}".encode()).digest()
    return chance_answer(prompt, random.Random(int.from_bytes(digest[:8], "big")))
