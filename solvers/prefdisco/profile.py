"""Rendering a persona and its preferences as text for the oracle and the simulated user.

The oracle condition and the simulated user see the same text, so the oracle's advantage is
exactly the information the discovery condition has to ask for. Two renderings:

- `paper_profile` (protocol `paper`): the fields the PrefDisco reference evaluator puts in its
  profile string — identity, demographics and expertise; knowledge level, learning style,
  problem-solving style, confidence, anxiety triggers and motivation; the written descriptions
  of openness, conscientiousness and extraversion ("social style"); the backstory — and then
  every preference with all its fields, description included.
- `persona_profile` + `preference_profile` (protocol `budgeted`): a shorter card (Big Five as
  scores only) and one line per preference without its description.
"""

from collections.abc import Mapping
from typing import Any

_PERSONA_FIELDS = (
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

_PAPER_IDENTITY = (
    ("Name", ("name",)),
    ("In short", ("minimal_necessary_description",)),
    ("Age", ("demographics", "age")),
    ("Occupation", ("demographics", "occupation")),
    ("Location", ("demographics", "location")),
    ("Hobbies", ("demographics", "hobbies")),
    ("Areas of expertise", ("domain_expertise",)),
)
_PAPER_LEARNING = (
    ("Knowledge level", ("educational_profile", "knowledge_level")),
    ("Learning style", ("educational_profile", "cognitive_features", "learning_style")),
    ("Problem-solving style", ("educational_profile", "cognitive_features", "problem_solving")),
    ("Confidence", ("educational_profile", "affective_features", "confidence")),
    ("Anxiety triggers", ("educational_profile", "affective_features", "anxiety_triggers")),
    ("Motivation", ("educational_profile", "affective_features", "motivation")),
)
_PAPER_PERSONALITY = (
    ("Openness", "openness"),
    ("Conscientiousness", "conscientiousness"),
    ("Social style", "extraversion"),
)
"""The Big Five traits whose descriptions the reference shows (it leaves out agreeableness
and neuroticism, and the 1-5 scores)."""

_PREFERENCE_FIELDS = (
    ("What it is", "description"),
    ("Scale", "value_range"),
    ("Preferred value", "value"),
    ("Importance to this person (1-5)", "local_importance"),
    ("Why", "justification"),
    ("Kind", "type"),
    ("Setting", "problem_context"),
)
_PREFERENCE_SKIPPED = frozenset({"name"})


def _lookup(data: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = data
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _text(value: Any) -> str:
    return ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)


def _absent(value: Any) -> bool:
    return value is None or value in ("", [])


def _field_lines(
    data: Mapping[str, Any], fields: tuple[tuple[str, tuple[str, ...]], ...]
) -> list[str]:
    return [
        f"- {label}: {_text(value)}"
        for label, path in fields
        if not _absent(value := _lookup(data, path))
    ]


def persona_profile(persona: Mapping[str, Any]) -> str:
    """The persona as short labelled lines; absent fields are left out (protocol budgeted)."""
    lines = _field_lines(persona, _PERSONA_FIELDS)
    big5 = persona.get("personality_big5")
    if isinstance(big5, Mapping):
        traits = [
            f"{trait} {entry.get('score')}/5"
            for trait, entry in big5.items()
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


def _personality_lines(persona: Mapping[str, Any]) -> list[str]:
    big5 = persona.get("personality_big5")
    if not isinstance(big5, Mapping):
        return []
    lines = []
    for label, trait in _PAPER_PERSONALITY:
        entry = big5.get(trait)
        description = entry.get("description") if isinstance(entry, Mapping) else None
        if not _absent(description):
            lines.append(f"- {label}: {description}")
    return lines


def full_preference_profile(preferences: Mapping[str, Mapping[str, Any]]) -> str:
    """Every preference with every field the release gives it, description first."""
    blocks = []
    for name, entry in preferences.items():
        lines = [f"- {name}"]
        known = {key for _, key in _PREFERENCE_FIELDS}
        for label, key in _PREFERENCE_FIELDS:
            if not _absent(entry.get(key)):
                lines.append(f"  {label}: {_text(entry[key])}")
        for key, value in entry.items():
            if key not in known and key not in _PREFERENCE_SKIPPED and not _absent(value):
                lines.append(f"  {key}: {_text(value)}")
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def paper_profile(persona: Mapping[str, Any], preferences: Mapping[str, Mapping[str, Any]]) -> str:
    """The whole profile the reference shows its oracle and its simulated user (protocol paper).

    Sections with nothing in them are left out; the preferences always come last.
    """
    sections = [
        ("About the person", _field_lines(persona, _PAPER_IDENTITY)),
        ("How they learn", _field_lines(persona, _PAPER_LEARNING)),
        ("Personality", _personality_lines(persona)),
    ]
    parts = [f"{title}:\n" + "\n".join(lines) for title, lines in sections if lines]
    backstory = persona.get("backstory")
    if not _absent(backstory):
        parts.append(f"Backstory: {backstory}")
    parts.append(
        "Their preferences for this task, one entry per dimension:\n"
        + full_preference_profile(preferences)
    )
    return "\n\n".join(parts)
