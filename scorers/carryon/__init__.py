"""CarryOnBench measurements (the Ben-Util and harm judges are still to come)."""

from heedbench.scorers.carryon.utility import cumulative_utility, redundancy, turn_utility

__all__ = ["cumulative_utility", "redundancy", "turn_utility"]
