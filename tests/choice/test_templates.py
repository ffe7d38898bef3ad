"""Templates are built from what they declare, read back by the chance model through the
template itself (a new one is added in test_new_template.py)."""

import pytest

from heedbench.solvers.choice.prompts import TEMPLATES, ChoiceTemplate, read_prompt

FIELDS = {
    "context": "Driving to the beach on a hot day.",
    "object1": "umbrella",
    "object2": "sun hat",
    "object": "wool hat",
    "objects": "umbrella, sun hat, wool hat",
    "score_low": 2,
    "score_high": 9,
}


def render(template: ChoiceTemplate) -> str:
    return f"{template.system.format(**FIELDS)}\n{template.user.format(**FIELDS)}"


@pytest.mark.parametrize("template_id", sorted(TEMPLATES))
def test_a_prompt_reads_back_as_its_template_and_fields(template_id: str) -> None:
    template = TEMPLATES[template_id]
    found = read_prompt(render(template))
    assert found is not None
    read, fields = found
    assert read is template
    assert all(
        FIELDS[name] == value or str(FIELDS[name]) == value for name, value in fields.items()
    )
    assert read_prompt(render(template).replace("Context:", "Situation:")) is None


@pytest.mark.parametrize("template_id", sorted(TEMPLATES))
def test_the_text_says_what_the_template_declares(template_id: str) -> None:
    template = TEMPLATES[template_id]
    assert ("answer none" in template.system) == template.allows_none
    user = template.user.splitlines()
    if template.kind == "pairwise":
        assert user[0].startswith("Object 1" if template.objects_first else "Context")
        assert ('{{"answer": ""}}' in template.system) == template.example
    else:
        assert user[0].startswith("Context") and len(user) == 2


def test_only_pairwise_templates_offer_none_or_reorder() -> None:
    with pytest.raises(ValueError, match="only a pairwise template"):
        ChoiceTemplate("T7", "pointwise", "Score it.", allows_none=True)
