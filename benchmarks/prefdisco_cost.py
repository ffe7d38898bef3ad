"""Model calls, tokens and dollars per `prefdisco` sample, by condition and role.

Runs `prefdisco -T condition=all` (default protocol `paper`; `--protocol budgeted` for the
earlier one) on the shipped sample with scripted models, once per judge mode (per_criterion,
the default, and batched), and counts every call each role makes per sample. Scripted models
report a fixed, synthetic token usage (90 in / 8 out per call), so tokens are *estimated* from
the text that actually crosses each call: prompt characters / 4 in, reply characters / 4 out.
The scripted replies have realistic lengths (`--answer-chars`, `--user-chars`), and the
evaluated model asks `--questions` questions in discovery (the paper's models average 1.48)
and then answers. Under `paper` that answer ends the questions and the final answer is still
requested, so discovery costs the evaluated model `questions + 2` calls, two of them full
answers; under `budgeted` the model's own answer is judged (`questions + 1` calls). Under
`paper` every answer also goes to the correctness grader, and replies are shared by their
messages (`share_baseline`): a problem's personas share one baseline answer and one first
question (each persona's user answers in its own words, so nothing else is shared).

The dollar figure is for a full 1K source of the public release (100 problems x 10 personas =
1,000 records, x 3 conditions) at the prices in `heedbench/prices.yaml`. The release's records
have 20 rubric criteria, the shipped sample about 5, so PrefAlign grading is also scaled to 20
criteria (per-criterion: calls x 20/n; batched: the criteria listing x 20/n).

Usage: python -m benchmarks.prefdisco_cost [--source math] [--questions 2] [--protocol paper]
       [--model openai/gpt-4o-mini] [--user openai/gpt-4o-mini] [--grader openai/gpt-4o]
"""

import argparse
import json
import re
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.model import Model, ModelCost

from heedbench.evals.prefdisco.task import prefdisco
from heedbench.prices import PRICES_AS_OF, dollars, load_prices, price_of
from heedbench.solvers.prefdisco import prompts
from heedbench.testing import scripted_model

RESULTS = Path(__file__).parent / "results" / "prefdisco_cost.json"
"""Where the default protocol's figures go; `--protocol budgeted` writes
`prefdisco_cost_budgeted.json` beside it."""
CHARS_PER_TOKEN = 4
RELEASE_RECORDS = 1000
RELEASE_CRITERIA = 20
CONDITIONS = ("baseline", "discovery", "oracle")
ROLES = ("model", "user", "grader", "correctness")
"""`grader` is PrefAlign, scaled to the release's criteria; `correctness` is one call an answer."""


ORACLE_OPENINGS = (prompts.PAPER_ORACLE_SYSTEM[:60], prompts.ORACLE_SYSTEM[:30])
FINAL_REQUESTS = (prompts.PAPER_FINAL_REQUEST, prompts.FINAL_REQUEST)


ASK_ACTION = "###ACTION###: 'ask_question'"


def condition_of(prompt: str) -> str:
    if "`QUESTION:`" in prompt or ASK_ACTION in prompt:  # only discovery explains a marker
        return "discovery"
    return "oracle" if any(opening in prompt for opening in ORACLE_OPENINGS) else "baseline"


class Meter:
    """Calls and characters per (condition, role), filled by the scripted models."""

    def __init__(self) -> None:
        self.calls: dict[tuple[str, str], int] = defaultdict(int)
        self.chars_in: dict[tuple[str, str], int] = defaultdict(int)
        self.chars_out: dict[tuple[str, str], int] = defaultdict(int)
        self.criteria_chars = 0
        self.criteria_count = 0

    def add(self, condition: str, role: str, prompt: str, reply: str) -> str:
        key = (condition, role)
        self.calls[key] += 1
        self.chars_in[key] += len(prompt)
        self.chars_out[key] += len(reply)
        return reply


def scripted(
    meter: Meter, questions: int, answer_chars: int, user_chars: int
) -> tuple[Model, Model, Model]:
    filler = "Here is the working, step by step, in the register you asked for. " * 400
    answer = filler[: max(0, answer_chars - 40)]

    def model(prompt: str) -> str:
        condition = condition_of(prompt)
        action = ASK_ACTION in prompt  # markers=action (the paper protocol's) or labels
        asked = len(re.findall(r"^(?:QUESTION:|###ACTION###: ask)", prompt, re.MULTILINE))
        requested = any(request in prompt for request in FINAL_REQUESTS)
        ask, answer_marker = (
            (
                "###ACTION###: ask_question\n###RESPONSE###: ",
                "###ACTION###: final_answer\n###RESPONSE###: ",
            )
            if action
            else ("QUESTION: ", "FINAL ANSWER: ")
        )
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
        elif count:
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


def run(source: str, judge: Any, protocol: Any, args: argparse.Namespace) -> dict[str, Any]:
    meter = Meter()
    model, user, grader = scripted(meter, args.questions, args.answer_chars, args.user_chars)
    with tempfile.TemporaryDirectory() as log_dir:
        start = time.perf_counter()
        log = eval(
            prefdisco(condition="all", source=source, judge=judge, protocol=protocol),
            model=model,
            model_roles={"user": user, "grader": grader},
            display="none",
            log_dir=log_dir,
            log_realtime=False,
        )[0]
        seconds = time.perf_counter() - start
        if log.status != "success" or not log.samples:
            raise SystemExit(f"{judge} run failed: {log.error}")
        per_condition: dict[str, int] = defaultdict(int)
        criteria = []
        for sample in log.samples:
            per_condition[sample.metadata["condition"]] += 1
            assert sample.scores is not None
            criteria.append(len((sample.scores["prefdisco"].metadata or {})["criteria"]))
    mean_criteria = sum(criteria) / len(criteria)
    rows: dict[str, Any] = {}
    for condition in CONDITIONS:
        n = per_condition[condition]
        for role in ROLES:
            key = (condition, role)
            rows[f"{condition}/{role}"] = {
                "calls": meter.calls[key] / n,
                "tokens_in": meter.chars_in[key] / n / CHARS_PER_TOKEN,
                "tokens_out": meter.chars_out[key] / n / CHARS_PER_TOKEN,
            }
    return {
        "source": source, "judge": judge, "protocol": protocol, "samples": len(log.samples),
        "seconds": seconds,
        "mean_criteria": mean_criteria, "per_sample": rows,
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


def cost(result: dict[str, Any], prices: dict[str, ModelCost],
         models: dict[str, str], scale: bool) -> dict[str, float]:  # fmt: skip
    """Dollars for a full 1K source (1,000 records x 3 conditions), per role."""
    total: dict[str, float] = defaultdict(float)
    for key, measured in result["per_sample"].items():
        role = key.split("/")[1]
        row = measured
        if scale and role == "grader":
            row = scaled_grader(measured, result["judge"], result["mean_criteria"],
                                result["criteria_entry_tokens"])  # fmt: skip
        total[role] += RELEASE_RECORDS * dollars(
            prices, models[role], row["tokens_in"], row["tokens_out"]
        )
    total["total"] = sum(total.values())
    return dict(total)


def main() -> None:
    """Measure both judge modes and print markdown tables."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--source", default="math")
    parser.add_argument("--questions", type=int, default=2)
    parser.add_argument("--protocol", default="paper", choices=("paper", "budgeted"))
    parser.add_argument("--answer-chars", type=int, default=2400)
    parser.add_argument("--user-chars", type=int, default=100)
    parser.add_argument("--model", default="openai/gpt-4o-mini")
    parser.add_argument("--user", default="openai/gpt-4o-mini")
    parser.add_argument("--grader", default="openai/gpt-4o")
    parser.add_argument(
        "--prices",
        type=Path,
        help="prices in Inspect's --model-cost-config format, added to heedbench/prices.yaml",
    )
    args = parser.parse_args()
    prices = load_prices(args.prices)
    models = {"model": args.model, "user": args.user, "grader": args.grader,
              "correctness": args.grader}  # fmt: skip
    results = []
    for judge in ("per_criterion", "batched"):
        result = run(args.source, judge, args.protocol, args)
        result["dollars_1k_source_measured"] = cost(result, prices, models, scale=False)
        result["dollars_1k_source_20_criteria"] = cost(result, prices, models, scale=True)
        results.append(result)
        print(json.dumps({k: v for k, v in result.items() if k != "per_sample"}), flush=True)
    output = {"prices_as_of": PRICES_AS_OF, "models": models,
              "prices": {m: price.model_dump() for m in set(models.values())
                   if (price := price_of(m, prices)) is not None},
              "chars_per_token": CHARS_PER_TOKEN, "questions": args.questions,
              "protocol": args.protocol,
              "answer_chars": args.answer_chars, "results": results}  # fmt: skip
    results_file = (
        RESULTS
        if args.protocol == "paper"
        else RESULTS.with_name(f"prefdisco_cost_{args.protocol}.json")
    )
    results_file.parent.mkdir(exist_ok=True)
    results_file.write_text(json.dumps(output, indent=2))
    print("\n| judge | condition | role | calls / sample | est. tokens in | est. tokens out |")
    print("|---|---|---|---|---|---|")
    for result in results:
        for key, row in result["per_sample"].items():
            if row["calls"]:
                condition, role = key.split("/")
                print(f"| {result['judge']} | {condition} | {role} | {row['calls']:.2f} "
                      f"| {row['tokens_in']:,.0f} | {row['tokens_out']:,.0f} |")  # fmt: skip
    print("\n| judge | criteria | model $ | user $ | grader $ (PrefAlign + correctness) "
          "| total $ (1K source) |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for result in results:
        for label, key in (("sample", "dollars_1k_source_measured"),
                           ("20 (release)", "dollars_1k_source_20_criteria")):  # fmt: skip
            d = result[key]
            print(f"| {result['judge']} | {label} | {d['model']:.2f} | {d['user']:.2f} "
                  f"| {d['grader']:.2f} + {d.get('correctness', 0):.2f} "
                  f"| {d['total']:.2f} |")  # fmt: skip


if __name__ == "__main__":
    main()
