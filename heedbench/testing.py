"""Scripted models for offline tests and benchmarks: mockllm driven by a reply function.

Used by heedbench's own tests and speed benchmarks, and handy for checking a new template or
dataset end to end without an API key.
"""

import hashlib
import json
import math
from collections.abc import Callable
from typing import Any, Literal

from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model
from inspect_ai.tool import ToolFunction

from heedbench.evals.choice import choice_dataset
from heedbench.preference import rank_map
from heedbench.solvers.choice.prompts import read_prompt

Reply = Callable[[str], str]
"""Whole prompt text (messages joined by newlines) -> the model's reply."""
RichReply = Callable[[str], "str | ModelOutput"]
"""As `Reply`, or a whole `ModelOutput` (prose beside a tool call, a stop reason, an error)."""


ANNOUNCEMENT = "Block code for this request:"
"""Where a fenced judge prompt's own instructions end and its material begins."""


def instruction_section(prompt: str) -> str:
    """The part of a judge prompt before its fenced material: what the grader is asked.

    A scripted grader decides what it is asked from this part only, so a response that
    mentions "harm" or imitates a prompt line cannot change the question.
    """
    return prompt.split(ANNOUNCEMENT, maxsplit=1)[0]


CHARS_PER_TOKEN = 4
"""Rough characters per token of English text, for estimated usage."""


def as_tool_call(name: str, content: str, tool: str) -> ModelOutput:
    """A reply to a call that forces `tool`: a JSON object reply becomes the call's arguments.

    Anything else stays text, as from a model that ignores the tool, so the same scripted
    grader serves every verdict channel.
    """
    try:
        arguments = json.loads(content)
    except ValueError:
        arguments = None
    if not isinstance(arguments, dict):
        return ModelOutput.from_content(model=name, content=content)
    return ModelOutput.for_tool_call(model=name, tool_name=tool, tool_arguments=arguments)


def scripted_model(
    reply: RichReply, name: str = "scripted", usage: Literal["fixed", "chars"] = "fixed"
) -> Model:
    """A mockllm model whose reply is a function of the prompt.

    When the call forces a tool (a grader's `submit_verdict`), a reply that is one JSON object
    is sent as that tool's call (`as_tool_call`). Every output carries token usage, so mockllm
    never downloads a tokenizer (offline-safe): a fixed 90 in / 8 out, or (`usage="chars"`)
    an estimate from the text that crosses the call, characters / 4, for cost benchmarks.
    """

    def output(
        messages: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        prompt = "\n".join(message.text for message in messages)
        answer = reply(prompt)
        if isinstance(answer, ModelOutput):
            result, content = answer, answer.completion
        elif isinstance(tool_choice, ToolFunction):
            result, content = as_tool_call(name, answer, tool_choice.name), answer
        else:
            result, content = ModelOutput.from_content(model=name, content=answer), answer
        tokens_in, tokens_out = 90, 8
        if usage == "chars":
            tokens_in = len(prompt) // CHARS_PER_TOKEN + 1
            tokens_out = len(content) // CHARS_PER_TOKEN + 1
        result.usage = ModelUsage(
            input_tokens=tokens_in, output_tokens=tokens_out, total_tokens=tokens_in + tokens_out
        )
        return result

    return get_model(f"mockllm/{name}", custom_outputs=output, memoize=False)


def log_metric(log: EvalLog, score: str, name: str = "mean") -> float:
    """A metric of one score in a log's results, by its exact name; NaN if it has none.

    Raises:
        KeyError: the log has no results, or no score of that name.
    """
    if log.results is None:
        raise KeyError(f"the log has no results (status {log.status})")
    for result in log.results.scores:
        if result.name == score:
            found = result.metrics.get(name)
            return math.nan if found is None else float(found.value)
    raise KeyError(f"no score {score!r} in {[r.name for r in log.results.scores]}")


ContextRanks = dict[str, dict[str, int]]
"""Context text -> object -> index of its indifference set in the user's order."""


def user_ranks(n: int | None = None, seed: int = 0, data: str | None = None) -> ContextRanks:
    """The model user's ranks for every `choice` context of the shipped data (or `data`)."""
    ranks: ContextRanks = {}
    for sample in choice_dataset(data, n=n, seed=seed):
        assert sample.metadata is not None
        ranks[sample.metadata["context"]] = rank_map(sample.metadata["user_order"])
    return ranks


def choice_oracle(ranks: ContextRanks, invert: bool = False, noise: float = 0.0) -> Reply:
    """Answer `choice` prompts from the user's weak order (reversed when `invert`).

    With `noise`, a deterministic share of answers goes wrong: pairwise answers (per
    presentation order) are flipped, pointwise scores move to the far end of the scale, and
    listwise rankings have objects moved to the end.
    """

    def reply(prompt: str) -> str:
        found = read_prompt(prompt)
        if found is None:
            return "not a choice prompt"
        template, fields = found
        rank, context = ranks[fields["context"]], fields["context"]
        sign = -1 if invert else 1

        def key(obj: str) -> int:
            return sign * rank[obj]

        if template.kind == "pairwise":
            first, second = fields["object1"], fields["object2"]
            if key(first) == key(second):
                answer = "none" if template.allows_none else first
            else:
                answer = first if key(first) < key(second) else second
                if noise and _unit(f"{first}|{second}|{context}") < noise:
                    answer = second if answer == first else first
            return json.dumps({"answer": answer})
        if template.kind == "listwise":
            ranking = sorted((obj.strip() for obj in fields["objects"].split(",")), key=key)
            if noise:
                unlucky = [o for o in ranking if _unit(f"{o}|{context}") < noise]
                ranking = [o for o in ranking if o not in unlucky] + unlucky
            return json.dumps({"ranking": ranking})
        low, high, obj = int(fields["score_low"]), int(fields["score_high"]), fields["object"]
        score = low + rank[obj] if invert else high - rank[obj]
        if noise and _unit(f"{obj}|{context}") < noise:
            score = low if score - low > high - score else high
        return json.dumps({"score": max(low, min(high, score))})

    return reply


def _unit(text: str) -> float:
    """A deterministic pseudo-uniform number in [0, 1) for `text`."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") / 2**32
