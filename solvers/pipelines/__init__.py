"""Steps of the data-build pipelines: CarryOn Ben-Util checklists and PrefDisco profiles.

Each pipeline keeps its prompts (`*_prompts.py`), its model-driven steps as Inspect solvers
(`*_steps.py`) and its deterministic checks and arithmetic (`*_checks.py`, pure functions) in
modules named after it. `ask.py` holds the model call every step goes through.
"""
