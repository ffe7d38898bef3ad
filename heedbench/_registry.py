"""Entry point for Inspect: importing this registers every heedbench task and model provider."""

from heedbench.evals.carryon.task import carryon
from heedbench.evals.choice.task import choice
from heedbench.evals.judge_check.task import carryon_judge_check, prefdisco_judge_check
from heedbench.evals.pipelines.carryon import carryon_candidates, carryon_checklist
from heedbench.evals.pipelines.prefdisco import prefdisco_personas, prefdisco_profiles
from heedbench.evals.prefdisco.task import prefdisco
from heedbench.models.chance import ChanceModelAPI

__all__ = [
    "ChanceModelAPI",
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
