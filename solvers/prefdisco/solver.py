"""The PrefDisco solver: one final response per sample, in its sample's condition.

baseline: the task alone; oracle: the profile as a system message, then the task; discovery:
the model may ask the simulated user (role `user`), then its final answer is requested.
`Conversation` plays the paper protocol's loop (`run_paper`: at most `max_turns` turns, or
exactly k, then the final request), the budgeted one (`run_budgeted`: up to `max_turns`
questions, an answer given by itself judged) and the stock questionnaire (`run_stock`); the
marker style (`markers`, `protocol.py`) decides reminders, push-backs and the `###STOP###`
turns, as evals/prefdisco/README.md describes. With `share_baseline` the evaluated model's
replies are cached by their messages for the run (`SharedReplies`).
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    Model,
    ModelOutput,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel
from pydantic import Field

from heedbench.calls import UNSCORED_REASON, FailedCall, generate_checked
from heedbench.evals.prefdisco.dataset import PrefDiscoRecord, Variant, record_index, record_key
from heedbench.roles import role_models
from heedbench.solvers.prefdisco.profile import paper_profile, persona_profile, preference_profile
from heedbench.solvers.prefdisco.prompts import (
    BEGIN_FINAL,
    FINAL_REQUEST,
    KEEP_ASKING,
    NO_MORE_QUESTIONS,
    ORACLE_SYSTEM,
    PAPER_FINAL_REQUEST,
    PAPER_FIXED_REMINDER,
    PAPER_NOT_YET,
    PAPER_ORACLE_SYSTEM,
    REMINDER,
    STOCK_QUESTIONS,
    STOP_SIGNAL,
    discovery_system,
)
from heedbench.solvers.prefdisco.protocol import (
    Turn,
    as_question,
    parse_turn,
    question_marks,
    read_action,
)
from heedbench.solvers.prefdisco.settings import DEFAULTS, Protocol, Switches, role_config
from heedbench.solvers.prefdisco.user import Exchange, SilentUserError, may_stop, user_prompt
from heedbench.solvers.prefdisco.user import user_reply as ask_user

Questions = Literal["model", "stock"]

__all__ = ["PrefDiscoRun", "check_roles", "failure_reason", "oracle_system", "prefdisco_solver"]


class PrefDiscoRun(StoreModel):
    """What happened in one sample, kept in the store for the scorer and the log viewer."""

    condition: str = ""
    protocol: Protocol | Literal[""] = ""
    switches: dict[str, Any] = Field(default_factory=dict)
    """The run's switches (`settings.py`)."""
    questions_from: str = "model"
    """Who asked the discovery questions: the model, or the stock questionnaire."""
    final_response: str = ""
    """What is judged: the final message (`markers=action`) or its text after the marker."""
    final_answer: str = ""
    """The final message's text after its marker, which the answer reader reads."""
    exchanges: list[dict[str, str]] = Field(default_factory=list)
    questions: int = 0
    """Question turns the simulated user replied to (one per model message)."""
    question_marks: list[int] = Field(default_factory=list)
    """How many questions each question turn held (runs of '?'), in order."""
    turns: int = 0
    """Model turns in the discovery loop: questions plus answers given inside it."""
    early_answers: int = 0
    """Answers given inside the discovery loop (ending free discovery, or in a fixed-k turn)."""
    user_stopped: bool = False
    """The simulated user ended the questions with its stop signal."""
    reminders: int = 0
    pushbacks: int = 0
    final_requested: bool = False
    shared_replies: int = 0
    """Replies of the evaluated model taken from the run's cache (`share_baseline`)."""
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
    chosen = switches or DEFAULTS[protocol]
    configs = {role: role_config(role, protocol, chosen) for role in ("user", "grader")}
    return role_models(roles, allow_evaluated_model=allow_self_roles, configs=configs)


def oracle_system(protocol: Protocol, record: PrefDiscoRecord) -> str:
    """The oracle condition's system message: the profile, and (paper) the evaluation framing."""
    if protocol == "paper":
        return PAPER_ORACLE_SYSTEM.format(profile=paper_profile(record.persona, record.preferences))
    return ORACLE_SYSTEM.format(
        persona=persona_profile(record.persona), preferences=preference_profile(record.preferences)
    )


class SharedReplies:
    """The evaluated model's replies of one run, cached by the messages they answer.

    The reference's client caches every reply by its messages, so all personas of a problem
    share one baseline answer and one first discovery message (and any later message whose
    conversation is the same). Concurrent samples wait for the first call; each epoch has its
    own replies, each model its own, and a failed call is not cached.
    """

    def __init__(self) -> None:
        self._replies: dict[str, ModelOutput] = {}
        self._locks: dict[str, anyio.Lock] = {}

    async def reply(self, model: Model, state: TaskState) -> tuple[ModelOutput, bool]:
        """`model`'s reply to the state's messages, and whether it came from the cache."""
        # one task object may run several models at once (`eval(task, model=[a, b])`)
        key = json.dumps([str(model), state.epoch, *((m.role, m.text) for m in state.messages)])
        async with self._locks.setdefault(key, anyio.Lock()):
            if key in self._replies:
                return self._replies[key], True
            output = await generate_checked(model, state.messages, role="target")
            self._replies[key] = output
            return output, False


@dataclass
class Conversation:
    """One sample's conversation with the evaluated model: its calls and messages.

    In the discovery condition also the questions, the user's answers and the final answer.
    """

    state: TaskState
    run_info: PrefDiscoRun
    model: Model
    shared: SharedReplies | None
    record: PrefDiscoRecord
    user: Model | None
    protocol: Protocol
    user_type: str
    switches: Switches
    history: list[Exchange] = field(default_factory=list)
    """What the simulated user has seen: the model's messages and its own replies."""

    @property
    def action(self) -> bool:
        """The paper protocol's `###ACTION###` markers are in use."""
        return self.protocol == "paper" and self.switches.markers == "action"

    async def reply(self) -> ModelOutput:
        """The evaluated model's next message, appended (from the run's cache when shared)."""
        if self.shared is None:
            output = await generate_checked(self.model, self.state.messages, role="target")
            message = output.message
        else:
            output, hit = await self.shared.reply(self.model, self.state)
            self.run_info.shared_replies += hit
            message = output.message.model_validate(output.message.model_dump(exclude={"id"}))
        self.state.output = output
        self.state.messages.append(message)
        self.run_info.stop_reasons.append(output.stop_reason)
        return output

    def say(self, text: str, *, join: bool = False) -> None:
        """A user message; with `join`, added to the user's last message when there is one."""
        last = self.state.messages[-1] if self.state.messages else None
        if join and isinstance(last, ChatMessageUser):
            self.state.messages[-1] = ChatMessageUser(content=f"{last.text}\n\n{text}")
        else:
            self.state.messages.append(ChatMessageUser(content=text))

    def set_system(self, text: str) -> None:
        message = ChatMessageSystem(content=text)
        if self.state.messages and isinstance(self.state.messages[0], ChatMessageSystem):
            self.state.messages[0] = message
        else:
            self.state.messages.insert(0, message)

    async def _turn(self) -> Turn:
        text = (await self.reply()).completion
        return read_action(text) if self.action else parse_turn(text)

    async def _answer(self, question: str) -> bool:
        """The simulated user's reply to `question`; True when it ended the questions."""
        prompt = user_prompt(
            protocol=self.protocol,
            persona=self.record.persona,
            preferences=self.record.preferences,
            user_type=self.user_type,
            task=self.record.problem.task_text(),
            exchanges=self.history,
            question=question,
            user_format=self.switches.user_format,
        )
        assert self.user is not None, "the discovery condition needs the user role"
        reply = await ask_user(
            self.user,
            prompt,
            stop_allowed=may_stop(self.protocol, self.user_type),
            user_format=self.switches.user_format,
            keep_signal=self.action,
        )
        self.run_info.user_regenerations += reply.generations - 1
        self.run_info.plain_user_replies += reply.plain
        self.run_info.question_marks.append(question_marks(question))
        self.run_info.questions += 1
        self.history.append(Exchange(question, reply.text, reply.thought))
        self.run_info.exchanges.append(
            {"question": question, "answer": reply.text}
            | ({} if reply.thought is None else {"user_thought": reply.thought})
        )
        if reply.text:
            self.say(reply.text)
        if reply.stopped:
            self.run_info.user_stopped = True
            self.run_info.notes.append(
                f"the user gave the stop signal after question {self.run_info.questions}"
            )
        return reply.stopped

    async def _request_final(self, request: str, *, join: bool) -> None:
        """Ask for the final answer; it is what is judged (see the module docstring)."""
        self.run_info.final_requested = True
        self.say(request, join=join)
        turn = await self._turn()
        if turn.kind == "question" and not self.action:
            self.run_info.pushbacks += 1
            self.say(NO_MORE_QUESTIONS)
            turn = await self._turn()
            if turn.kind == "question":
                self.run_info.notes.append("still asking after the final request: judged as is")
        self._finish(turn)

    def _finish(self, final: Turn) -> None:
        self.run_info.final_response = final.body or self.state.output.completion
        self.run_info.final_answer = final.answer or self.run_info.final_response

    def _final_request(self) -> str:
        if self.protocol == "budgeted":
            return FINAL_REQUEST
        return PAPER_FINAL_REQUEST if self.action else f"{PAPER_FINAL_REQUEST} {BEGIN_FINAL}"

    async def _reminded_turn(self, reminder: str, *, paper: bool) -> Turn:
        """The next message; unmarked, it is reminded once, then read as the answer.

        Under `paper` an unmarked message that ends with '?' is read as a question.
        """
        turn = await self._turn()
        if turn.kind != "unmarked":
            return turn
        self.run_info.reminders += 1
        self.say(reminder)
        turn = await self._turn()
        if turn.kind != "unmarked":
            return turn
        if paper and turn.body.rstrip().endswith("?"):
            self.run_info.notes.append("no marker after a reminder, ends with '?': a question")
            return Turn("question", turn.body)
        read = "an answer" if paper else "the final answer"
        self.run_info.notes.append(f"no marker after a reminder: read as {read}")
        return Turn("final", turn.body)

    async def run_paper(self, budget: int, fixed: bool) -> None:
        """The reference's loop: at most `budget` turns (exactly, if fixed), then the answer."""
        markers = self.switches.markers
        self.set_system(discovery_system("paper", markers, budget, fixed=False))
        turns = 0
        while turns < budget:
            if fixed:
                self.set_system(discovery_system("paper", markers, budget, True, turns))
            turn = await self._reminded_turn(
                PAPER_FIXED_REMINDER if fixed else REMINDER, paper=True
            )
            turns += 1
            if turn.kind == "question":
                if await self._answer(turn.body) and not fixed:
                    break
                continue
            self.run_info.early_answers += 1
            if self.action:
                self.history.append(Exchange(turn.body, ""))  # the user saw it, then stopped
                self.say(STOP_SIGNAL)
            if not fixed:
                self.run_info.notes.append(f"answered in turn {turns}: discovery ends there")
                break
            self.run_info.notes.append(
                f"answered in question turn {turns} of {budget}: not taken, the turn is spent"
            )
            if turns < budget and not self.action:
                self.say(PAPER_NOT_YET)
        self.run_info.turns = turns
        self.set_system(discovery_system("paper", markers, budget, fixed=False))
        await self._request_final(self._final_request(), join=True)

    # --- `questions=stock` ------------------------------------------------------------------

    async def run_stock(self, budget: int) -> None:
        """The first `budget` stock questions, answered by the user, then the final answer."""
        markers = self.switches.markers if self.protocol == "paper" else "labels"
        self.set_system(discovery_system(self.protocol, markers, budget, fixed=False))
        for question in STOCK_QUESTIONS[:budget]:
            message = as_question(question, markers)
            self.state.messages.append(ChatMessageAssistant(content=message))
            self.run_info.turns += 1
            if await self._answer(message if self.action else question):
                break
        await self._request_final(self._final_request(), join=self.protocol == "paper")

    # --- protocol `budgeted` ----------------------------------------------------------------

    async def run_budgeted(self, budget: int, fixed: bool) -> None:
        """Ask up to `budget` questions (exactly k, if fixed), then settle the final answer."""
        self.set_system(discovery_system("budgeted", "labels", budget, fixed))
        while self.run_info.questions < budget:
            turn = await self._reminded_turn(REMINDER, paper=False)
            if turn.kind == "final" and fixed:
                self.run_info.pushbacks += 1
                self.run_info.early_answers += 1
                self.say(KEEP_ASKING.format(remaining=budget - self.run_info.questions))
                turn = await self._reminded_turn(REMINDER, paper=False)
                if turn.kind == "final":
                    self.run_info.notes.append(
                        f"answered after {self.run_info.questions} of {budget} questions "
                        "despite a push-back"
                    )
            if turn.kind == "final":
                self.run_info.turns = self.run_info.questions + 1
                self._finish(turn)
                return
            await self._answer(turn.body)
        self.run_info.turns = self.run_info.questions
        await self._request_final(FINAL_REQUEST, join=False)


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
    questions: Questions = "model",
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
        switches: the run's switches (`settings.py`); unset, the protocol's own.
        questions: "model" (the model asks) or "stock" (the generic questionnaire asks).
    """
    chosen = switches or DEFAULTS[protocol]
    shared = SharedReplies() if chosen.share_baseline else None

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        models = check_roles(roles, allow_self_roles, protocol, chosen)
        metadata: dict[str, Any] = state.metadata
        records = record_index(sources, variant, data, revision)
        record = records[record_key(metadata["source"], metadata["problem_id"])]
        run = state.store_as(PrefDiscoRun)
        run.condition, run.protocol, run.switches = metadata["condition"], protocol, chosen.record()
        run.questions_from = questions
        user = models.get("user")
        talk = Conversation(
            state, run, get_model(), shared, record, user, protocol, user_type, chosen
        )
        if run.condition == "oracle":
            talk.set_system(oracle_system(protocol, record))
        try:
            if run.condition != "discovery":
                run.final_response = run.final_answer = (await talk.reply()).completion
            else:
                budget = fixed_questions or max_turns
                if questions == "stock":
                    await talk.run_stock(budget)
                elif protocol == "paper":
                    await talk.run_paper(budget, fixed=fixed_questions is not None)
                else:
                    await talk.run_budgeted(budget, fixed=fixed_questions is not None)
        except (FailedCall, SilentUserError) as failure:
            run.failed = str(failure)
            run.failed_reason = failure_reason(failure)
        run.completed = True
        return state

    return solve
