"""Scripted evaluated model, simulated user and grader for offline prefdisco runs."""

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)

from heedbench.scorers.judge import read_blocks
from heedbench.solvers.prefdisco import prompts
from heedbench.testing import instruction_section, scripted_model

DISCOVERY = ("`QUESTION:`", "###ACTION###: 'ask_question'")
"""Every discovery system message (either protocol, either marker style) explains the question
marker; no other condition's prompt mentions it."""
ORACLE = (prompts.PAPER_ORACLE_SYSTEM[:60], prompts.ORACLE_SYSTEM[:30])
GRADES = {"baseline": 2, "discovery": 3, "oracle": 4}


def condition_of(prompt: str) -> str:
    if any(marker in prompt for marker in DISCOVERY):
        return "discovery"
    return "oracle" if any(opening in prompt for opening in ORACLE) else "baseline"


def action_style(prompt: str) -> bool:
    """Whether the run's discovery messages are the reference's `###ACTION###` lines."""
    return DISCOVERY[1] in prompt


def asked(prompt: str) -> int:
    """Questions the model has asked so far (its own messages open with the marker)."""
    if action_style(prompt):
        return len(re.findall(r"^###ACTION###: ask_question", prompt, re.MULTILINE))
    return len(re.findall(r"^\**QUESTION", prompt, re.MULTILINE | re.IGNORECASE))


def as_question(prompt: str, text: str) -> str:
    """`text` as a question in the run's marker style."""
    if action_style(prompt):
        return f"###ACTION###: ask_question\n###RESPONSE###: {text}"
    return f"QUESTION: {text}"


def as_answer(prompt: str, text: str) -> str:
    """`text` as the final answer in the run's marker style."""
    if action_style(prompt):
        return f"###ACTION###: final_answer\n###RESPONSE###: {text}"
    return f"FINAL ANSWER: {text}"


def final(prompt: str, answer: str = "The answer is \\boxed{7}.") -> str:
    return f"[{condition_of(prompt)}] {answer}"


def asks(k: int, answer: str = "The answer is \\boxed{7}.") -> Callable[[str], str]:
    """A model that asks k questions in discovery, then answers."""

    def reply(prompt: str) -> str:
        if condition_of(prompt) != "discovery":
            return final(prompt, answer)
        if asked(prompt) < k and "complete final answer" not in prompt:
            return as_question(
                prompt, f"How much detail do you want? (question {asked(prompt) + 1})"
            )
        return as_answer(prompt, final(prompt, answer))

    return reply


@dataclass
class Calls:
    """Prompts each scripted model received."""

    model: list[str] = field(default_factory=list)
    user: list[str] = field(default_factory=list)
    grader: list[str] = field(default_factory=list)


def grader_reply(prompt: str, grades: dict[str, int] | None = None) -> str:
    """Score 2/3/4 by the condition tag in the response; every answer is correct.

    What is asked comes from the prompt's own instructions and the tag from the response
    block only, so a response that imitates a prompt line cannot change either.
    """
    asked = instruction_section(prompt)
    blocks = read_blocks(prompt)
    response = blocks[-1][1] if blocks else ""
    if "correct answer" in asked:
        verdict = 1 if "<0 or 1>" in prompt else "true"
        return f'{{"correct": {verdict}, "justification": "same"}}'
    grades = grades or GRADES
    tag = re.search(r"\[(baseline|discovery|oracle)\]", response)
    score = grades[tag.group(1)] if tag else 1
    count = len(re.findall(r"^Criterion \d+:", asked, re.MULTILINE))
    if count:
        scores = {str(i): score for i in range(1, count + 1)}
        return json.dumps({"scores": scores, "justification": "scripted"})
    return json.dumps({"score": score, "justification": "scripted"})


def models(
    model: Callable[[str], str],
    user: Callable[[str], str] = lambda prompt: "Keep it short.",
    grader: Callable[[str], str] = grader_reply,
    calls: Calls | None = None,
) -> tuple[Model, dict[str, Model]]:
    """The evaluated model and the role bindings, recording every prompt into `calls`."""
    calls = calls if calls is not None else Calls()

    def recorded(log: list[str], reply: Callable[[str], str]) -> Callable[[str], str]:
        def inner(prompt: str) -> str:
            log.append(prompt)
            return reply(prompt)

        return inner

    return (
        scripted_model(recorded(calls.model, model), "model"),
        {
            "user": scripted_model(recorded(calls.user, user), "user"),
            "grader": scripted_model(recorded(calls.grader, grader), "grader"),
        },
    )


def configured_model(
    reply: Callable[[str], str],
    name: str,
    seen: list[GenerateConfig],
    config: GenerateConfig | None = None,
) -> Model:
    """A scripted model that records the generation settings each of its calls arrives with
    (`config` is the model's own, as a `--model-role name={...}` binding would give it)."""

    def output(
        messages: list[ChatMessage], tools: Any, tool_choice: Any, settings: GenerateConfig
    ) -> ModelOutput:
        seen.append(settings)
        result = ModelOutput.from_content(
            model=name, content=reply("\n".join(m.text for m in messages))
        )
        result.usage = ModelUsage(input_tokens=90, output_tokens=8, total_tokens=98)
        return result

    return get_model(
        f"mockllm/{name}", custom_outputs=output, memoize=False, config=config or GenerateConfig()
    )
