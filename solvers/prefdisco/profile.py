"""Rendering a persona and its preferences as text for the oracle and the simulated user.

The oracle condition and the simulated user see the same text, so the oracle's advantage is
exactly the information the discovery condition has to ask for. Two renderings:

- `paper_profile` (protocol `paper`): what the reference evaluator puts in its profile string,
  in its order — identity, demographics and expertise; knowledge level, learning style,
  problem-solving style, confidence, anxiety triggers and motivation; the descriptions of
  openness, conscientiousness and extraversion ("social style"); the backstory — every line
  shown, a missing field as "Not specified", and the preferences printed as the release stores
  them (the reference prints the dictionary itself).
- `persona_profile` + `preference_profile` (protocol `budgeted`): a shorter card (Big Five as
  scores only, absent fields left out) and one line per preference without its description.
"""

from collections.abc import Mapping
from typing import Any

Path = tuple[str, ...]
_PERSONA_FIELDS: tuple[tuple[str, Path], ...] = (
    ("Name", ("name",)),
    ("In short", ("minimal_necessary_description",)),
    ("Age", ("demographics", "age")),
    ("Occupation", ("demographics", "occupation")),
    ("Location", ("demographics", "location")),
    ("Family", ("demographics", "family_context")),
    ("Hobbies", ("demographics", "hobbies")),
    ("Expertise", ("domain_expertise",)),
    ("Knowledge level", ("educational_profile", "knowledge_level")),
    ("Common errors", ("educational_profile", "common_errors")),
    ("Learning style", ("educational_profile", "cognitive_features", "learning_style")),
    ("Confidence", ("educational_profile", "affective_features", "confidence")),
    ("Background", ("backstory",)),
)
_LEARNING = ("educational_profile", "cognitive_features")
_FEELING = ("educational_profile", "affective_features")
_PAPER_SECTIONS: tuple[tuple[str, tuple[tuple[str, Path], ...]], ...] = (
    ("About the person", (
        ("Name", ("name",)), ("In short", ("minimal_necessary_description",)),
        ("Age", ("demographics", "age")), ("Occupation", ("demographics", "occupation")),
        ("Location", ("demographics", "location")), ("Hobbies", ("demographics", "hobbies")),
        ("Areas of expertise", ("domain_expertise",)),
    )),
    ("How they learn", (
        ("Knowledge level", ("educational_profile", "knowledge_level")),
        ("Learning style", (*_LEARNING, "learning_style")),
        ("Problem-solving style", (*_LEARNING, "problem_solving")),
        ("Confidence", (*_FEELING, "confidence")),
        ("Anxiety triggers", (*_FEELING, "anxiety_triggers")),
        ("Motivation", (*_FEELING, "motivation")),
    )),
    ("Personality", (
        ("Openness", ("personality_big5", "openness", "description")),
        ("Conscientiousness", ("personality_big5", "conscientiousness", "description")),
        ("Social style", ("personality_big5", "extraversion", "description")),
    )),
)  # fmt: skip
"""The reference's profile lines (it leaves out family, common errors, agreeableness,
neuroticism and the Big Five scores)."""
NOT_SPECIFIED = "Not specified"


def _lookup(data: Mapping[str, Any], path: Path) -> Any:
    value: Any = data
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _text(value: Any) -> str:
    return ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)


def _absent(value: Any) -> bool:
    return value is None or value in ("", [])


def persona_profile(persona: Mapping[str, Any]) -> str:
    """The persona as short labelled lines; absent fields are left out (protocol budgeted)."""
    lines = [
        f"- {label}: {_text(value)}"
        for label, path in _PERSONA_FIELDS
        if not _absent(value := _lookup(persona, path))
    ]
    big5 = persona.get("personality_big5")
    traits = [
        f"{trait} {entry.get('score')}/5"
        for trait, entry in (big5.items() if isinstance(big5, Mapping) else ())
        if isinstance(entry, Mapping)
    ]
    if traits:
        lines.append(f"- Personality (Big Five): {', '.join(traits)}")
    return "\n".join(lines)


def preference_profile(preferences: Mapping[str, Mapping[str, Any]]) -> str:
    """One line per preference dimension: preferred value, scale, importance and why."""
    lines = []
    for name, entry in preferences.items():
        scale = entry.get("value_range")
        scale_text = f" on the scale {scale}" if scale else ""
        lines.append(
            f"- {name}: {entry.get('value')}{scale_text} "
            f"(importance {entry.get('local_importance')}/5). {entry.get('justification', '')}"
        )
    return "\n".join(lines)


def paper_profile(persona: Mapping[str, Any], preferences: Mapping[str, Mapping[str, Any]]) -> str:
    """The whole profile the reference shows its oracle and its simulated user (protocol paper)."""
    parts = []
    for title, lines in _PAPER_SECTIONS:
        values = [(label, _lookup(persona, path)) for label, path in lines]
        shown = [f"- {label}: {NOT_SPECIFIED if _absent(v) else _text(v)}" for label, v in values]
        parts.append(f"{title}:\n" + "\n".join(shown))
    backstory = persona.get("backstory")
    parts.append(f"Backstory: {NOT_SPECIFIED if _absent(backstory) else backstory}")
    parts.append(f"Preferences: {dict(preferences)}")
    return "\n\n".join(parts)
