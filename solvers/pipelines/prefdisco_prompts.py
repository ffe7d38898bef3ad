"""Prompts of the PrefDisco build (heedbench's own wording) and their reply schemas."""

import json
from collections.abc import Mapping
from typing import Any

from inspect_ai.model import ResponseSchema
from inspect_ai.util import JSONSchema

from heedbench.evals.prefdisco.sources import Problem
from heedbench.scorers.judge.call import verdict_schema
from heedbench.solvers.pipelines.prefdisco_checks import (
    AFFECTIVE,
    BIG_FIVE,
    COGNITIVE,
    METACOGNITIVE,
)
from heedbench.solvers.prefdisco.profile import persona_profile

SCORE_WORDS = {1: "very low", 2: "low", 3: "average", 4: "high", 5: "very high"}

PERSONA = """Invent one realistic person who might ask an AI assistant for help with \
problems in mathematics, science, medicine, everyday reasoning or general knowledge. The \
person will be used to test whether assistants adapt their explanations to who is asking.

Starting point (keep to it):
- age: {age}
- lives in: {region}
- works or studies in: {field}
- Big Five personality: {big5}

Make the person specific and internally consistent: a full name that fits where they live, a \
one-sentence summary of who they are, their background story (three to five sentences), the \
areas they know well, their family situation and hobbies, and how they learn: their \
knowledge level, typical mistakes, learning style, attention span, memory strengths, problem \
solving, how they like to work with others, their confidence, what makes them anxious, what \
motivates them, how they face challenges, and how aware they are of their own thinking. \
Describe each Big Five trait in a short phrase that fits the score. Avoid stereotypes and \
avoid a generic "average" person.

Reply with a JSON object only, with exactly these keys:
{shape}"""

PROFILE = """A person is about to ask an AI assistant for help with the task below. Decide \
what this person, on this task, would want from the answer.

The task:
{task}

The person:
{persona}

Give exactly {count} dimensions along which a good answer to this task should be shaped for \
this person. Choose dimensions that would change how the reasoning is explained or presented \
for this person on this task: skip ones that do not matter here.
- {expertise_low} to {expertise_high} dimensions have type "expertise": how familiar the \
person is with a concept or skill this task needs (for example "Familiarity with Modular \
Arithmetic" or "Comfort with Medical Terminology").
- The rest have type "personal": how they like explanations, examples, structure, tone, \
pace, visual aids, encouragement and so on.
- Name each dimension with a short title. Do not start it with "Preference for", "Desire \
for" or "Need for".
- description: what the dimension measures. value_range: a 1-5 scale with what 1, 3 and 5 \
mean, or a short list of categories. value: the person's preferred value on that range (a \
number 1-5 or one category).
- local_importance: 1-5, how much this dimension matters for this person on this task; \
vary it, so that a few dimensions clearly matter most.
- justification: one or two sentences grounding the value and importance in the person's \
background and this task.

Reply with a JSON object only: {{"dimensions": [{{"name": "...", "description": "...", \
"value_range": "...", "value": 4, "local_importance": 3, "justification": "...", \
"type": "personal"}}, ...]}}"""

RUBRIC = """We are writing a scoring rubric for answers to the task below, written for one \
particular person whose preferred values are known.

The task:
{task}

The person's preferences (name, what it measures, scale, preferred value, why):
{dimensions}

For every dimension above, write a criterion that a grader can apply to an answer alone:
- description: what the grader checks, stating the person's preferred value.
- level_5: what an answer that fully matches the preferred value looks like, concretely \
for this task.
- level_3: what a partial match looks like (right in places, off in others).
- level_1: what an answer that ignores or contradicts the preference looks like.
Describe observable features of the answer (length, notation, examples, structure, tone), \
not the grader's impressions. Use each dimension's name exactly as given, once.

Reply with a JSON object only: {{"criteria": [{{"preference": "<dimension name>", \
"description": "...", "level_1": "...", "level_3": "...", "level_5": "..."}}, ...]}}"""


def persona_prompt(brief: Mapping[str, Any]) -> str:
    """Ask for one persona that keeps to a seeded starting point."""
    big5 = ", ".join(
        f"{trait} {score}/5 ({SCORE_WORDS[score]})" for trait, score in brief["big5"].items()
    )
    return PERSONA.format(
        age=brief["age"], region=brief["region"], field=brief["field"], big5=big5,
        shape=json.dumps(PERSONA_SHAPE, indent=1),
    )  # fmt: skip


def _persona_text(persona: Mapping[str, Any]) -> str:
    big5 = persona.get("personality_big5") or {}
    traits = "\n".join(
        f"- {trait}: {entry.get('score')}/5, {entry.get('description', '')}"
        for trait, entry in big5.items()
        if isinstance(entry, Mapping)
    )
    return f"{persona_profile(persona)}\n{traits}".strip()


def profile_prompt(
    problem: Problem, persona: Mapping[str, Any], count: int, expertise: tuple[int, int]
) -> str:
    """Ask for a sparse preference profile of this persona on this problem."""
    return PROFILE.format(
        task=problem.task_text(), persona=_persona_text(persona), count=count,
        expertise_low=expertise[0], expertise_high=expertise[1],
    )  # fmt: skip


def rubric_prompt(problem: Problem, profile: Mapping[str, Mapping[str, Any]]) -> str:
    """Ask for levels 1, 3 and 5 of every dimension of the profile."""
    lines = "\n".join(
        f"- {name}: {entry['description']} Scale: {entry['value_range']}. Preferred: "
        f"{entry['value']}. Why: {entry['justification']}"
        for name, entry in profile.items()
    )
    return RUBRIC.format(task=problem.task_text(), dimensions=lines)


def _string(description: str = "") -> JSONSchema:
    return JSONSchema(type="string", description=description or None)


def _obj(fields: Mapping[str, JSONSchema]) -> JSONSchema:
    return JSONSchema(
        type="object", properties=dict(fields), required=list(fields), additionalProperties=False
    )


def _strings(fields: tuple[str, ...]) -> JSONSchema:
    return _obj({field: _string() for field in fields})


_LIST = JSONSchema(type="array", items=JSONSchema(type="string"))
_SCORE = JSONSchema(type="integer", enum=[1, 2, 3, 4, 5])

PERSONA_SCHEMA: ResponseSchema = verdict_schema(
    "persona",
    {
        "name": _string("given name and last name"),
        "minimal_necessary_description": _string("one sentence: who the person is"),
        "backstory": _string(),
        "domain_expertise": _LIST,
        "demographics": _obj({
            "age": JSONSchema(type="integer"), "occupation": _string(), "location": _string(),
            "family_context": _string(), "hobbies": _LIST,
        }),
        "educational_profile": _obj({
            "knowledge_level": _string(), "common_errors": _string(),
            "cognitive_features": _strings(COGNITIVE),
            "affective_features": _strings(AFFECTIVE),
            "metacognitive_features": _strings(METACOGNITIVE),
        }),
        "personality_big5": _obj({
            trait: _obj({"score": _SCORE, "description": _string()}) for trait in BIG_FIVE
        }),
    },
)  # fmt: skip

PERSONA_SHAPE: dict[str, Any] = {
    "name": "...",
    "minimal_necessary_description": "...",
    "backstory": "...",
    "domain_expertise": ["..."],
    "demographics": {"age": 0, "occupation": "...", "location": "...",
                     "family_context": "...", "hobbies": ["..."]},
    "educational_profile": {
        "knowledge_level": "...", "common_errors": "...",
        "cognitive_features": dict.fromkeys(COGNITIVE, "..."),
        "affective_features": dict.fromkeys(AFFECTIVE, "..."),
        "metacognitive_features": dict.fromkeys(METACOGNITIVE, "..."),
    },
    "personality_big5": {trait: {"score": 0, "description": "..."} for trait in BIG_FIVE},
}  # fmt: skip
"""The reply's shape, shown in the prompt for providers without structured output."""

PROFILE_SCHEMA: ResponseSchema = verdict_schema(
    "preference_profile",
    {
        "dimensions": JSONSchema(
            type="array",
            items=_obj({
                "name": _string(), "description": _string(), "value_range": _string(),
                "value": JSONSchema(anyOf=[JSONSchema(type="integer"), JSONSchema(type="string")]),
                "local_importance": _SCORE, "justification": _string(),
                "type": JSONSchema(type="string", enum=["expertise", "personal"]),
            }),
        )
    },
)  # fmt: skip

RUBRIC_SCHEMA: ResponseSchema = verdict_schema(
    "rubric",
    {
        "criteria": JSONSchema(
            type="array",
            items=_obj({
                "preference": _string(), "description": _string(), "level_1": _string(),
                "level_3": _string(), "level_5": _string(),
            }),
        )
    },
)  # fmt: skip
