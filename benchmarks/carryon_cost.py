"""Grader calls per response, tokens per conversation by role, and the bill for a full run.

Runs `carryon -T condition=full` offline with scripted models on `--queries` shipped queries
(every fifth, so all four categories appear), once per judge mode. Everything is read back from
the logs: calls per role from the model events, tokens per role from each sample's
`role_usage`. Scripted models report usage estimated from the text that crosses each call
(characters / 4, `heedbench.testing.scripted_model(usage="chars")`), and the scripted target pads
its helpful answers to about `--answer-tokens` tokens and its refusals (which in practice offer
alternatives) to about `--refusal-tokens`, so the token counts are those our prompts and
realistically long responses produce.

The dollar estimate is for the full shipped benchmark, 200 queries x (turn1 + oracle +
`--flows` conversations), at the prices in `heedbench/prices.yaml` (dated; override with
`--prices FILE`).

Usage: python -m benchmarks.carryon_cost [--queries 10] [--flows 15] [--answer-tokens 500]
       [--refusal-tokens 150]
       [--model openai/gpt-4o-mini] [--user openai/gpt-4o-mini] [--grader openai/gpt-4o]
"""

import argparse
import json
import statistics
import tempfile
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelCost

from benchmarks.carryon_latency import role_calls, spread_queries
from heedbench.evals.carryon import load_queries
from heedbench.evals.carryon.task import carryon
from heedbench.prices import PRICES_AS_OF, dollars, load_prices, price_of
from heedbench.testing import scripted_model
from heedbench.testing_carryon import (
    FILLER,
    refuse_then_recover,
    scripted_grader,
    scripted_user,
    write_queries,
)

RESULTS = Path(__file__).parent / "results" / "carryon_cost.json"
ROLES = ("target", "user", "grader")
FILLER_TOKENS = len(FILLER) / 4


def run(
    data: Path, judge: str, flows: int, answer_tokens: int, refusal_tokens: int, log_dir: str
) -> EvalLog:
    """One offline run of every condition with chars-based usage."""
    target = refuse_then_recover(
        padding=round(answer_tokens / FILLER_TOKENS),
        refusal_padding=round(refusal_tokens / FILLER_TOKENS),
    )
    return eval(
        carryon(data=str(data), condition="full", flows_per_query=flows, judge=judge),
        model=scripted_model(target, "target", usage="chars"),
        model_roles={
            "user": scripted_model(scripted_user, "user", usage="chars"),
            "grader": scripted_model(scripted_grader, "grader", usage="chars"),
        },
        display="none",
        log_dir=log_dir,
    )[0]


def measure(log: EvalLog) -> dict[str, Any]:
    """Per condition: conversations, mean exchanges, calls and tokens per role per sample."""
    assert log.samples is not None
    rows: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    grader_per_response: list[float] = []
    for sample in log.samples:
        condition = sample.metadata["condition"]
        exchanges = sample.metadata["exchanges"]
        calls = role_calls(sample)
        grader_per_response.append(calls["grader"] / exchanges)
        row = rows[condition]
        row["exchanges"].append(exchanges)
        for role in ROLES:
            usage = sample.role_usage.get(role) if role != "target" else _target_usage(sample)
            row[f"{role}_calls"].append(calls[role])
            row[f"{role}_in"].append(usage.input_tokens if usage else 0)
            row[f"{role}_out"].append(usage.output_tokens if usage else 0)
    return {
        "grader_calls_per_response": {
            "mean": statistics.fmean(grader_per_response),
            "max": max(grader_per_response),
        },
        "per_sample": {
            condition: {"samples": len(row["exchanges"])}
            | {key: statistics.fmean(values) for key, values in row.items()}
            for condition, row in sorted(rows.items())
        },
    }


def _target_usage(sample: Any) -> Any:
    """The evaluated model's usage: its (`.../target`) entry in the sample's model usage."""
    return next(
        (usage for model, usage in sample.model_usage.items() if model.endswith("/target")),
        None,
    )


def bill(
    measured: dict[str, Any], samples_per_query: dict[str, float], models: dict[str, str],
    prices: dict[str, ModelCost],
) -> dict[str, float]:  # fmt: skip
    """Dollars per role for the full shipped benchmark."""
    queries = len(load_queries())
    total: dict[str, float] = defaultdict(float)
    for condition, row in measured["per_sample"].items():
        count = queries * samples_per_query[condition]
        for role in ROLES:
            total[role] += count * dollars(
                prices, models[role], row[f"{role}_in"], row[f"{role}_out"]
            )
    total["total"] = sum(total.values())
    return dict(total)


def table(results: list[dict[str, Any]]) -> str:
    """Markdown: per judge mode and condition, calls and tokens per sample by role."""
    lines = [
        "| judge | condition | exchanges | target calls / tokens in+out | user calls / tokens "
        "| grader calls / tokens |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for result in results:
        for condition, row in result["measured"]["per_sample"].items():
            cells = [
                f"{row[f'{r}_calls']:.1f} / {row[f'{r}_in']:,.0f}+{row[f'{r}_out']:,.0f}"
                for r in ROLES
            ]
            lines.append(
                f"| {result['judge']} | {condition} | {row['exchanges']:.2f} | "
                + " | ".join(cells)
                + " |"
            )
    return "\n".join(lines)


def main() -> None:
    """Measure both judge modes, print tables, save the results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10)
    parser.add_argument("--flows", type=int, default=15)
    parser.add_argument("--answer-tokens", type=int, default=500)
    parser.add_argument("--refusal-tokens", type=int, default=150)
    parser.add_argument("--model", default="openai/gpt-4o-mini")
    parser.add_argument("--user", default="openai/gpt-4o-mini")
    parser.add_argument("--grader", default="openai/gpt-4o")
    parser.add_argument(
        "--prices",
        type=Path,
        help="prices in Inspect's --model-cost-config format, added to heedbench/prices.yaml",
    )
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    prices = load_prices(args.prices)
    models = {"target": args.model, "user": args.user, "grader": args.grader}
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as temp_dir:
        data = write_queries(Path(temp_dir) / "queries.jsonl", spread_queries(args.queries))
        for judge in ("batched", "per_item"):
            log = run(data, judge, args.flows, args.answer_tokens, args.refusal_tokens, temp_dir)
            if log.status != "success":
                raise SystemExit(f"{judge} run ended {log.status}: {log.error}")
            measured = measure(log)
            per_query = {c: r["samples"] / args.queries for c, r in measured["per_sample"].items()}
            results.append(
                {
                    "judge": judge,
                    "measured": measured,
                    "dollars_full_benchmark": bill(measured, per_query, models, prices),
                }
            )
    print(table(results))
    for result in results:
        cost = result["dollars_full_benchmark"]
        print(
            f"\n{result['judge']}: grader calls per response "
            f"{result['measured']['grader_calls_per_response']}; full benchmark "
            + ", ".join(f"{role} ${value:,.2f}" for role, value in cost.items())
        )
    record = {
        "queries": args.queries,
        "flows": args.flows,
        "answer_tokens": args.answer_tokens,
        "refusal_tokens": args.refusal_tokens,
        "models": models,
        "prices_as_of": PRICES_AS_OF,
        "prices": {
            m: price.model_dump()
            for m in set(models.values())
            if (price := price_of(m, prices)) is not None
        },
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "results": results,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(record, indent=2) + "\n")
    print(f"\nresults: {args.output}")


if __name__ == "__main__":
    main()
