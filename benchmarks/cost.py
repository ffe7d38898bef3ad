"""Model calls, tokens and dollars per sample with scripted models, per judge mode and role.

`carryon`: runs `carryon -T condition=full` offline on `--queries` shipped queries (every
fifth, so all four categories appear), once per judge mode, and reads calls per role from the
model events and tokens per role from each sample's `role_usage`. The scripted models report
usage estimated from the text that crosses each call (characters / 4); the scripted target
pads its helpful answers to about `--answer-tokens` tokens and its refusals to about
`--refusal-tokens`. Dollars: the full shipped benchmark, 200 queries x (turn1 + oracle +
`--flows` conversations).

`prefdisco`: runs `prefdisco -T condition=all` (protocol `paper`, or `budgeted`) on the shipped
sample, once per judge mode (per_criterion and batched), counting every call each role makes;
tokens are estimated from the text that crosses each call (prompt and reply characters / 4),
the replies having realistic lengths (`--answer-chars`, `--user-chars`) and the evaluated
model asking `--questions` questions in discovery before it answers. Dollars: a full 1K source
of the release (1,000 records x 3 conditions), PrefAlign grading also scaled to its 20 rubric
criteria (per-criterion: calls x 20/n; batched: the criteria listing x 20/n).

Prices: `heedbench/prices.yaml` (dated; `--prices FILE` adds to them). BENCHMARKS.md explains
the figures.

Usage: python -m benchmarks.cost carryon [--queries 10] [--flows 15] [--answer-tokens 500]
           [--refusal-tokens 150] [--output FILE]
       python -m benchmarks.cost prefdisco [--source math] [--questions 2] [--protocol paper]
       both: [--model openai/gpt-4o-mini] [--user openai/gpt-4o-mini] [--grader openai/gpt-4o]
"""

import argparse
import json
import re
import statistics
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, ModelCost

from benchmarks.latency import role_calls, spread_queries
from heedbench.evals.carryon import load_queries
from heedbench.evals.carryon.task import carryon
from heedbench.evals.prefdisco.task import prefdisco
from heedbench.prices import PRICES_AS_OF, dollars, load_prices, price_of
from heedbench.solvers.prefdisco import prompts
from heedbench.testing import scripted_model
from heedbench.testing_carryon import (
    FILLER,
    refuse_then_recover,
    scripted_grader,
    scripted_user,
    write_queries,
)

RESULTS = Path(__file__).parent / "results"
CHARS_PER_TOKEN = 4


def priced(models: dict[str, str], prices: dict[str, ModelCost]) -> dict[str, Any]:
    """The prices of the models used, as recorded beside the figures."""
    found = {m: price_of(m, prices) for m in set(models.values())}
    return {m: price.model_dump() for m, price in found.items() if price is not None}


def offline(task: Any, model: Model, roles: dict[str, Model], log_dir: str) -> EvalLog:
    """One offline run; it must succeed."""
    log = eval(task, model=model, model_roles=roles, display="none", log_dir=log_dir,
               log_realtime=False)[0]  # fmt: skip
    if log.status != "success" or not log.samples:
        raise SystemExit(f"run ended {log.status}: {log.error}")
    return log


# -- carryon -----------------------------------------------------------------------------------

CARRYON_ROLES = ("target", "user", "grader")
FILLER_TOKENS = len(FILLER) / 4


def carryon_measure(log: EvalLog) -> dict[str, Any]:
    """Per condition: conversations, mean exchanges, calls and tokens per role per sample."""
    rows: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    grader_per_response: list[float] = []
    for sample in log.samples or []:
        exchanges, calls = sample.metadata["exchanges"], role_calls(sample)
        grader_per_response.append(calls["grader"] / exchanges)
        row = rows[sample.metadata["condition"]]
        row["exchanges"].append(exchanges)
        target = next((u for m, u in sample.model_usage.items() if m.endswith("/target")), None)
        for role in CARRYON_ROLES:
            usage = sample.role_usage.get(role) if role != "target" else target
            row[f"{role}_calls"].append(calls[role])
            row[f"{role}_in"].append(usage.input_tokens if usage else 0)
            row[f"{role}_out"].append(usage.output_tokens if usage else 0)
    return {
        "grader_calls_per_response": {
            "mean": statistics.fmean(grader_per_response), "max": max(grader_per_response),
        },
        "per_sample": {
            condition: {"samples": len(row["exchanges"])}
            | {key: statistics.fmean(values) for key, values in row.items()}
            for condition, row in sorted(rows.items())
        },
    }  # fmt: skip


def carryon_bill(measured: dict[str, Any], queries: int, models: dict[str, str],
                 prices: dict[str, ModelCost]) -> dict[str, float]:  # fmt: skip
    """Dollars per role for the full shipped benchmark."""
    shipped, total = len(load_queries()), defaultdict[str, float](float)
    for row in measured["per_sample"].values():
        count = shipped * row["samples"] / queries
        for role in CARRYON_ROLES:
            total[role] += count * dollars(prices, models[role], row[f"{role}_in"],
                                           row[f"{role}_out"])  # fmt: skip
    total["total"] = sum(total.values())
    return dict(total)


def carryon_cost(args: argparse.Namespace, models: dict[str, str],
                 prices: dict[str, ModelCost]) -> None:  # fmt: skip
    """Measure both judge modes, print tables, save the results."""
    models = {"target": models["model"], "user": models["user"], "grader": models["grader"]}
    target = refuse_then_recover(
        padding=round(args.answer_tokens / FILLER_TOKENS),
        refusal_padding=round(args.refusal_tokens / FILLER_TOKENS),
    )
    roles = {"user": scripted_model(scripted_user, "user", usage="chars"),
             "grader": scripted_model(scripted_grader, "grader", usage="chars")}  # fmt: skip
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as temp_dir:
        data = write_queries(Path(temp_dir) / "queries.jsonl", spread_queries(args.queries))
        for judge in ("batched", "per_item"):
            task = carryon(data=str(data), condition="full", flows_per_query=args.flows,
                           judge=judge)  # fmt: skip
            log = offline(task, scripted_model(target, "target", usage="chars"), roles, temp_dir)
            measured = carryon_measure(log)
            results.append({"judge": judge, "measured": measured, "dollars_full_benchmark":
                            carryon_bill(measured, args.queries, models, prices)})  # fmt: skip
    print("| judge | condition | exchanges | target calls / tokens in+out | user calls / tokens "
          "| grader calls / tokens |\n|---|---|---:|---:|---:|---:|")  # fmt: skip
    for result in results:
        for condition, row in result["measured"]["per_sample"].items():
            cells = [f"{row[f'{r}_calls']:.1f} / {row[f'{r}_in']:,.0f}+{row[f'{r}_out']:,.0f}"
                     for r in CARRYON_ROLES]  # fmt: skip
            print(f"| {result['judge']} | {condition} | {row['exchanges']:.2f} | "
                  + " | ".join(cells) + " |")  # fmt: skip
    for result in results:
        cost = ", ".join(f"{r} ${v:,.2f}" for r, v in result["dollars_full_benchmark"].items())
        calls = result["measured"]["grader_calls_per_response"]
        print(f"\n{result['judge']}: grader calls per response {calls}; full benchmark {cost}")
    record = {
        "queries": args.queries, "flows": args.flows, "answer_tokens": args.answer_tokens,
        "refusal_tokens": args.refusal_tokens, "models": models, "prices_as_of": PRICES_AS_OF,
        "prices": priced(models, prices),
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"), "results": results,
    }  # fmt: skip
    output = args.output or RESULTS / "carryon_cost.json"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(record, indent=2) + "\n")
    print(f"\nresults: {output}")


# -- prefdisco ---------------------------------------------------------------------------------

RELEASE_RECORDS, RELEASE_CRITERIA = 1000, 20
CONDITIONS = ("baseline", "discovery", "oracle")
PREFDISCO_ROLES = ("model", "user", "grader", "correctness")
"""`grader` is PrefAlign, scaled to the release's criteria; `correctness` is one call an answer."""
ORACLE_OPENINGS = (prompts.PAPER_ORACLE_SYSTEM[:60], prompts.ORACLE_SYSTEM[:30])
FINAL_REQUESTS = (prompts.PAPER_FINAL_REQUEST, prompts.FINAL_REQUEST)
ASK_ACTION = "###ACTION###: 'ask_question'"


def condition_of(prompt: str) -> str:
    """The condition a prompt to the evaluated model belongs to."""
    if "`QUESTION:`" in prompt or ASK_ACTION in prompt:  # only discovery explains a marker
        return "discovery"
    return "oracle" if any(opening in prompt for opening in ORACLE_OPENINGS) else "baseline"


class Meter:
    """Calls and characters per (condition, role), filled by the scripted models."""

    def __init__(self) -> None:
        self.calls: dict[tuple[str, str], int] = defaultdict(int)
        self.chars_in: dict[tuple[str, str], int] = defaultdict(int)
        self.chars_out: dict[tuple[str, str], int] = defaultdict(int)
        self.criteria_chars = self.criteria_count = 0

    def add(self, condition: str, role: str, prompt: str, reply: str) -> str:
        """Count one call; return its reply."""
        key = (condition, role)
        self.calls[key] += 1
        self.chars_in[key] += len(prompt)
        self.chars_out[key] += len(reply)
        return reply


def scripted(meter: Meter, questions: int, answer_chars: int,
             user_chars: int) -> tuple[Model, Model, Model]:  # fmt: skip
    """The evaluated model, the simulated user and the grader, metered."""
    filler = "Here is the working, step by step, in the register you asked for. " * 400
    answer = filler[: max(0, answer_chars - 40)]

    def model(prompt: str) -> str:
        condition = condition_of(prompt)
        action = ASK_ACTION in prompt  # markers=action (the paper protocol's) or labels
        asked = len(re.findall(r"^(?:QUESTION:|###ACTION###: ask)", prompt, re.MULTILINE))
        requested = any(request in prompt for request in FINAL_REQUESTS)
        ask, answer_marker = (
            ("###ACTION###: ask_question\n###RESPONSE###: ",
             "###ACTION###: final_answer\n###RESPONSE###: ") if action
            else ("QUESTION: ", "FINAL ANSWER: ")
        )  # fmt: skip
        if condition == "discovery" and asked < questions and not requested:
            reply = f"{ask}How much detail and which notation suit you best? ({asked})"
        else:
            prefix = answer_marker if condition == "discovery" else ""
            reply = f"{prefix}[{condition}] {answer} The answer is \\boxed{{7}}."
        return meter.add(condition, "model", prompt, reply)

    def user(prompt: str) -> str:
        # each persona answers in its own words, so only what the reference shares is shared
        name = (re.findall(r"- Name: (.*)", prompt) or ["me"])[0]
        reply = (f"{name} here. Short, please, and no heavy notation. " * 10)[:user_chars]
        if '"thought"' in prompt:  # user_format=json (the paper protocol's): a thought as well
            thought = "They ask how I like it explained; my profile says short and plain."
            reply = json.dumps({"thought": thought, "response": reply})
        return meter.add("discovery", "user", prompt, reply)

    def grader(prompt: str) -> str:
        tag = re.search(r"\[(baseline|discovery|oracle)\]", prompt)
        condition = tag.group(1) if tag else "baseline"
        count = len(re.findall(r"^Criterion \d+:", prompt, re.MULTILINE))
        why = "The response mostly matches the preferred level, with minor lapses in tone."
        if "correct answer" in prompt:  # counted apart: it does not grow with the criteria
            verdict = {"correct": 1 if "<0 or 1>" in prompt else True, "justification": why}
            return meter.add(condition, "correctness", prompt, json.dumps(verdict))
        if count:
            listing = prompt.split("\n\nBlock code for this request", maxsplit=1)[0]
            entries = re.findall(r"^Criterion \d+:.*?(?=^Criterion \d+:|\Z)", listing,
                                 re.MULTILINE | re.DOTALL)  # fmt: skip
            meter.criteria_chars += sum(len(entry) for entry in entries)
            meter.criteria_count += count
            reply = json.dumps({"scores": {str(i): 3 for i in range(1, count + 1)},
                                "justification": why})  # fmt: skip
        else:
            reply = json.dumps({"score": 3, "justification": why})
        return meter.add(condition, "grader", prompt, reply)

    return (
        scripted_model(model, "model"),
        scripted_model(user, "user"),
        scripted_model(grader, "grader"),
    )


def prefdisco_run(judge: Any, args: argparse.Namespace) -> dict[str, Any]:
    """One judge mode's calls and estimated tokens per sample, by condition and role."""
    meter = Meter()
    model, user, grader = scripted(meter, args.questions, args.answer_chars, args.user_chars)
    task = prefdisco(condition="all", source=args.source, judge=judge, protocol=args.protocol)
    with tempfile.TemporaryDirectory() as log_dir:
        start = time.perf_counter()
        log = offline(task, model, {"user": user, "grader": grader}, log_dir)
        seconds = time.perf_counter() - start
    samples = log.samples or []
    per_condition = defaultdict[str, int](int)
    for sample in samples:
        per_condition[sample.metadata["condition"]] += 1
    criteria = [len(((s.scores or {})["prefdisco"].metadata or {})["criteria"]) for s in samples]
    rows = {
        f"{condition}/{role}": {
            "calls": meter.calls[condition, role] / per_condition[condition],
            "tokens_in": meter.chars_in[condition, role] / per_condition[condition]
            / CHARS_PER_TOKEN,
            "tokens_out": meter.chars_out[condition, role] / per_condition[condition]
            / CHARS_PER_TOKEN,
        }
        for condition in CONDITIONS for role in PREFDISCO_ROLES
    }  # fmt: skip
    return {
        "source": args.source, "judge": judge, "protocol": args.protocol,
        "samples": len(samples), "seconds": seconds,
        "mean_criteria": sum(criteria) / len(criteria), "per_sample": rows,
        "criteria_entry_tokens": (meter.criteria_chars / max(meter.criteria_count, 1))
        / CHARS_PER_TOKEN,
    }  # fmt: skip


def scaled_grader(row: dict[str, Any], judge: str, mean_criteria: float,
                  entry_tokens: float) -> dict[str, float]:  # fmt: skip
    """A grader row scaled from the sample's criteria count to the release's 20."""
    factor = RELEASE_CRITERIA / mean_criteria
    if judge == "per_criterion":
        return {k: v * factor for k, v in row.items()}
    extra = entry_tokens * (RELEASE_CRITERIA - mean_criteria)
    return {"calls": row["calls"], "tokens_in": row["tokens_in"] + extra,
            "tokens_out": row["tokens_out"] * factor}  # fmt: skip


def prefdisco_bill(result: dict[str, Any], prices: dict[str, ModelCost],
                   models: dict[str, str], scale: bool) -> dict[str, float]:  # fmt: skip
    """Dollars for a full 1K source (1,000 records x 3 conditions), per role."""
    total = defaultdict[str, float](float)
    for key, measured in result["per_sample"].items():
        role = key.split("/")[1]
        row = measured
        if scale and role == "grader":
            row = scaled_grader(measured, result["judge"], result["mean_criteria"],
                                result["criteria_entry_tokens"])  # fmt: skip
        total[role] += RELEASE_RECORDS * dollars(prices, models[role], row["tokens_in"],
                                                 row["tokens_out"])  # fmt: skip
    total["total"] = sum(total.values())
    return dict(total)


def prefdisco_cost(args: argparse.Namespace, models: dict[str, str],
                   prices: dict[str, ModelCost]) -> None:  # fmt: skip
    """Measure both judge modes and print markdown tables."""
    models = {**models, "correctness": models["grader"]}
    results = []
    for judge in ("per_criterion", "batched"):
        result = prefdisco_run(judge, args)
        result["dollars_1k_source_measured"] = prefdisco_bill(result, prices, models, False)
        result["dollars_1k_source_20_criteria"] = prefdisco_bill(result, prices, models, True)
        results.append(result)
        print(json.dumps({k: v for k, v in result.items() if k != "per_sample"}), flush=True)
    output = {"prices_as_of": PRICES_AS_OF, "models": models, "prices": priced(models, prices),
              "chars_per_token": CHARS_PER_TOKEN, "questions": args.questions,
              "protocol": args.protocol, "answer_chars": args.answer_chars,
              "results": results}  # fmt: skip
    suffix = "" if args.protocol == "paper" else f"_{args.protocol}"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"prefdisco_cost{suffix}.json").write_text(json.dumps(output, indent=2))
    print("\n| judge | condition | role | calls / sample | est. tokens in | est. tokens out |")
    print("|---|---|---|---|---|---|")
    for result in results:
        for key, row in result["per_sample"].items():
            if row["calls"]:
                condition, role = key.split("/")
                print(f"| {result['judge']} | {condition} | {role} | {row['calls']:.2f} "
                      f"| {row['tokens_in']:,.0f} | {row['tokens_out']:,.0f} |")  # fmt: skip
    print("\n| judge | criteria | model $ | user $ | grader $ (PrefAlign + correctness) "
          "| total $ (1K source) |\n|---|---|---|---|---|---|")  # fmt: skip
    for result in results:
        for label, key in (("sample", "dollars_1k_source_measured"),
                           ("20 (release)", "dollars_1k_source_20_criteria")):  # fmt: skip
            d = result[key]
            print(f"| {result['judge']} | {label} | {d['model']:.2f} | {d['user']:.2f} "
                  f"| {d['grader']:.2f} + {d.get('correctness', 0):.2f} "
                  f"| {d['total']:.2f} |")  # fmt: skip


def main() -> None:
    """Measure one family's costs."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--model", default="openai/gpt-4o-mini")
    common.add_argument("--user", default="openai/gpt-4o-mini")
    common.add_argument("--grader", default="openai/gpt-4o")
    common.add_argument("--prices", type=Path, help="prices in Inspect's --model-cost-config "
                        "format, added to heedbench/prices.yaml")  # fmt: skip
    families = parser.add_subparsers(dest="family", required=True)
    c = families.add_parser("carryon", parents=[common], help="a full carryon run's bill")
    c.add_argument("--queries", type=int, default=10)
    c.add_argument("--flows", type=int, default=15)
    c.add_argument("--answer-tokens", type=int, default=500)
    c.add_argument("--refusal-tokens", type=int, default=150)
    c.add_argument("--output", type=Path, help="default: benchmarks/results/carryon_cost.json")
    p = families.add_parser("prefdisco", parents=[common], help="a 1K prefdisco source's bill")
    p.add_argument("--source", default="math")
    p.add_argument("--questions", type=int, default=2)
    p.add_argument("--protocol", default="paper", choices=("paper", "budgeted"))
    p.add_argument("--answer-chars", type=int, default=2400)
    p.add_argument("--user-chars", type=int, default=100)
    args = parser.parse_args()
    run = carryon_cost if args.family == "carryon" else prefdisco_cost
    run(args, {"model": args.model, "user": args.user, "grader": args.grader},
        load_prices(args.prices))  # fmt: skip


if __name__ == "__main__":
    main()
