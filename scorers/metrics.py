"""Small metrics shared by the scorers."""

from inspect_ai.scorer import Metric, SampleScore, metric, value_to_float


@metric
def total() -> Metric:
    """Sum of the values, e.g. the number of valid contexts (the paper's "valid" column)."""
    to_float = value_to_float()

    def compute(scores: list[SampleScore]) -> float:
        return float(sum(to_float(score.score.value) for score in scores))

    return compute
