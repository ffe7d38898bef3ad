"""The thirteen `choice` prompt templates, T1–T13, in our own wording, and how to read them back.

Ids and what each template varies follow the paper's appendix: pairwise T1, T2, T4, T11 allow
"none"; T3 and T11 list the objects before the context; T2, T3, T11 name the options
"object 1" / "object 2"; T1, T2, T3, T6, T11 show a JSON example while T4, T5 describe the
key and value. Pointwise T7, T8, T12, T13 ask for an integer score (T13 with an example);
listwise T9, T10 ask for the key "ranking" (T9 adds "as a list"). Every template asks for
JSON only.

A template declares what it varies; its text is built from the declaration, so a template that
allows "none" says so and one that does not never offers it, and its user message has its
kind's shape. `read_prompt` reads a prompt back with the template's own text (the chance
model answers through it), so no other module guesses at the prompt's wording.
"""

import re
from dataclasses import dataclass
from functools import cache
from string import Formatter
from typing import Literal

TemplateKind = Literal["pairwise", "pointwise", "listwise"]
TemplateId = Literal[
    "T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10", "T11", "T12", "T13"
]

_CONTEXT_FIRST = "Context: {context}\nObject 1: {object1}\nObject 2: {object2}\n"
_OBJECTS_FIRST = "Object 1: {object1}\nObject 2: {object2}\nContext: {context}\n"
_USER = {
    "pointwise": "Context: {context}\nObject: {object}\n",
    "listwise": "Context: {context}\nObjects: {objects}\n",
}
_NUMBERS = ("score_low", "score_high")

_PICK = "Your job is to judge which of two objects matters more in a given situation."
_PICK_NUMBERED = (
    "Your job is to judge which of two objects, object 1 or object 2, matters more in a "
    "given situation."
)
_NONE = " If the two matter equally there, answer none."
_EXAMPLE = ' Answer in JSON, shaped like this example: {{"answer": ""}}.'
_DESCRIBED = ' Answer in JSON with the key "answer" and the chosen object\'s name as its value.'
_NO_PROSE = " Give the JSON alone, with no explanation."


@dataclass(frozen=True)
class ChoiceTemplate:
    """One template: what it asks and, for a pairwise one, the switches the paper varies.

    `system` and `user` are built from these fields (`str.format` fields fill in the query),
    so the text cannot disagree with `allows_none` or with the kind's shape.
    """

    id: TemplateId
    kind: TemplateKind
    task: str
    """The instruction before the answer format (the whole instruction for pointwise and
    listwise templates)."""
    allows_none: bool = False
    """Pairwise only: "none" (indifference) is an answer."""
    example: bool = True
    """Pairwise only: a JSON example (else the key and value are described)."""
    objects_first: bool = False
    """Pairwise only: the objects come before the context."""

    def __post_init__(self) -> None:
        if self.kind != "pairwise" and (self.allows_none or self.objects_first):
            raise ValueError(f"{self.id}: only a pairwise template offers none or reorders")

    @property
    def system(self) -> str:
        """The system prompt."""
        if self.kind != "pairwise":
            return self.task + _NO_PROSE
        answer = _EXAMPLE if self.example else _DESCRIBED
        return self.task + (_NONE if self.allows_none else "") + answer + _NO_PROSE

    @property
    def user(self) -> str:
        """The user prompt."""
        if self.kind != "pairwise":
            return _USER[self.kind]
        return _OBJECTS_FIRST if self.objects_first else _CONTEXT_FIRST

    def read(self, prompt: str) -> dict[str, str] | None:
        """The fields of a prompt built from this template, or None when it was not.

        The prompt is the system and the user message joined by a newline.
        """
        found = _pattern(f"{self.system}\n{self.user}").fullmatch(prompt.rstrip() + "\n")
        return None if found is None else {k: v.strip() for k, v in found.groupdict().items()}


@cache
def _pattern(text: str) -> "re.Pattern[str]":
    parts = []
    for literal, name, _, _ in Formatter().parse(text):
        parts.append(re.escape(literal))
        if name:
            value = "-?[0-9]+" if name in _NUMBERS else "[^\n]*"
            parts.append(f"(?P<{name}>{value})")
    return re.compile("".join(parts))


def _pointwise(template_id: TemplateId, task: str) -> ChoiceTemplate:
    return ChoiceTemplate(template_id, "pointwise", task)


def _listwise(template_id: TemplateId, task: str) -> ChoiceTemplate:
    return ChoiceTemplate(template_id, "listwise", task)


_SCORE = "Give the object a score from {score_low} to {score_high} for how much it matters in "
_ORDER = (
    "Order the objects by how much each matters in the situation described, most important first."
)
_RANKING = ' under the key "ranking".'

TEMPLATES: dict[str, ChoiceTemplate] = {
    t.id: t
    for t in [
        ChoiceTemplate("T1", "pairwise", _PICK, allows_none=True),
        ChoiceTemplate("T2", "pairwise", _PICK_NUMBERED, allows_none=True),
        ChoiceTemplate("T3", "pairwise", _PICK_NUMBERED, objects_first=True),
        ChoiceTemplate("T4", "pairwise", _PICK, allows_none=True, example=False),
        ChoiceTemplate("T5", "pairwise", _PICK, example=False),
        ChoiceTemplate("T6", "pairwise", _PICK),
        _pointwise("T7", _SCORE + 'the situation described. Answer in JSON with the key "score".'),
        _pointwise(
            "T8",
            "Rate how relevant the object is to the situation described, on a scale from "
            '{score_low} to {score_high}. Answer in JSON with the key "score" and your rating '
            "as its value.",
        ),
        _listwise("T9", _ORDER + " Give the ordered objects as a list, in JSON" + _RANKING),
        _listwise(
            "T10", _ORDER + ' Answer in JSON with the key "ranking" holding the ordered objects.'
        ),
        ChoiceTemplate("T11", "pairwise", _PICK_NUMBERED, allows_none=True, objects_first=True),
        _pointwise(
            "T12",
            "Score the object for how much it matters in the situation described. Answer in "
            'JSON with the key "score" and a whole number from {score_low} to {score_high} '
            "as its value.",
        ),
        _pointwise(
            "T13",
            _SCORE + 'the situation described. Answer in JSON with the key "score", shaped like '
            'this example: {{"score": ""}}.',
        ),
    ]
}


def template_ids(kind: TemplateKind) -> list[str]:
    """The template ids of one kind, in numeric order."""
    return sorted((t.id for t in TEMPLATES.values() if t.kind == kind), key=lambda i: int(i[1:]))


def read_prompt(prompt: str) -> tuple[ChoiceTemplate, dict[str, str]] | None:
    """The template a prompt was built from and its fields, or None for any other prompt."""
    for template in TEMPLATES.values():
        fields = template.read(prompt)
        if fields is not None:
            return template, fields
    return None
