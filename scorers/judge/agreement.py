"""How far two ways of judging the same things agree: raw agreement and Cohen's kappa.

Used to check that a cheap judging mode (all checklist items in one call) can stand in for
the paper-faithful one (one call per item).
"""

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class BinaryAgreement:
    """Counts of paired yes/no verdicts: both yes, first only, second only, both no."""

    both_yes: int = 0
    first_only: int = 0
    second_only: int = 0
    both_no: int = 0

    @property
    def total(self) -> int:
        """Pairs counted."""
        return self.both_yes + self.first_only + self.second_only + self.both_no

    @property
    def observed(self) -> float:
        """Share of pairs with the same verdict (NaN with no pairs)."""
        return (self.both_yes + self.both_no) / self.total if self.total else float("nan")

    @property
    def kappa(self) -> float:
        """Cohen's kappa: agreement beyond what the two verdict rates give by chance.

        1 when the verdicts match everywhere; NaN when chance agreement is already 1 (both
        judges gave one and the same verdict throughout), where kappa is undefined.
        """
        n = self.total
        if not n:
            return float("nan")
        first_yes = (self.both_yes + self.first_only) / n
        second_yes = (self.both_yes + self.second_only) / n
        chance = first_yes * second_yes + (1 - first_yes) * (1 - second_yes)
        return float("nan") if chance == 1 else (self.observed - chance) / (1 - chance)


def binary_agreement(pairs: Iterable[tuple[bool, bool]]) -> BinaryAgreement:
    """Count paired verdicts (first judge, second judge)."""
    counts = [0, 0, 0, 0]
    for first, second in pairs:
        counts[(0 if first else 2) + (0 if second else 1)] += 1
    both_yes, first_only, second_only, both_no = counts
    return BinaryAgreement(both_yes, first_only, second_only, both_no)
