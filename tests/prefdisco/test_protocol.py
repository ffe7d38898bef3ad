"""The discovery protocol's marker parsing, on hand-written messages."""

import pytest

from heedbench.solvers.prefdisco.protocol import parse_turn, question_marks


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
