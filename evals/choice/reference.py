"""Reference rows for reading SPO and K(p) on a dataset: trivial, context-blind and chance choosers.

K(p) is a count of pairs with no fixed scale; the paper notes it is hard to read without a
reference. These rows give one, computed from the data itself:

- the user's order reversed: every strict preference violated, so SPO 0 and K(p) equals the
  number of strict pairs (the paper's "inversion", 568 on its data);
- everything indifferent (one set): SPO 0 and K(p) = p × strict pairs;
- context-blind choosers, which never read the context they are scored on: each object's
  mean level over the other contexts (ties are indifference), the same order cut into the
  user's set sizes, and one global order over all contexts. What they score is the part of
  SPO and K(p) that knowing which objects are generally useful earns; `spo_context` is 0 for
  the first by construction;
- the chance model `heedbench/random` per design: its answers are a pure function of its
  seed and the prompt, so they are simulated offline with the solver's own designs, prompts,
  parsers and presentation order, giving exactly what `inspect eval ... --model
  heedbench/random` scores; where the expectation over the chance model's randomness has a
  closed form (pointwise, listwise, pairwise_test) it is given as well.

Rows are computed on the contexts and objects a run used: `--n` and `--seed` select the same
object subset as `-T n` and `-T seed`, `--contexts` the same contexts as `--sample-id`.

Usage: python -m heedbench.evals.choice.reference [--n N] [--contexts ID,...] [--data DIR]
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
from heedbench.preference import WeakOrder, rank_map, strict_pairs
from heedbench.scorers.choice.context_blind import BLIND_ORDER, cut_to_sizes, global_order
from heedbench.scorers.choice.metrics import context_pairs, kendall_context_pairs
from heedbench.scorers.choice.scorer import alignment_values
from heedbench.seeding import sample_seed
from heedbench.solvers.choice.methods import method_runner
from heedbench.solvers.choice.prompts import TEMPLATES
from heedbench.solvers.choice.query import ChoiceQuerier
from heedbench.solvers.choice.relation import Validity

RowKind = Literal[
    "reversed",
    "indifferent",
    "blind_loco",
    "blind_cut",
    "blind_global",
    "chance",
    "chance_expected",
]
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


def _blind(sample: Sample) -> WeakOrder | None:
    assert sample.metadata is not None
    found: WeakOrder | None = sample.metadata.get(BLIND_ORDER)
    return found


def _exact(
    user: WeakOrder, chosen: WeakOrder, blind: WeakOrder | None, p: float
) -> dict[str, float]:
    return alignment_values(
        user,
        chosen=chosen,
        strict=None,
        valid=True,
        queries=0,
        invalid_answers=0,
        order_consistency=None,
        p=p,
        blind=blind,
    )[0]


def _fixed_row(kind: RowKind, label: str, samples: list[Sample], p: float) -> ReferenceRow:
    build = reversed_order if kind == "reversed" else all_indifferent
    values = tuple(
        _exact(user, build(user), _blind(sample), p)
        for sample, user in zip(samples, _orders(samples), strict=True)
    )
    return ReferenceRow(kind=kind, label=label, how="exact", values=values)


def data_rows(samples: Iterable[Sample], p: float = 0.5) -> list[ReferenceRow]:
    """The reversed user order and the all-indifferent chooser, per context."""
    chosen = list(samples)
    return [
        _fixed_row("reversed", "user order reversed", chosen, p),
        _fixed_row("indifferent", "everything indifferent (one set)", chosen, p),
    ]


def context_blind_rows(
    samples: Iterable[Sample], p: float = 0.5, *, pool: Iterable[Sample] | None = None
) -> list[ReferenceRow]:
    """Choosers that never read the scored context, per context of `samples`.

    The leave-one-context-out order is each sample's `context_blind_order` (built by the
    dataset from all other contexts of its data file); the cut row forces it into the user's
    set sizes (ties broken in object-file order); the global row ranks by the mean level over
    every context of `pool` (default: `samples`), the scored one included. Contexts without a
    blind order (data with a single context) are left out.
    """
    chosen = [sample for sample in samples if _blind(sample) is not None]
    everyone = list(pool) if pool is not None else chosen
    if not chosen or not everyone:
        return []
    objects: list[str] = list((chosen[0].metadata or {})["objects"])
    overall = global_order(_orders(everyone), objects)
    loco, cut, whole = [], [], []
    for sample, user in zip(chosen, _orders(chosen), strict=True):
        blind = _blind(sample)
        assert blind is not None
        loco.append(_exact(user, blind, blind, p))
        cut.append(_exact(user, cut_to_sizes(blind, [len(level) for level in user]), blind, p))
        whole.append(_exact(user, overall, blind, p))
    how = "exact, context-blind"
    return [
        ReferenceRow(
            kind="blind_loco",
            label="mean level in the other contexts (ties indifferent)",
            how=how,
            values=tuple(loco),
        ),
        ReferenceRow(
            kind="blind_cut",
            label="the same, cut to the user's set sizes",
            how=how,
            values=tuple(cut),
        ),
        ReferenceRow(
            kind="blind_global",
            label="one global order (mean level in all contexts)",
            how=how,
            values=tuple(whole),
        ),
    ]


def select_contexts(samples: Sequence[Sample], contexts: Iterable[str] | None) -> list[Sample]:
    """The samples whose ids are in `contexts`, in data order (all when None).

    Raises:
        ValueError: an id is not a context of the data.
    """
    if contexts is None:
        return list(samples)
    wanted = [str(context) for context in contexts]
    known = {str(sample.id) for sample in samples}
    unknown = [context for context in wanted if context not in known]
    if unknown:
        raise ValueError(f"unknown context id(s): {', '.join(unknown)}")
    return [sample for sample in samples if str(sample.id) in wanted]


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
            blind=sample.metadata.get(BLIND_ORDER),
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
    sets; pairwise_test (one random pick per pair, no "none"): SPO 1/2. The chance model
    does not read the context either, so `spo_context` has the same expectation as SPO and
    `kendall_context` is the same per-pair mix over the pairs the blind order gets wrong.
    """
    if method not in EXACT_EXPECTATION:
        return None
    chosen = resolve_template(method, template)
    values = []
    for sample, user in zip(list(samples), _orders(samples), strict=True):
        n = sum(len(level) for level in user)
        strict = len(strict_pairs(user))
        tied = n * (n - 1) // 2 - strict
        value = {"valid": 1, "spo": math.nan, "kendall": math.nan}
        if method == "listwise":
            per_strict, per_tied, sets = 0.5, p, float(n)
            keep = 0.5
        elif method == "pointwise":
            k = score_high - score_low + 1
            keep = (1 - 1 / k) / 2
            per_strict, per_tied = keep + p / k, p * (1 - 1 / k)
            sets = k * (1 - (1 - 1 / k) ** n)
        else:
            keep, per_strict, per_tied, sets = 0.5, math.nan, math.nan, math.nan
        kendall = strict * per_strict + tied * per_tied
        value["spo"] = keep if strict else math.nan
        value["kendall"] = kendall
        value["kendall_norm"] = kendall / (n * (n - 1) / 2) if n > 1 else math.nan
        value["indifference_sets"] = sets
        blind = _blind(sample)
        if blind is not None:
            value["spo_context"] = keep if context_pairs(user, blind) else math.nan
            differing = kendall_context_pairs(user, blind)
            ranks = rank_map(user)
            strict_differing = sum(1 for x, y in differing if ranks[x] != ranks[y])
            value["kendall_context"] = (
                (strict_differing * per_strict + (len(differing) - strict_differing) * per_tied)
                / len(differing)
                if differing
                else math.nan
            )
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
    contexts: Iterable[str] | None = None,
) -> list[ReferenceRow]:
    """Every reference row for one dataset and run setting.

    Args:
        data: data folder or earlier shipped version (default: the shipped data).
        n: seeded object subset, as `-T n`.
        seed: `-T seed` of the runs to compare with.
        p: K(p) penalty.
        designs: (method, template) pairs to simulate the chance model for (default: every
            design with its default template).
        score_low: lowest pointwise score.
        score_high: highest pointwise score.
        validity: `-T validity` of the runs to compare with.
        chance_seed: `-M seed` of `heedbench/random`.
        contexts: the context ids the runs scored (default: all).
    """
    everyone = list(choice_dataset(data, n=n, seed=seed))
    samples = select_contexts(everyone, contexts)
    rows = data_rows(samples, p) + context_blind_rows(samples, p, pool=everyone)
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
        "| reference | design | template | how | SPO | SPO on context pairs | K(p) "
        "| K(p)/pairs | K(p)/pair on context pairs | valid | sets | queries / context |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row.label} | {row.method or '—'} | {row.template or '—'} | {row.how} "
            f"| {_fmt(row.mean('spo'), 3)} | {_fmt(row.mean('spo_context'), 3)} "
            f"| {_fmt(row.mean('kendall'), 1)} | {_fmt(row.mean('kendall_norm'), 3)} "
            f"| {_fmt(row.mean('kendall_context'), 3)} | {row.valid}/{row.contexts} "
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
    parser.add_argument(
        "--contexts", help="comma-separated context ids the runs scored, as --sample-id"
    )
    args = parser.parse_args(argv)
    contexts = args.contexts.split(",") if args.contexts else None
    samples = choice_dataset(args.data, n=args.n, seed=args.seed)
    try:
        chosen = select_contexts(list(samples), contexts)
    except ValueError as error:
        parser.error(str(error))
    rows = reference_rows(
        args.data,
        n=args.n,
        seed=args.seed,
        p=args.p,
        validity="strict" if args.validity == "strict" else "lenient",
        chance_seed=args.chance_seed,
        contexts=contexts,
    )
    strict = [len(strict_pairs(order)) for order in _orders(chosen)]
    print(f"{len(strict)} contexts, {statistics.fmean(strict):.1f} strict pairs on average\n")
    print(markdown_table(rows))


if __name__ == "__main__":
    main()
