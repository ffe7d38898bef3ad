"""Shared fixtures: scripted mockllm models that never touch the network."""

from collections.abc import Callable
from typing import Any

import pytest
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model


def scripted_model(reply: Callable[[str], str], name: str = "scripted") -> Model:
    """A mockllm model whose reply is a function of the whole prompt text.

    Every output carries usage so mockllm never reaches for a tokenizer download.
    """

    def output(
        messages: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        prompt = "\n".join(message.text for message in messages)
        content = reply(prompt)
        result = ModelOutput.from_content(model=name, content=content)
        result.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return result

    return get_model(f"mockllm/{name}", custom_outputs=output)


@pytest.fixture
def make_scripted_model() -> Callable[..., Model]:
    return scripted_model
