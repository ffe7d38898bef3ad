"""Reference rows for reading SPO and K(p) on a dataset: trivial and chance choosers.

K(p) is a count of pairs with no fixed scale; the paper notes it is hard to read without a
reference. These rows give one, computed from the data itself:

- the user's order reversed: every strict preference violated, so SPO 0 and K(p) equals the
  number of strict pairs (the paper's "inversion", 568 on its data);
- everything indifferent (one set): SPO 0 and K(p) = p × strict pairs;
- the chance model `heedbench/random` per design: its answers are a pure function of its
  seed and the prompt, so they are simulated offline with the solver's own designs, prompts,
  parsers and presentation order, giving exactly what `inspect eval ... --model
  heedbench/random` scores; where the expectation over the chance model's randomness has a
  closed form (pointwise, listwise, pairwise_test) it is given as well.

Usage: python -m heedbench.evals.choice.reference [--n N] [--p P] [--data DIR]
"""

import argparse
import asyncio
import math
import random
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from inspect_ai.dataset import Sample
from inspect_ai.model import get_model

from heedbench.evals.choice.dataset import choice_dataset
from heedbench.evals.choice.task import DEFAULT_TEMPLATE, resolve_template
from heedbench.models.chance import chance_reply
from heedbench.preference import WeakOrder, strict_pairs
from heedbench.scorers.choice.scorer import alignment_values
from heedbench.seeding import sample_seed
from heedbench.solvers.choice.methods import method_runner
from heedbench.solvers.choice.prompts import TEMPLATES
from heedbench.solvers.choice.query import ChoiceQuerier
from heedbench.solvers.choice.relation import Validity

RowKind = Literal["reversed", "indifferent", "chance", "chance_expected"]
CHANCE_MODEL = "heedbench/random"
EXACT_EXPECTATION = ("pointwise", "listwise", "pairwise_test")
"""Designs whose expected score under uniformly random answers has a closed form."""


@dataclass(frozen=True)
class ReferenceRow:
    """One reference chooser on one dataset: per-context score values, as the scorer writes."""

    kind: RowKind
    label: str
    how: str
    method: str = ""
    template: str = ""
    values: tuple[dict[str, float], ...] = field(default_factory=tuple)

    @property
    def contexts(self) -> int:
        """Contexts scored."""
        return len(self.values)

    @property
    def valid(self) -> int:
        """Contexts where the chooser produced a valid preference."""
        return sum(1 for value in self.values if value["valid"] > 0)

    def column(self, key: str) -> list[float]:
        """The key's per-context values over valid contexts (NaN kept out)."""
        return [
            value[key]
            for value in self.values
            if value["valid"] > 0 and not math.isnan(value.get(key, math.nan))
        ]

    def mean(self, key: str) -> float:
        """Mean of a key over valid contexts; NaN when there is none."""
        found = self.column(key)
        return statistics.fmean(found) if found else math.nan


def reversed_order(order: Sequence[Sequence[str]]) -> WeakOrder:
    """The weak order with its sets in the opposite order: x ≿ y becomes y ≿ x."""
    return [list(level) for level in reversed(order)]


def all_indifferent(order: Sequence[Sequence[str]]) -> WeakOrder:
    """One set holding every object: the chooser that calls everything equally good."""
    return [[obj for level in order for obj in level]]


def _orders(samples: Iterable[Sample]) -> list[WeakOrder]:
    orders = []
    for sample in samples:
        assert sample.metadata is not None
        orders.append(sample.metadata["user_order"])
    return orders


def _fixed_row(kind: RowKind, label: str, orders: list[WeakOrder], p: float) -> ReferenceRow:
    build = reversed_order if kind == "reversed" else all_indifferent
    values = tuple(
        alignment_values(
            user,
            chosen=build(user),
            strict=None,
            valid=True,
            queries=0,
            invalid_answers=0,
            order_consistency=None,
            p=p,
        )[0]
        for user in orders
    )
    return ReferenceRow(kind=kind, label=label, how="exact", values=values)


def data_rows(samples: Iterable[Sample], p: float = 0.5) -> list[ReferenceRow]:
    """The reversed user order and the all-indifferent chooser, per context."""
    orders = _orders(samples)
    return [
        _fixed_row("reversed", "user order reversed", orders, p),
        _fixed_row("indifferent", "everything indifferent (one set)", orders, p),
    ]


class _SimulatedChanceQuerier(ChoiceQuerier):
    """Builds each prompt as the querier does and answers it as `heedbench/random` would."""

    chance_seed: int = 0

    async def _ask(self, **fields: Any) -> str:
        fields = {
            "context": self.context,
            "score_low": self.score_low,
            "score_high": self.score_high,
            **fields,
        }
        system = self.template.system.format(**fields)
        user = self.template.user.format(**fields)
        self.queries += 1
        return chance_reply(f"{system}\n{user}", self.chance_seed)


async def _simulate(
    samples: list[Sample],
    method: str,
    template: str,
    *,
    seed: int,
    score_low: int,
    score_high: int,
    p: float,
    validity: Validity,
    chance_seed: int,
) -> tuple[dict[str, float], ...]:
    runner = method_runner(method, validity)
    # never called (the querier answers itself): the chance baseline simulated offline for the
    # report's reference rows, outside any task
    model = get_model(CHANCE_MODEL)  # inspect-evals-lint: ignore[IEBP001] -- offline, no task
    values = []
    for sample in samples:
        assert sample.metadata is not None and sample.id is not None
        rng = random.Random(sample_seed(seed, sample.id))
        objects: list[str] = list(sample.metadata["objects"])
        presented = rng.sample(objects, len(objects))
        querier = _SimulatedChanceQuerier(
            model=model,
            template=TEMPLATES[template],
            context=sample.metadata["context"],
            score_low=score_low,
            score_high=score_high,
        )
        querier.chance_seed = chance_seed
        result = await runner(querier, presented, rng)
        consistency = result.order_consistency
        value, _ = alignment_values(
            sample.metadata["user_order"],
            chosen=result.chosen,
            strict=result.strict,
            valid=result.valid,
            queries=querier.queries,
            invalid_answers=querier.invalid,
            order_consistency=None if math.isnan(consistency) else consistency,
            p=p,
        )
        values.append(value)
    return tuple(values)


def chance_row(
    samples: Sequence[Sample],
    method: str,
    template: str | None = None,
    *,
    seed: int = 0,
    score_low: int = 1,
    score_high: int = 5,
    p: float = 0.5,
    validity: Validity = "lenient",
    chance_seed: int = 0,
) -> ReferenceRow:
    """What `heedbench/random` (`-M seed=<chance_seed>`) scores with one design, simulated.

    `samples` and `seed` must be those of the run being matched (`choice_dataset(data, n,
    seed)` and `-T seed`): the presentation order and the prompts follow from them.
    """
    chosen = resolve_template(method, template)
    values = asyncio.run(
        _simulate(
            list(samples),
            method,
            chosen,
            seed=seed,
            score_low=score_low,
            score_high=score_high,
            p=p,
            validity=validity,
            chance_seed=chance_seed,
        )
    )
    return ReferenceRow(
        kind="chance",
        label=f"chance ({CHANCE_MODEL}, -M seed={chance_seed})",
        how="simulated",
        method=method,
        template=chosen,
        values=values,
    )


def expected_chance_row(
    samples: Iterable[Sample],
    method: str,
    template: str | None = None,
    *,
    score_low: int = 1,
    score_high: int = 5,
    p: float = 0.5,
) -> ReferenceRow | None:
    """The chance model's expected score, where it has a closed form; else None.

    Per context with S strict and T tied user pairs (unordered) and n objects:
    listwise (a uniform permutation): SPO 1/2, K(p) = S/2 + p·T, n sets;
    pointwise (k = high − low + 1 equally likely scores): a pair ties with probability 1/k,
    so SPO (1 − 1/k)/2, K(p) = S·((1 − 1/k)/2 + p/k) + T·p·(1 − 1/k), k·(1 − (1 − 1/k)^n)
    sets; pairwise_test (one random pick per pair, no "none"): SPO 1/2.
    """
    if method not in EXACT_EXPECTATION:
        return None
    chosen = resolve_template(method, template)
    values = []
    for user in _orders(samples):
        n = sum(len(level) for level in user)
        strict = len(strict_pairs(user))
        tied = n * (n - 1) // 2 - strict
        value = {"valid": 1.0, "spo": math.nan, "kendall": math.nan}
        if method == "listwise":
            kendall, sets = strict / 2 + p * tied, float(n)
            keep = 0.5
        elif method == "pointwise":
            k = score_high - score_low + 1
            keep = (1 - 1 / k) / 2
            kendall = strict * (keep + p / k) + tied * p * (1 - 1 / k)
            sets = k * (1 - (1 - 1 / k) ** n)
        else:
            keep, kendall, sets = 0.5, math.nan, math.nan
        value["spo"] = keep if strict else math.nan
        value["kendall"] = kendall
        value["kendall_norm"] = kendall / (n * (n - 1) / 2) if n > 1 else math.nan
        value["indifference_sets"] = sets
        values.append(value)
    return ReferenceRow(
        kind="chance_expected",
        label="chance, expected value",
        how="exact expectation",
        method=method,
        template=chosen,
        values=tuple(values),
    )


def reference_rows(
    data: str | Path | None = None,
    *,
    n: int | None = None,
    seed: int = 0,
    p: float = 0.5,
    designs: Iterable[tuple[str, str | None]] | None = None,
    score_low: int = 1,
    score_high: int = 5,
    validity: Validity = "lenient",
    chance_seed: int = 0,
) -> list[ReferenceRow]:
    """Every reference row for one dataset and run setting.

    Args:
        data: data folder (default: the shipped data).
        n: seeded object subset, as `-T n`.
        seed: `-T seed` of the runs to compare with.
        p: K(p) penalty.
        designs: (method, template) pairs to simulate the chance model for (default: every
            design with its default template).
        score_low: lowest pointwise score.
        score_high: highest pointwise score.
        validity: `-T validity` of the runs to compare with.
        chance_seed: `-M seed` of `heedbench/random`.
    """
    samples = list(choice_dataset(data, n=n, seed=seed))
    rows = data_rows(samples, p)
    chosen = designs if designs is not None else DEFAULT_TEMPLATE.items()
    for method, template in chosen:
        rows.append(
            chance_row(
                samples,
                method,
                template,
                seed=seed,
                score_low=score_low,
                score_high=score_high,
                p=p,
                validity=validity,
                chance_seed=chance_seed,
            )
        )
        expected = expected_chance_row(
            samples, method, template, score_low=score_low, score_high=score_high, p=p
        )
        if expected is not None:
            rows.append(expected)
    return rows


def _fmt(value: float, digits: int) -> str:
    return "—" if math.isnan(value) else f"{value:.{digits}f}"


def markdown_table(rows: Sequence[ReferenceRow]) -> str:
    """The rows as a Markdown table (means over valid contexts)."""
    lines = [
        "| reference | design | template | how | SPO | K(p) | K(p)/pairs | valid | sets "
        "| queries / context |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row.label} | {row.method or '—'} | {row.template or '—'} | {row.how} "
            f"| {_fmt(row.mean('spo'), 3)} | {_fmt(row.mean('kendall'), 1)} "
            f"| {_fmt(row.mean('kendall_norm'), 3)} | {row.valid}/{row.contexts} "
            f"| {_fmt(row.mean('indifference_sets'), 2)} | {_fmt(row.mean('queries'), 0)} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Print the reference rows of a dataset as a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", help="data folder (default: the shipped data)")
    parser.add_argument("--n", type=int, help="seeded object subset, as -T n")
    parser.add_argument("--seed", type=int, default=0, help="-T seed of the runs")
    parser.add_argument("--p", type=float, default=0.5, help="K(p) penalty")
    parser.add_argument("--validity", choices=("lenient", "strict"), default="lenient")
    parser.add_argument("--chance-seed", type=int, default=0, help="-M seed of the chance model")
    args = parser.parse_args(argv)
    rows = reference_rows(
        args.data,
        n=args.n,
        seed=args.seed,
        p=args.p,
        validity="strict" if args.validity == "strict" else "lenient",
        chance_seed=args.chance_seed,
    )
    samples = choice_dataset(args.data, n=args.n, seed=args.seed)
    strict = [len(strict_pairs(order)) for order in _orders(samples)]
    print(f"{len(strict)} contexts, {statistics.fmean(strict):.1f} strict pairs on average\n")
    print(markdown_table(rows))


if __name__ == "__main__":
    main()
