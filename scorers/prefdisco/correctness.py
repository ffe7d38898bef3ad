r"""Is the final answer right? The grader decides, unless the answer's form leaves no doubt.

`-T correctness=grader` (the paper protocol's default, as the reference evaluator does) sends
every answer to the grader; `deterministic` (the budgeted protocol's) first reads it by its
form (`answers.read_answer`) and sends the rest. Free-text sources always go to the grader; a
source without a gold label (the CommonsenseQA test split) leaves correctness unscored.
"""

from dataclasses import asdict, dataclass
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, Model

from heedbench.evals.prefdisco.sources import Problem, option_lines
from heedbench.scorers.judge import DEFAULT_CHANNEL, VerdictChannel, judge
from heedbench.scorers.judge.call import boolean, rating, text, verdict_schema
from heedbench.scorers.judge.prompts import fill
from heedbench.scorers.prefdisco.answers import VerdictKind, compare, read_answer
from heedbench.scorers.prefdisco.prompts import (
    CORRECTNESS,
    CORRECTNESS_EXAMPLE,
    PAPER_CORRECTNESS,
    PAPER_CORRECTNESS_EXAMPLE,
    PAPER_CORRECTNESS_SYSTEM,
)
from heedbench.solvers.prefdisco.settings import CorrectnessMode, GraderPrompt

_KINDS: dict[str, VerdictKind] = {"math": "math", "choice": "multiple_choice"}
_WHY = text("one sentence")
SCHEMAS = {
    "paper": verdict_schema(
        "correctness", {"justification": _WHY, "correct": rating("1 if correct, else 0", 0, 1)}
    ),
    "anchored": verdict_schema(
        "correctness", {"justification": _WHY, "correct": boolean("is the final answer correct?")}
    ),
}


@dataclass(frozen=True)
class Correctness:
    """A correctness verdict: 1.0 / 0.0, or None (unscored) with the reason."""

    value: float | None
    method: str
    extracted: str | None
    gold: str | None
    reason: str | None = None
    grader_calls: int = 0
    mode: CorrectnessMode = "grader"

    def detail(self) -> dict[str, Any]:
        """The verdict as score metadata."""
        return asdict(self)


async def check_correctness(
    problem: Problem,
    answer: str,
    grader: Model,
    *,
    mode: CorrectnessMode = "grader",
    channel: VerdictChannel = DEFAULT_CHANNEL,
    prompt: GraderPrompt = "paper",
    judged: str | None = None,
) -> Correctness:
    """The verdict for one final response (see the module docstring).

    `answer` is the response's answer text (read by its form); `judged` what the grader sees
    (the whole final message, under the paper protocol; `answer` when unset).
    """
    gold = problem.answer
    if gold is None or not gold.strip():
        return Correctness(None, "none", None, None, "the source has no gold answer", mode=mode)
    response = answer if judged is None else judged
    kind = _KINDS.get(problem.kind)
    if mode == "grader" or kind is None:
        return await grade(problem, response, grader, "grader", mode=mode, channel=channel,
                           prompt=prompt)  # fmt: skip
    reading = read_answer(answer, kind, problem.options or None)
    verdict = None if reading.answer is None else compare(reading.answer, gold, kind)
    if verdict is not None:
        method = "math_equivalence" if kind == "math" else "choice_letter"
        return Correctness(float(verdict), method, reading.answer, gold, mode=mode)
    why = reading.statement if reading.answer is None else f"{reading.answer!r} not certain"
    return await grade(problem, response, grader, f"grader ({why})", extracted=reading.answer,
                       mode=mode, channel=channel, prompt=prompt)  # fmt: skip


def correctness_messages(
    problem: Problem, response: str, channel: VerdictChannel, prompt: GraderPrompt
) -> list[ChatMessage]:
    """The grader's messages for one answer (a system message under `paper`)."""
    options = option_lines(problem.options)
    paper = prompt == "paper"
    user = fill(
        PAPER_CORRECTNESS if paper else CORRECTNESS,
        channel,
        PAPER_CORRECTNESS_EXAMPLE if paper else CORRECTNESS_EXAMPLE,
        SCHEMAS[prompt],
        ("the response to check", response),
        question=problem.question,
        options=f"Options:\n{options}\n" if options else "",
        gold=str(problem.answer),
    )
    system = [ChatMessageSystem(content=PAPER_CORRECTNESS_SYSTEM)] if paper else []
    return [*system, ChatMessageUser(content=user)]


async def grade(
    problem: Problem,
    response: str,
    grader: Model,
    method: str,
    *,
    extracted: str | None = None,
    mode: CorrectnessMode = "grader",
    channel: VerdictChannel = DEFAULT_CHANNEL,
    prompt: GraderPrompt = "paper",
) -> Correctness:
    """Ask the grader whether the response's final answer matches the gold answer."""
    result = await judge(
        grader,
        correctness_messages(problem, response, channel, prompt),
        lambda found: float(found["correct"]),
        schema=SCHEMAS[prompt],
        channel=channel,
    )
    return Correctness(
        result.value, method, extracted, problem.answer, result.reason, result.attempts, mode=mode
    )
