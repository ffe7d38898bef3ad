"""`-T questions=stock`: a fixed generic questionnaire asks instead of the model, then it answers."""

from pathlib import Path

import pytest
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser

from heedbench.scorers.judge import read_blocks
from heedbench.solvers.prefdisco.prompts import PAPER_FINAL_REQUEST, STOCK_QUESTIONS
from tests.prefdisco.scripted import Calls, asks
from tests.prefdisco.test_prefdisco_eval import run, samples, score_of


def latest(prompt: str) -> str:
    """The message the simulated user is answering: its prompt's last block."""
    return read_blocks(prompt)[-1][1]


def test_the_questionnaire_asks_the_first_k_questions_and_the_model_only_answers(
    tmp_path: Path,
) -> None:
    calls = Calls()
    log = run(
        tmp_path, asks(3), calls=calls, condition="discovery", questions="stock", max_turns=5,
        limit=1, user=lambda prompt: "Beginner." if "familiar" in latest(prompt) else "Fine.",
    )  # fmt: skip
    [sample] = samples(log)
    value, meta = score_of(sample)
    assert value["questions"] == 5 and meta["turns"] == 5 and meta["questions_from"] == "stock"
    assert len(calls.model) == 1 and len(calls.user) == 5  # the model never asked
    asked = [m.text for m in sample.messages if isinstance(m, ChatMessageAssistant)][:-1]
    assert asked == [
        f"###ACTION###: 'ask_question'\n###RESPONSE###: {question}"
        for question in STOCK_QUESTIONS[:5]
    ]
    for topic, question in zip(
        ("familiar", "long", "format", "tone", "examples"), STOCK_QUESTIONS, strict=False
    ):
        assert topic in question
    # the same simulated user answers them, and the final request follows its last answer
    assert meta["exchanges"][0]["answer"] == "Beginner."
    last_user = [m for m in sample.messages if isinstance(m, ChatMessageUser)][-1]
    assert last_user.text == f"Fine.\n\n{PAPER_FINAL_REQUEST}"
    assert value["prefalign"] == pytest.approx(3.0)  # the model's own final answer is judged
    assert log.eval.metadata is not None and log.eval.metadata["questions"] == "stock"


@pytest.mark.parametrize(("params", "k"), [({"fixed_questions": 2}, 2),
                                           ({"protocol": "budgeted", "max_turns": 3}, 3)])  # fmt: skip
def test_k_is_the_models_budget_in_either_protocol(
    tmp_path: Path, params: dict[str, object], k: int
) -> None:
    calls = Calls()
    log = run(
        tmp_path, asks(9), calls=calls, condition="discovery", questions="stock", limit=1,
        **params,
    )  # fmt: skip
    value, _ = score_of(samples(log)[0])
    assert value["questions"] == k and len(calls.user) == k and len(calls.model) == 1
    if params.get("protocol") == "budgeted":  # labels: the user reads the text after the marker
        assert latest(calls.user[0]) == STOCK_QUESTIONS[0]
