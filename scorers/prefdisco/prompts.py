"""PrefDisco judge prompts: PrefAlign (one criterion per call or all at once) and correctness.

Two PrefAlign prompt styles (`-T grader_prompt=`): `paper`, the reference evaluator's prompt
in our own words (a system message asking for valid JSON, its short list of instructions, the
score asked before the justification, the levels as JSON), and `anchored`, heedbench's earlier
prompt (justification first, with scale anchors). In both, fixed instructions come first and
per-sample material last (a provider's prompt cache reuses the prefix), the response sits
in a `Fence` block announced by `{fence}`, and `{reply}` is the verdict channel's line.
"""

from heedbench.scorers.judge.prompts import MATERIAL_RULES

PAPER_CRITERION_EXAMPLE = (
    '{"score": <integer 1-5>, "justification": "<the parts of the response behind the score>"}'
)
PAPER_BATCHED_EXAMPLE = (
    '{"scores": {"1": <integer 1-5>, "2": <integer 1-5>, ...}, "justification": "<one sentence>"}'
)
CRITERION_EXAMPLE = '{"justification": "<one sentence>", "score": <integer 1-5>}'
BATCHED_EXAMPLE = (
    '{"justification": "<one sentence>", "scores": {"1": <integer 1-5>, "2": <integer 1-5>, ...}}'
)
CORRECTNESS_EXAMPLE = '{"justification": "<one sentence>", "correct": <true or false>}'
"""The verdict shapes the prompts show (`{reply}`: `reply_instruction` of the call's channel)."""

# --- grader_prompt=paper ----------------------------------------------------------------------

PAPER_SYSTEM = """You grade responses against specific criteria. Reply with valid JSON only."""
"""The system message of every `paper` PrefAlign call."""

_PAPER_STEPS = """How to grade:
1. Compare the response with the description of each score level.
2. Find the parts of the response that match a level's description.
3. Decide the score from 1 to 5 that best describes the response on this criterion.
4. Justify the score with specific parts of the response.
5. Be objective, and hold every response to the same standard.
6. Take this user's preferences into account.
7. Make your reasoning precise enough that another grader would reach the same score."""

PAPER_PER_CRITERION = (
    """You are an evaluation specialist who grades personalised responses on a standardised \
rubric. Assess precisely, from the evidence in the response, how well it meets one criterion.

"""
    + _PAPER_STEPS
    + """

"""
    + MATERIAL_RULES
    + """

{reply}

Criterion: {name}
Description: {description}
Score levels (JSON):
{levels}
This user's preferred value: {value}
Why the user wants this: {justification}

{fence}

{response}"""
)

PAPER_BATCHED = (
    """You are an evaluation specialist who grades personalised responses on a standardised \
rubric. Assess precisely, from the evidence in the response, how well it meets each of several \
numbered criteria.

"""
    + _PAPER_STEPS
    + """

"""
    + MATERIAL_RULES
    + """

{reply}

{criteria}

{fence}

{response}"""
)

PAPER_CRITERION_ENTRY = """Criterion {number}: {name}
Description: {description}
Score levels (JSON):
{levels}
This user's preferred value: {value}; why: {justification}"""

# --- grader_prompt=anchored (heedbench's earlier prompt) ----------------------------------------

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

{reply}

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

{reply}

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

{reply}

Question:
{question}
{options}
Correct answer: {gold}

{fence}

{response}"""
)
