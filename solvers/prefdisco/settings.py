"""The switches that choose between the reference evaluator's choices and heedbench's own.

`-T protocol=paper` (default) follows the reference evaluator (stellalisy/PrefDisco); every
place where heedbench once did otherwise stays available under a named switch, and each run
records the values it used (task metadata, and every sample's score metadata):

- `grader_prompt`: `paper` (the reference's per-criterion prompt: a system message asking for
  valid JSON, its short list of instructions, the score asked before the justification) or
  `anchored` (heedbench's earlier prompt: justification first, with scale anchors "2 and 4
  fall between" and "this criterion only, not overall quality").
- `user_format`: `json` (the simulated user writes `{"thought", "response"}` and only the
  response reaches the assistant) or `text` (a plain reply, cleaned).
- `sampling`: `paper` (the reference's top-p and token limits for all three roles: the
  evaluated model top-p 0.9 and 8,192 tokens, the simulated user top-p 0.95 and 4,096
  tokens, the grader top-p 0.95 and 4,096 tokens) or `provider` (top-p and the evaluated
  model's token limit left to the provider, the user at 512 tokens: heedbench's earlier
  settings).

Temperatures come with the protocol (paper: model 0.7, user 0.4, grader 0.1; budgeted: the
provider's default, 0.4, 0). A role binding's own settings and `--temperature`, `--top-p`,
`--max-tokens` on the command line still win.
"""

from dataclasses import asdict, dataclass
from typing import Literal, get_args

from inspect_ai.model import GenerateConfig

Protocol = Literal["paper", "budgeted"]
GraderPrompt = Literal["paper", "anchored"]
UserFormat = Literal["json", "text"]
Sampling = Literal["paper", "provider"]


@dataclass(frozen=True)
class Switches:
    """The resolved switches of a run."""

    grader_prompt: GraderPrompt
    user_format: UserFormat
    sampling: Sampling

    def record(self) -> dict[str, str]:
        """The switches as they go into the log."""
        return asdict(self)


DEFAULTS: dict[Protocol, Switches] = {
    "paper": Switches(grader_prompt="paper", user_format="json", sampling="paper"),
    "budgeted": Switches(grader_prompt="anchored", user_format="text", sampling="provider"),
}
"""Each protocol's own choice for every switch."""

CHOICES: dict[str, tuple[str, ...]] = {
    "grader_prompt": get_args(GraderPrompt),
    "user_format": get_args(UserFormat),
    "sampling": get_args(Sampling),
}


def resolve(
    protocol: Protocol,
    grader_prompt: str | None = None,
    user_format: str | None = None,
    sampling: str | None = None,
) -> Switches:
    """The protocol's defaults with the switches given explicitly put over them."""
    default = DEFAULTS[protocol]
    return Switches(
        grader_prompt=grader_prompt or default.grader_prompt,  # type: ignore[arg-type]
        user_format=user_format or default.user_format,  # type: ignore[arg-type]
        sampling=sampling or default.sampling,  # type: ignore[arg-type]
    )


_TEMPERATURE: dict[Protocol, dict[str, float | None]] = {
    "paper": {"model": 0.7, "user": 0.4, "grader": 0.1},
    "budgeted": {"model": None, "user": 0.4, "grader": 0.0},
}
_GRADER_TOKENS: dict[Protocol, int] = {"paper": 4096, "budgeted": 2048}
PAPER_TOP_P = {"model": 0.9, "user": 0.95, "grader": 0.95}
"""The reference's top-p: 0.9 for the model under test, 0.95 for its evaluator model."""
PAPER_MAX_TOKENS = {"model": 8192, "user": 4096, "grader": 4096}
"""The reference's token limits: 8,192 for the model under test, 4,096 for its evaluator."""
PROVIDER_USER_TOKENS = 512


def _config(
    role: str, protocol: Protocol, sampling: Sampling, provider_tokens: int | None
) -> GenerateConfig:
    """A role's settings under the protocol's temperature.

    Paper sampling: the reference's top-p and token limit; otherwise the provider's top-p and
    `provider_tokens` (None: the provider's limit).
    """
    paper = sampling == "paper"
    return GenerateConfig(
        temperature=_TEMPERATURE[protocol][role],
        top_p=PAPER_TOP_P[role] if paper else None,
        max_tokens=PAPER_MAX_TOKENS[role] if paper else provider_tokens,
    )


def evaluated_config(protocol: Protocol, sampling: Sampling) -> GenerateConfig:
    """The evaluated model's settings, given to the Task (the command line's still win)."""
    return _config("model", protocol, sampling, None)


def user_config(protocol: Protocol, sampling: Sampling) -> GenerateConfig:
    """The simulated user's own settings (a `--model-role user={...}` binding's still win)."""
    return _config("user", protocol, sampling, PROVIDER_USER_TOKENS)


def grader_config(protocol: Protocol, sampling: Sampling | None = None) -> GenerateConfig:
    """The grader's own settings (a `--model-role grader={...}` binding's still win).

    `sampling` unset: the protocol's own (`paper` for the paper protocol).
    """
    chosen = sampling or DEFAULTS[protocol].sampling
    return _config("grader", protocol, chosen, _GRADER_TOKENS[protocol])
