"""The discovery protocol's message reading, on hand-written messages, in both marker styles."""

import pytest

from heedbench.solvers.prefdisco.protocol import (
    as_question,
    parse_turn,
    question_marks,
    read_action,
)


@pytest.mark.parametrize(
    ("message", "kind", "body"),
    [
        ("QUESTION: How much detail?", "question", "How much detail?"),
        ("question: how much detail?", "question", "how much detail?"),
        ("**Question:** How much detail?", "question", "How much detail?"),
        ("**QUESTION**: How much detail?", "question", "How much detail?"),
        ("\n\n   QUESTION - How much detail?", "question", "How much detail?"),
        ("## Final Answer: 7", "final", "7"),
        ("FINAL ANSWER: **7**", "final", "**7**"),
        ("Final_Answer: 7", "final", "7"),
        ("final answer — 7", "final", "7"),
        ("Thanks, that helps.\nQUESTION: Which notation?", "question", "Which notation?"),
        ("The answer is 7.", "unmarked", "The answer is 7."),
        ("Questions like this are common: 7", "unmarked", "Questions like this are common: 7"),
    ],
)
def test_markers_are_read_leniently(message: str, kind: str, body: str) -> None:
    turn = parse_turn(message)
    assert (turn.kind, turn.body) == (kind, body)


def test_a_final_answer_line_after_reasoning_makes_the_whole_message_the_answer() -> None:
    message = "Step 1: split the cases.\nStep 2: add.\nStep 3: check.\nFINAL ANSWER: 7"
    turn = parse_turn(message)
    assert turn.kind == "final" and turn.body == message


def test_a_question_deep_inside_an_answer_is_not_a_question() -> None:
    message = "Let me restate.\nThe task asks a sum.\nWe split cases.\nQuestion: what is x?"
    assert parse_turn(message).kind == "unmarked"


@pytest.mark.parametrize(
    ("message", "count"),
    [
        ("How much detail?", 1),
        ("How much detail? And which notation??", 2),
        ("Tell me about your background.", 0),
        ("What?! Really?", 2),
    ],
)
def test_question_marks_count_questions_not_characters(message: str, count: int) -> None:
    assert question_marks(message) == count


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        # the action line decides, as the reference reads it (quotes and brackets aside)
        ("###ACTION###: final_answer\n###RESPONSE###: 7", "final"),
        ("###ACTION###: 'final_answer'\n###RESPONSE###: 7", "final"),
        ("###ACTION###: [final_answer]\n###RESPONSE###: 7", "final"),
        ("###ACTION###: ask_question\n###RESPONSE###: The answer is 7?", "question"),
        ("###ACTION###: 'ask_question' or 'final_answer'\n###RESPONSE###: 7", "question"),
        ("###ACTION###: final answer\n###RESPONSE###: 7", "question"),  # not the token
        ("Sure!\n###ACTION###: final_answer\n###RESPONSE###: 7", "final"),
        # without the line: the reference's phrases, unless the message asks something
        ("The answer is 7.", "final"),
        ("In conclusion, x = 7.", "final"),
        ("The answer is 7. Would you like another example", "question"),
        ("The answer is 7, right?", "question"),
        ("How much detail do you want?", "question"),
        ("Let me explain the steps first.", "question"),
        ("###ACTION### final_answer: the answer is 7", "final"),  # no colon: phrases decide
    ],
)
def test_action_messages_are_read_as_the_reference_reads_them(message: str, kind: str) -> None:
    assert read_action(message).kind == kind


def test_an_action_message_is_passed_on_whole_and_its_answer_follows_the_response_marker() -> None:
    message = "###ACTION###: final_answer\n###RESPONSE###: \\boxed{7}"
    turn = read_action(message)
    assert (turn.body, turn.answer) == (message, "\\boxed{7}")
    assert read_action("The answer is 7.").answer == "The answer is 7."


def test_a_stock_question_is_written_in_the_runs_marker_style() -> None:
    action = as_question("How long?", "action")
    assert read_action(action).kind == "question" and read_action(action).answer == "How long?"
    assert parse_turn(as_question("How long?", "labels")) == parse_turn("QUESTION: How long?")
