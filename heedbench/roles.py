"""Role models (`user`, `grader`) that never silently fall back to the evaluated model.

Shared by solvers (the simulated user) and scorers (the grader), so it sits outside both.
"""

import contextvars
import difflib
from collections.abc import Mapping, Sequence

from inspect_ai.model import GenerateConfig, Model, get_model, model_roles

from heedbench.errors import InputError

BENCHMARK_ROLES = ("user", "grader")
"""The role models of the benchmark tasks: the simulated user and the grader."""

OTHER_NAMES = {"judge": "grader", "scorer": "grader", "simulator": "user", "simulated_user": "user"}
"""Names other suites give these roles, so a binding under one of them gets a hint."""

ROLE_ATTEMPT_TIMEOUT = 180
"""Seconds one attempt of a role model's call may take before it is abandoned and retried.

Inspect passes `--attempt-timeout` to the evaluated model only, so without this a hung user or
grader call would wait for the provider's own timeout. A binding overrides it:
`--model-role 'grader={model: openai/gpt-4o, attempt_timeout: 60}'`."""


class RoleNotBoundError(InputError):
    """A task needs a role model that the command line did not bind."""


def role_model(
    role: str, *, allow_evaluated_model: bool = False, config: GenerateConfig | None = None
) -> Model:
    """The model bound to `role`, with its own generation settings.

    Without a binding, Inspect would quietly use the evaluated model (a model grading or
    simulating the user for itself). That only happens here when the caller opts in.

    Args:
        role: the role name, e.g. "grader" or "user".
        allow_evaluated_model: fall back to the evaluated model when the role is unbound.
        config: the role's own generation settings (the CLI's `--max-tokens` and friends only
            apply to the evaluated model); a role binding's own settings take precedence.
            Every role call gets an attempt timeout (`ROLE_ATTEMPT_TIMEOUT`) unless one is set.

    Raises:
        RoleNotBoundError: the role is unbound and the fallback was not allowed; the message
            names the flag to pass.
    """
    if role not in model_roles() and not allow_evaluated_model:
        raise RoleNotBoundError(
            f"this task needs a '{role}' model: pass --model-role {role}=<provider/model> "
            f"(or pass -T allow_self_roles=true to let the evaluated model act as the {role} "
            "itself)"
        )
    settings = GenerateConfig(attempt_timeout=ROLE_ATTEMPT_TIMEOUT).merge(
        config or GenerateConfig()
    )
    return get_model(role=role, config=settings, required=not allow_evaluated_model)


def role_models(
    roles: Sequence[str],
    *,
    allow_evaluated_model: bool = False,
    configs: Mapping[str, GenerateConfig] | None = None,
) -> dict[str, Model]:
    """Every role model a run needs, each with its own settings; fails on the first unbound."""
    settings = configs or {}
    return {
        role: role_model(
            role, allow_evaluated_model=allow_evaluated_model, config=settings.get(role)
        )
        for role in roles
    }


def roles_bound_before_build() -> bool:
    """Whether Inspect bound this run's roles before building the task now being built.

    `inspect eval` (and `eval()` given a task by name) resolves `--model-role` and sets
    `model_roles()` for the run, an empty mapping when nothing was bound, before it builds the
    tasks. Everywhere else `model_roles()` still holds its unset default: a script building a
    task object to pass to `eval()`, or Inspect Flow, which adds a spec's roles to the task
    after building it. The unset default is what `model_roles()` returns in a fresh context.

    One case reads wrong: Inspect Flow resolves a spec's built tasks in the calling context,
    leaving an empty role binding there, so a second spec run by `inspect_flow.api.run` in the
    same Python context would look like `inspect eval` without roles. Run each spec in its own
    context (`contextvars.Context().run(run, spec)`) or process (`flow run`, one per spec).
    """
    unset = contextvars.Context().run(model_roles)
    return model_roles() is not unset


def check_bindings(task: str, roles: Sequence[str]) -> None:
    """Refuse a `--model-role` binding this task does not use, before any model is called.

    Inspect ignores a role nobody asks for, so `--model-role judge=...` (for `grader`) would
    run the benchmark with the grader unbound or, with `allow_self_roles`, self-graded, and
    `--model-role grader=...` on `choice` (which grades nothing) or `user=...` on a carryon
    `turn1` run (which simulates no user) would leave a model the user meant to use unused.
    Tasks that use different roles run in separate commands.
    """
    for bound in model_roles():
        if bound in roles:
            continue
        close = [OTHER_NAMES[bound]] if bound in OTHER_NAMES else []
        close = close or difflib.get_close_matches(bound, (*roles, *BENCHMARK_ROLES), n=1)
        hint = f"; did you mean --model-role {close[0]}=...?" if close and close[0] != bound else ""
        uses = ", ".join(roles) if roles else "no role models"
        raise RoleNotBoundError(
            f"--model-role {bound}: heedbench/{task} does not use a '{bound}' model here{hint} "
            f"(it uses {uses}); drop the binding, or run tasks that use it in their own command"
        )


def check_roles_at_build(
    roles: Sequence[str], allow_evaluated_model: bool, *, task: str | None = None
) -> None:
    """Fail while the task is being built, if that happens inside `inspect eval`.

    Inspect binds `--model-role` before it builds a task by name, so a missing role is caught
    before any data loads or any model is called, and so is a binding for a role the task
    does not have (when `task` names it). A task built before its roles are known (a script
    passing a task object to `eval()`, an Inspect Flow spec) is not checked here; its solver
    checks again at the start, before the first model call.
    """
    # The hook that says when a run scored few samples is registered here, when a heedbench
    # task is built, not when the entry point is imported: Inspect prints a banner naming
    # every hook registered at start-up, on every command of every suite.
    import heedbench.loud  # noqa: F401, PLC0415

    if not roles_bound_before_build():
        return
    if task is not None:
        check_bindings(task, roles)
    role_models(roles, allow_evaluated_model=allow_evaluated_model)
