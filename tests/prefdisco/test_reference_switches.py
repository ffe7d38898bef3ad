"""`-T protocol=paper` as the scripted models receive it, and the switches back to our variants.

Under `paper` (the default) the PrefAlign grader gets the reference's system message and asks
for the score before the justification, the simulated user writes `{thought, response}` and
only the response reaches the assistant, and every role runs with the reference's top-p and
token limits. `grader_prompt=anchored`, `user_format=text` and `sampling=provider` bring back
heedbench's earlier choices; each run records the values it used.
"""

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)

from heedbench.evals.prefdisco import load_records
from heedbench.evals.prefdisco.task import prefdisco
from heedbench.params import ParameterError
from heedbench.solvers.prefdisco.user import read_json_reply, user_prompt
from heedbench.solvers.prefdisco.user_prompts import JSON_REPLY_FORMAT, REPLY_FORMAT
from tests.prefdisco.scripted import asks, condition_of

SECRET = "my daughter Mira is the real decision maker"
"""In the user's thought only: it must never reach the evaluated model."""
ANSWER = "Short, with one worked example."


@dataclass
class Call:
    """One model call as it arrived: the messages and the generation settings."""

    messages: list[ChatMessage]
    config: GenerateConfig

    @property
    def text(self) -> str:
        return "\n".join(message.text for message in self.messages)


@dataclass
class Recorded:
    target: list[Call] = field(default_factory=list)
    user: list[Call] = field(default_factory=list)
    grader: list[Call] = field(default_factory=list)

    def prefalign_calls(self) -> list[Call]:
        return [c for c in self.grader if "correct answer" not in c.text]


def recorder(reply: Callable[[str], str], name: str, calls: list[Call]) -> Model:
    def output(
        messages: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        calls.append(Call(list(messages), config))
        result = ModelOutput.from_content(model=name, content=reply(calls[-1].text))
        result.usage = ModelUsage(input_tokens=90, output_tokens=8, total_tokens=98)
        return result

    return get_model(f"mockllm/{name}", custom_outputs=output, memoize=False)


def json_user(prompt: str) -> str:
    """A chatty reasoning-model user: prose, then its JSON in a code fence."""
    reply = {"thought": f"I should keep it brief; {SECRET}.", "response": ANSWER}
    return "Here is my reply.\n```json\n" + json.dumps(reply) + "\n```"


def grader(prompt: str) -> str:
    """Scores 2/3/4 by the response's condition tag; the justification names the criterion."""
    if "correct answer" in prompt:
        verdict = 1 if "<0 or 1>" in prompt else "true"
        return f'{{"correct": {verdict}, "justification": "same value"}}'
    tag = re.search(r"\[(baseline|discovery|oracle)\]", prompt)
    score = {"baseline": 2, "discovery": 3, "oracle": 4}[tag.group(1)] if tag else 1
    named = re.search(r"^Criterion: (.*)$", prompt, re.MULTILINE)
    why = f"checked against {named.group(1)}" if named else "all criteria"
    return json.dumps({"score": score, "justification": why})


def play(tmp: Path, **params: Any) -> tuple[EvalLog, Recorded]:
    seen = Recorded()
    log = eval(
        prefdisco(condition="all", **params),
        model=recorder(asks(1), "target", seen.target),
        model_roles={
            "user": recorder(json_user, "sim-user", seen.user),
            "grader": recorder(grader, "judge", seen.grader),
        },
        limit=3,
        display="none",
        log_dir=str(tmp),
    )[0]
    assert log.status == "success", log.error
    return log, seen


@pytest.fixture(scope="module")
def paper(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalLog, Recorded]:
    return play(tmp_path_factory.mktemp("paper"))


@pytest.fixture(scope="module")
def earlier(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalLog, Recorded]:
    return play(
        tmp_path_factory.mktemp("earlier"),
        grader_prompt="anchored",
        user_format="text",
        sampling="provider",
    )


def discovery_sample(log: EvalLog) -> EvalSample:
    return next(s for s in log.samples or [] if s.metadata["condition"] == "discovery")


def schema_fields(call: Call) -> list[str]:
    schema = call.config.response_schema
    assert schema is not None and schema.json_schema.properties is not None
    return list(schema.json_schema.properties)


# --- the paper protocol, as sent --------------------------------------------------------------


def test_paper_grader_gets_the_system_message_and_asks_the_score_first(
    paper: tuple[EvalLog, Recorded],
) -> None:
    calls = paper[1].prefalign_calls()
    assert calls
    for call in calls:
        system, user = call.messages
        assert isinstance(system, ChatMessageSystem) and "valid JSON" in system.text
        asked = re.search(r"Reply with your verdict as one JSON object.*", user.text)
        assert asked is not None
        assert asked.group(0).index('"score"') < asked.group(0).index('"justification"')
        assert schema_fields(call) == ["score", "justification"]
        assert "2 and 4 fall between" not in user.text and "overall quality" not in user.text
        levels = user.text.split("Score levels (JSON):\n", 1)[1].split("\n\nBlock code", 1)[0]
        assert {level["score"] for level in json.loads(levels)} == {1, 3, 5}
        # the reference's order: criterion and levels, the response, the user's value, the
        # instructions, then the reply with a sample justification naming what a 5 would need
        text = user.text
        order = ["Criterion:", "the response to grade", "This user's preferred value",
                 "How to grade:", "Reply with your verdict"]  # fmt: skip
        assert [text.index(part) for part in order] == sorted(text.index(p) for p in order)
        assert "that a score of 5 would need" in text


def test_paper_user_answers_in_json_and_only_the_response_reaches_the_model(
    paper: tuple[EvalLog, Recorded],
) -> None:
    log, seen = paper
    assert seen.user and all(JSON_REPLY_FORMAT in call.text for call in seen.user)
    after = [c.text for c in seen.target if condition_of(c.text) == "discovery"][1:]
    assert after and all(ANSWER in text and SECRET not in text for text in after)
    assert all(SECRET not in call.text for call in seen.grader)
    assert all(SECRET not in message.text for message in discovery_sample(log).messages)
    meta = discovery_sample(log).scores["prefdisco"].metadata  # type: ignore[index]
    assert meta is not None
    [exchange] = meta["exchanges"]
    assert exchange["answer"] == ANSWER and SECRET in exchange["user_thought"]
    assert meta["plain_user_replies"] == 0


def test_paper_sampling_for_every_role(paper: tuple[EvalLog, Recorded]) -> None:
    log, seen = paper
    settings = {
        role: {
            (c.config.temperature, c.config.top_p, c.config.max_tokens, c.config.reasoning_effort)
            for c in calls
        }
        for role, calls in (("target", seen.target), ("user", seen.user), ("grader", seen.grader))
    }
    # the reference's client turns the correctness call's 0 into its configured 0.7
    assert settings == {
        "target": {(0.7, 0.9, 8192, "low")},
        "user": {(0.4, 0.95, 4096, "high")},
        "grader": {(0.1, 0.95, 4096, "high"), (0.7, 0.95, 4096, "high")},
    }
    correctness = {c.config.temperature for c in seen.grader if "correct answer" in c.text}
    assert correctness == {0.7}
    # the log names every role's settings (a binding's own would still win)
    assert log.eval.metadata is not None
    assert log.eval.metadata["role_settings"]["correctness"] == {
        "temperature": 0.7, "top_p": 0.95, "max_tokens": 4096, "reasoning_effort": "high"
    }  # fmt: skip
    assert log.eval.metadata["role_settings"]["model"]["reasoning_effort"] == "low"
    assert (log.plan.config.top_p, log.plan.config.max_tokens) == (0.9, 8192)
    assert log.plan.config.reasoning_effort == "low"


def test_paper_switches_are_recorded(paper: tuple[EvalLog, Recorded]) -> None:
    log = paper[0]
    expected = {
        "grader_prompt": "paper", "user_format": "json", "sampling": "paper", "reasoning": "paper",
        "correctness": "grader", "markers": "action", "share_baseline": True,
    }  # fmt: skip
    assert log.eval.metadata is not None
    assert {k: log.eval.metadata[k] for k in expected} == expected
    for sample in log.samples or []:
        meta = sample.scores["prefdisco"].metadata  # type: ignore[index]
        assert meta is not None and meta["switches"] == expected


# --- the switches back to heedbench's earlier choices -----------------------------------------


def test_anchored_grader_asks_the_justification_first_with_the_anchors(
    earlier: tuple[EvalLog, Recorded],
) -> None:
    calls = earlier[1].prefalign_calls()
    assert calls
    for call in calls:
        [user] = call.messages
        assert "2 and 4 fall between" in user.text and "overall quality" in user.text
        assert schema_fields(call) == ["justification", "score"]


def test_text_user_replies_in_plain_text(earlier: tuple[EvalLog, Recorded]) -> None:
    seen = earlier[1]
    assert seen.user and all(REPLY_FORMAT in c.text and "thought" not in c.text for c in seen.user)
    # the JSON the scripted user still writes is, for a text user, its reply as it stands
    after = [c.text for c in seen.target if condition_of(c.text) == "discovery"][1:]
    assert after and all('"response"' in text for text in after)


def test_provider_sampling_leaves_top_p_and_the_model_budget_to_the_provider(
    earlier: tuple[EvalLog, Recorded],
) -> None:
    log, seen = earlier
    assert {(c.config.temperature, c.config.top_p, c.config.max_tokens) for c in seen.target} == {
        (0.7, None, None)
    }
    assert {(c.config.top_p, c.config.max_tokens) for c in seen.user} == {(None, 512)}
    assert {(c.config.top_p, c.config.max_tokens) for c in seen.grader} == {(None, 4096)}
    expected = {"grader_prompt": "anchored", "user_format": "text", "sampling": "provider"}
    assert log.eval.metadata is not None
    assert {k: log.eval.metadata[k] for k in expected} == expected


def test_budgeted_keeps_its_own_choices_unless_a_switch_says_otherwise() -> None:
    metadata = prefdisco(protocol="budgeted", condition="baseline").metadata or {}
    names = ("grader_prompt", "user_format", "sampling", "reasoning", "correctness", "markers",
             "share_baseline")  # fmt: skip
    assert tuple(metadata[name] for name in names) == (
        "anchored", "text", "provider", "provider", "deterministic", "labels", False,
    )  # fmt: skip
    mixed = prefdisco(protocol="budgeted", condition="baseline", user_format="json").metadata
    assert mixed is not None and mixed["user_format"] == "json"


@pytest.mark.parametrize("protocol", ["paper", "budgeted"])
def test_each_protocols_user_prompt_asks_for_the_format_chosen(protocol: str) -> None:
    record = load_records("math")[0]

    def prompt(user_format: str) -> str:
        return user_prompt(
            protocol=protocol,  # type: ignore[arg-type]
            persona=record.persona,
            preferences=record.preferences,
            user_type="passive",
            task=record.problem.task_text(),
            exchanges=[],
            question="How much detail do you want?",
            user_format=user_format,  # type: ignore[arg-type]
        )

    assert '"thought"' in prompt("json") and '"response"' in prompt("json")
    assert "thought" not in prompt("text")


@pytest.mark.parametrize(
    ("switch", "value", "allowed"),
    [
        ("grader_prompt", "fancy", "paper, anchored"),
        ("user_format", "yaml", "json, text"),
        ("sampling", "greedy", "paper, provider"),
        ("reasoning", "max", "paper, provider"),
        ("correctness", "vibes", "grader, deterministic"),
        ("markers", "xml", "action, labels"),
    ],
)
def test_a_bad_switch_is_refused_before_any_call(switch: str, value: str, allowed: str) -> None:
    params: dict[str, Any] = {switch: value}
    with pytest.raises(ParameterError, match=f"-T {switch}: must be one of {allowed}"):
        prefdisco(**params)


# --- the JSON user's reply, however it comes ----------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "response", "thought"),
    [
        ('{"thought": "t", "response": "Short."}', "Short.", "t"),
        ('Sure!\n```json\n{"thought": "t", "response": "Beginner."}\n```', "Beginner.", "t"),
        ('{"Response": 3, "Thought": "a number"}', "3", "a number"),
        ("Thought: I am a nurse.\nResponse: Short.", "Short.", "I am a nurse."),
    ],
)
def test_a_json_reply_gives_its_response(raw: str, response: str, thought: str) -> None:
    reading = read_json_reply(raw)
    assert (reading.response, reading.thought, reading.plain) == (response, thought, False)


def test_plain_text_is_taken_as_the_response() -> None:
    reading = read_json_reply("Short, please.")
    assert (reading.response, reading.plain) == ("Short, please.", True)


@pytest.mark.parametrize(
    "raw",
    [
        '{"thought": "I am a nurse who hates detail"}',  # no response
        '{"thought": "x", "response": true}',  # not text
        '{"thought": "I am a nurse", "response": "ok"',  # cut off: the thought may be in it
        "Thought: I am a nurse who hates detail.",  # a thought and no response
        "Response: fine.\nThought: I am a nurse.",  # the thought after the response
    ],
)
def test_an_unreadable_reply_gives_nothing_never_the_thought(raw: str) -> None:
    assert read_json_reply(raw).response is None


def test_a_user_that_never_gives_a_response_leaves_the_sample_unscored(tmp_path: Path) -> None:
    seen = Recorded()
    log = eval(
        prefdisco(condition="discovery"),
        model=recorder(asks(1), "target", seen.target),
        model_roles={
            "user": recorder(lambda p: json.dumps({"thought": SECRET}), "sim-user", seen.user),
            "grader": recorder(grader, "judge", seen.grader),
        },
        limit=1,
        display="none",
        log_dir=str(tmp_path),
    )[0]
    [sample] = log.samples or []
    score = sample.scores["prefdisco"]  # type: ignore[index]
    assert isinstance(score.value, float) and math.isnan(score.value)
    assert score.reason == "scoring_failed" and "no usable reply" in (score.explanation or "")
    assert len(seen.user) == 2 and seen.grader == []  # regenerated once, then given up
    assert all(SECRET not in call.text for call in seen.target)


def test_a_stopping_json_user_stops_by_its_response(tmp_path: Path) -> None:
    seen = Recorded()
    stop = json.dumps({"thought": "Solved, I am done.", "response": "###STOP###"})
    log = eval(
        prefdisco(condition="discovery", user_type="passive_stop"),
        model=recorder(asks(3), "target", seen.target),
        model_roles={
            "user": recorder(lambda p: stop, "sim-user", seen.user),
            "grader": recorder(grader, "judge", seen.grader),
        },
        limit=1,
        display="none",
        log_dir=str(tmp_path),
    )[0]
    meta = discovery_sample(log).scores["prefdisco"].metadata  # type: ignore[index]
    assert meta is not None and meta["user_stopped"] and len(seen.user) == 1
