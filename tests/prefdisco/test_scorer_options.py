"""`inspect score -S` options reach the prefdisco scorer unchecked: it checks them in one line."""

import pytest

from heedbench.params import ParameterError
from heedbench.scorers.prefdisco.scorer import prefdisco_scorer


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"judge_mod": "batched"},
         "-S judge_mod: heedbench/prefdisco has no such parameter; did you mean -S judge_mode?"),
        ({"judge_mode": "each"}, "-S judge_mode: must be one of per_criterion, batched; got 'each'"),
        ({"correctness_mode": "exact"}, "-S correctness_mode: must be one of"),
        ({"allow_self_roles": "maybe"}, "-S allow_self_roles: must be true or false; got 'maybe'"),
        ({"sources": "math,chess"}, "-S sources: must be one of math, aime,"),
        ({"conditions": ["baseline", "final"]}, "-S conditions: must be one of baseline, discovery"),
        ({"verdict": "prose"}, "-S verdict: must be one of schema, tool, text; got 'prose'"),
        ({"protocol": "budget"}, "-S protocol: must be one of paper, budgeted; got 'budget'"),
    ],
)  # fmt: skip
def test_a_bad_option_is_one_line_naming_it(options: dict[str, object], message: str) -> None:
    with pytest.raises(ParameterError) as raised:
        prefdisco_scorer(**options)  # type: ignore[arg-type]
    text = str(raised.value)
    assert text.startswith(message) and "\n" not in text


def test_good_options_are_taken_as_written() -> None:
    prefdisco_scorer(sources="math,medqa", conditions="baseline,discovery", judge_mode="batched",
                     correctness_mode="deterministic", allow_self_roles="false", verdict="tool")  # type: ignore[arg-type]  # fmt: skip
