"""The PrefDisco solver: one final response per sample, in its sample's condition.

- baseline: the task alone, one answer (no system message).
- oracle: the profile as a system message, then the task.
- discovery: the model may ask the simulated user (role `user`) before answering; every
  message opens with a protocol marker (`protocol.py`).

Discovery under `protocol="paper"` (the default, the reference evaluator's loop):

- At most `max_turns` model turns. A question is answered by the simulated user; an answer
  ends the loop, and so does a stopping user's stop signal. The budget is never stated.
- With `fixed_questions=k` the loop runs exactly k turns, each a question turn ("turn t of k"
  in the system message). An answer given in a question turn is not accepted: the turn is
  spent, the model is told to ask, and the loop goes on.
- After the loop the final answer is always requested, with the evaluation framing (added to
  the user's last message when there is one, as the reference does); that reply is judged.
  After fixed-k turns the system message is the free discovery one again, as in the reference.

Discovery under `protocol="budgeted"` (heedbench's earlier loop): at most `max_turns`
questions, stated in the system message; an answer the model gives by itself is judged; the
final answer is requested only when the budget is spent. With `fixed_questions=k` an early
answer is pushed back into asking once, then accepted.

Protocol slips, both protocols: a message with no marker gets one reminder. If the next has
none either, `budgeted` reads it as the final answer; `paper` reads it as a question when it
ends with a question mark and as an answer otherwise (the reference passes unformatted text
to its user unless it reads as an answer). A question in reply to the final request gets one
"no more questions", then the reply is judged as it is. One model message is one question
turn, however many questions it holds (their count is recorded as `question_marks`).
"""

from collections.abc import Sequence
from typing import Any

from inspect_ai.model import ChatMessageSystem, ChatMessageUser, Model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel
from pydantic import Field

from heedbench.calls import UNSCORED_REASON, FailedCall, generate_reply
from heedbench.evals.prefdisco.dataset import PrefDiscoRecord, Variant, record_index, record_key
from heedbench.roles import role_models
from heedbench.solvers.prefdisco.profile import paper_profile, persona_profile, preference_profile
from heedbench.solvers.prefdisco.prompts import (
    FINAL_REQUEST,
    KEEP_ASKING,
    NO_MORE_QUESTIONS,
    ORACLE_SYSTEM,
    PAPER_DISCOVERY_SYSTEM,
    PAPER_FINAL_REQUEST,
    PAPER_FIXED_REMINDER,
    PAPER_NOT_YET,
    PAPER_ORACLE_SYSTEM,
    REMINDER,
    discovery_system,
    paper_fixed_system,
)
from heedbench.solvers.prefdisco.protocol import Turn, parse_turn, question_marks
from heedbench.solvers.prefdisco.settings import (
    DEFAULTS,
    Protocol,
    Switches,
    grader_config,
    user_config,
)
from heedbench.solvers.prefdisco.user import (
    Exchange,
    SilentUserError,
    may_stop,
    user_prompt,
    user_reply,
)

__all__ = [
    "PrefDiscoRun",
    "check_roles",
    "failure_reason",
    "grader_config",
    "oracle_system",
    "prefdisco_solver",
]


class PrefDiscoRun(StoreModel):
    """What happened in one sample, kept in the store for the scorer and the log viewer."""

    condition: str = ""
    protocol: str = ""
    switches: dict[str, str] = Field(default_factory=dict)
    """The run's `grader_prompt`, `user_format` and `sampling` (see `settings.py`)."""
    final_response: str = ""
    exchanges: list[dict[str, str]] = Field(default_factory=list)
    questions: int = 0
    """Question turns the simulated user replied to (one per model message)."""
    question_marks: list[int] = Field(default_factory=list)
    """How many questions each question turn held (runs of '?'), in order."""
    turns: int = 0
    """Model turns in the discovery loop: questions plus answers given inside it."""
    early_answers: int = 0
    """Answers given inside the discovery loop: under `paper`, one that ended free discovery
    or any given in a fixed-k question turn (not accepted); under `budgeted`, pushed back."""
    user_stopped: bool = False
    """The simulated user ended the questions with its stop signal."""
    reminders: int = 0
    pushbacks: int = 0
    final_requested: bool = False
    user_regenerations: int = 0
    plain_user_replies: int = 0
    """Replies of a JSON user that came as plain text (taken as the response)."""
    notes: list[str] = Field(default_factory=list)
    stop_reasons: list[str] = Field(default_factory=list)
    """The evaluated model's stop reason for each of its messages, in order."""
    failed: str | None = None
    """Why the sample could not be played out (a blocked or overflowing call, a silent
    simulated user): such a sample is unscored."""
    failed_reason: str | None = None
    """Inspect's `ScoreReason` for `failed` (see `failure_reason`)."""
    completed: bool = False
    """Set last: a sample that errored part-way is never scored, even with --score-on-error."""


def failure_reason(failure: FailedCall | SilentUserError) -> str:
    """Inspect's `ScoreReason` for a sample that could not be played out.

    The evaluated model's call blocked by a content filter is a `refusal`; its conversation
    overflowing the context window leaves `no_response`; a simulated user that failed (blocked,
    overflowing or silent) is the instrument failing: `scoring_failed`.
    """
    if isinstance(failure, FailedCall) and failure.failure.role == "target":
        return "refusal" if failure.failure.kind == "content_filter" else UNSCORED_REASON["target"]
    return UNSCORED_REASON["user"]


def check_roles(
    roles: Sequence[str],
    allow_self_roles: bool,
    protocol: Protocol = "paper",
    switches: Switches | None = None,
) -> dict[str, Model]:
    """Resolve the role models a run needs, failing with the flag to pass if one is unbound."""
    sampling = (switches or DEFAULTS[protocol]).sampling
    configs = {
        "user": user_config(protocol, sampling),
        "grader": grader_config(protocol, sampling),
    }
    return role_models(roles, allow_evaluated_model=allow_self_roles, configs=configs)


def oracle_system(protocol: Protocol, record: PrefDiscoRecord) -> str:
    """The oracle condition's system message: the profile, and (paper) the evaluation framing."""
    if protocol == "paper":
        return PAPER_ORACLE_SYSTEM.format(profile=paper_profile(record.persona, record.preferences))
    return ORACLE_SYSTEM.format(
        persona=persona_profile(record.persona), preferences=preference_profile(record.preferences)
    )


@solver
def prefdisco_solver(
    *,
    sources: Sequence[str],
    variant: Variant = "1k",
    data: str | None = None,
    revision: str | None = None,
    roles: Sequence[str] = ("user", "grader"),
    protocol: Protocol = "paper",
    max_turns: int = 5,
    user_type: str = "passive",
    fixed_questions: int | None = None,
    allow_self_roles: bool = False,
    switches: Switches | None = None,
) -> Solver:
    """Produce the final response of a sample in its condition (`metadata["condition"]`).

    Args:
        sources: the sources whose records the samples come from (see `record_index`).
        variant: the release variant of those records.
        data: where the records come from (as the task's `data`).
        revision: the hub revision, when `data` is "hub".
        roles: role models checked before the evaluated model is first called.
        protocol: "paper" (the reference evaluator's protocol) or "budgeted".
        max_turns: discovery turns (paper) or questions (budgeted) before the answer.
        user_type: "passive", "passive_stop" (paper only) or "collaborative".
        fixed_questions: ask exactly this many times instead of up to `max_turns`.
        allow_self_roles: let the evaluated model play unbound roles itself.
        switches: `grader_prompt`, `user_format`, `sampling` (`settings.py`); unset, the
            protocol's own.
    """
    chosen = switches or DEFAULTS[protocol]

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        models = check_roles(roles, allow_self_roles, protocol, chosen)
        metadata: dict[str, Any] = state.metadata
        records = record_index(sources, variant, data, revision)
        record = records[record_key(metadata["source"], metadata["problem_id"])]
        run = state.store_as(PrefDiscoRun)
        run.condition = metadata["condition"]
        run.protocol = protocol
        run.switches = chosen.record()
        if run.condition == "oracle":
            state.messages.insert(0, ChatMessageSystem(content=oracle_system(protocol, record)))
        try:
            if run.condition != "discovery":
                output = await generate_reply(state)
                run.stop_reasons.append(output.stop_reason)
                run.final_response = output.completion
            else:
                loop = DiscoveryLoop(
                    state=state,
                    run=run,
                    record=record,
                    user=models["user"],
                    protocol=protocol,
                    user_type=user_type,
                    switches=chosen,
                )
                if protocol == "paper":
                    await loop.run_paper(max_turns, fixed_questions)
                else:
                    await loop.run_budgeted(max_turns, fixed_questions)
                state = loop.state
        except (FailedCall, SilentUserError) as failure:
            run.failed = str(failure)
            run.failed_reason = failure_reason(failure)
        run.completed = True
        return state

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
        protocol: Protocol,
        user_type: str,
        switches: Switches,
    ) -> None:
        self.state, self.run_info = state, run
        self.record, self.user = record, user
        self.protocol, self.user_type = protocol, user_type
        self.user_format = switches.user_format
        self.exchanges: list[Exchange] = []

    # --- shared steps -----------------------------------------------------------------------

    async def _model_turn(self) -> Turn:
        output = await generate_reply(self.state)
        self.run_info.stop_reasons.append(output.stop_reason)
        return parse_turn(output.completion)

    def _say(self, text: str) -> None:
        self.state.messages.append(ChatMessageUser(content=text))

    def _say_after_user(self, text: str) -> None:
        """Add `text` to the user's last message if the conversation ends with one, else say it."""
        last = self.state.messages[-1]
        if isinstance(last, ChatMessageUser):
            self.state.messages[-1] = ChatMessageUser(content=f"{last.text}\n\n{text}")
        else:
            self._say(text)

    def _set_system(self, text: str) -> None:
        message = ChatMessageSystem(content=text)
        if self.state.messages and isinstance(self.state.messages[0], ChatMessageSystem):
            self.state.messages[0] = message
        else:
            self.state.messages.insert(0, message)

    async def _answer(self, question: str) -> bool:
        """The simulated user's reply to `question`; True when it ended the questions."""
        prompt = user_prompt(
            protocol=self.protocol,
            persona=self.record.persona,
            preferences=self.record.preferences,
            user_type=self.user_type,
            task=self.record.problem.task_text(),
            exchanges=self.exchanges,
            question=question,
            user_format=self.user_format,
        )
        reply = await user_reply(
            self.user,
            prompt,
            stop_allowed=may_stop(self.protocol, self.user_type),
            user_format=self.user_format,
        )
        self.run_info.user_regenerations += reply.generations - 1
        self.run_info.plain_user_replies += reply.plain
        self.run_info.question_marks.append(question_marks(question))
        self.exchanges.append(Exchange(question, reply.text, reply.thought))
        if reply.text:
            self._say(reply.text)
        if reply.stopped:
            self.run_info.user_stopped = True
            self.run_info.notes.append(
                f"the user gave the stop signal after question {len(self.exchanges)}"
            )
        return reply.stopped

    async def _request_final(self, request: str, *, join: bool) -> str:
        self.run_info.final_requested = True
        if join:
            self._say_after_user(request)
        else:
            self._say(request)
        turn = await self._model_turn()
        if turn.kind == "question":
            self.run_info.pushbacks += 1
            self._say(NO_MORE_QUESTIONS)
            turn = await self._model_turn()
            if turn.kind == "question":
                self.run_info.notes.append("still asking after the final request: judged as is")
        return turn.body

    def _finish(self, final: str) -> None:
        self.run_info.final_response = final or self.state.output.completion
        self.run_info.questions = len(self.exchanges)
        self.run_info.exchanges = [
            {"question": e.question, "answer": e.answer}
            | ({} if e.thought is None else {"user_thought": e.thought})
            for e in self.exchanges
        ]

    # --- protocol `paper` -------------------------------------------------------------------

    async def _paper_turn(self, fixed: bool) -> Turn:
        """The model's next message; an unmarked one is reminded once, then read by its end."""
        turn = await self._model_turn()
        if turn.kind != "unmarked":
            return turn
        self.run_info.reminders += 1
        self._say(PAPER_FIXED_REMINDER if fixed else REMINDER)
        turn = await self._model_turn()
        if turn.kind != "unmarked":
            return turn
        if turn.body.rstrip().endswith("?"):
            self.run_info.notes.append("no marker after a reminder, ends with '?': a question")
            return Turn("question", turn.body)
        self.run_info.notes.append("no marker after a reminder: read as an answer")
        return Turn("final", turn.body)

    async def run_paper(self, max_turns: int, fixed_questions: int | None) -> None:
        """The reference's loop: at most `max_turns` turns (exactly k if fixed), then the answer.

        The final answer is always requested, whatever happened in the loop.
        """
        fixed = fixed_questions is not None
        budget = fixed_questions if fixed_questions is not None else max_turns
        self._set_system(PAPER_DISCOVERY_SYSTEM)
        turns = 0
        while turns < budget:
            if fixed:
                self._set_system(paper_fixed_system(turns + 1, budget))
            turn = await self._paper_turn(fixed)
            turns += 1
            if turn.kind == "question":
                if await self._answer(turn.body):
                    break
                continue
            self.run_info.early_answers += 1
            if not fixed:
                self.run_info.notes.append(f"answered in turn {turns}: discovery ends there")
                break
            self.run_info.notes.append(
                f"answered in question turn {turns} of {budget}: not accepted, the turn is spent"
            )
            if turns < budget:
                self._say(PAPER_NOT_YET)
        self.run_info.turns = turns
        if fixed:
            self._set_system(PAPER_DISCOVERY_SYSTEM)
        self._finish(await self._request_final(PAPER_FINAL_REQUEST, join=True))

    # --- protocol `budgeted` ----------------------------------------------------------------

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

    async def run_budgeted(self, max_turns: int, fixed_questions: int | None) -> None:
        """Ask up to `max_turns` questions (exactly k, if fixed), then settle the final answer."""
        self._set_system(discovery_system(max_turns, fixed_questions))
        fixed = fixed_questions is not None
        budget = fixed_questions if fixed_questions is not None else max_turns
        final: str | None = None
        while len(self.exchanges) < budget:
            turn = await self._marked_turn()
            if turn.kind == "final" and fixed:
                self.run_info.pushbacks += 1
                self.run_info.early_answers += 1
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
        self.run_info.turns = len(self.exchanges) + (final is not None)
        if final is None:
            final = await self._request_final(FINAL_REQUEST, join=False)
        self._finish(final)
