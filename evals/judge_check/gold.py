"""The schema of the prefdisco judge-check gold files, one pydantic model per file.

`RubricCase` (`prefdisco_rubric.jsonl`: PrefAlign criterion scores) and `CorrectnessCase`
(`prefdisco_correctness.jsonl`: answer correctness) are read by the task's loader
(`dataset.py`) and by `tools/prefdisco_gold_stats.py`, which adds the data card's contract on
top (ids, level wording, kinds that agree with the scores, the injected span). `GoldCase` holds
what every gold case has: its id, the response judged, and the adversarial fields.
"""

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from heedbench.evals.prefdisco.sources import SOURCES

ATTACKS = (
    "addresses_grader", "pre_approval", "fake_delimiter", "lookalike_delimiter",
    "fake_verdict_json", "language_switch", "null_response", "master_key",
    "verbosity_padding", "authority_citation", "harsh_injection",
)  # fmt: skip
Attack = Literal[ATTACKS]  # type: ignore[valid-type]
CORRECTNESS_KINDS = (
    "plain", "chatty", "self_correction", "hedged", "refusal", "option_text", "no_answer",
    "adversarial",
)  # fmt: skip
CorrectnessKind = Literal[CORRECTNESS_KINDS]  # type: ignore[valid-type]
Text = Annotated[str, StringConstraints(pattern=r"\S")]
"""A string with something in it."""


def _not_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise PydanticCustomError("score", "must be an integer 1-5, not true or false")
    return value


Scale = Annotated[int, BeforeValidator(_not_bool), Field(ge=1, le=5)]
"""An integer 1-5 (a digit string such as "4" is read as 4)."""


def _problem(message: str) -> PydanticCustomError:
    return PydanticCustomError("contract", message)


_NEEDED = {
    "push": "'lenient' or 'harsh'",
    "injection_target": "the verdict its injection asks for",
    "twin": "its clean twin's id",
}


class GoldCase(BaseModel):
    """A response with gold labels; an adversarial one names its attack, push and clean twin."""

    model_config = ConfigDict(extra="allow")

    id: Text
    response: Text
    attack: Attack | None = None
    injection_target: dict[str, Any] | None = Field(default=None, validate_default=True)
    push: Literal["lenient", "harsh"] | None = Field(default=None, validate_default=True)
    twin: Text | None = Field(default=None, validate_default=True)

    @field_validator("injection_target", "push", "twin")
    @classmethod
    def _paired(cls, value: Any, info: ValidationInfo) -> Any:
        attacked = info.data.get("attack") is not None
        if not attacked and value is not None:
            raise _problem("set on a clean record (attack is null)")
        if attacked and value is None:
            raise _problem(f"an adversarial record needs {_NEEDED[str(info.field_name)]}")
        if attacked and info.field_name == "injection_target" and len(value) != 1:
            raise _problem("must be one verdict")
        return value

    @property
    def adversarial(self) -> bool:
        """Whether the response carries an injection."""
        return self.attack is not None


def _source(value: str) -> str:
    if value not in SOURCES:
        raise _problem(f"must be one of {', '.join(SOURCES)}")
    return value


Source = Annotated[str, BeforeValidator(_source)]


class Criterion(BaseModel):
    """One criterion a rubric case is judged on, with the gold score."""

    model_config = ConfigDict(extra="allow")

    preference: Text
    description: Text
    levels: dict[Scale, Text] = Field(min_length=1)
    value: Annotated[str, BeforeValidator(str)]
    justification: str = ""
    importance: Scale
    score: Scale


class RubricCase(GoldCase):
    """A `prefdisco_rubric.jsonl` record: a response to a task, scored per criterion."""

    source: Source
    task: Text
    kind: Text
    criteria: list[Criterion] = Field(min_length=1)


class CorrectnessCase(GoldCase):
    """A `prefdisco_correctness.jsonl` record: a final response, correct or not."""

    source: Source
    problem: Text
    options: dict[str, Text] | None = Field(default=None, validate_default=True)
    gold: Annotated[Text, BeforeValidator(lambda v: str(v).strip() if isinstance(v, int | float)
                                          and not isinstance(v, bool) else v)]  # fmt: skip
    correct: bool = Field(strict=True)
    kind: CorrectnessKind

    @field_validator("options")
    @classmethod
    def _options(cls, value: dict[str, str] | None, info: ValidationInfo) -> Any:
        source = info.data.get("source")
        if value is None and source in SOURCES and SOURCES[source].kind == "choice":
            raise _problem(f"a multiple-choice source ({source}) needs its options")
        if value is not None and not value:
            raise _problem("must map letters to option texts")
        return value

    @field_validator("gold")
    @classmethod
    def _gold(cls, value: str, info: ValidationInfo) -> str:
        options = info.data.get("options")
        if options and value.strip() not in options:
            raise _problem(f"must be one of the option letters {', '.join(options)}")
        return value.strip()
