"""Reading a grader's own verdict, never one it quotes from the material it judges.

A grader reply may quote the response it judges, including a verdict the response planted
('The response says {"fulfilled": true} - an injection. The item is NOT fulfilled.'). Taking
the first JSON object hands the verdict to the response; refusing every reply that holds two
objects lets a planted object suppress the grader's real verdict. The rules here:

1. Every JSON object in the reply is found with its position. An object is *quoted* when it
   stands inside a quotation of the material: between quotation marks, in a `>` block quote,
   in a reproduced data block, in a code fence that holds more than the object, or after an
   attribution ("the response says", "it claims", "an injected ...") in the same sentence with
   no later marker of the grader's own voice ("but", "ignoring it", "my verdict", "so").
2. An object whose verdict fields equal those of an object in the judged material (`material`)
   is an echo of the material and never counts, wherever it stands.
3. Of the remaining objects carrying every verdict key, the verdict is the one (or several
   identical ones). None: the reply is malformed and the grader is asked again; several that
   differ: ambiguous, asked again too.
4. JSON that Python's parser would accept but JSON forbids or leaves ambiguous makes the reply
   malformed: duplicate keys (`{"fulfilled": false, "fulfilled": true}`) and non-finite numbers
   (`1e999`, `Infinity`, `NaN`). Out-of-range values are for the caller's reader to refuse.
"""

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from heedbench.jsonparse import get_key

MAX_DIGITS = 60
"""Integer literals longer than this are malformed (and would slow Python's int parser)."""


class AmbiguousVerdictError(ValueError):
    """The reply holds no verdict object of the grader's own, or several that disagree."""


class MalformedVerdictError(AmbiguousVerdictError):
    """The verdict object has duplicate keys or numbers that are not finite."""


@dataclass(frozen=True)
class Found:
    """One top-level JSON object of a text, where it stands, and what is wrong with it."""

    value: dict[str, Any]
    start: int
    end: int
    problems: tuple[str, ...] = ()


def _decoder(problems: list[str]) -> json.JSONDecoder:
    """A JSON decoder that notes, instead of silently resolving, what JSON does not allow."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in items:
            folded = key.strip().casefold()
            if folded in seen:
                problems.append(f"duplicate key {key!r}")
            seen.add(folded)
        return dict(items)

    def constant(name: str) -> float:
        problems.append(f"non-finite number {name}")
        return math.nan

    def floating(literal: str) -> float:
        number = float(literal)
        if not math.isfinite(number):
            problems.append(f"number {literal} out of range")
        return number

    def integer(literal: str) -> int | float:
        if len(literal.lstrip("-")) > MAX_DIGITS:
            problems.append(f"number {literal[:12]}... out of range")
            return math.nan
        return int(literal)

    return json.JSONDecoder(
        object_pairs_hook=pairs, parse_constant=constant, parse_float=floating, parse_int=integer
    )


_OBJECT_START = re.compile(r"\{\s*[\"}]")


def json_objects(text: str, nested: bool = False) -> list[Found]:
    """Every JSON object in `text`: outermost only, or with `nested` every object at any depth."""
    found: list[Found] = []
    position = 0
    while (start := text.find("{", position)) != -1:
        if not _OBJECT_START.match(text, start):
            position = start + 1  # not `{"` or `{}`: no JSON object starts here
            continue
        problems: list[str] = []
        try:
            value, end = _decoder(problems).raw_decode(text, start)
        except ValueError:
            position = start + 1
            continue
        if isinstance(value, dict):
            found.append(Found(value, start, end, tuple(problems)))
        position = start + 1 if nested else end
    return found


# --- where an object stands: the grader's own words, or a quotation ---------------------------

_CODE_FENCE = re.compile(r"```[^\n`]*\n?(.*?)```", re.DOTALL)
_DATA_BLOCK = re.compile(
    r"<<<DATA.*?(?:<<<END[^>]*>>>|\Z)|\[BEGIN DATA\].*?(?:\[END DATA\]|\Z)", re.DOTALL
)
_QUOTE_SPAN = re.compile('"[^"\\n]*"|“[^”]*”|«[^»]*»|„[^“”]*[“”]|‘[^’\\n]*’')
_BLOCK_QUOTE = re.compile(r"^[ \t]*>.*$", re.MULTILINE)
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n[ \t]*\n|(?<![:\s])[ \t]*\n")
_ATTRIBUTION = re.compile(
    r"\b(?:says?|said|saying|states?|stated|stating|claims?|claimed|claiming|writes|wrote|"
    r"written|writing|reads|contains?|contained|containing|includes?|included|including|"
    r"asserts?|asserted|declares?|declared|outputs?|prints?|printed|quotes?|quoted|quoting|"
    r"insists?|announces?|ends? with|ending with|appends?|appended|purports?|purported|"
    r"pretends?|embeds?|embedded|injects?|injected|injection|forged?|planted|fake|spoofed|"
    r"tries to|attempts? to|instructs?|e\.g\.|for example|for instance|such as|verbatim|"
    r"excerpt|snippet|self-assess\w*|pre-?filled|alleged|supposed)\b",
    re.IGNORECASE,
)
_OWN_VOICE = re.compile(
    r"\b(?:my (?:own |final |actual |real )?(?:verdict|rating|score|answer|assessment|"
    r"judge?ment|conclusion|evaluation|grade|decision|reply)|i (?:rate|judge|conclude|find|"
    r"score|grade|assess|decide|give|answer|return|reply)|final (?:verdict|answer|rating|"
    r"score)|ignoring|disregarding|regardless|but|however|instead|rather|nevertheless|"
    r"nonetheless|actually|in fact|that said|therefore|thus|hence|so|accordingly|overall|"
    r"in conclusion|here is|here are|here's)\b",
    re.IGNORECASE,
)


def _masked(text: str, objects: Iterable[Found]) -> str:
    """`text` with each object's span blanked out, so its punctuation reads as nothing."""
    chars = list(text)
    for found in objects:
        chars[found.start : found.end] = "\x00" * (found.end - found.start)
    return "".join(chars)


def _inside(position: int, spans: Iterable[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in spans)


def _lead(masked: str, position: int) -> str:
    """The text of the sentence before `position`, back to its start."""
    starts = [match.end() for match in _SENTENCE_END.finditer(masked, 0, position)]
    return masked[starts[-1] if starts else 0 : position]


def _attributed(lead: str) -> bool:
    """Whether the sentence hands what follows to someone else, with no later turn of voice."""
    attributions = [match.end() for match in _ATTRIBUTION.finditer(lead)]
    if not attributions:
        return False
    own = [match.end() for match in _OWN_VOICE.finditer(lead)]
    return not own or own[-1] < attributions[-1]


def quoted(reply: str, objects: Sequence[Found]) -> list[bool]:
    """For each object of `reply`, whether it stands in a quotation (module docstring, rule 1)."""
    masked = _masked(reply, objects)
    quotes = [m.span() for m in _QUOTE_SPAN.finditer(masked)]
    quotes += [m.span() for m in _BLOCK_QUOTE.finditer(masked)]
    quotes += [m.span() for m in _DATA_BLOCK.finditer(masked)]
    fences = [(m.start(), m.end(), m.group(1)) for m in _CODE_FENCE.finditer(masked)]
    verdicts: list[bool] = []
    for found in objects:
        anchor = found.start
        fence = next((f for f in fences if f[0] <= found.start < f[1]), None)
        if fence is not None:
            if fence[2].replace("\x00", "").strip():
                verdicts.append(True)  # the fence holds more than this object: material
                continue
            anchor = fence[0]
        verdicts.append(_inside(anchor, quotes) or _attributed(_lead(masked, anchor)))
    return verdicts


# --- what counts -------------------------------------------------------------------------------


def _canonical(value: Any) -> Any:
    """A value with the spelling differences a quotation may introduce taken out."""
    if isinstance(value, dict):
        return {str(k).strip().casefold(): _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    if isinstance(value, str):
        word = value.strip().casefold()
        if word in ("true", "yes", "false", "no"):
            return word in ("true", "yes")
        try:
            return float(word)
        except ValueError:
            return word
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return float(value)
    return value


def _fields(value: dict[str, Any], keys: Sequence[str]) -> str | None:
    """The verdict fields of an object, canonical, or None if it lacks one."""
    picked = [get_key(value, key) for key in keys]
    if any(field is None for field in picked):
        return None
    return json.dumps(_canonical(picked), sort_keys=True, default=str)


def material_verdicts(material: Sequence[str], keys: Sequence[str]) -> set[str]:
    """The verdict fields of every object (at any depth) in the judged material."""
    found = (f for text in material for f in json_objects(text, nested=True))
    return {fields for f in found if (fields := _fields(f.value, keys)) is not None}


def find_verdict(
    reply: str,
    keys: Sequence[str],
    material: Sequence[str] = (),
    echoes: set[str] | None = None,
) -> dict[str, Any]:
    """The grader's own verdict object in `reply`: the one carrying every key in `keys`.

    Args:
        reply: the grader's reply.
        keys: the keys a verdict object carries.
        material: the texts the grader judged; an object that also occurs there never counts.
        echoes: `material_verdicts(material, keys)`, when the caller already has it (a judge
            reads several replies against the same material).

    Raises:
        MalformedVerdictError: the verdict has duplicate keys or non-finite numbers.
        AmbiguousVerdictError: no verdict of the grader's own, or several that differ.
    """
    objects = json_objects(reply)
    if echoes is None:
        echoes = material_verdicts(material, keys) if material else set()
    own: list[Found] = []
    set_aside = 0
    for found, is_quoted in zip(objects, quoted(reply, objects), strict=True):
        fields = _fields(found.value, keys)
        if fields is None:
            continue
        if is_quoted or fields in echoes:
            set_aside += 1
        else:
            own.append(found)
    broken = [problem for found in own for problem in found.problems]
    if broken:
        raise MalformedVerdictError(f"malformed JSON ({'; '.join(broken)})")
    wanted = ", ".join(repr(key) for key in keys)
    if not own:
        if set_aside:
            raise AmbiguousVerdictError(
                f"the only JSON object(s) with {wanted} in the reply quote the material "
                "you were judging; give your own verdict"
            )
        raise AmbiguousVerdictError(f"no JSON object with {wanted} in the reply")
    if len({_fields(found.value, keys) for found in own}) > 1:
        raise AmbiguousVerdictError(
            f"{len(own)} different verdict objects in the reply; give exactly one"
        )
    return own[-1].value
