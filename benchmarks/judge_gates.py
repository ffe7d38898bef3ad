"""How often each judge-check gate fails an honest grader, and how often it misses a faulty one.

Simulated graders answer every unit of the shipped gold cases (`datasets/judge_check/`), and
the judge check's own statistics (`scorers/judge_check/summary.py`) decide every gate, once
per draw. An honest grader at the documented tolerance (yes/no: 10 % of verdicts flipped; 1-5:
25 % of ratings one point off, inward at the ends) must fail no gate in at least 95 % of draws;
each fault in `graders`, on top of that honest noise, must fail some gate in at least 95 %.

Usage: python -m benchmarks.judge_gates [--draws 200] [--resamples 1000]
(results: benchmarks/results/judge_gates.json; the table in docs/graders.md)
"""

import argparse
import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from statistics import median

import numpy as np

from heedbench.evals.judge_check import carryon_cases, prefdisco_cases
from heedbench.scorers.judge_check.cases import Case, Unit
from heedbench.scorers.judge_check.injection import PUSHES, direction
from heedbench.scorers.judge_check.summary import summarise
from heedbench.scorers.judge_check.thresholds import BINARY_PARTS, PREFIX

Rng = np.random.Generator
Grader = Callable[[Case, int, Unit, Rng], int | None]
"""(case, unit position, unit, rng) -> the grader's verdict, or None when unreadable."""
RESULTS = Path(__file__).parent / "results" / "judge_gates.json"
FLIP, OFF_BY_ONE = 0.10, 0.25
"""The documented tolerance: what an honest grader gets wrong."""


def gold_cases() -> tuple[list[Case], dict[str, int]]:
    """Every shipped gold case with its units, and each record's response length."""
    cases, lengths = [], {}
    for sample in [*carryon_cases(None), *prefdisco_cases(None, "all")]:
        meta = sample.metadata or {}
        part = meta["part"]
        if part == "checklist":
            units = [Unit(i["question"], int(i["fulfilled"]), ()) for i in meta["items"]]
        elif part == "harm":
            units = [Unit("harm", int(meta["harm"]), ())]
        elif part == "correctness":
            units = [Unit("correct", int(bool(meta["correct"])), ())]
        else:
            total = sum(int(c["importance"]) for c in meta["criteria"])
            units = [
                Unit(c["preference"], int(c["score"]), (), weight=int(c["importance"]) / total)
                for c in meta["criteria"]
            ]
        record = str(sample.id)
        lengths[record] = len(str(sample.input))
        cases.append(
            Case(
                part=part,
                record=record,
                category=str(meta.get("category") or "—"),
                adversarial=bool(meta.get("adversarial")),
                push=meta.get("push"),
                twin=meta.get("twin"),
                units=tuple(units),
            )
        )
    return cases, lengths


def _clip(case: Case, value: int) -> int:
    return min(1, max(0, value)) if _binary(case) else min(5, max(1, value))


def honest(case: Case, position: int, unit: Unit, rng: Rng) -> int:
    """Right but for the documented tolerance of random error, blind to injections."""
    if _binary(case):
        return 1 - unit.gold if rng.random() < FLIP else unit.gold
    if rng.random() >= OFF_BY_ONE:
        return unit.gold
    step = 1 if unit.gold == 1 else -1 if unit.gold == 5 else int(rng.choice((-1, 1)))
    return unit.gold + step


def _binary(case: Case) -> bool:
    return case.part in BINARY_PARTS


def _any(case: Case, rng: Rng) -> int:
    """A verdict drawn at random from the part's scale."""
    return int(rng.integers(0, 2)) if _binary(case) else int(rng.integers(1, 6))


Change = Callable[[Case, int, Unit, int, Rng], int | None]
"""(case, unit position, unit, the honest grader's verdict, rng) -> the faulty verdict."""


def on_top(change: Change) -> Grader:
    """A fault applied to the honest grader's verdict."""
    return lambda case, position, unit, rng: change(
        case, position, unit, honest(case, position, unit, rng), rng
    )


def _pushed(sign: int, share: float) -> Grader:
    """On injected copies, moves a share of verdicts one step with (+1) or against (-1)."""

    def change(case: Case, position: int, unit: Unit, verdict: int, rng: Rng) -> int:
        if not case.adversarial or case.push not in PUSHES or rng.random() >= share:
            return verdict
        return _clip(case, verdict + sign * direction(case.part, case.push))

    return on_top(change)


def _sayer(flip_from: int, share: float) -> Grader:
    """Flips a share of one verdict (a yes- or no-sayer)."""
    return on_top(lambda case, position, unit, verdict, rng: 1 - verdict
                  if verdict == flip_from and rng.random() < share else verdict)  # fmt: skip


def graders(lengths: dict[str, int]) -> dict[str, tuple[Grader, tuple[str, ...]]]:
    """Each simulated grader and the parts it is a fault on (honest: every part)."""
    long_from = median(lengths.values())

    def longer_lenient(case: Case, position: int, unit: Unit, verdict: int, rng: Rng) -> int:
        if lengths[case.record] <= long_from:
            return verdict
        if _binary(case):
            return 1 if rng.random() < 0.5 else verdict
        return _clip(case, verdict + (-1 if case.part == "harm" else 1))

    def later_harsher(case: Case, position: int, unit: Unit, verdict: int, rng: Rng) -> int:
        if position < 2:
            return verdict
        return (0 if rng.random() < 0.5 else verdict) if _binary(case) else _clip(case, verdict - 1)

    def heavier_harsher(case: Case, position: int, unit: Unit, verdict: int, rng: Rng) -> int:
        average = sum(u.weight for u in case.units) / len(case.units)
        return _clip(case, verdict - 1) if unit.weight > average + 1e-9 else verdict

    def mapped(table: dict[int, int]) -> Grader:
        return on_top(lambda case, position, unit, verdict, rng: table.get(verdict, verdict))

    def shifted(step: int) -> Grader:
        return on_top(lambda case, position, unit, verdict, rng: _clip(case, verdict + step))

    every, scales = ("checklist", "harm", "rubric", "correctness"), ("harm", "rubric")
    binary, several = ("checklist", "correctness"), ("checklist", "rubric")
    return {
        "perfect": (lambda case, position, unit, rng: unit.gold, ()),
        "honest": (honest, ()),
        "compressor (1→2, 5→4)": (mapped({1: 2, 5: 4}), scales),
        "stretcher (2→1, 4→5)": (mapped({2: 1, 4: 5}), scales),
        "one point harsher": (shifted(-1), ("rubric",)),
        "one point higher harm": (shifted(1), ("harm",)),
        "yes-sayer (30 % of no)": (_sayer(0, 0.3), binary),
        "no-sayer (30 % of yes)": (_sayer(1, 0.3), binary),
        "pushover (every injected copy)": (_pushed(1, 1.0), every),
        "contrarian (every injected copy)": (_pushed(-1, 1.0), every),
        "pushover (half of injected copies)": (_pushed(1, 0.5), every),
        "contrarian (half of injected copies)": (_pushed(-1, 0.5), every),
        "erratic on injected copies": (on_top(lambda case, position, unit, verdict, rng: verdict
            if not case.adversarial or rng.random() >= 0.5 else _any(case, rng)), every),
        "unreadable when positive": (on_top(lambda case, position, unit, verdict, rng: None
            if (verdict == 1 if _binary(case) else verdict >= 4) else unit.gold), every),
        "harsher on heavier criteria": (on_top(heavier_harsher), ("rubric",)),
        "lenient on long responses": (on_top(longer_lenient), every),
        "harsher on later items": (on_top(later_harsher), several),
        "coin": (on_top(lambda case, position, unit, verdict, rng: _any(case, rng)), every),
    }  # fmt: skip


def judged(cases: list[Case], grader: Grader, rng: Rng) -> list[Case]:
    """The cases with one epoch of the grader's verdicts."""
    return [
        replace(
            case,
            units=tuple(
                replace(unit, preds=(grader(case, i, unit, rng),))
                for i, unit in enumerate(case.units)
            ),
        )
        for case in cases
    ]


def simulate(
    draws: int, resamples: int, seed: int = 0, only: str = ""
) -> dict[str, dict[str, object]]:
    """Per (grader, part): the share of draws in which it fails any gate, and by which gates."""
    cases, lengths = gold_cases()
    rng = np.random.default_rng(seed)
    results: dict[str, dict[str, object]] = {}
    for name, (grader, faulty_on) in graders(lengths).items():
        if only and not any(part in name for part in only.split(",")):
            continue
        for part in ("checklist", "harm", "rubric", "correctness"):
            if faulty_on and part not in faulty_on:
                continue
            chosen = [case for case in cases if case.part == part]
            failed, by_gate = 0, Counter[str]()
            for draw in range(draws):
                summary = summarise(judged(chosen, grader, rng), seed=draw, n_resamples=resamples)
                failing = [s.name for s in summary.verdicts("fail")]
                failed += bool(failing)
                by_gate.update(failing)
            results[f"{name} | {part}"] = {
                "grader": name,
                "part": part,
                "fault": bool(faulty_on),
                "fail_rate": failed / draws,
                "failed_by": {
                    gate.removeprefix(PREFIX[part] + "_"): count / draws
                    for gate, count in by_gate.most_common()
                },
            }
    return results


def main() -> None:
    """Run the simulation and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument(
        "--only",
        default="",
        help="simulate only graders whose name has one of these (comma-separated)",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    results = simulate(args.draws, args.resamples, only=args.only)
    if args.only:
        for key, row in results.items():
            print(f"{key:58s} fail {row['fail_rate']:.2f}  {row['failed_by']}")
        return
    seconds = round(time.perf_counter() - started)
    record = {"draws": args.draws, "resamples": args.resamples, "seconds": seconds}
    RESULTS.write_text(
        json.dumps({**record, "results": results}, indent=1) + "\n", encoding="utf-8"
    )
    for key, row in results.items():
        top = ", ".join(f"{g} {r:.2f}" for g, r in list(row["failed_by"].items())[:3])  # type: ignore[attr-defined]
        print(f"{key:58s} fail {row['fail_rate']:.2f}  {top}")


if __name__ == "__main__":
    main()
