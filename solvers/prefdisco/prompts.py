"""What the evaluated model and the simulated user are told in each PrefDisco condition.

Model-facing texts follow the paper's three conditions: the task alone (baseline), the task
with the user's profile up front (oracle), and the task with permission to ask first
(discovery), where every message opens with a protocol marker (see `protocol.py`).
"""

from typing import Literal

from heedbench.solvers.prefdisco.protocol import FINAL_MARKER, QUESTION_MARKER

UserType = Literal["passive", "collaborative"]

TASK_REQUEST = "Could you help me with this task?\n\n{task}"
"""The first user message in every condition."""

ORACLE_SYSTEM = """You are helping one particular person. Here is who they are:
{persona}

And here is how they like to be helped, dimension by dimension (preferred value, scale, how \
much it matters to them, and why):
{preferences}

Shape your answer to this person: how you explain, how much detail you give, your tone and \
format should all follow what they prefer."""

DISCOVERY_SYSTEM = """You are helping someone you have never talked to before. People differ \
in how they like to be helped: how much detail, which level of technicality, what tone, \
what format, what they already know. You do not know yet what this person prefers.

Before you answer their task you may ask them questions to find out, up to {max_turns} \
questions, one question per message. Then give your answer, tailored to what you learned.

Start every message with exactly one of these markers:
- `{question}` followed by one question to the person, or
- `{final}` followed by your complete answer to the task.
Write nothing before the marker."""

FIXED_SYSTEM = """You are helping someone you have never talked to before. People differ in \
how they like to be helped: how much detail, which level of technicality, what tone, what \
format, what they already know. You do not know yet what this person prefers.

Before you answer their task you must ask them exactly {k} questions to find out, one \
question per message. Only after their answer to question {k} will you be asked for your \
answer, which should then be tailored to what you learned.

Start every question with the marker `{question}` and write nothing before it."""

REMINDER = f"""Please begin your message with `{QUESTION_MARKER}` to ask me something, or \
with `{FINAL_MARKER}` to give your complete answer to the task."""
"""Sent once when a message carries neither marker."""

KEEP_ASKING = f"""Not yet, please: you still have {{remaining}} question(s) to ask before \
answering. Ask your next question, starting with `{QUESTION_MARKER}`."""
"""Sent once when a fixed-questions run tries to answer before its k questions are asked."""

FINAL_REQUEST = f"""Thanks for your questions. Now please give your complete final answer to \
the task, tailored to what you have learned about me. Start with `{FINAL_MARKER}`."""
"""Sent when the question budget is spent (or k questions are asked)."""

NO_MORE_QUESTIONS = f"""No more questions, please: give your complete final answer to the \
task now, starting with `{FINAL_MARKER}`."""
"""Sent once when the model asks again after the final answer was requested."""

SIMULATED_USER = """You are role-playing a person who asked an AI assistant for help with a \
task. The assistant is asking you questions to learn how you like to be helped. Write only \
your own reply to its latest message, as this person would type it: no role labels, no stage \
directions, no quotation marks around it, no commentary.

Who you are:
{persona}

How you like to be helped (your preferences; the assistant cannot see this list):
{preferences}

{style}

The task you asked for help with:
{task}

The conversation so far:
{conversation}

Your reply to the assistant's latest message:"""

USER_STYLES: dict[str, str] = {
    "passive": "How you answer: briefly and to the point, one or two short sentences. Answer "
    "only what the assistant asked. Mention one of your preferences only when the question is "
    "directly about it; never volunteer other preferences, your background or extra context. "
    "If a question is vague, give a vague answer. Never solve the task yourself.",
    "collaborative": "How you answer: openly and helpfully, in two to four sentences. Answer "
    "the question, and also volunteer any of your preferences or background that seem "
    "relevant to what the assistant is trying to find out. Never solve the task yourself.",
}


def discovery_system(max_turns: int, fixed_questions: int | None) -> str:
    """The system message of the discovery condition, free or with exactly k questions."""
    if fixed_questions is not None:
        return FIXED_SYSTEM.format(k=fixed_questions, question=QUESTION_MARKER)
    return DISCOVERY_SYSTEM.format(
        max_turns=max_turns, question=QUESTION_MARKER, final=FINAL_MARKER
    )
