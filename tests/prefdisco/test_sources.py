"""Each source's row read the way that source stores question, options and gold answer."""

from typing import Any

import pytest

from heedbench.evals.prefdisco import normalise_problem

CASES: list[tuple[str, dict[str, Any], str, dict[str, str], str | None]] = [
    ("math", {"problem": "Compute $1+1$.", "solution": "...", "answer": "2", "level": 1},
     "Compute $1+1$.", {}, "2"),
    ("aime", {"ID": "1983-1", "Question": "Find n.", "Answer": 72}, "Find n.", {}, "72"),
    ("medqa", {"question": "Which drug?", "answer": "Aspirin", "answer_idx": "B",
               "options": {"A": "Heparin", "B": "Aspirin"}},
     "Which drug?", {"A": "Heparin", "B": "Aspirin"}, "B"),
    ("commonsenseqa", {"question": "Where?", "choices": {"label": ["A", "B"], "text": ["home", "park"]},
                       "answerKey": ""},
     "Where?", {"A": "home", "B": "park"}, None),  # the test split has no gold labels
    ("socialiqa", {"context": "Kai lent Sam a pen.", "question": "How does Sam feel?",
                   "answerA": "angry", "answerB": "grateful", "answerC": "bored", "label": "2"},
     "Kai lent Sam a pen.\n\nHow does Sam feel?", {"A": "angry", "B": "grateful", "C": "bored"}, "B"),
    ("logiqa", {"context": "All cats purr.", "query": "So?", "options": ["x", "y", "z", "w"],
                "correct_option": 0},
     "All cats purr.\n\nSo?", {"A": "x", "B": "y", "C": "z", "D": "w"}, "A"),
    ("mmlu", {"question": "2+2?", "subject": "math", "choices": ["3", "4", "5", "6"], "answer": 1},
     "2+2?", {"A": "3", "B": "4", "C": "5", "D": "6"}, "B"),
    ("simpleqa", {"problem": "Who wrote X?", "answer": "Y"}, "Who wrote X?", {}, "Y"),
    ("mascqa", {"question": "Yield strength? (A) 1 (B) 2", "correct_answer": "48 to 49"},
     "Yield strength? (A) 1 (B) 2", {}, "48 to 49"),
    ("scienceqa", {"question": "Which is a mammal?", "choices": ["shark", "whale"], "answer": 1},
     "Which is a mammal?", {"A": "shark", "B": "whale"}, "B"),
]  # fmt: skip


@pytest.mark.parametrize(("source", "row", "question", "options", "answer"), CASES)
def test_source_rows_normalise(
    source: str, row: dict[str, Any], question: str, options: dict[str, str], answer: str | None
) -> None:
    problem = normalise_problem(source, row)
    assert problem.question == question
    assert problem.options == options
    assert problem.answer == answer


def test_task_text_lists_options_after_the_question() -> None:
    problem = normalise_problem("mmlu", CASES[6][1])
    assert problem.task_text() == "2+2?\nA. 3\nB. 4\nC. 5\nD. 6"
