"""Build task parameters are checked before anything loads or any model is called."""

from pathlib import Path
from typing import Any

import pytest

from heedbench.evals.pipelines.carryon import carryon_candidates, carryon_checklist
from heedbench.evals.pipelines.prefdisco import prefdisco_personas, prefdisco_profiles
from heedbench.params import ParameterError

EXAMPLES = Path(__file__).parents[2] / "datasets" / "build_examples"
QUERIES = str(EXAMPLES / "carryon_queries.jsonl")
PROBLEMS = str(EXAMPLES / "math_problems.jsonl")


@pytest.mark.parametrize(
    ("task", "params", "message"),
    [
        (carryon_candidates, {}, "-T data: name the JSONL file"),
        (carryon_candidates, {"data": QUERIES, "generators": "generator,generator"},
         "-T generators: a role is named twice"),
        (carryon_candidates, {"data": QUERIES, "generators": "gen erator"},
         "-T generators: must be role names"),
        (carryon_candidates, {"data": QUERIES, "category": "weather"}, "-T category"),
        (carryon_checklist, {}, "-T candidates: must name log files"),
        (prefdisco_personas, {"count": 0}, "-T count: must be an integer of at least 1"),
        (prefdisco_profiles, {"personas": "x", "source": "chess", "problems": PROBLEMS},
         "-T source: must be one of math"),
        (prefdisco_profiles, {"personas": "x", "source": "math"}, "-T problems"),
        (prefdisco_profiles, {"personas": "x", "source": "math", "problems": PROBLEMS,
                              "revision": "abc"}, "-T revision: pins the hub dataset"),
        (prefdisco_profiles, {"personas": "x", "source": "math", "problems": PROBLEMS,
                              "dimensions": 3, "expertise_min": 4}, "-T expertise_min"),
        (prefdisco_profiles, {"personas": "x", "source": "math", "problems": PROBLEMS,
                              "diversity": 1.5}, "-T diversity"),
    ],
)  # fmt: skip
def test_bad_parameters_are_named(task: Any, params: dict[str, Any], message: str) -> None:
    with pytest.raises(ParameterError, match=message.replace("(", r"\(")):
        task(**params)
