"""Real offline `carryon` and `prefdisco` runs for the report tests, with scripted models.

The scripted models vary their behaviour with a hash of the prompt (how much a response
covers, whether it is harmful, how many questions are asked, how the grader scores), so the
report's means, standard errors and pairings are checked on numbers that actually vary.
"""

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path

from inspect_ai import eval
from inspect_ai.model import Model

from heedbench.evals.carryon import load_queries
from heedbench.evals.carryon.task import carryon
from heedbench.evals.prefdisco.task import prefdisco
from heedbench.testing import scripted_model
from heedbench.testing_carryon import (
    REFUSAL,
    facts,
    never_recovers,
    refuse_then_recover,
    scripted_grader,
    scripted_user,
    write_queries,
)
from tests.prefdisco.scripted import asks, grader_reply

Reply = Callable[[str], str]


def unit(text: str) -> float:
    """A deterministic pseudo-uniform number in [0, 1) for `text`."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") / 2**32


def sometimes_harmful(prompt: str) -> str:
    """Recovers once the intent is revealed; a third of its recovered answers are harmful."""
    reply = refuse_then_recover()(prompt)
    if "Here is what helps" in reply and unit(prompt) < 1 / 3:
        reply += " HARM=4"
    return reply


def eager(prompt: str) -> str:
    """Answers the query alone in one of three ways by a hash of it — a refusal, one checklist
    item (harm 2) or every item (harm 3) — then recovers like `sometimes_harmful`."""
    oracle = "Some background before my question" in prompt
    if REFUSAL not in prompt and "Here is what helps" not in prompt and not oracle:
        share = unit(prompt)
        if share < 1 / 3:
            return REFUSAL
        return facts([1]) + " HARM=2" if share < 2 / 3 else facts(range(1, 16)) + " HARM=3"
    return sometimes_harmful(prompt)


def carryon_logs(log_dir: Path, fail: Reply) -> None:
    """A recovering model with every condition, a locked one without oracle, an eager one whose
    first responses differ (refusal, partial, full help), and a failed run."""
    data = write_queries(log_dir.parent / f"{log_dir.name}-queries.jsonl", load_queries()[::25])
    roles = {
        "user": scripted_model(scripted_user, "sim-user"),
        "grader": scripted_model(scripted_grader, "judge"),
    }

    def run(target: Reply, name: str, condition: str) -> None:
        eval(
            carryon(data=str(data), condition=condition, flows_per_query=4),
            model=scripted_model(target, name),
            model_roles=roles,
            display="none",
            log_dir=str(log_dir),
        )

    run(sometimes_harmful, "recoverer", "full")
    run(never_recovers, "locked", "turn1,bc,nc")
    run(eager, "eager", "full")
    run(fail, "broken", "turn1")


def varied_asker(prompt: str) -> str:
    """Asks 0–3 questions in discovery, depending on the task (the first user message)."""
    task = prompt.rsplit("Write nothing before the marker.", maxsplit=1)[-1]
    task = re.split(r"\n(?:QUESTION|FINAL ANSWER)", task)[0]
    return asks(int(unit(task) * 4))(prompt)


def varied_grader(prompt: str) -> str:
    """The scripted prefdisco grader, one point up or down by a hash of the prompt; now and
    then unreadable, so some samples go unscored."""
    found = json.loads(grader_reply(prompt))
    shift = int(unit(prompt) * 3) - 1
    if unit("unreadable" + prompt) < 0.04:
        return "I would rather not say."
    if "scores" in found:
        found["scores"] = {k: min(5, max(1, v + shift)) for k, v in found["scores"].items()}
    elif "score" in found:
        found["score"] = min(5, max(1, found["score"] + shift))
    return json.dumps(found)


def prefdisco_logs(log_dir: Path) -> None:
    """An asker with all three conditions on two sources, a guesser without an oracle run."""
    roles: dict[str, Model] = {
        "user": scripted_model(lambda prompt: "Keep it short.", "sim-user"),
        "grader": scripted_model(varied_grader, "judge"),
    }

    def run(model: Reply, name: str, condition: str, limit: int) -> None:
        eval(
            prefdisco(source="all", condition=condition),
            model=scripted_model(model, name),
            model_roles=roles,
            limit=limit,
            display="none",
            log_dir=str(log_dir),
        )

    run(varied_asker, "asker", "all", 3 * 34)  # 30 math records, then 4 of the next source
    run(asks(0), "guesser", "baseline", 34)
    run(asks(0), "guesser", "discovery", 34)
