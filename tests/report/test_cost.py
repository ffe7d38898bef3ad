"""Cost: Inspect's own `total_cost` from the log when present, else the table in its format."""

from datetime import datetime, timezone
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.model import ModelCost, ModelInfo, get_model_info, set_model_info

from heedbench.evals.choice import choice
from heedbench.prices import DEFAULT_PRICES, PRICES_AS_OF, load_prices, read_cost_config
from heedbench.report.cost import EVALUATED, cost_section, run_usage
from heedbench.report.load import Loaded, Run, load_runs
from heedbench.testing import choice_oracle, scripted_model, user_ranks

PRICED = "priced-by-inspect"
"""A scripted model that only this module gives a price (Inspect's registry is global)."""


def test_the_shipped_table_is_inspects_format_and_inspect_reads_it(tmp_path: Path) -> None:
    prices = read_cost_config(DEFAULT_PRICES)
    assert prices == load_prices()
    assert len(prices) >= 10
    assert f"on {PRICES_AS_OF}" in DEFAULT_PRICES.read_text(encoding="utf-8")
    for model in prices:  # Inspect only takes prices for models its database knows
        assert get_model_info(model) is not None, model
    # Inspect itself reads the file, as `inspect eval --model-cost-config` would
    log = eval(
        choice(n=3, method="pointwise"),
        model="heedbench/random",
        model_cost_config=str(DEFAULT_PRICES),
        display="none",
        log_dir=str(tmp_path),
    )[0]
    assert log.status == "success"
    assert get_model_info("openai/gpt-4o") is not None
    assert get_model_info("openai/gpt-4o").cost == prices["openai/gpt-4o"]  # type: ignore[union-attr]


def test_a_log_with_total_cost_reports_inspects_cost(tmp_path: Path) -> None:
    set_model_info(
        f"mockllm/{PRICED}",
        ModelInfo(cost=ModelCost(input=1000, output=2000, input_cache_write=0, input_cache_read=0)),
    )
    model = scripted_model(choice_oracle(user_ranks(n=3)), name=PRICED)
    log = eval(choice(n=3, method="pointwise"), model=model, display="none", log_dir=str(tmp_path))[
        0
    ]
    logged = log.stats.model_usage[f"mockllm/{PRICED}"].total_cost
    # 23 contexts x 3 pointwise queries, each 90 tokens in and 8 out (scripted usage)
    assert logged == pytest.approx(69 * (90 * 1000 + 8 * 2000) / 1e6)

    loaded = load_runs([str(tmp_path)])
    # a table price for the same model is not used: Inspect's figure from the log is
    table = {
        f"mockllm/{PRICED}": ModelCost(input=1, output=1, input_cache_write=1, input_cache_read=1)
    }
    section = cost_section(loaded, table)
    (row,) = [r for r in section.tables[0].rows if r[1] == f"mockllm/{PRICED}"]
    assert row[2] == EVALUATED and row[-2] == "from the log"
    assert row[-1] == f"{logged:.4f}"
    assert f"cost of the used runs: ${logged:.4f}" in section.summary[0]


def _run(model_usage: dict[str, dict[str, float]], role_usage: dict[str, dict[str, float]]) -> Run:
    return Run(
        eval_id="e1", log="l1", task="heedbench/carryon", family="carryon", model="lab/m",
        status="success", created=datetime.now(timezone.utc), args={}, passed_args={},
        metadata={}, model_roles={"grader": "lab/m", "user": "lab/u"},
        model_usage=model_usage, role_usage=role_usage,  # type: ignore[arg-type]
    )  # fmt: skip


def test_a_role_bound_to_the_evaluated_model_is_counted_once() -> None:
    run = _run(
        {
            "lab/m": {"input_tokens": 1000, "output_tokens": 100, "total_tokens": 1100,
                      "total_cost": 0.5},
            "lab/u": {"input_tokens": 50, "output_tokens": 5, "total_tokens": 55},
        },
        {
            "grader": {"input_tokens": 400, "output_tokens": 40, "total_tokens": 440,
                       "total_cost": 0.2},
            "user": {"input_tokens": 50, "output_tokens": 5, "total_tokens": 55},
        },
    )  # fmt: skip
    usage = run_usage(run)
    own = usage[("lab/m", EVALUATED)]
    assert (own.input_tokens, own.output_tokens) == (600, 60)
    assert own.total_cost == pytest.approx(0.3)
    assert usage[("lab/u", "user")].total_cost is None

    # the user's tokens have no logged cost: the table prices them, with Inspect's arithmetic
    prices = {"lab/u": ModelCost(input=10, output=20, input_cache_write=10, input_cache_read=1)}
    section = cost_section(Loaded(used=[run]), prices)
    rows = {(r[1], r[2]): r for r in section.tables[0].rows}
    assert rows[("lab/u", "user")][-2:] == ["10 / 20", f"{(50 * 10 + 5 * 20) / 1e6:.4f}"]
    assert rows[("lab/m", "grader")][-2:] == ["from the log", "0.2000"]
    assert rows[("lab/m", EVALUATED)][-1] == "0.3000"
