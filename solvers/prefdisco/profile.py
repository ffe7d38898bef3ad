"""Rendering a persona and its preferences as text for the oracle and the simulated user.

The oracle condition and the simulated user see the same two texts, so the oracle's
advantage is exactly the information the discovery condition has to ask for.
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


def _lookup(data: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = data
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def persona_profile(persona: Mapping[str, Any]) -> str:
    """The persona as short labelled lines; absent fields are left out."""
    lines = []
    for label, path in _PERSONA_FIELDS:
        value = _lookup(persona, path)
        if value in (None, "", []):
            continue
        text = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        lines.append(f"- {label}: {text}")
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
