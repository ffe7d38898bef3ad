"""Build tasks and `heedbench build`, which turns their logs into dataset files.

Tasks: `carryon_candidates`, `carryon_checklist`, `prefdisco_personas`, `prefdisco_profiles`.
"""
