"""The PrefDisco solver: one final response per sample, in its sample's condition.

- baseline: the task alone, one answer.
- oracle: the persona and preference profiles as a system message, then the task.
- discovery: the model may ask the simulated user (role `user`) questions before answering;
  every message opens with a protocol marker (`protocol.py`). At most `max_turns` questions;
  once they are spent the final answer is requested. With `fixed_questions=k` the model must
  ask exactly k: an early answer is pushed back into asking once.

Protocol slips are handled the same way everywhere: a message with no marker gets one
reminder, and if the next one has none either it counts as the model's answer (its own
final answer is judged; the paper's extra "now answer" request is only sent when the model
never answered by itself).
"""

from collections.abc import Sequence
from typing import Any

from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, Model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel
from pydantic import Field

from heedbench.calls import FailedCall, generate_reply
from heedbench.evals.prefdisco.dataset import PrefDiscoRecord, Variant, record_index, record_key
from heedbench.roles import role_models
from heedbench.solvers.prefdisco.profile import persona_profile, preference_profile
from heedbench.solvers.prefdisco.prompts import (
    FINAL_REQUEST,
    KEEP_ASKING,
    NO_MORE_QUESTIONS,
    ORACLE_SYSTEM,
    REMINDER,
    discovery_system,
)
from heedbench.solvers.prefdisco.protocol import Turn, parse_turn
from heedbench.solvers.prefdisco.user import (
    USER_CONFIG,
    Exchange,
    SilentUserError,
    user_prompt,
    user_reply,
)

GRADER_CONFIG = GenerateConfig(temperature=0.0, max_tokens=2048)
"""The grader's own settings: deterministic, room for a 20-criterion batched table."""


class PrefDiscoRun(StoreModel):
    """What happened in one sample, kept in the store for the scorer and the log viewer."""

    condition: str = ""
    final_response: str = ""
    exchanges: list[dict[str, str]] = Field(default_factory=list)
    questions: int = 0
    reminders: int = 0
    pushbacks: int = 0
    final_requested: bool = False
    user_regenerations: int = 0
    notes: list[str] = Field(default_factory=list)
    stop_reasons: list[str] = Field(default_factory=list)
    """The evaluated model's stop reason for each of its messages, in order."""
    failed: str | None = None
    """Why the sample could not be played out (a blocked or overflowing call, a silent
    simulated user): such a sample is unscored."""
    completed: bool = False
    """Set last: a sample that errored part-way is never scored, even with --score-on-error."""


def check_roles(roles: Sequence[str], allow_self_roles: bool) -> dict[str, Model]:
    """Resolve the role models a run needs, failing with the flag to pass if one is unbound."""
    configs = {"user": USER_CONFIG, "grader": GRADER_CONFIG}
    return role_models(roles, allow_evaluated_model=allow_self_roles, configs=configs)


@solver
def prefdisco_solver(
    *,
    sources: Sequence[str],
    variant: Variant = "1k",
    data: str | None = None,
    revision: str | None = None,
    roles: Sequence[str] = ("user", "grader"),
    max_turns: int = 5,
    user_type: str = "passive",
    fixed_questions: int | None = None,
    allow_self_roles: bool = False,
) -> Solver:
    """Produce the final response of a sample in its condition (`metadata["condition"]`).

    Args:
        sources: the sources whose records the samples come from (see `record_index`).
        variant: the release variant of those records.
        data: where the records come from (as the task's `data`).
        revision: the hub revision, when `data` is "hub".
        roles: role models checked before the evaluated model is first called.
        max_turns: question budget in discovery.
        user_type: "passive" or "collaborative" simulated user.
        fixed_questions: ask exactly this many questions instead of up to `max_turns`.
        allow_self_roles: let the evaluated model play unbound roles itself.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        models = check_roles(roles, allow_self_roles)
        metadata: dict[str, Any] = state.metadata
        records = record_index(sources, variant, data, revision)
        record = records[record_key(metadata["source"], metadata["problem_id"])]
        run = state.store_as(PrefDiscoRun)
        run.condition = metadata["condition"]
        if run.condition == "oracle":
            profile = ORACLE_SYSTEM.format(
                persona=persona_profile(record.persona),
                preferences=preference_profile(record.preferences),
            )
            state.messages.insert(0, ChatMessageSystem(content=profile))
        try:
            if run.condition != "discovery":
                output = await generate_reply(state)
                run.stop_reasons.append(output.stop_reason)
                run.final_response = output.completion
            else:
                state = await _discover(state, run, record, models["user"])
        except (FailedCall, SilentUserError) as failure:
            run.failed = str(failure)
        run.completed = True
        return state

    async def _discover(
        state: TaskState, run: PrefDiscoRun, record: PrefDiscoRecord, user: Model
    ) -> TaskState:
        state.messages.insert(
            0, ChatMessageSystem(content=discovery_system(max_turns, fixed_questions))
        )
        loop = DiscoveryLoop(state=state, run=run, record=record, user=user, user_type=user_type)
        await loop.run(fixed_questions if fixed_questions is not None else max_turns,
                       fixed=fixed_questions is not None)  # fmt: skip
        return loop.state

    return solve


class DiscoveryLoop:
    """One discovery conversation: questions, simulated answers, then the final answer."""

    def __init__(
        self,
        *,
        state: TaskState,
        run: PrefDiscoRun,
        record: PrefDiscoRecord,
        user: Model,
        user_type: str,
    ) -> None:
        self.state, self.run_info = state, run
        self.record, self.user, self.user_type = record, user, user_type
        self.exchanges: list[Exchange] = []

    async def _model_turn(self) -> Turn:
        output = await generate_reply(self.state)
        self.run_info.stop_reasons.append(output.stop_reason)
        return parse_turn(output.completion)

    def _say(self, text: str) -> None:
        self.state.messages.append(ChatMessageUser(content=text))

    async def _marked_turn(self) -> Turn:
        """The model's next message; an unmarked one is reminded once, then read as an answer."""
        turn = await self._model_turn()
        if turn.kind != "unmarked":
            return turn
        self.run_info.reminders += 1
        self._say(REMINDER)
        turn = await self._model_turn()
        if turn.kind == "unmarked":
            self.run_info.notes.append("no marker after a reminder: read as the final answer")
            return Turn("final", turn.body)
        return turn

    async def run(self, budget: int, *, fixed: bool) -> None:
        """Ask up to `budget` questions (exactly, if `fixed`), then settle the final answer."""
        final: str | None = None
        while len(self.exchanges) < budget:
            turn = await self._marked_turn()
            if turn.kind == "final" and fixed:
                self.run_info.pushbacks += 1
                self._say(KEEP_ASKING.format(remaining=budget - len(self.exchanges)))
                turn = await self._marked_turn()
                if turn.kind == "final":
                    self.run_info.notes.append(
                        f"answered after {len(self.exchanges)} of {budget} questions "
                        "despite a push-back"
                    )
            if turn.kind == "final":
                final = turn.body
                break
            await self._answer(turn.body)
        if final is None:
            final = await self._request_final()
        self.run_info.final_response = final or self.state.output.completion
        self.run_info.questions = len(self.exchanges)
        self.run_info.exchanges = [
            {"question": e.question, "answer": e.answer} for e in self.exchanges
        ]

    async def _answer(self, question: str) -> None:
        prompt = user_prompt(
            persona=self.record.persona,
            preferences=self.record.preferences,
            user_type=self.user_type,
            task=self.record.problem.task_text(),
            exchanges=self.exchanges,
            question=question,
        )
        reply = await user_reply(self.user, prompt)
        self.run_info.user_regenerations += reply.generations - 1
        self.exchanges.append(Exchange(question, reply.text))
        self._say(reply.text)

    async def _request_final(self) -> str:
        self.run_info.final_requested = True
        self._say(FINAL_REQUEST)
        turn = await self._model_turn()
        if turn.kind == "question":
            self.run_info.pushbacks += 1
            self._say(NO_MORE_QUESTIONS)
            turn = await self._model_turn()
            if turn.kind == "question":
                self.run_info.notes.append("still asking after the final request: judged as is")
        return turn.body
