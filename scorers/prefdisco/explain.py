"""A PrefDisco score in words: per criterion score, weight and justification, heaviest first."""

import math
from collections.abc import Mapping, Sequence
from typing import Any

from heedbench.scorers.judge import RubricJudgement
from heedbench.scorers.prefdisco.correctness import Correctness

BATCHED_NOTE = "*"
"""Where a batched judgement keeps its one justification for all criteria."""


def criteria_detail(
    judgement: RubricJudgement[int], weights: Mapping[str, float]
) -> dict[str, dict[str, Any]]:
    """Criterion → score (None if unscored), weight, and the grader's justification or failure."""
    detail: dict[str, dict[str, Any]] = {}
    for name, weight in weights.items():
        entry: dict[str, Any] = {"score": judgement.values.get(name), "weight": weight}
        if name in judgement.failures:
            entry["failure"] = judgement.failures[name]
        elif name in judgement.notes:
            entry["justification"] = judgement.notes[name]
        detail[name] = entry
    return detail


def _line(text: str) -> str:
    """Free text on one markdown line: no line breaks, no table or heading syntax."""
    return " ".join(text.split()).replace("|", "/")


def explanation(
    condition: str,
    value: Mapping[str, Any],
    *,
    correctness: Correctness,
    criteria: Mapping[str, Mapping[str, Any]],
    judgement: RubricJudgement[int],
    unscored: Mapping[str, str],
) -> str:
    """The score's explanation (markdown): a headline, then one line per criterion."""
    head = [condition]
    alignment = value["prefalign"]
    head.append("PrefAlign unscored" if math.isnan(alignment) else f"PrefAlign {alignment:.2f}")
    correct = value.get("correct", math.nan)
    if math.isnan(correct):
        head.append("correctness unscored")
    else:
        read = f", read {correctness.extracted!r}" if correctness.extracted else ""
        head.append(f"correct {int(correct)} ({correctness.method}{read})")
    if "questions" in value:
        head.append(f"{value['questions']} question(s)")
    lines = [" · ".join(head)]
    if unscored:
        lines += ["", "Unscored: " + "; ".join(f"{k}: {_line(v)}" for k, v in unscored.items())]
    lines += ["", "Criteria (score 1-5, weight), heaviest first:"]
    lines += _criterion_lines(criteria)
    if BATCHED_NOTE in judgement.notes:
        lines += ["", f"Grader's note on all criteria: {_line(judgement.notes[BATCHED_NOTE])}"]
    return "\n".join(lines)


def _criterion_lines(criteria: Mapping[str, Mapping[str, Any]]) -> Sequence[str]:
    ordered = sorted(criteria.items(), key=lambda item: -float(item[1]["weight"]))
    lines = []
    for name, entry in ordered:
        score = "unscored" if entry["score"] is None else str(entry["score"])
        why = entry.get("justification") or entry.get("failure") or ""
        lines.append(
            f"- **{_line(name)}**: {score} (weight {entry['weight']:.2f})"
            + (f" — {_line(why)}" if why else "")
        )
    return lines
