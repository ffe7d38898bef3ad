"""`inspect score -S` options reach the choice scorer unchecked: it checks them in one line."""

import pytest

from heedbench.params import ParameterError
from heedbench.scorers.choice.scorer import choice_alignment


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"pp": 0.3}, "-S pp: heedbench/choice_alignment has no such parameter; did you mean -S p? (it takes p, validity)"),
        ({"p": "half"}, "-S p: must be a number from 0 to 1; got 'half'"),
        ({"p": 1.5}, "-S p: must be a number from 0 to 1; got 1.5"),
        ({"validity": "loose"}, "-S validity: must be one of lenient, strict; got 'loose'"),
    ],
)  # fmt: skip
def test_a_bad_option_is_one_line_naming_it(options: dict[str, object], message: str) -> None:
    with pytest.raises(ParameterError) as raised:
        choice_alignment(**options)  # type: ignore[arg-type]
    assert str(raised.value) == message


def test_good_options_are_taken_as_written() -> None:
    choice_alignment(p="0.25", validity="strict")  # type: ignore[arg-type]
