"""Run the benchmark's own judges, with the evaluated model as the grader, on one case.

The evaluated model (`--model`) is the grader under test. Each case is judged exactly as the
benchmark judges a response — the same prompts, fences, structured-output schemas, retries
and grader settings — so what the check measures is the grader as the benchmark uses it.
With `judge=both` the items (criteria) are judged in both modes, so the cheap batched mode
can be compared with the paper-faithful one on the same cases. Correctness cases go through
the grader call of prefdisco's `-T correctness=grader` (`scorers.prefdisco.correctness.grade`).

Each judged unit is stored with a `key` that names it the same way in a case and in its clean
twin (the item's question, the criterion, "harm", "correct"), so that the injection effect
can pair them.
"""

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from inspect_ai.model import GenerateConfig, Model, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel
from pydantic import Field

from heedbench.calls import collect_calls
from heedbench.evals.carryon.dataset import ChecklistItem
from heedbench.evals.prefdisco.dataset import Criterion
from heedbench.evals.prefdisco.sources import SOURCES, Problem, option_lines
from heedbench.scorers.carryon.judge import (
    DEFAULT_HARM_RUBRIC,
    HarmRubric,
    judge_checklist,
    judge_harm,
)
from heedbench.scorers.judge import DEFAULT_CHANNEL, RubricJudgement, VerdictChannel
from heedbench.scorers.prefdisco.correctness import grade
from heedbench.scorers.prefdisco.judge import score_criteria

CheckMode = Literal["per_item", "batched", "both"]
"""How each case's items are judged; prefdisco calls per_item `per_criterion`."""


class JudgeCheckRun(StoreModel):
    """The verdicts on one case, one entry per judged unit (item, harm rating, criterion)."""

    units: list[dict[str, Any]] = Field(default_factory=list)
    completed: bool = False


@dataclass(frozen=True)
class _Grader:
    """The grader under test and how the benchmark calls it."""

    model: Model
    mode: CheckMode
    channel: VerdictChannel
    config: GenerateConfig
    harm_rubric: HarmRubric

    async def in_modes(
        self, judge: Callable[[Any], Awaitable[RubricJudgement[Any]]]
    ) -> list[RubricJudgement[Any]]:
        """`judge` once per mode to run (per_item first), concurrently."""
        modes = ("per_item", "batched") if self.mode == "both" else (self.mode,)
        return await collect_calls(*(judge(mode) for mode in modes))


def _unit(
    name: str, gold: int, judgements: Sequence[RubricJudgement[Any]], key: str, pair_key: str
) -> dict[str, Any]:
    first = judgements[0]
    verdict = first.values.get(key)
    unit: dict[str, Any] = {
        "unit": name,
        "key": pair_key,
        "gold": gold,
        "pred": None if verdict is None else int(verdict),
        "failure": first.failures.get(key),
    }
    if len(judgements) > 1:
        other = judgements[1].values.get(key)
        unit["pred_batched"] = None if other is None else int(other)
    return unit


def _single(
    key: str, gold: int, pred: int | None, failure: str | None, **extra: Any
) -> dict[str, Any]:
    """A unit judged once, whatever the mode (harm, correctness)."""
    return {"unit": key, "key": key, "gold": gold, "pred": pred, "failure": failure, **extra}


async def _checklist(grader: _Grader, state: TaskState) -> list[dict[str, Any]]:
    gold = state.metadata["items"]
    items = [ChecklistItem(item["id"], item["question"], item["category"]) for item in gold]
    judgements = await grader.in_modes(
        lambda mode: judge_checklist(grader.model, items, state.input_text, mode,
                                     channel=grader.channel, config=grader.config)
    )  # fmt: skip
    return [
        _unit(item["id"], int(item["fulfilled"]), judgements, item["id"], item["question"])
        for item in gold
    ]


async def _harm(grader: _Grader, state: TaskState) -> list[dict[str, Any]]:
    conversation = [(str(role), str(text)) for role, text in state.metadata["conversation"]]
    rubric = grader.harm_rubric
    verdict = await judge_harm(
        grader.model, conversation, state.input_text, channel=grader.channel,
        config=grader.config, rubric=rubric,
    )  # fmt: skip
    gold = int(state.metadata["harm"])
    return [
        _single(
            "harm", gold, verdict.harm, verdict.failure, reason=verdict.reason, harm_rubric=rubric
        )
    ]


async def _rubric(grader: _Grader, state: TaskState) -> list[dict[str, Any]]:
    gold = state.metadata["criteria"]
    total = sum(int(c["importance"]) for c in gold)
    weights = {c["preference"]: int(c["importance"]) / total for c in gold}
    criteria = tuple(
        Criterion(
            preference=c["preference"],
            description=c["description"],
            weight=weights[c["preference"]],
            levels={int(score): text for score, text in c["levels"].items()},
        )
        for c in gold
    )
    preferences = {
        c["preference"]: {"value": c["value"], "justification": c["justification"]} for c in gold
    }
    modes: dict[str, Literal["per_criterion", "batched"]] = {
        "per_item": "per_criterion", "batched": "batched"
    }  # fmt: skip
    judgements = await grader.in_modes(
        lambda mode: score_criteria(grader.model, criteria, preferences, state.input_text,
                                    mode=modes[mode], channel=grader.channel, config=grader.config)
    )  # fmt: skip
    return [
        _unit(c["preference"], int(c["score"]), judgements, c["preference"], c["preference"])
        | {"weight": weights[c["preference"]]}
        for c in gold
    ]


def correctness_problem(metadata: Mapping[str, Any]) -> Problem:
    """The case's problem as prefdisco's scorer holds it: the question apart from its options.

    The case stores the task text as the evaluated model saw it, options included; the
    benchmark's grader prompt lists the options after the question, so trailing option lines
    that repeat them are taken off (left as they are when they do not match).
    """
    options = dict(metadata.get("options") or {})
    question = str(metadata["problem"]).rstrip()
    listing = option_lines(options)
    if options and question.endswith(listing):
        question = question.removesuffix(listing).rstrip()
    return Problem(
        question=question,
        options=options,
        answer=str(metadata["gold"]),
        kind=SOURCES[str(metadata["source"])].kind,
    )


async def _correctness(grader: _Grader, state: TaskState) -> list[dict[str, Any]]:
    problem = correctness_problem(state.metadata)
    verdict = await grade(
        problem, state.input_text, grader.model, "grader", mode="grader", channel=grader.channel
    )
    gold = int(bool(state.metadata["correct"]))
    if verdict.value is None:
        return [_single("correct", gold, None, verdict.reason)]
    return [_single("correct", gold, int(verdict.value), None)]


@solver
def judge_check_solver(
    *,
    mode: CheckMode = "per_item",
    channel: VerdictChannel = DEFAULT_CHANNEL,
    config: GenerateConfig,
    harm_rubric: HarmRubric = DEFAULT_HARM_RUBRIC,
) -> Solver:
    """Judge the sample's case with the evaluated model; the verdicts go to the store.

    Args:
        mode: per_item (one call per item or criterion), batched, or both.
        channel: the verdict channel, as the benchmark's `-T verdict`.
        config: the benchmark's grader settings, applied to every call (correctness calls
            take them from the task's config, as `grade` has no settings of its own).
        harm_rubric: the carryon harm rubric the harm cases are judged on.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        grader = _Grader(get_model(), mode, channel, config, harm_rubric)
        judge = {"checklist": _checklist, "harm": _harm, "correctness": _correctness}
        units = await judge.get(state.metadata["part"], _rubric)(grader, state)
        run = state.store_as(JudgeCheckRun)
        run.units = units
        run.completed = True
        return state

    return solve
