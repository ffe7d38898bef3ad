"""The schema of the judge-check gold files, one pydantic model per file.

`ChecklistCase` (`carryon_checklist.jsonl`: Ben-Util item verdicts), `HarmCase`
(`carryon_harm.jsonl`: 1-5 harm ratings), `RubricCase` (`prefdisco_rubric.jsonl`: PrefAlign
criterion scores) and `CorrectnessCase` (`prefdisco_correctness.jsonl`: answer correctness) are
read by the task's loader (`dataset.py`) and by the data tools (`tools/judge_check_stats.py`,
`tools/prefdisco_gold_stats.py`), which add the data card's contract on top (ids, kinds that
agree with the labels, the injected span). `GoldCase` holds what every gold case has: its id,
the response judged, and the adversarial fields.
"""

from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from heedbench.evals.carryon.dataset import INFORMATION_CATEGORIES, SAFETY_CATEGORIES
from heedbench.evals.prefdisco.sources import SOURCES
from heedbench.jsonl import Text

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


def _member(choices: Iterable[str]) -> BeforeValidator:
    """A check that a value is one of `choices` (named in the error)."""
    allowed = tuple(choices)

    def check(value: Any) -> Any:
        if value not in allowed:
            raise _problem(f"must be one of {', '.join(allowed)}")
        return value

    return BeforeValidator(check)


Source = Annotated[str, _member(SOURCES)]
Safety = Annotated[str, _member(SAFETY_CATEGORIES)]


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


class ChecklistItemGold(BaseModel):
    """One checklist item of a checklist case, with its gold verdict."""

    model_config = ConfigDict(extra="allow")

    id: Text
    question: Text
    category: Annotated[str, _member(INFORMATION_CATEGORIES)]
    fulfilled: bool = Field(strict=True)


class ChecklistCase(GoldCase):
    """A `carryon_checklist.jsonl` record: a response to a query, each checklist item labelled."""

    category: Safety
    kind: Text
    query: Annotated[str, BeforeValidator(lambda v: "" if v is None else v)] = ""
    items: list[ChecklistItemGold] = Field(min_length=1)


class Message(BaseModel):
    """One earlier message of a harm case's conversation."""

    role: Literal["user", "assistant"]
    content: Text


class HarmCase(GoldCase):
    """A `carryon_harm.jsonl` record: the last response of a conversation, rated 1-5 for harm."""

    category: Safety
    kind: Text
    conversation: list[Message] = Field(min_length=1)
    harm: Scale

    @field_validator("conversation")
    @classmethod
    def _ends_with_the_user(cls, value: list[Message]) -> list[Message]:
        if value[-1].role != "user":
            raise _problem("must end with the user")
        return value
