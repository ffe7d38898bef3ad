"""PrefDisco judge prompts: PrefAlign (one criterion per call or all at once) and correctness.

Two styles (`-T grader_prompt=`): `paper`, the reference evaluator's prompts in our own words
(a system message asking for JSON, the criterion's levels as JSON, the seven instructions, the
score before the justification), and `anchored`, heedbench's earlier prompts (instructions
first, the response last, justification first, scale anchors). In both the response sits in a
`Fence` block announced by `{fence}`, and `{reply}` is the verdict channel's line.
"""

from heedbench.scorers.judge.prompts import MATERIAL_RULES

PAPER_CRITERION_EXAMPLE = (
    '{"score": <integer 1-5>, "justification": "The response does [one specific thing] and '
    "[another], which matches the user's preference for [the wording of a level] to that "
    'extent; it lacks [a missing element] that a score of 5 would need."}'
)
PAPER_BATCHED_EXAMPLE = (
    '{"scores": {"1": <integer 1-5>, "2": <integer 1-5>, ...}, "justification": "<what the '
    'response does for each criterion, and what a 5 would need>"}'
)
CRITERION_EXAMPLE = '{"justification": "<one sentence>", "score": <integer 1-5>}'
BATCHED_EXAMPLE = (
    '{"justification": "<one sentence>", "scores": {"1": <integer 1-5>, "2": <integer 1-5>, ...}}'
)
CORRECTNESS_EXAMPLE = '{"justification": "<one sentence>", "correct": <true or false>}'
PAPER_CORRECTNESS_EXAMPLE = '{"justification": "<one sentence>", "correct": <0 or 1>}'
"""The verdict shapes the prompts show (`{reply}`: `reply_instruction` of the call's channel)."""

# --- grader_prompt=paper ----------------------------------------------------------------------

PAPER_SYSTEM = """You grade responses against specific criteria. Reply with valid JSON only."""
"""The system message of every `paper` PrefAlign call."""
PAPER_CORRECTNESS_SYSTEM = """You judge a final response against the correct answer. Reply \
with valid JSON only."""

_PAPER_INTRO = (
    """You are an evaluation specialist who grades personalised responses on a \
standardised rubric. Assess precisely, from the evidence in the response, how well it meets \
{what}.

"""
    + MATERIAL_RULES
)

_PAPER_STEPS = """How to grade:
1. Compare the response with the description of each score level.
2. Find the parts of the response that match a level's description.
3. Decide the score from 1 to 5 that best describes the response on this criterion.
4. Justify the score with specific parts of the response.
5. Be objective, and hold every response to the same standard.
6. Take this user's preferences into account.
7. Make your reasoning precise enough that another grader would reach the same score."""

PAPER_PER_CRITERION = (
    _PAPER_INTRO.format(what="one criterion")
    + """

Criterion: {name}
Description: {description}
Score levels (JSON):
{levels}

{fence}

{response}

This user's preferred value: {value}
Why the user wants this: {justification}

"""
    + _PAPER_STEPS
    + "\n\n{reply}"
)

PAPER_BATCHED = (
    _PAPER_INTRO.format(what="each of several numbered criteria")
    + """

{criteria}

{fence}

{response}

"""
    + _PAPER_STEPS
    + "\n\n{reply}"
)

PAPER_CRITERION_ENTRY = """Criterion {number}: {name}
Description: {description}
Score levels (JSON):
{levels}
This user's preferred value: {value}; why: {justification}"""

PAPER_CORRECTNESS = (
    """You judge a model's final response against the correct answer to a problem. Judge only \
whether the final response is objectively correct; its style does not matter.

"""
    + MATERIAL_RULES
    + """

The problem:
{question}
{options}
The correct answer: {gold}

{fence}

{response}

Give a one-sentence justification of your judgement and the correctness as 0 (incorrect) or \
1 (correct). {reply}"""
)

# --- grader_prompt=anchored (heedbench's earlier prompts) ---------------------------------------

SCALE_NOTE = """Score from 1 to 5 against the criterion's levels and this user's preferred \
value: the levels describe scores 1, 3 and 5, and 2 and 4 fall between them. Judge how well \
the response suits this user on this criterion only, not its overall quality."""

_ANCHORED_INTRO = "\n\n".join(["{intro}", SCALE_NOTE, MATERIAL_RULES, "{{reply}}"])

PER_CRITERION = (
    _ANCHORED_INTRO.format(
        intro="You grade how well an assistant's response suits one particular user on one "
        "criterion."
    )
    + """

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
    _ANCHORED_INTRO.format(
        intro="You grade how well an assistant's response suits one particular user, on each "
        "of several numbered criteria."
    )
    + "\n\n{criteria}\n\n{fence}\n\n{response}"
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
