"""Robust answer parsing: lenient about form, strict about content."""

import pytest

from heedbench.solvers.choice.parse import parse_pairwise, parse_ranking, parse_score


@pytest.mark.parametrize(
    "reply",
    [
        '{"answer": "umbrella"}',
        '```json\n{"answer": "Umbrella"}\n```',
        'Sure! Here it is: {"answer": "  UMBRELLA. "} Hope that helps.',
        '{"Answer": "umbrella"}',
        '{"answer": "object 1"}',
        "umbrella",
    ],
)
def test_pairwise_answer_forms(reply: str) -> None:
    assert parse_pairwise(reply, "umbrella", "sun hat", allows_none=True) == "umbrella"


def test_pairwise_none_only_where_the_template_offers_it() -> None:
    assert parse_pairwise('{"answer": "none"}', "a b", "c", allows_none=True) == "none"
    assert parse_pairwise('{"answer": "None"}', "a b", "c", allows_none=False) is None


@pytest.mark.parametrize(
    "reply",
    [
        "I would take the umbrella.",
        '{"answer": "raincoat"}',
        '{"choice": "umbrella"}',
        '{"answer": ["umbrella"]}',
        "",
        '{"answer": "umbrella or sun hat"}',
    ],
)
def test_pairwise_invalid_answers_are_bottom(reply: str) -> None:
    assert parse_pairwise(reply, "umbrella", "sun hat", allows_none=True) is None


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"score": 4}', 4),
        ('{"score": "2"}', 2),
        ('{"score": 3.0}', 3),
        ('```\n{"score": 5}\n```', 5),
        ('{"score": 3.5}', None),
        ('{"score": 6}', None),
        ('{"score": true}', None),
        ('{"rating": 3}', None),
        ("4", None),
    ],
)
def test_pointwise_scores(reply: str, expected: int | None) -> None:
    assert parse_score(reply, 1, 5) == expected


OBJECTS = ["umbrella", "sun hat", "keys"]


def test_ranking_accepts_case_and_enumeration_differences() -> None:
    reply = '{"ranking": ["1. Sun Hat", "KEYS", " umbrella "]}'
    assert parse_ranking(reply, OBJECTS) == ["sun hat", "keys", "umbrella"]


@pytest.mark.parametrize(
    "ranking",
    [
        '["sun hat", "keys"]',  # missing
        '["sun hat", "keys", "umbrella", "towel"]',  # extra
        '["sun hat", "keys", "keys"]',  # repeated
        '"sun hat, keys, umbrella"',  # not a list
    ],
)
def test_ranking_must_be_an_exact_permutation(ranking: str) -> None:
    assert parse_ranking('{"ranking": ' + ranking + "}", OBJECTS) is None
