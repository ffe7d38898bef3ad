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
from heedbench.scorers.judge.blocks import read_blocks
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
    data = write_queries(log_dir.parent / f"{log_dir.name}-queries.jsonl", load_queries()[::50])
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


def task_of(prompt: str) -> str:
    """The task in a model prompt (the first user message, up to the model's first reply)."""
    task = prompt.split("Could you help me with this task?", maxsplit=1)[-1]
    return re.split(r"\n(?:QUESTION|FINAL ANSWER)", task)[0]


def varied_asker(prompt: str) -> str:
    """Asks 0–3 questions in discovery, depending on the task."""
    return asks(int(unit(task_of(prompt)) * 4))(prompt)


def varied_prober(prompt: str) -> str:
    """Asks 0–4 questions in discovery, depending on the task (another draw than the asker's),
    and then personalises badly: its discovery answers lose their condition tag, which the
    grader scores 1 (± 1), below the baseline's 2: a negative normalized alignment."""
    return asks(int(unit("prober:" + task_of(prompt)) * 5))(prompt).replace("[discovery] ", "")


def varied_grader(prompt: str) -> str:
    """The scripted prefdisco grader, one point up or down by a hash of the prompt; now and
    then unreadable, so some samples go unscored."""
    found = json.loads(grader_reply(prompt))
    material = repr(read_blocks(prompt))  # drawn from what is graded, not the prompt's wording

    def shifted(key: str, value: int) -> int:
        return min(5, max(1, value + int(unit(key + material) * 3) - 1))

    if unit("unreadable" + material) < 0.04:
        return "I would rather not say."
    if "scores" in found:
        found["scores"] = {k: shifted(k, v) for k, v in found["scores"].items()}
    elif "score" in found:
        found["score"] = shifted("", found["score"])
    return json.dumps(found)


ASKER = "mockllm/openai/asker"
PROBER = "mockllm/google/prober"
FIXED_K = (2, 4, 8)
JUDGE = "batched"
"""One grader call per response keeps these logs quick to build; per-criterion judging (the
default) is covered by tests/prefdisco."""


def prefdisco_logs(log_dir: Path) -> None:
    """An asker with all three conditions on two sources (and on math with k = 2, 4, 8 fixed
    questions), a prober of another provider, and a guesser without an oracle run."""
    roles: dict[str, Model] = {
        "user": scripted_model(lambda prompt: "Keep it short.", "sim-user"),
        "grader": scripted_model(varied_grader, "judge"),
    }

    def run(model: Reply, name: str, condition: str, limit: int, **params: object) -> None:
        eval(
            prefdisco(condition=condition, **{"source": "all", "judge": JUDGE, **params}),  # type: ignore[arg-type]
            model=scripted_model(model, name.removeprefix("mockllm/")),
            model_roles=roles,
            limit=limit,
            display="none",
            log_dir=str(log_dir),
        )

    run(varied_asker, ASKER, "all", 3 * 34)  # 30 math records, then 4 of the next source
    for k in FIXED_K:
        run(asks(99), ASKER, "all", 3 * 4, source="math", fixed_questions=k)
    run(varied_prober, PROBER, "all", 3 * 12, source="math")
    run(asks(0), "guesser", "baseline", 12)
    run(asks(0), "guesser", "discovery", 12)
