"""Each family against a fault-injecting stub server: what is scored, unscored and errored.

Runs a small run of every family twice against the stub server (`tests/stub_server.py`)
playing all roles, once clean and once with the fault mix `MIX`; every faulty-run sample must
be scored exactly as in the clean run or unscored / errored with its reason. The headline
metric over the scored samples is compared with the clean run's over the same samples (the
difference must be 0) and over all.

Usage: python -m benchmarks.fault_mix [--seed 7]   (results: benchmarks/results/fault_mix.json)
"""

import argparse
import json
import math
import tempfile
from collections.abc import Callable
from pathlib import Path
from statistics import fmean
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import GenerateConfig, Model, get_model

from heedbench.evals.carryon import load_queries
from heedbench.evals.carryon.task import carryon
from heedbench.evals.choice.task import choice
from heedbench.evals.prefdisco.task import prefdisco
from heedbench.testing_carryon import stub_reply, write_queries
from tests.stub_server import FaultPlan, StubServer, choice_reply, start_stub_server

MIX = {
    "rate_limit": 0.04,
    "server_error": 0.04,
    "hang": 0.01,
    "drop": 0.02,
    "malformed": 0.02,
    "empty": 0.03,
    "no_choices": 0.03,
    "context_length": 0.01,
    "content_filter": 0.01,
}
ATTEMPT_TIMEOUT = 1
"""Seconds per attempt for every role, below the stub's 3-second hang."""
HEADLINE = {"choice": "spo", "carryon": "last_utility", "prefdisco": "prefalign"}


def prefdisco_reply(prompt: str) -> str:
    """Every prefdisco role in one function: grader, simulated user, evaluated model."""
    from tests.prefdisco.scripted import asks, grader_reply

    if prompt.startswith(("You grade", "You check", "You judge")):
        return grader_reply(prompt)
    if prompt.startswith(("You are playing a person", "You are role-playing a person")):
        return "Short and plain, please."
    return asks(1)(prompt)


def family_run(family: str, folder: Path) -> tuple[Task, Callable[[str], str]]:
    """A small run of `family` and the stub responder that plays all its roles."""
    if family == "choice":
        return choice(n=5), choice_reply
    if family == "carryon":
        data = write_queries(folder / "queries.jsonl", load_queries()[:3], items=4)
        return carryon(data=str(data), flows_per_query=2), stub_reply
    return prefdisco(condition="all", max_problems=10), prefdisco_reply


def _model(url: str, name: str) -> Model:
    return get_model(
        f"openai-api/stub/{name}",
        base_url=url,
        api_key="stub-key",
        config=GenerateConfig(attempt_timeout=ATTEMPT_TIMEOUT),
        memoize=False,
    )


def run(
    task: Task, responder: Callable[[str], str], faults: FaultPlan | None, log_dir: Path
) -> tuple[EvalLog, StubServer]:
    """One eval against a fresh stub; errored samples do not stop the run."""
    server, url = start_stub_server(latency=0.0, responder=responder, faults=faults)
    try:
        log = eval(
            task,
            model=_model(url, "target"),
            model_roles={"user": _model(url, "user"), "grader": _model(url, "grader")},
            fail_on_error=False,
            display="none",
            log_dir=str(log_dir),
        )[0]
    finally:
        server.stop()
    return log, server


def by_id(log: EvalLog) -> dict[Any, EvalSample]:
    """Samples keyed by (id, epoch)."""
    assert log.samples is not None
    return {(sample.id, sample.epoch): sample for sample in log.samples}


def value_of(sample: EvalSample) -> dict[str, float] | float:
    """The sample's (first) score value: a dict of keys, or a float (NaN when unscored)."""
    assert sample.scores is not None
    value = next(iter(sample.scores.values())).value
    return value if isinstance(value, dict) else float(value)  # type: ignore[arg-type]


def is_nan(x: Any) -> bool:
    """Whether `x` is a float NaN (an unscored value)."""
    return isinstance(x, float) and math.isnan(x)


def compare(clean: EvalLog, faulty: EvalLog) -> dict[str, Any]:
    """Check every faulty-run sample against the clean run, and count how each ended.

    Raises:
        AssertionError: a faulty-run sample was scored differently from the clean run, or
            left unscored without a reason.
    """
    assert clean.status == "success" and faulty.status == "success", faulty.error
    reference = by_id(clean)
    tally: dict[str, Any] = {"scored": 0, "unscored": 0, "errored": 0, "scored_ids": []}
    for key, sample in by_id(faulty).items():
        if sample.error is not None:
            assert sample.error.message
            tally["errored"] += 1
            continue
        score = next(iter((sample.scores or {}).values()))
        value, expected = value_of(sample), value_of(reference[key])
        if is_nan(value):
            assert score.reason or score.explanation, f"{key}: unscored without a reason"
            tally["unscored"] += 1
            continue
        assert isinstance(value, dict) and isinstance(expected, dict)
        lost = [
            name for name, number in value.items() if is_nan(number) and not is_nan(expected[name])
        ]
        for name, number in value.items():
            if name not in lost:
                same = number == expected[name] or (is_nan(number) and is_nan(expected[name]))
                assert same or math.isclose(number, expected[name]), (key, name)
        if lost:
            metadata = score.metadata or {}
            assert metadata.get("problems") or metadata.get("unscored"), f"{key}: no problem"
            tally["unscored"] += 1
        else:
            tally["scored"] += 1
            tally["scored_ids"].append(key)
    return tally


def headline(log: EvalLog, key: str, ids: list[Any] | None = None) -> float:
    """Mean of one score key over the scored samples (restricted to `ids` if given)."""
    values = []
    for sample_key, sample in by_id(log).items():
        if sample.error is not None or (ids is not None and sample_key not in ids):
            continue
        value = value_of(sample)
        if isinstance(value, dict) and not is_nan(value.get(key, math.nan)):
            values.append(value[key])
    return fmean(values) if values else math.nan


def main() -> None:
    """Run every family clean and faulty; print and save the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        for family in ("choice", "carryon", "prefdisco"):
            clean, _ = run(*family_run(family, folder), None, folder / f"{family}-clean")
            plan = FaultPlan(MIX, seed=args.seed)
            faulty, server = run(*family_run(family, folder), plan, folder / f"{family}-faulty")
            tally = compare(clean, faulty)
            key, ids = HEADLINE[family], tally.pop("scored_ids")
            row = {
                "family": family, "samples": len(by_id(clean)), **tally,
                "faults_injected": server.stats.snapshot().faults, "metric": key,
                "clean_all": headline(clean, key), "faulty_scored": headline(faulty, key, ids),
                "clean_same_samples": headline(clean, key, ids),
            }  # fmt: skip
            row["difference"] = row["faulty_scored"] - row["clean_same_samples"]
            rows.append(row)
            print(json.dumps(row))
    out = Path(__file__).parent / "results" / "fault_mix.json"
    out.write_text(json.dumps({"mix": MIX, "seed": args.seed, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
