"""What the evaluated model and the simulated user are told in each PrefDisco condition.

Two protocols (`-T protocol=`):

- `paper` (default): the PrefDisco reference evaluator's instructions, in our own words. The
  oracle is told that it will be judged on how well it fits the user's preferences; discovery
  starts by asking one or two clarifying questions per turn and is never told its turn budget;
  with `fixed_questions=k` every turn is a question turn ("turn t of k"); after the loop the
  final answer is always requested, with the same evaluation framing.
- `budgeted`: heedbench's earlier protocol. The model may ask, one question per message, and
  is told its budget; an answer it gives by itself is judged; no evaluation framing.

In both, every discovery message opens with a protocol marker (see `protocol.py`), and the
first user message is `TASK_REQUEST`.
"""

from typing import Literal

from heedbench.solvers.prefdisco.protocol import FINAL_MARKER, QUESTION_MARKER

UserType = Literal["passive", "passive_stop", "collaborative"]
STOPPING_USERS: frozenset[str] = frozenset({"passive_stop", "collaborative"})
"""User types that may end discovery with `STOP_SIGNAL` (protocol paper only)."""

STOP_SIGNAL = "###STOP###"
"""What a stopping simulated user writes to end the questions (the reference's token)."""

TASK_REQUEST = "Could you help me with this task?\n\n{task}"
"""The first user message in every condition."""

# --- protocol `paper` -------------------------------------------------------------------------

PAPER_ORACLE_SYSTEM = """You are a helpful assistant whose job is to write an explanation of \
the user's problem that is personalised to them. This is who the user is:

{profile}

Answer in a way that fits these preferences. Your explanation will be evaluated on how well it \
matches these preferences, so matching them is your primary goal."""

_PAPER_HOW_TO_ASK = """Keep your tone natural, curious and respectful: do not interrogate the \
user, but steer the conversation so that you learn about them."""

PAPER_DISCOVERY_SYSTEM = f"""You are a helpful assistant. Before you try to solve the user's \
task or answer their question, first work to understand the user: their background, their \
goals and their preferences. Begin by asking one or two clarifying questions that will help \
you tailor your answer to what they need, and do not go on to a full answer until you know \
enough to personalise it well. {_PAPER_HOW_TO_ASK}

In each message, decide whether to ask the user for more information or to go ahead and \
answer. When you ask, ask one or two clarifying questions that will help you tailor your \
answer to them; do not give a full answer before you know enough to personalise it well.

Every message must begin with one of these two markers, with nothing written before it:
- `{QUESTION_MARKER}` followed by your clarifying question or questions, or
- `{FINAL_MARKER}` followed by your full answer."""
"""Never states the turn budget (the reference does not)."""

PAPER_FIXED_SYSTEM = f"""You are a helpful assistant. Before you give a final answer, you \
must question the user exactly {{k}} times, one message each time, to understand their \
background, goals and preferences. This is turn {{turn}} of {{k}}. In this turn, ask one or \
two clarifying questions that will help you tailor your answer to what they need. \
{_PAPER_HOW_TO_ASK}

Your message must begin with `{QUESTION_MARKER}` followed by your clarifying question or \
questions, with nothing written before it. Asking is the only thing to do in this turn: do not \
answer the task yet."""
"""Fixed-k turns: rebuilt before every turn, counting from 1 (the reference counts from 0)."""

PAPER_FINAL_REQUEST = f"""From our conversation you should now have learned this user's \
preferences. Please give your complete final answer to the original task, written so that it \
fits those preferences. Your explanation will be evaluated on how well it matches these \
preferences, so matching them is your primary goal. Begin with `{FINAL_MARKER}`."""
"""Always sent after the discovery loop; added to the user's last message when it has one."""

PAPER_NOT_YET = f"""That was not a question, and no answer is taken before the questions are \
over. Please ask your next clarifying question or questions, beginning with \
`{QUESTION_MARKER}`."""
"""Fixed-k: the reply to an answer given in a question turn (the turn is spent)."""

PAPER_FIXED_REMINDER = f"""Please begin your message with `{QUESTION_MARKER}` and ask your \
clarifying question or questions."""
"""Fixed-k: sent once when a message carries no marker."""

# --- protocol `budgeted` ----------------------------------------------------------------------

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

KEEP_ASKING = f"""Not yet, please: you still have {{remaining}} question(s) to ask before \
answering. Ask your next question, starting with `{QUESTION_MARKER}`."""
"""Sent once when a fixed-questions run tries to answer before its k questions are asked."""

FINAL_REQUEST = f"""Thanks for your questions. Now please give your complete final answer to \
the task, tailored to what you have learned about me. Start with `{FINAL_MARKER}`."""
"""Sent when the question budget is spent (or k questions are asked)."""

# --- both protocols ---------------------------------------------------------------------------

REMINDER = f"""Please begin your message with `{QUESTION_MARKER}` to ask me something, or \
with `{FINAL_MARKER}` to give your complete answer to the task."""
"""Sent once when a message carries neither marker."""

NO_MORE_QUESTIONS = f"""No more questions, please: give your complete final answer to the \
task now, starting with `{FINAL_MARKER}`."""
"""Sent once when the model asks again after the final answer was requested."""


def discovery_system(max_turns: int, fixed_questions: int | None) -> str:
    """The budgeted protocol's system message, free or with exactly k questions."""
    if fixed_questions is not None:
        return FIXED_SYSTEM.format(k=fixed_questions, question=QUESTION_MARKER)
    return DISCOVERY_SYSTEM.format(
        max_turns=max_turns, question=QUESTION_MARKER, final=FINAL_MARKER
    )


def paper_fixed_system(turn: int, k: int) -> str:
    """The paper protocol's system message for question turn `turn` (1-based) of `k`."""
    return PAPER_FIXED_SYSTEM.format(turn=turn, k=k)
