"""Estimate what a build costs: tokens per step from the real prompts, at heedbench prices.

Input tokens are the rendered prompt's characters / 4 (the example inputs under
`datasets/build_examples/` and a shipped persona), plus the model text the prompt carries;
output tokens are the assumptions in `OUTPUT` (a typical reply's length). Retries of an
unusable reply are not counted: each adds one more call of that step.

    python tools/build_cost.py carryon --queries 398 \
        --generators openai/gpt-4o,anthropic/claude-sonnet-4-5,openai/gpt-4.1 \
        --extractor openai/gpt-4.1 --merger openai/gpt-4.1
    python tools/build_cost.py prefdisco --generator openai/gpt-4.1 --personas 100 \
        --problems 100 --per-problem 10 --dimensions 20
"""

import argparse
import json
import statistics
from collections.abc import Callable
from pathlib import Path

from heedbench.evals.prefdisco.sources import normalise_problem
from heedbench.paths import shipped_data_dir
from heedbench.prices import dollars, load_prices
from heedbench.solvers.pipelines.carryon_checks import Candidate, Item
from heedbench.solvers.pipelines.carryon_prompts import (
    answer_prompt,
    extract_prompt,
    merge_prompt,
    refine_prompt,
)
from heedbench.solvers.pipelines.prefdisco_checks import persona_briefs
from heedbench.solvers.pipelines.prefdisco_prompts import (
    persona_prompt,
    profile_prompt,
    rubric_prompt,
)

EXAMPLES = Path(__file__).parents[1] / "datasets" / "build_examples"
CHARS_PER_TOKEN = 4
MERGED_SHARE = 0.7
"""Merged items / candidates (true duplicates across generators)."""
OUTPUT = {
    "answer": 900,  # a generator's full answer
    "item": 35,  # one checklist item as JSON (candidate, merged or refined)
    "items_per_answer": 12,  # candidates extracted from one answer
    "persona": 900,
    "dimension": 90,  # one profile dimension as JSON
    "criterion": 120,  # one rubric criterion (levels 1/3/5) as JSON
}
Step = tuple[str, str, int, int, int]
"""(step, model, calls, input tokens per call, output tokens per call)."""
FILLER_ITEM = "Does the response name the specific regulation that applies and say who enforces it?"


def tokens(text: str) -> int:
    """Estimated tokens of a text."""
    return len(text) // CHARS_PER_TOKEN + 1


def carryon(queries: int, generators: list[str], extractor: str, merger: str) -> list[Step]:
    """(step, model, calls, input tokens per call, output tokens per call) rows."""
    rows = [json.loads(line) for line in (EXAMPLES / "carryon_queries.jsonl").open()]
    answer = "x" * (OUTPUT["answer"] * CHARS_PER_TOKEN)
    per_answer = OUTPUT["items_per_answer"]
    n_candidates = per_answer * len(generators)
    n_merged = round(n_candidates * MERGED_SHARE)
    candidates = [Candidate(f"c{i}", FILLER_ITEM, "Legal Framework", ("m",))
                  for i in range(1, n_candidates + 1)]  # fmt: skip
    merged = [Item(FILLER_ITEM, "Legal Framework", ("m",), ("c1",)) for _ in range(n_merged)]

    def mean(render: Callable[[dict[str, str]], str]) -> int:
        return round(statistics.mean(tokens(render(row)) for row in rows))

    steps = [
        *[("answer", g, queries, mean(answer_prompt), OUTPUT["answer"]) for g in generators],
        ("extract", extractor, queries * len(generators),
         mean(lambda row: extract_prompt(row, answer)), per_answer * OUTPUT["item"]),
        ("merge", merger, queries, mean(lambda row: merge_prompt(row, candidates)),
         n_merged * (OUTPUT["item"] + 8)),
        ("refine", merger, queries, mean(lambda row: refine_prompt(row, merged)),
         n_merged * OUTPUT["item"]),
    ]  # fmt: skip
    return steps


def prefdisco(generator: str, personas: int, problems: int, per_problem: int,
              dimensions: int) -> list[Step]:  # fmt: skip
    """(step, model, calls, input tokens per call, output tokens per call) rows."""
    shipped = shipped_data_dir("prefdisco") / "benchmark_1k" / "math" / "train.jsonl"
    persona = json.loads(shipped.read_text().splitlines()[1])["persona"]
    rows = [json.loads(line) for line in (EXAMPLES / "math_problems.jsonl").open()]
    problem = normalise_problem("math", rows[0])
    entry = {"description": "x" * 120, "value_range": "1-5 (1: a, 3: b, 5: c)", "value": 3,
             "justification": "x" * 160}  # fmt: skip
    profile = {f"Dimension {k}": entry for k in range(dimensions)}
    pairs = problems * per_problem
    return [
        ("persona", generator, personas, tokens(persona_prompt(persona_briefs(1, 0)[0])),
         OUTPUT["persona"]),
        ("profile", generator, pairs, tokens(profile_prompt(problem, persona, dimensions, (2, 3))),
         dimensions * OUTPUT["dimension"]),
        ("rubric", generator, pairs, tokens(rubric_prompt(problem, profile)),
         dimensions * OUTPUT["criterion"]),
    ]  # fmt: skip


def report(steps: list[Step]) -> str:
    """A Markdown table of calls, tokens and dollars per step, and the total."""
    lines = ["| step | model | calls | input tok/call | output tok/call | cost |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    total = 0.0
    prices = load_prices()
    for step, model, calls, tokens_in, tokens_out in steps:
        cost = dollars(prices, model, calls * tokens_in, calls * tokens_out)
        total += cost
        lines.append(f"| {step} | {model} | {calls:,} | {tokens_in:,} | {tokens_out:,} | "
                     f"${cost:,.2f} |")  # fmt: skip
    lines.append(f"| **total** | | | | | **${total:,.2f}** |")
    return "\n".join(lines)


def main() -> None:
    """Print the estimate for one pipeline."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="pipeline", required=True)
    c = sub.add_parser("carryon")
    c.add_argument("--queries", type=int, default=398)
    c.add_argument("--generators", default="openai/gpt-4o,anthropic/claude-sonnet-4-5")
    c.add_argument("--extractor", default="openai/gpt-4.1")
    c.add_argument("--merger", default="openai/gpt-4.1")
    p = sub.add_parser("prefdisco")
    p.add_argument("--generator", default="openai/gpt-4.1")
    p.add_argument("--personas", type=int, default=100)
    p.add_argument("--problems", type=int, default=100)
    p.add_argument("--per-problem", type=int, default=10)
    p.add_argument("--dimensions", type=int, default=20)
    args = parser.parse_args()
    if args.pipeline == "carryon":
        steps = carryon(args.queries, args.generators.split(","), args.extractor, args.merger)
    else:
        steps = prefdisco(args.generator, args.personas, args.problems, args.per_problem,
                          args.dimensions)  # fmt: skip
    print(report(steps))


if __name__ == "__main__":
    main()
