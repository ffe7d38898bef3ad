"""Inspect tasks, one subpackage per benchmark family; each task lives in its `task` module.

Family packages export their task functions and data loaders, except `prefdisco` and
`carryon`, which export only their data: their solvers and scorers import the family's data
modules, so a task import in those packages would close an import cycle through them whenever
a solver or scorer module is the first one a program loads (`from heedbench.evals.carryon.task
import carryon`). Inspect finds every task through the registry (`heedbench._registry`).
"""
