"""Inspect tasks, one subpackage per benchmark family; each task lives in its `task` module.

Family packages export their task functions and data loaders, except `prefdisco`, which
exports only its data: its solver and scorer import the family's data modules, so a task import
in that package would close an import cycle through them (`from heedbench.evals.prefdisco.task
import prefdisco`). Inspect finds every task through the registry (`heedbench._registry`).
"""
