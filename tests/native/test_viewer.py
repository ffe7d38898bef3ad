"""The viewer configuration of each task names only scores its samples have."""

import pytest
from inspect_ai.log import EvalLog
from inspect_ai.viewer import TaskSamplesView


@pytest.mark.parametrize("family", ["choice", "carryon", "prefdisco"])
def test_labels_colours_and_columns_name_real_score_keys(
    logs: dict[str, EvalLog], family: str
) -> None:
    log = logs[family]
    assert log.eval.viewer is not None
    view = log.eval.viewer.task_samples_view
    assert isinstance(view, TaskSamplesView)
    assert log.samples and log.samples[0].scores
    [(scorer, score)] = log.samples[0].scores.items()
    keys = set(score.value) if isinstance(score.value, dict) else set()
    assert set(view.score_labels or {}) <= keys
    assert set(view.score_color_scales or {}) <= keys
    columns = [c.id for c in view.columns or [] if c.id.startswith("score__")]
    assert columns and all(c.startswith(f"score__{scorer}__") for c in columns)
    assert {c.removeprefix(f"score__{scorer}__") for c in columns} <= keys


def test_harm_and_discordance_colour_good_when_low(logs: dict[str, EvalLog]) -> None:
    palettes = {}
    for family in ("choice", "carryon"):
        viewer = logs[family].eval.viewer
        assert viewer is not None and isinstance(viewer.task_samples_view, TaskSamplesView)
        for key, scale in (viewer.task_samples_view.score_color_scales or {}).items():
            palettes[key] = scale if isinstance(scale, str) else getattr(scale, "palette", None)
    assert palettes["harm"] == palettes["kendall"] == palettes["kendall_norm"] == "good-low"
    assert palettes["spo"] == palettes["last_utility"] == "good-high"
