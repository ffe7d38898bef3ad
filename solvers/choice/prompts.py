"""The thirteen `choice` prompt templates, T1–T13, in our own wording.

Ids and what each template varies follow the paper's appendix: pairwise T1, T2, T4, T11 allow
"none"; T3 and T11 list the objects before the context; T2, T3, T11 name the options
"object 1" / "object 2"; T1, T2, T3, T6, T11 show a JSON example while T4, T5 describe the
key and value. Pointwise T7, T8, T12, T13 ask for an integer score (T13 with an example);
listwise T9, T10 ask for the key "ranking" (T9 adds "as a list"). Every template asks for
JSON only.
"""

from dataclasses import dataclass
from typing import Literal

TemplateKind = Literal["pairwise", "pointwise", "listwise"]
TemplateId = Literal[
    "T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10", "T11", "T12", "T13"
]


@dataclass(frozen=True)
class ChoiceTemplate:
    """A system prompt and a user prompt; `str.format` fields fill in the query."""

    id: TemplateId
    kind: TemplateKind
    system: str
    user: str
    allows_none: bool = False


_CONTEXT_FIRST = "Context: {context}\nObject 1: {object1}\nObject 2: {object2}\n"
_OBJECTS_FIRST = "Object 1: {object1}\nObject 2: {object2}\nContext: {context}\n"
_POINTWISE_USER = "Context: {context}\nObject: {object}\n"
_LISTWISE_USER = "Context: {context}\nObjects: {objects}\n"

_PICK = "Your job is to judge which of two objects matters more in a given situation."
_PICK_NUMBERED = (
    "Your job is to judge which of two objects, object 1 or object 2, matters more in a "
    "given situation."
)
_NONE = " If the two matter equally there, answer none."
_EXAMPLE = ' Answer in JSON, shaped like this example: {{"answer": ""}}.'
_DESCRIBED = ' Answer in JSON with the key "answer" and the chosen object\'s name as its value.'
_NO_PROSE = " Give the JSON alone, with no explanation."

TEMPLATES: dict[str, ChoiceTemplate] = {
    t.id: t
    for t in [
        ChoiceTemplate(
            "T1", "pairwise", _PICK + _NONE + _EXAMPLE + _NO_PROSE, _CONTEXT_FIRST, True
        ),
        ChoiceTemplate(
            "T2", "pairwise", _PICK_NUMBERED + _NONE + _EXAMPLE + _NO_PROSE, _CONTEXT_FIRST, True
        ),
        ChoiceTemplate("T3", "pairwise", _PICK_NUMBERED + _EXAMPLE + _NO_PROSE, _OBJECTS_FIRST),
        ChoiceTemplate(
            "T4", "pairwise", _PICK + _NONE + _DESCRIBED + _NO_PROSE, _CONTEXT_FIRST, True
        ),
        ChoiceTemplate("T5", "pairwise", _PICK + _DESCRIBED + _NO_PROSE, _CONTEXT_FIRST),
        ChoiceTemplate("T6", "pairwise", _PICK + _EXAMPLE + _NO_PROSE, _CONTEXT_FIRST),
        ChoiceTemplate(
            "T7",
            "pointwise",
            "Give the object a score from {score_low} to {score_high} for how much it matters "
            'in the situation described. Answer in JSON with the key "score".' + _NO_PROSE,
            _POINTWISE_USER,
        ),
        ChoiceTemplate(
            "T8",
            "pointwise",
            "Rate how relevant the object is to the situation described, on a scale from "
            '{score_low} to {score_high}. Answer in JSON with the key "score" and your rating '
            "as its value." + _NO_PROSE,
            _POINTWISE_USER,
        ),
        ChoiceTemplate(
            "T9",
            "listwise",
            "Order the objects by how much each matters in the situation described, most "
            'important first. Give the ordered objects as a list, in JSON under the key "ranking".'
            + _NO_PROSE,
            _LISTWISE_USER,
        ),
        ChoiceTemplate(
            "T10",
            "listwise",
            "Order the objects by how much each matters in the situation described, most "
            'important first. Answer in JSON with the key "ranking" holding the ordered objects.'
            + _NO_PROSE,
            _LISTWISE_USER,
        ),
        ChoiceTemplate(
            "T11", "pairwise", _PICK_NUMBERED + _NONE + _EXAMPLE + _NO_PROSE, _OBJECTS_FIRST, True
        ),
        ChoiceTemplate(
            "T12",
            "pointwise",
            "Score the object for how much it matters in the situation described. Answer in "
            'JSON with the key "score" and a whole number from {score_low} to {score_high} '
            "as its value." + _NO_PROSE,
            _POINTWISE_USER,
        ),
        ChoiceTemplate(
            "T13",
            "pointwise",
            "Give the object a score from {score_low} to {score_high} for how much it matters "
            'in the situation described. Answer in JSON with the key "score", shaped like this '
            'example: {{"score": ""}}.' + _NO_PROSE,
            _POINTWISE_USER,
        ),
    ]
}


def template_ids(kind: TemplateKind) -> list[str]:
    """The template ids of one kind, in numeric order."""
    return sorted((t.id for t in TEMPLATES.values() if t.kind == kind), key=lambda i: int(i[1:]))
