"""The `heedbench/random` baseline answers every template well-formed, reproducibly."""

import asyncio
import random

import pytest
from inspect_ai.model import get_model

from heedbench.models.chance import chance_answer
from heedbench.solvers.choice.parse import parse_pairwise, parse_ranking, parse_score
from heedbench.solvers.choice.prompts import TEMPLATES

OBJECTS = ["umbrella", "sun hat", "wool hat", "first-aid kit"]
FIELDS = {
    "context": "Driving to the beach on a hot day.",
    "object1": "umbrella",
    "object2": "sun hat",
    "object": "wool hat",
    "objects": ", ".join(OBJECTS),
    "score_low": 1,
    "score_high": 7,
}


def render(template_id: str) -> str:
    template = TEMPLATES[template_id]
    return template.system.format(**FIELDS) + "\n" + template.user.format(**FIELDS)


@pytest.mark.parametrize("template_id", sorted(TEMPLATES))
def test_every_template_gets_a_valid_answer(template_id: str) -> None:
    template = TEMPLATES[template_id]
    seen: set[object] = set()
    for seed in range(60):
        reply = chance_answer(render(template_id), random.Random(seed))
        if template.kind == "pairwise":
            answer = parse_pairwise(reply, "umbrella", "sun hat", template.allows_none)
            assert answer is not None
            seen.add(answer)
        elif template.kind == "pointwise":
            score = parse_score(reply, 1, 7)
            assert score is not None
            seen.add(score)
        else:
            ranking = parse_ranking(reply, OBJECTS)
            assert ranking is not None
            seen.add(tuple(ranking))
    if template.kind == "pairwise":
        expected: set[object] = {"umbrella", "sun hat"}
        if template.allows_none:
            expected.add("none")
        assert seen == expected
    elif template.kind == "pointwise":
        assert seen == set[object](range(1, 8))
    else:
        assert len(seen) > 10


def test_answers_depend_on_seed_and_prompt_only() -> None:
    prompt = render("T1")

    def reply(seed: int) -> str:
        model = get_model("heedbench/random", seed=seed, memoize=False)
        return asyncio.run(model.generate(prompt)).completion

    assert reply(3) == reply(3)
    assert len({reply(seed) for seed in range(20)}) > 1


def test_unknown_model_name_is_refused() -> None:
    with pytest.raises(ValueError, match="heedbench/random"):
        get_model("heedbench/oracle")
