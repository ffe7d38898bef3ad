"""PrefDisco build: personas, diversity, preference profiles, rubrics and weights.

Pure functions. The readers raise `JudgementError` naming what is wrong, so a step asks the
model again with the problem stated. Facts followed (the public release's schema):

- a persona has the release's fields (demographics, Big Five scores 1–5 with descriptions,
  domain expertise, an educational profile, a backstory); its id is
  `{last name, lower case}_{md5(name + "_" + minimal_necessary_description)[:8]}`;
- a profile is a set of dimensions, each with a value, a local importance 1–5, a
  justification and a type (`expertise` or `personal`); names carry no "Preference for",
  "Desire for" or "Need for" prefix;
- a rubric has one criterion per dimension, exactly the profile's names, with levels for
  scores 1, 3 and 5 and weight = local importance / the profile's total importance;
- a record's `problem_id` is `problem_{i}_{persona_id}`, i the problem's 0-based index.
"""

import hashlib
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from heedbench.jsonparse import get_key
from heedbench.scorers.judge.call import JudgementError

BIG_FIVE = ("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism")
COGNITIVE = ("learning_style", "attention_span", "memory_strengths", "problem_solving",
             "collaboration")  # fmt: skip
AFFECTIVE = ("confidence", "anxiety_triggers", "motivation", "challenge_attitude")
METACOGNITIVE = ("self_awareness", "self_regulation", "reflection", "self_assessment")
MIN_AGE, MAX_AGE = 18, 75
DIMENSION_TYPES = ("expertise", "personal")
NAME_PREFIXES = ("preference for ", "desire for ", "need for ")
RUBRIC_SCORES = (1, 3, 5)
MAX_VALUE_CHARS = 80
RECORD_TYPE = "personalized_problem"

_WORD = re.compile(r"[a-z0-9]+")
_SPACES = re.compile(r"\s+")
_STOPWORDS = frozenset(
    "the and for with who from that this into their her his has have are was were its".split()  # noqa: SIM905 (a word list)
)


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise JudgementError(f"{where}: must be a non-empty string")
    return value.strip()


def _texts(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not value:
        raise JudgementError(f"{where}: must be a non-empty list of strings")
    return [_text(item, f"{where}[{index}]") for index, item in enumerate(value)]


def _integer(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise JudgementError(f"{where}: must be an integer from {low} to {high}, got {value!r}")
    return value


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise JudgementError(f"{where}: must be an object")
    return value


def _texts_of(value: Any, where: str, fields: Sequence[str]) -> dict[str, str]:
    entry = _object(value, where)
    return {field: _text(get_key(dict(entry), field), f"{where}.{field}") for field in fields}


# -- personas ----------------------------------------------------------------------------------


def persona_id(name: str, description: str) -> str:
    """The release's persona id: last name, lower case, and 8 hex digits of an md5."""
    digest = hashlib.md5(f"{name}_{description}".encode()).hexdigest()[:8]
    return f"{name.rsplit(maxsplit=1)[-1].lower()}_{digest}"


def _trait(big5: Mapping[str, Any], trait: str) -> dict[str, Any]:
    where = f"personality_big5.{trait}"
    entry = dict(_object(get_key(dict(big5), trait), where))
    return {
        "score": _integer(get_key(entry, "score"), f"{where}.score", 1, 5),
        "description": _text(get_key(entry, "description"), f"{where}.description"),
    }


def read_persona(verdict: Mapping[str, Any]) -> dict[str, Any]:
    """A persona in the release's field order, its id computed and `usage_count` 0."""
    raw = dict(verdict)
    name = _text(get_key(raw, "name"), "name")
    if len(name.split()) < 2:
        raise JudgementError(f"name: {name!r} needs a given name and a last name")
    description = _text(
        get_key(raw, "minimal_necessary_description"), "minimal_necessary_description"
    )
    demographics = dict(_object(get_key(raw, "demographics"), "demographics"))
    education = dict(_object(get_key(raw, "educational_profile"), "educational_profile"))
    big5 = dict(_object(get_key(raw, "personality_big5"), "personality_big5"))
    where = "educational_profile"
    persona = {
        "name": name,
        "minimal_necessary_description": description,
        "id": persona_id(name, description),
        "usage_count": 0,
        "backstory": _text(get_key(raw, "backstory"), "backstory"),
        "domain_expertise": _texts(get_key(raw, "domain_expertise"), "domain_expertise"),
        "demographics": {
            "age": _integer(get_key(demographics, "age"), "demographics.age", MIN_AGE, MAX_AGE),
            **_texts_of(demographics, "demographics", ("occupation", "location", "family_context")),
            "hobbies": _texts(get_key(demographics, "hobbies"), "demographics.hobbies"),
        },
        "educational_profile": {
            **_texts_of(education, where, ("knowledge_level", "common_errors")),
            **{
                group: _texts_of(get_key(education, group), f"{where}.{group}", fields)
                for group, fields in (
                    ("cognitive_features", COGNITIVE),
                    ("affective_features", AFFECTIVE),
                    ("metacognitive_features", METACOGNITIVE),
                )
            },
        },
        "personality_big5": {trait: _trait(big5, trait) for trait in BIG_FIVE},
    }
    return persona


def check_persona(persona: Any) -> dict[str, Any]:
    """A complete persona (as `read_persona` writes it) whose id matches the formula."""
    if not isinstance(persona, Mapping):
        raise JudgementError("persona: must be an object")
    checked = read_persona(persona)
    if persona.get("id") != checked["id"]:
        raise JudgementError(
            f"persona.id: {persona.get('id')!r} is not the release's id for this name and "
            f"description ({checked['id']!r})"
        )
    return checked


def persona_words(persona: Mapping[str, Any]) -> frozenset[str]:
    """Content words of a persona's summary, occupation and expertise (for diversity)."""
    demographics = persona.get("demographics") or {}
    parts = [
        str(persona.get("minimal_necessary_description", "")),
        str(demographics.get("occupation", "")) if isinstance(demographics, Mapping) else "",
        " ".join(str(area) for area in persona.get("domain_expertise") or []),
    ]
    words = _WORD.findall(" ".join(parts).casefold())
    return frozenset(w for w in words if len(w) >= 3 and w not in _STOPWORDS)


def similarity(first: Mapping[str, Any], second: Mapping[str, Any]) -> float:
    """Jaccard overlap of the two personas' content words (0 when both have none)."""
    a, b = persona_words(first), persona_words(second)
    return len(a & b) / len(a | b) if a | b else 0.0


def near_duplicate(
    first: Mapping[str, Any], second: Mapping[str, Any], threshold: float
) -> str | None:
    """Why `second` is a near-duplicate of `first`, or None."""
    if first.get("id") == second.get("id"):
        return "same persona id"
    if str(first.get("name", "")).casefold() == str(second.get("name", "")).casefold():
        return "same name"
    overlap = similarity(first, second)
    if overlap >= threshold:
        return f"summary, occupation and expertise overlap {overlap:.2f} >= {threshold:.2f}"
    return None


@dataclass(frozen=True)
class Rejection:
    """A persona left out of the library as a near-duplicate of an earlier one."""

    persona_id: str
    duplicate_of: str
    reason: str


def diverse_personas(
    personas: Sequence[Mapping[str, Any]], threshold: float
) -> tuple[list[dict[str, Any]], list[Rejection]]:
    """The personas in order, each rejected when it nearly duplicates one already kept."""
    kept: list[dict[str, Any]] = []
    rejected: list[Rejection] = []
    for persona in personas:
        for earlier in kept:
            reason = near_duplicate(earlier, persona, threshold)
            if reason is not None:
                rejected.append(Rejection(str(persona.get("id")), str(earlier["id"]), reason))
                break
        else:
            kept.append(dict(persona))
    return kept, rejected


REGIONS = (
    "West Africa", "East Africa", "Southern Africa", "North Africa", "the Middle East",
    "South Asia", "Southeast Asia", "East Asia", "Central Asia", "Eastern Europe",
    "Western Europe", "Northern Europe", "Southern Europe", "North America", "Central America",
    "South America", "the Caribbean", "Oceania",
)  # fmt: skip
FIELDS = (
    "health care", "skilled trades", "farming or fishing", "retail and hospitality",
    "software and IT", "the arts", "school teaching", "law or public administration",
    "logistics and transport", "research science", "finance and accounting",
    "a university degree in progress", "retirement after a working life", "engineering",
    "social work and care", "media and communication", "manufacturing", "small business",
    "the military or emergency services", "sport and fitness",
)  # fmt: skip


def persona_briefs(count: int, seed: int) -> list[dict[str, Any]]:
    """`count` seeded starting points for personas that spread over ages, places and work.

    Regions and fields are each shuffled once and then dealt in turn, so a library of n
    personas covers min(n, 18) regions and min(n, 20) fields; ages are uniform in 18–75 and
    each Big Five score uniform in 1–5.
    """
    rng = random.Random(seed)
    regions, fields = list(REGIONS), list(FIELDS)
    rng.shuffle(regions)
    rng.shuffle(fields)
    return [
        {
            "age": rng.randint(MIN_AGE, MAX_AGE),
            "region": regions[index % len(regions)],
            "field": fields[index % len(fields)],
            "big5": {trait: rng.randint(1, 5) for trait in BIG_FIVE},
        }
        for index in range(count)
    ]


# -- profiles, rubrics, weights -----------------------------------------------------------------


def dimension_name(value: Any, where: str = "name") -> str:
    """A dimension name, spaces tidied, without a "Preference for"-style prefix."""
    name = _SPACES.sub(" ", _text(value, where))
    for prefix in NAME_PREFIXES:
        if name.casefold().startswith(prefix):
            name = name[len(prefix) :].strip()
    if not name:
        raise JudgementError(f"{where}: the name is only a prefix")
    return name[0].upper() + name[1:]


def _value(value: Any, where: str) -> int | str:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool):
        return _integer(value, where, 1, 5)
    if isinstance(value, str) and value.strip() and len(value.strip()) <= MAX_VALUE_CHARS:
        return value.strip()
    raise JudgementError(
        f"{where}: must be a number 1-5 or a short category (at most {MAX_VALUE_CHARS} "
        f"characters), got {value!r}"
    )


def read_profile(
    verdict: Mapping[str, Any], count: int, expertise: tuple[int, int]
) -> list[dict[str, Any]]:
    """Exactly `count` distinct dimensions, `expertise` (low, high) of them of that type."""
    raw = get_key(dict(verdict), "dimensions")
    if not isinstance(raw, list):
        raise JudgementError("'dimensions' must be a list")
    if len(raw) != count:
        raise JudgementError(f"'dimensions' has {len(raw)} entries; give exactly {count}")
    entries: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for index, item in enumerate(raw):
        where = f"dimensions[{index}]"
        entry = dict(_object(item, where))
        name = dimension_name(get_key(entry, "name"), f"{where}.name")
        if name.casefold() in seen:
            raise JudgementError(
                f"{where}.name: {name!r} repeats dimensions[{seen[name.casefold()]}]"
            )
        seen[name.casefold()] = index
        kind = _text(get_key(entry, "type"), f"{where}.type").casefold()
        if kind not in DIMENSION_TYPES:
            raise JudgementError(f"{where}.type: must be expertise or personal, got {kind!r}")
        entries.append({
            "name": name,
            "description": _text(get_key(entry, "description"), f"{where}.description"),
            "value_range": _text(get_key(entry, "value_range"), f"{where}.value_range"),
            "value": _value(get_key(entry, "value"), f"{where}.value"),
            "local_importance": _integer(get_key(entry, "local_importance"),
                                         f"{where}.local_importance", 1, 5),
            "justification": _text(get_key(entry, "justification"), f"{where}.justification"),
            "type": kind,
        })  # fmt: skip
    low, high = expertise
    found = sum(entry["type"] == "expertise" for entry in entries)
    if not low <= found <= high:
        raise JudgementError(
            f"{found} dimensions are of type expertise; give {low} to {high} (the rest personal)"
        )
    return entries


def preferences(entries: Sequence[Mapping[str, Any]], context: str) -> dict[str, dict[str, Any]]:
    """The release's `persona_preferences`: dimension name -> its entry."""
    return {str(entry["name"]): {**entry, "problem_context": context} for entry in entries}


def read_rubric(verdict: Mapping[str, Any], names: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Dimension name -> {description, levels {1, 3, 5}}; exactly the profile's names."""
    raw = get_key(dict(verdict), "criteria")
    if not isinstance(raw, list) or not raw:
        raise JudgementError("'criteria' must be a non-empty list")
    canonical = {name.casefold(): name for name in names}
    criteria: dict[str, dict[str, Any]] = {}
    for index, item in enumerate(raw):
        where = f"criteria[{index}]"
        entry = dict(_object(item, where))
        given = _text(get_key(entry, "preference"), f"{where}.preference")
        name = canonical.get(_SPACES.sub(" ", given).casefold())
        if name is None:
            raise JudgementError(f"{where}.preference: {given!r} is not one of the dimensions")
        if name in criteria:
            raise JudgementError(f"{where}.preference: {name!r} has a criterion already")
        levels = {score: _text(get_key(entry, f"level_{score}"), f"{where}.level_{score}")
                  for score in RUBRIC_SCORES}  # fmt: skip
        if len({text.casefold() for text in levels.values()}) < len(RUBRIC_SCORES):
            raise JudgementError(f"{where}: the levels 1, 3 and 5 must differ")
        criteria[name] = {
            "description": _text(get_key(entry, "description"), f"{where}.description"),
            "levels": levels,
        }
    missing = [name for name in names if name not in criteria]
    if missing:
        raise JudgementError(f"no criterion for {', '.join(repr(n) for n in missing)}")
    return criteria


def weights(importances: Sequence[int]) -> list[float]:
    """Each local importance divided by their total (the release's rubric weights)."""
    total = sum(importances)
    if total <= 0:
        raise ValueError("the importances must have a positive total")
    return [importance / total for importance in importances]


def evaluation_rubric(
    profile: Mapping[str, Mapping[str, Any]], criteria: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    """The release's `evaluation_rubric`, criteria in profile order, weights from importance."""
    names = list(profile)
    shares = weights([int(profile[name]["local_importance"]) for name in names])
    return {
        "evaluation_criteria": [
            {
                "preference": name,
                "description": criteria[name]["description"],
                "weight": share,
                "levels": [
                    {"score": score, "description": criteria[name]["levels"][score]}
                    for score in RUBRIC_SCORES
                ],
            }
            for name, share in zip(names, shares, strict=True)
        ]
    }


def assign_personas(
    problems: int, library: Sequence[str], per_problem: int, seed: int
) -> list[list[str]]:
    """For each problem, `per_problem` distinct persona ids drawn from the library (seeded)."""
    if per_problem > len(library):
        raise ValueError(
            f"{per_problem} personas per problem, but the library holds {len(library)}"
        )
    rng = random.Random(seed)
    return [rng.sample(list(library), per_problem) for _ in range(problems)]


def problem_id(index: int, persona: str) -> str:
    """The release's `problem_{i}_{persona_id}`."""
    return f"problem_{index}_{persona}"


def personalized_record(
    index: int,
    row: Mapping[str, Any],
    persona: Mapping[str, Any],
    profile: Mapping[str, Mapping[str, Any]],
    rubric: Mapping[str, Any],
) -> dict[str, Any]:
    """One record in the release's schema."""
    return {
        "type": RECORD_TYPE,
        "problem_id": problem_id(index, str(persona["id"])),
        "generation_success": True,
        "original_problem": dict(row),
        "persona": dict(persona),
        "persona_preferences": {name: dict(entry) for name, entry in profile.items()},
        "evaluation_rubric": dict(rubric),
    }


def with_usage(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The records with each persona's `usage_count` set to its records in the set."""
    listed = [dict(record) for record in records]
    uses = Counter(record["persona"]["id"] for record in listed)
    for record in listed:
        record["persona"] = {**record["persona"], "usage_count": uses[record["persona"]["id"]]}
    return listed
