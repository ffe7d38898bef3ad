"""Do batched and per-item Ben-Util judging agree? Re-judge a carryon log's responses both ways.

Reads the responses (and their checklists) of a `carryon` log, has the grader judge every
non-empty response in both modes — one call per checklist item (the paper's way) and all
items in one call (heedbench's default) — and reports item-level agreement (raw and Cohen's
kappa, per-item mode as the reference) and how far the two turn utilities U_t differ. Items
either mode left unjudged are counted apart. Results go to
benchmarks/results/carryon_judge_agreement.json.

Needs a real grader (and its API key): a scripted grader agrees with itself by construction.

Usage: python -m benchmarks.carryon_judge_agreement LOG.eval --grader openai/gpt-4o
       [--limit 50] [--max-connections 16]
"""

import argparse
import asyncio
import json
import statistics
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from inspect_ai.log import read_eval_log
from inspect_ai.model import GenerateConfig, Model, get_model

from heedbench.evals.carryon.dataset import ChecklistItem
from heedbench.scorers.carryon.judge import judge_checklist
from heedbench.scorers.judge.agreement import binary_agreement

RESULTS = Path(__file__).parent / "results" / "carryon_judge_agreement.json"


def responses(log_path: str, limit: int | None) -> list[tuple[list[ChecklistItem], str]]:
    """(checklist, response) for every non-empty assistant response in the log's samples."""
    log = read_eval_log(log_path)
    found: list[tuple[list[ChecklistItem], str]] = []
    for sample in (log.samples or [])[:limit]:
        checklist = [ChecklistItem(**item) for item in sample.metadata.get("checklist", [])]
        score = next(iter((sample.scores or {}).values()), None)
        turns = (score.metadata or {}).get("turns", []) if score else []
        found += [(checklist, t["response"]) for t in turns if t.get("response", "").strip()]
    if not found:
        raise SystemExit(f"{log_path}: no carryon responses with checklists found")
    return found


Judged = Sequence[tuple[list[ChecklistItem], str]]
"""(checklist, response) pairs to judge."""


async def compare(grader: Model, judged: Judged) -> dict[str, Any]:
    """Judge every response both ways and summarise the agreement."""
    results = await asyncio.gather(
        *(
            asyncio.gather(
                judge_checklist(grader, checklist, response, "per_item"),
                judge_checklist(grader, checklist, response, "batched"),
            )
            for checklist, response in judged
        )
    )
    pairs: list[tuple[bool, bool]] = []
    unjudged = 0
    utility_gaps: list[float] = []
    for (checklist, _), (per_item, batched) in zip(judged, results, strict=True):
        for item in checklist:
            first, second = per_item.values.get(item.id), batched.values.get(item.id)
            if first is None or second is None:
                unjudged += 1
            else:
                pairs.append((first, second))
        if per_item.complete and batched.complete:
            per_item_u = sum(bool(v) for v in per_item.values.values()) / len(checklist)
            batched_u = sum(bool(v) for v in batched.values.values()) / len(checklist)
            utility_gaps.append(batched_u - per_item_u)
    counts = binary_agreement(pairs)
    return {
        "responses": len(judged),
        "items_compared": counts.total,
        "items_unjudged": unjudged,
        "counts": vars(counts),
        "observed_agreement": counts.observed,
        "kappa": counts.kappa,
        "utility_gap_mean": statistics.fmean(utility_gaps) if utility_gaps else None,
        "utility_gap_mean_abs": statistics.fmean(abs(g) for g in utility_gaps)
        if utility_gaps
        else None,
    }


def main() -> None:
    """Re-judge a log's responses both ways and report the agreement."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", help="a carryon .eval log")
    parser.add_argument("--grader", required=True, help="e.g. openai/gpt-4o")
    parser.add_argument("--limit", type=int, default=None, help="first N samples of the log")
    parser.add_argument("--max-connections", type=int, default=16)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    grader = get_model(
        args.grader, config=GenerateConfig(temperature=0.0, max_connections=args.max_connections)
    )
    summary = asyncio.run(compare(grader, responses(args.log, args.limit)))
    record = {
        "log": args.log,
        "grader": args.grader,
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **summary,
    }
    print(json.dumps(record, indent=2))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
