"""The `carryon` solver: the query, then one simulated-user follow-up per move of the flow.

Exchange 1 is the sample's input (the query, or the query with its intent for the oracle
condition). Each follow-up is written by the `user` role model and answered by the evaluated
model. Every exchange (move, user message, response, how the user message was obtained) is
kept in the sample store for the scorer and the log viewer.
"""

from collections.abc import Sequence

from inspect_ai.model import ChatMessageUser, GenerateConfig
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel
from pydantic import BaseModel, Field

from heedbench.calls import UNSCORED_REASON, FailedCall, generate_reply
from heedbench.roles import role_models
from heedbench.solvers.carryon.prompts import ASSISTANT_SPEAKER, USER_SPEAKER
from heedbench.solvers.carryon.user import simulated_user_message

USER_CONFIG = GenerateConfig(temperature=0.7, max_tokens=400)
"""The simulated user's own settings; a `--model-role user={...}` binding overrides them."""


class Exchange(BaseModel):
    """One user message and the evaluated model's response to it.

    Every optional field has a default: a log leaves out fields that are None, and a reloaded
    store (`inspect score`) must still read back as `Exchange`s, not as plain dicts.
    """

    move: str | None = None
    """The flow's move for this exchange; None for exchange 1 (the query itself)."""
    user: str
    response: str
    user_attempts: int = 0
    user_problem: str | None = None
    stop_reason: str | None = None
    """The evaluated model's stop reason for `response` (e.g. max_tokens when cut short)."""


class CarryOnRun(StoreModel):
    """One conversation as played: its flow, exchanges, and why it stopped early, if it did."""

    condition: str = ""
    flow: list[str] = Field(default_factory=list)
    exchanges: list[Exchange] = Field(default_factory=list)
    stopped: str | None = None
    stopped_reason: str | None = None
    """Inspect's `ScoreReason` for the stop: whose call failed decides it."""
    completed: bool = False
    """Set last: a conversation that errored part-way is never scored, even with
    --score-on-error."""


def conversation_messages(
    exchanges: list[Exchange],
    then_user: str | None = None,
    user: str = "user",
    assistant: str = "assistant",
) -> list[tuple[str, str]]:
    """The conversation so far as `(speaker, text)` messages, for fenced prompts.

    `then_user` appends the user's next message (the one a response under judgement answers).
    """
    messages: list[tuple[str, str]] = []
    for exchange in exchanges:
        messages += [(user, exchange.user), (assistant, exchange.response)]
    if then_user is not None:
        messages.append((user, then_user))
    return messages


@solver
def carryon_solver(
    *, roles: Sequence[str] = ("user", "grader"), allow_self_roles: bool = False
) -> Solver:
    """Play the sample's flow against the evaluated model.

    Args:
        roles: the role models the run needs (no `user` when every condition is single-turn);
            each is checked before the evaluated model is first called.
        allow_self_roles: let the evaluated model play the user (and grade) when those roles
            are unbound; off by default, so a missing `--model-role` fails before any call.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        # Every role is checked before the evaluated model is called; the scorer uses the grader.
        models = role_models(
            roles, allow_evaluated_model=allow_self_roles, configs={"user": USER_CONFIG}
        )
        run = state.store_as(CarryOnRun)
        run.condition = state.metadata["condition"]
        run.flow = list(state.metadata["flow"])
        intent: str = state.metadata["intent"]

        exchanges: list[Exchange] = []
        run.exchanges = exchanges
        user = models.get("user")
        if run.flow and user is None:
            raise ValueError("a multi-turn sample needs the 'user' role among the solver's roles")
        try:
            text, attempts, problem = state.user_prompt.text, 0, None
            for move in (None, *run.flow):
                if move is not None:
                    assert user is not None
                    conversation = conversation_messages(
                        exchanges, None, USER_SPEAKER, ASSISTANT_SPEAKER
                    )
                    message = await simulated_user_message(user, move, conversation, intent)
                    if message.text is None:
                        run.stopped_reason = UNSCORED_REASON["user"]
                        run.stopped = (
                            f"the simulated user gave no usable '{move}' message after "
                            f"{message.attempts} attempts: {message.problem}"
                        )
                        break
                    text, attempts, problem = message.text, message.attempts, message.problem
                    state.messages.append(ChatMessageUser(content=text))
                output = await generate_reply(state)
                exchanges.append(
                    Exchange(
                        move=move,
                        user=text,
                        response=output.completion,
                        user_attempts=attempts,
                        user_problem=problem,
                        stop_reason=output.stop_reason,
                    )
                )
        except FailedCall as failure:
            run.stopped_reason = UNSCORED_REASON[failure.failure.role]
            run.stopped = f"after {len(exchanges)} exchange(s), {failure}"
        run.exchanges = exchanges
        run.completed = True
        return state

    return solve
