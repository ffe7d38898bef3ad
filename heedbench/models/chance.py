"""`heedbench/random`: a seeded chance-level chooser, the reference row of every `choice` table.

(Served by `heedbench.models.api`; this module is the pure answer function.)

It reads a prompt back with the template it was built from (`read_prompt`) and answers in
the requested JSON: a random option for a pairwise query (including "none" when the template
allows it), a random integer in the offered range for a pointwise query, a random permutation
for a listwise query. Answers are a function of the seed and the prompt only, so runs are
reproducible at any concurrency.
"""

import hashlib
import json
import random

from heedbench.solvers.choice.prompts import read_prompt

FALLBACK_REPLY = "I am a random baseline and only answer heedbench choice prompts."


def chance_answer(prompt: str, rng: random.Random) -> str:
    """A uniformly random, well-formed answer to a heedbench choice prompt."""
    found = read_prompt(prompt)
    if found is None:
        return FALLBACK_REPLY
    template, fields = found
    if template.kind == "pairwise":
        options = [fields["object1"], fields["object2"]] + (
            ["none"] if template.allows_none else []
        )
        return json.dumps({"answer": rng.choice(options)})
    if template.kind == "listwise":
        objects = [obj.strip() for obj in fields["objects"].split(",") if obj.strip()]
        rng.shuffle(objects)
        return json.dumps({"ranking": objects})
    low, high = sorted((int(fields["score_low"]), int(fields["score_high"])))
    return json.dumps({"score": rng.randint(low, high)})


def chance_reply(prompt: str, seed: int = 0) -> str:
    """What `heedbench/random` with `-M seed=<seed>` answers to `prompt`.

    The prompt is the chat's messages joined by newlines. A pure function, so the chance
    rows of the `choice` reference table can be computed offline without running a model.
    """
    digest = hashlib.sha256(f"{seed}\n{prompt}".encode()).digest()
    return chance_answer(prompt, random.Random(int.from_bytes(digest[:8], "big")))
