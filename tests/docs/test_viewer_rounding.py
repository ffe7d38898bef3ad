"""docs/options.md relies on Inspect's viewer rounding dict score values for display."""

import re
from pathlib import Path

import inspect_ai


def test_the_viewer_rounds_dict_score_values_and_prints_single_numbers_whole() -> None:
    bundle = Path(inspect_ai.__file__).parent / "_view" / "dist" / "assets" / "index.js"
    text = bundle.read_text(encoding="utf-8")
    start = text.index("var objectScoreDescriptor")
    dict_renderer = text[start : text.index("//#endregion", start)]
    assert "formatPrettyDecimal(" in dict_renderer  # a dict's values: three decimals
    rounding = re.search(r"function formatPrettyDecimal\(num, maxDecimals = (\d+)\)", text)
    assert rounding and int(rounding.group(1)) <= 4
    start = text.index("var numericScoreDescriptor")
    number_renderer = text[start : text.index("//#endregion", start)]
    assert "formatPrettyDecimal(" not in number_renderer  # one number: whole, hence our rounding
