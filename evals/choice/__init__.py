"""The `choice` task family."""

from heedbench.evals.choice.dataset import ChoiceDataError, choice_dataset
from heedbench.evals.choice.task import choice

__all__ = ["ChoiceDataError", "choice", "choice_dataset"]
