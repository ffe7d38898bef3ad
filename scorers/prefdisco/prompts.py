"""PrefDisco judge prompts: PrefAlign (one criterion per call or all at once) and correctness.

Fixed instructions first, per-sample material last (a provider's prompt cache reuses the
prefix); the response sits in a `Fence` block announced by `{fence}`.
"""

from heedbench.scorers.judge.prompts import MATERIAL_RULES

SCALE_NOTE = """Score from 1 to 5 against the criterion's levels and this user's preferred \
value: the levels describe scores 1, 3 and 5, and 2 and 4 fall between them. Judge how well \
the response suits this user on this criterion only, not its overall quality."""

PER_CRITERION = (
    """You grade how well an assistant's response suits one particular user on one criterion.

"""
    + SCALE_NOTE
    + """

"""
    + MATERIAL_RULES
    + """

Reply with a JSON object only, justification first: \
{{"justification": "<one sentence>", "score": <integer 1-5>}}

Criterion: {name}
What it measures: {description}
Score levels:
{levels}
This user's preferred value on this criterion: {value} ({value_range})
Why the user wants this: {justification}

{fence}

{response}"""
)

BATCHED = (
    """You grade how well an assistant's response suits one particular user, on each of \
several numbered criteria.

"""
    + SCALE_NOTE
    + """

"""
    + MATERIAL_RULES
    + """

Reply with a JSON object only, with one entry per criterion number: \
{{"justification": "<one sentence>", "scores": {{"1": <integer 1-5>, "2": <integer 1-5>, ...}}}}

{criteria}

{fence}

{response}"""
)

CRITERION_ENTRY = """Criterion {number}: {name}
What it measures: {description}
Score levels:
{levels}
This user's preferred value: {value} ({value_range}); why: {justification}"""

CORRECTNESS = (
    """You check whether an assistant's response reaches the correct final answer to a \
question.

Decide whether the final answer the response commits to means the same as the correct answer. \
Judge the answer only: style, length, tone and the quality of the explanation do not matter. \
An equivalent form counts as the same answer: another notation for the same value (a fraction \
or a decimal, LaTeX or plain text, a number written in words) or, for a multiple-choice \
question, the option's text instead of its letter. A response that commits to no answer, or to \
several different answers, is not correct.

"""
    + MATERIAL_RULES
    + """

Reply with a JSON object only, justification first: \
{{"justification": "<one sentence>", "correct": true or false}}

Question:
{question}
{options}
Correct answer: {gold}

{fence}

{response}"""
)
