"""Entry point for Inspect: importing this registers every heedbench task and model provider.

It also makes `inspect score LOG` find heedbench's scorers. Inspect writes a scorer to the log
under its name without the package prefix (`carryon_judge`, not `heedbench/carryon_judge`:
`as_scorer_spec` in `inspect_ai/scorer/_scorer.py`), and `inspect score` looks that bare name
up in the registry (`resolve_scorers` in `inspect_ai/_eval/score.py`), where an installed
package's scorers sit under `heedbench/...` only. So each scorer is registered a second time
under its bare name. `inspect score` loads this module through the entry point before it
resolves scorers (`platform_init` loads every `inspect_ai` entry point).
"""

import functools
import sys
from collections.abc import Callable

from inspect_ai.scorer import Scorer, scorer
from inspect_ai.util import registry_info

from heedbench.errors import install_excepthook
from heedbench.evals.carryon.task import carryon
from heedbench.evals.choice.task import choice
from heedbench.evals.judge_check.task import carryon_judge_check, prefdisco_judge_check
from heedbench.evals.pipelines.carryon import carryon_candidates, carryon_checklist
from heedbench.evals.pipelines.prefdisco import prefdisco_personas, prefdisco_profiles
from heedbench.evals.prefdisco.task import prefdisco
from heedbench.models.api import HeedbenchModelAPI
from heedbench.scorers.carryon.scorer import carryon_judge
from heedbench.scorers.choice.scorer import choice_alignment
from heedbench.scorers.judge_check.scorer import judge_check_scorer
from heedbench.scorers.pipelines.checks import (
    candidates_built,
    checklist_built,
    persona_built,
    profile_built,
)
from heedbench.scorers.prefdisco.scorer import prefdisco_scorer

__all__ = [
    "HeedbenchModelAPI",
    "carryon",
    "carryon_candidates",
    "carryon_checklist",
    "carryon_judge_check",
    "choice",
    "prefdisco",
    "prefdisco_judge_check",
    "prefdisco_personas",
    "prefdisco_profiles",
]

SCORERS: tuple[Callable[..., Scorer], ...] = (
    choice_alignment,
    carryon_judge,
    prefdisco_scorer,
    judge_check_scorer,
    candidates_built,
    checklist_built,
    persona_built,
    profile_built,
)
"""Every scorer a heedbench task uses, so every heedbench log can be re-scored."""


def log_name(factory: Callable[..., Scorer]) -> str:
    """The name Inspect writes to a log for the scorers `factory` makes (no package prefix)."""
    return registry_info(factory).name.split("/", 1)[-1]


def _register_log_name(factory: Callable[..., Scorer]) -> None:
    """Register `factory` under its log name too, unless that is already its registry name.

    `@scorer` prefixes the name of a function from an installed package with the package;
    a `functools.partial` belongs to no package (its module is `functools`), so decorating a
    partial of the factory registers the bare name. It makes the same scorer, with the same
    metrics, and its scorers carry the bare name, so a re-scored log names them as before.
    (When heedbench is imported from a source checkout on `sys.path`, Inspect does not see an
    installed package and the factory's own name is already bare.)
    """
    info = registry_info(factory)
    name = log_name(factory)
    if name != info.name:
        scorer(metrics=info.metadata["metrics"], name=name)(functools.partial(factory))


for _factory in SCORERS:
    _register_log_name(_factory)


def ignored_scorer_options(argv: list[str]) -> str | None:
    """The line to print when `inspect score` gets `-S` options it will not use.

    Without `--scorer`, Inspect re-scores with the scorer and options the log recorded and
    drops every `-S` without a word, so a changed threshold would seem to have been applied.
    """
    if argv[1:2] != ["score"] or "--scorer" in argv:
        return None
    given = [a for i, a in enumerate(argv) if a.startswith("-S") or argv[i - 1 : i] == ["-S"]]
    given = [a.removeprefix("-S") for a in given if a != "-S"]
    if not given:
        return None
    return (
        f"heedbench: inspect score ignores -S {' '.join(given)} without --scorer (it re-scores "
        "with the options the log recorded); add --scorer heedbench/<scorer> to apply them"
    )


install_excepthook()
if (_ignored := ignored_scorer_options(sys.argv)) is not None:
    print(_ignored, file=sys.stderr)
