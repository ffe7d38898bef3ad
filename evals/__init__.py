"""Inspect tasks, one subpackage per benchmark family; each task lives in its `task` module.

Family packages export their data loaders, not their tasks: scorers and solvers import the
data types, and a task import here would close an import cycle through them. The registry
(`heedbench._registry`) imports the task modules.
"""
