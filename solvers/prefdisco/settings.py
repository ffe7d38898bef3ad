"""The switches between the reference evaluator's choices and ours, and each role's settings.

`-T protocol=paper` (default) follows the reference evaluator (stellalisy/PrefDisco); every
place where heedbench does otherwise stays available under a named switch, and each run
records the values it used (task metadata, and every sample's score metadata). A switch left
unset takes its protocol's value (`DEFAULTS`):

| switch | `paper` | `budgeted` |
|---|---|---|
| `grader_prompt` | `paper`: the reference's prompts (system message, score first) | `anchored` |
| `user_format` | `json`: the user writes `{thought, response}` | `text`: a plain reply |
| `sampling` | `paper`: the reference's top-p and token limits | `provider` |
| `reasoning` | `paper`: reasoning effort low (model), high (user, grader) | `provider` |
| `correctness` | `grader`: every answer graded | `deterministic`: read by form first |
| `markers` | `action`: the reference's `###ACTION###` lines, no reminders | `labels` |
| `share_baseline` | true: replies cached by their messages, as the reference's client | false |

Temperatures come with the protocol (paper: model 0.7, user 0.4, grader 0.1 and the
correctness grader 0.7, what the reference's client runs it at; budgeted: the provider's
default, 0.4, 0 and 0). A role binding's own settings and `--temperature`, `--top-p`,
`--max-tokens`, `--reasoning-effort` on the command line still win.
"""

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal, get_args, get_type_hints

from inspect_ai.model import GenerateConfig

Protocol = Literal["paper", "budgeted"]
GraderPrompt = Literal["paper", "anchored"]
UserFormat = Literal["json", "text"]
Sampling = Literal["paper", "provider"]
Reasoning = Literal["paper", "provider"]
CorrectnessMode = Literal["grader", "deterministic"]
Markers = Literal["action", "labels"]
Role = Literal["model", "user", "grader", "correctness"]


@dataclass(frozen=True)
class Switches:
    """The resolved switches of a run (see the module table)."""

    grader_prompt: GraderPrompt
    user_format: UserFormat
    sampling: Sampling
    reasoning: Reasoning
    correctness: CorrectnessMode
    markers: Markers
    share_baseline: bool

    def record(self) -> dict[str, Any]:
        """The switches as they go into the log."""
        return asdict(self)


DEFAULTS: dict[Protocol, Switches] = {
    "paper": Switches("paper", "json", "paper", "paper", "grader", "action", True),
    "budgeted": Switches("anchored", "text", "provider", "provider", "deterministic", "labels",
                         False),
}  # fmt: skip
"""Each protocol's own choice for every switch."""
LEGACY = DEFAULTS["budgeted"]
"""What a run did before a switch existed (a log that does not record it), in either protocol."""
SWITCH_NAMES = tuple(field.name for field in fields(Switches))
CHOICES: dict[str, tuple[Any, ...]] = {
    name: get_args(hint) or (True, False) for name, hint in get_type_hints(Switches).items()
}
"""The values each switch takes."""


def resolve(protocol: Protocol, **chosen: Any) -> Switches:
    """The protocol's switches with those given explicitly (not None) put over them."""
    return replace(DEFAULTS[protocol], **{k: v for k, v in chosen.items() if v is not None})


_TEMPERATURE: dict[Protocol, dict[Role, float | None]] = {
    "paper": {"model": 0.7, "user": 0.4, "grader": 0.1, "correctness": 0.7},
    "budgeted": {"model": None, "user": 0.4, "grader": 0.0, "correctness": 0.0},
}
_TOP_P: dict[Role, float] = {"model": 0.9, "user": 0.95, "grader": 0.95, "correctness": 0.95}
"""The reference's top-p: 0.9 for the model under test, 0.95 for its evaluator model."""
_MAX_TOKENS: dict[Role, int] = {"model": 8192, "user": 4096, "grader": 4096, "correctness": 4096}
"""The reference's token limits: 8,192 for the model under test, 4,096 for its evaluator."""
_PROVIDER_TOKENS: dict[Role, int | None] = {"model": None, "user": 512}
_EFFORT: dict[Role, Literal["low", "high"]] = {
    "model": "low", "user": "high", "grader": "high", "correctness": "high",
}  # fmt: skip
"""The reference config's reasoning effort: low for the model under test, high otherwise."""


def role_config(role: Role, protocol: Protocol, switches: Switches) -> GenerateConfig:
    """One role's settings: the protocol's temperature, and the switches' limits and effort.

    `provider` sampling leaves top-p and the evaluated model's token limit to the provider,
    caps the user at 512 tokens and the grader at 4,096 (`budgeted`: 2,048).
    """
    paper = switches.sampling == "paper"
    grader_tokens = 4096 if protocol == "paper" else 2048
    return GenerateConfig(
        temperature=_TEMPERATURE[protocol][role],
        top_p=_TOP_P[role] if paper else None,
        max_tokens=_MAX_TOKENS[role] if paper else _PROVIDER_TOKENS.get(role, grader_tokens),
        reasoning_effort=_EFFORT[role] if switches.reasoning == "paper" else None,
    )


def grader_config(protocol: Protocol, switches: Switches | None = None) -> GenerateConfig:
    """The PrefAlign grader's own settings (a `--model-role grader={...}` binding's still win)."""
    return role_config("grader", protocol, switches or DEFAULTS[protocol])
