"""What the evaluated model is told in each PrefDisco condition, per protocol and marker style.

- `paper` (default): the reference evaluator's instructions, in our own words. The first
  message is a one-line request with the task after it; the oracle is told it will be judged
  on how well it fits the user's preferences; discovery starts by asking one or two clarifying
  questions per turn and is never told its budget; with `fixed_questions=k` every turn is a
  question turn ("turn t of k"); after the loop the final answer is always requested, with
  the same evaluation framing. Messages follow `-T markers=`: `action` (the reference's
  `###ACTION###` / `###RESPONSE###` lines) or `labels` (`QUESTION:` / `FINAL ANSWER:`).
- `budgeted`: heedbench's earlier protocol. The model may ask, one question per message, and
  is told its budget; an answer it gives by itself is judged; no evaluation framing; labels.
"""

from typing import Literal

from heedbench.solvers.prefdisco.protocol import ACTION, ANSWER, ASK, FINAL_MARKER, QUESTION_MARKER
from heedbench.solvers.prefdisco.protocol import RESPONSE as RESPONSE_MARKER
from heedbench.solvers.prefdisco.settings import Markers, Protocol

UserType = Literal["passive", "passive_stop", "collaborative"]
STOPPING_USERS: frozenset[str] = frozenset({"passive_stop", "collaborative"})
"""User types that may end discovery with `STOP_SIGNAL` (protocol paper only)."""
STOP_SIGNAL = "###STOP###"
"""What a stopping simulated user writes to end the questions (the reference's token); under
`markers=action` it is also the user's turn after an answer given during discovery."""

TASK_REQUESTS: dict[Protocol, str] = {
    "paper": "Please help me with the following task: {task}",
    "budgeted": "Could you help me with this task?\n\n{task}",
}
"""The first user message in every condition."""

# --- protocol `paper` -------------------------------------------------------------------------

_FRAMING = """Your explanation will be evaluated on how well it matches these preferences, so \
matching them is your primary goal."""

PAPER_ORACLE_SYSTEM = f"""You are a helpful assistant whose job is to write an explanation of \
the user's problem that is personalised to them. This is who the user is:

{{profile}}

Answer in a way that fits these preferences. {_FRAMING}"""

_HOW_TO_ASK = """Keep your tone natural, curious and respectful: do not interrogate the user, \
but steer the conversation so that you learn about them."""

PAPER_DISCOVERY_SYSTEM = f"""You are a helpful assistant. Before you try to solve the user's \
task or answer their question, first work to understand the user: their background, their \
goals and their preferences. Begin by asking one or two clarifying questions that will help \
you tailor your answer to what they need, and do not go on to a full answer until you know \
enough to personalise it well. {_HOW_TO_ASK}

In each message, decide whether to ask the user for more information or to go ahead and \
answer. When you ask, ask one or two clarifying questions that will help you tailor your \
answer to them; do not give a full answer before you know enough to personalise it well.

{{format}}"""
"""Never states the turn budget (the reference does not)."""

PAPER_FIXED_SYSTEM = f"""You are a helpful assistant. Before you give a final answer, you \
must question the user exactly {{k}} times, one message each time, to understand their \
background, goals and preferences. This is turn {{turn}} of {{k}}. In this turn, ask one or \
two clarifying questions that will help you tailor your answer to what they need. {_HOW_TO_ASK}

{{format}}"""
"""Fixed-k turns: rebuilt before every turn (`action` counts turns from 0, as the reference)."""

FORMATS: dict[Markers, tuple[str, str]] = {
    "action": (
        f"Write every message in this format:\n{ACTION} '{ASK}' or '{ANSWER}'\n"
        f"{RESPONSE_MARKER} your clarifying question or questions, or your full answer",
        f"Write your message in this format:\n{ACTION} '{ASK}'\n"
        f"{RESPONSE_MARKER} your clarifying question or questions",
    ),
    "labels": (
        f"Every message must begin with one of these two markers, with nothing written before "
        f"it:\n- `{QUESTION_MARKER}` followed by your clarifying question or questions, or\n"
        f"- `{FINAL_MARKER}` followed by your full answer.",
        f"Your message must begin with `{QUESTION_MARKER}` followed by your clarifying question "
        "or questions, with nothing written before it. Asking is the only thing to do in this "
        "turn: do not answer the task yet.",
    ),
}
"""The message format of free and of fixed-k discovery, per marker style."""

PAPER_FINAL_REQUEST = f"""From our conversation you should now have learned this user's \
preferences. Please give your complete final answer to the original task, written so that it \
fits those preferences. {_FRAMING}"""
"""Always sent after the discovery loop; added to the user's last message (`labels` adds that
the reply begins with `FINAL ANSWER:`)."""

PAPER_NOT_YET = f"""That was not a question, and no answer is taken before the questions are \
over. Please ask your next clarifying question or questions, beginning with \
`{QUESTION_MARKER}`."""
"""Fixed-k, `labels`: the reply to an answer given in a question turn (the turn is spent)."""

PAPER_FIXED_REMINDER = f"""Please begin your message with `{QUESTION_MARKER}` and ask your \
clarifying question or questions."""
"""Fixed-k, `labels`: sent once when a message carries no marker."""

STOCK_QUESTIONS = (
    "How familiar are you with this topic already: new to it, some background, or expert?",
    "How long should my answer be: a short answer, a moderate explanation, or a detailed "
    "walk-through?",
    "What format suits you best: numbered steps, a few paragraphs, bullet points, or "
    "something else?",
    "Which tone do you prefer: formal, neutral, or casual and friendly?",
    "Would examples or analogies help you, and if so, from which area?",
    "Do you want the answer first and the reasoning after it, or the reasoning first?",
    "Should I use technical terms and notation, or plain everyday language?",
    "Is there a part of this you most want to understand, or something to leave out?",
    "Would a table, a diagram or a visual description help?",
    "How confident do you feel about problems like this one?",
)
"""`-T questions=stock`: the generic questionnaire asked instead of the model's own questions,
the first k of them (expertise, length, format, tone and examples come first)."""

# --- protocol `budgeted` ----------------------------------------------------------------------

ORACLE_SYSTEM = """You are helping one particular person. Here is who they are:
{persona}

And here is how they like to be helped, dimension by dimension (preferred value, scale, how \
much it matters to them, and why):
{preferences}

Shape your answer to this person: how you explain, how much detail you give, your tone and \
format should all follow what they prefer."""

_BUDGETED_OPENING = """You are helping someone you have never talked to before. People differ \
in how they like to be helped: how much detail, which level of technicality, what tone, what \
format, what they already know. You do not know yet what this person prefers."""

DISCOVERY_SYSTEM = f"""{_BUDGETED_OPENING}

Before you answer their task you may ask them questions to find out, up to {{max_turns}} \
questions, one question per message. Then give your answer, tailored to what you learned.

Start every message with exactly one of these markers:
- `{QUESTION_MARKER}` followed by one question to the person, or
- `{FINAL_MARKER}` followed by your complete answer to the task.
Write nothing before the marker."""

FIXED_SYSTEM = f"""{_BUDGETED_OPENING}

Before you answer their task you must ask them exactly {{k}} questions to find out, one \
question per message. Only after their answer to question {{k}} will you be asked for your \
answer, which should then be tailored to what you learned.

Start every question with the marker `{QUESTION_MARKER}` and write nothing before it."""

KEEP_ASKING = f"""Not yet, please: you still have {{remaining}} question(s) to ask before \
answering. Ask your next question, starting with `{QUESTION_MARKER}`."""
"""Sent once when a fixed-questions run tries to answer before its k questions are asked."""

FINAL_REQUEST = f"""Thanks for your questions. Now please give your complete final answer to \
the task, tailored to what you have learned about me. Start with `{FINAL_MARKER}`."""
"""Sent when the question budget is spent (or k questions are asked)."""

# --- `labels`, both protocols ---------------------------------------------------------------

BEGIN_FINAL = f"Begin with `{FINAL_MARKER}`."
REMINDER = f"""Please begin your message with `{QUESTION_MARKER}` to ask me something, or \
with `{FINAL_MARKER}` to give your complete answer to the task."""
"""Sent once when a message carries neither marker."""

NO_MORE_QUESTIONS = f"""No more questions, please: give your complete final answer to the \
task now, starting with `{FINAL_MARKER}`."""
"""Sent once when the model asks again after the final answer was requested."""


def discovery_system(
    protocol: Protocol, markers: Markers, budget: int, fixed: bool, turn: int = 0
) -> str:
    """The discovery system message: free, or fixed-k turn `turn` (0-based) of `budget`."""
    if protocol == "budgeted":
        if fixed:
            return FIXED_SYSTEM.format(k=budget)
        return DISCOVERY_SYSTEM.format(max_turns=budget)
    free, asking = FORMATS[markers]
    if not fixed:
        return PAPER_DISCOVERY_SYSTEM.format(format=free)
    shown = turn if markers == "action" else turn + 1
    return PAPER_FIXED_SYSTEM.format(k=budget, turn=shown, format=asking)
