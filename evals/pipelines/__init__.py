"""Build tasks and `heedbench build`, which turns their logs into dataset files.

Tasks: `carryon_candidates`, `carryon_checklist`, `prefdisco_personas`, `prefdisco_profiles`.
"""

from heedbench.evals.pipelines.carryon import carryon_candidates, carryon_checklist
from heedbench.evals.pipelines.prefdisco import prefdisco_personas, prefdisco_profiles

__all__ = ["carryon_candidates", "carryon_checklist", "prefdisco_personas", "prefdisco_profiles"]
