"""Find the JSON object in a model's reply, whatever wraps it.

Shared by every place that reads structured model output (choice answers, judges), so that
code fences, leading prose and trailing chatter are handled once.
"""

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def extract_json_object(text: str) -> dict[str, Any] | None:
    """Return the first JSON object found in `text`, or None.

    Looks inside code fences first, then scans the raw text for the first `{` that starts a
    decodable object. Keys are kept as written.
    """
    candidates = [match.group(1) for match in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        for start in (i for i, char in enumerate(candidate) if char == "{"):
            try:
                value, _ = decoder.raw_decode(candidate, start)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
    return None


def get_key(obj: dict[str, Any], key: str) -> Any:
    """Look a key up ignoring case and surrounding whitespace; None when absent."""
    if key in obj:
        return obj[key]
    wanted = key.strip().casefold()
    for candidate, value in obj.items():
        if isinstance(candidate, str) and candidate.strip().casefold() == wanted:
            return value
    return None
