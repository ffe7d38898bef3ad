"""Putting judged text into a judge prompt so that it cannot rewrite the judge's instructions.

Each untrusted text (a response, a conversation) goes in its own `[BEGIN DATA]` ... `[END DATA]`
block, and Inspect's own `neutralize_structural_delimiters` (the mechanism `model_graded_qa`
uses) rewrites any `[BEGIN DATA]` / `[END DATA]` inside the text, so the text cannot close its
block early and speak as the template. The template's instructions say that everything inside
a block is data to be judged, never instructions.
"""

# Inspect keeps this helper in a private module; it is the mechanism its own graders use.
from inspect_ai.scorer._model import neutralize_structural_delimiters

BEGIN = "[BEGIN DATA]"
END = "[END DATA]"


def untrusted(text: str) -> str:
    """Text safe to place inside a data block: it can no longer open or close one."""
    return neutralize_structural_delimiters(text)


def data_block(label: str, text: str) -> str:
    """A labelled data block holding `text`, neutralised."""
    return f"{label}\n{BEGIN}\n{untrusted(text)}\n{END}"
