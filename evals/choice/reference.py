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
- choosers that read one factor of the context (its `factors`: destination, precipitation,
  companion, ...), all weather factors at once, or every factor additively, from the other
  contexts' orders (a split such as `contrast` learns from the default data instead): what
  reading that much of the context earns. On data with twins each row also carries
  `contrast` per factor;
- the chance model `heedbench/random` per design: its answers are a pure function of its
  seed and the prompt, so they are simulated offline with the solver's own designs, prompts,
  parsers and presentation order, giving exactly what `inspect eval ... --model
  heedbench/random` scores; where the expectation over the chance model's randomness has a
  closed form (pointwise, listwise, pairwise_test) it is given as well. A simulation is
  cached on disk (`HEEDBENCH_CACHE_DIR`, default the user cache folder), keyed by the
  contexts, the settings and the simulating code, so `heedbench report` runs it once; so
  are the exact rows above, which cost about as much.

Rows are computed on the contexts and objects a run used: `--n` and `--seed` select the same
object subset as `-T n` and `-T seed`, `--contexts` the same contexts as `--sample-id`.

Usage: python -m heedbench.evals.choice.reference [--n N] [--contexts ID,...] [--data DIR]
"""

import argparse
import asyncio
import contextlib
import hashlib
import json
import math
import os
import statistics
import sys
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

from inspect_ai.dataset import Sample
from inspect_ai.model import get_model
from inspect_ai.util import Store

from heedbench.evals.choice.dataset import choice_dataset, pool_of, resolve_data_dir
from heedbench.evals.choice.task import DEFAULT_TEMPLATE, resolve_template
from heedbench.markdown import table
from heedbench.models.chance import chance_reply
from heedbench.paths import cache_dir
from heedbench.preference import StrictPair, WeakOrder, rank_map, restrict, strict_pairs
from heedbench.scorers.choice.context_blind import (
    BLIND_ORDER,
    Pooled,
    additive_order,
    cut_to_sizes,
    factor_order,
    global_order,
)
from heedbench.scorers.choice.metrics import context_pairs, kendall_context_pairs, twin_contrasts
from heedbench.scorers.choice.scorer import alignment_values
from heedbench.solvers.choice.methods import method_runner
from heedbench.solvers.choice.prompts import TEMPLATES
from heedbench.solvers.choice.query import ChoiceQuerier
from heedbench.solvers.choice.relation import Validity
from heedbench.solvers.choice.solver import ChoiceRun, play

RowKind = Literal[
    "reversed",
    "indifferent",
    "blind_loco",
    "blind_cut",
    "blind_global",
    "factor",
    "additive",
    "chance",
    "chance_expected",
]
CHANCE_MODEL = "heedbench/random"
EXACT_EXPECTATION = ("pointwise", "listwise", "pairwise_test")
"""Designs whose expected score under uniformly random answers has a closed form."""
WEATHER = ("temperature", "precipitation", "sky")
"""The factors a weather forecast gives: read together by the `weather` chooser."""
SIMULATING = (
    "heedbench.models.chance",
    "heedbench.scorers.choice.scorer",
    "heedbench.scorers.choice.metrics",
    "heedbench.scorers.choice.context_blind",
    "heedbench.preference",
    *(f"heedbench.solvers.choice.{m}" for m in ("prompts", "methods", "relation", "sort", "parse")),
)
"""The modules whose code the cached rows run: a cached row is keyed by them."""
Relation = Collection[StrictPair] | None


@dataclass(frozen=True)
class ReferenceRow:
    """One reference chooser on one dataset: per-context score values, as the scorer writes."""

    kind: RowKind
    label: str
    how: str
    method: str = ""
    template: str = ""
    values: tuple[dict[str, float], ...] = field(default_factory=tuple)
    contrast: dict[str, tuple[float, ...]] = field(default_factory=dict)
    """Per factor, the `contrast` of each twin pair (data with twins only)."""

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


def _contrast(
    samples: Sequence[Sample], chosen: Sequence[Relation]
) -> dict[str, tuple[float, ...]]:
    contexts = {
        str(sample.id): (
            (sample.metadata or {})["user_order"],
            relation,
            (sample.metadata or {}).get("twins") or {},
        )
        for sample, relation in zip(samples, chosen, strict=True)
    }
    return {factor: tuple(values) for factor, values in twin_contrasts(contexts).items()}


def reversed_order(order: Sequence[Sequence[str]]) -> WeakOrder:
    """The weak order with its sets in the opposite order: x ≿ y becomes y ≿ x."""
    return [list(level) for level in reversed(order)]


def all_indifferent(order: Sequence[Sequence[str]]) -> WeakOrder:
    """One set holding every object: the chooser that calls everything equally good."""
    return [[obj for level in order for obj in level]]


def _orders(samples: Iterable[Sample]) -> list[WeakOrder]:
    return [(sample.metadata or {})["user_order"] for sample in samples]


def _blind(sample: Sample) -> WeakOrder | None:
    assert sample.metadata is not None
    found: WeakOrder | None = sample.metadata.get(BLIND_ORDER)
    return found


def _exact(
    user: WeakOrder, chosen: WeakOrder, blind: WeakOrder | None, p: float
) -> dict[str, float]:
    return alignment_values(user, ChoiceRun(store=Store(), chosen=chosen, valid=True), p=p,
                            blind=blind)[0]  # fmt: skip


def _exact_row(
    kind: RowKind, label: str, how: str, *, samples: list[Sample], chosen: list[WeakOrder], p: float
) -> ReferenceRow:
    """A row of weak orders chosen without asking any model, one per sample."""
    values = tuple(
        _exact(user, order, _blind(sample), p)
        for sample, user, order in zip(samples, _orders(samples), chosen, strict=True)
    )
    relations = [strict_pairs(order) for order in chosen]
    return ReferenceRow(kind, label, how, values=values, contrast=_contrast(samples, relations))


def data_rows(samples: Iterable[Sample], p: float = 0.5) -> list[ReferenceRow]:
    """The reversed user order and the all-indifferent chooser, per context."""
    chosen = list(samples)
    fixed: list[tuple[RowKind, str, Callable[[WeakOrder], WeakOrder]]] = [
        ("reversed", "user order reversed", reversed_order),
        ("indifferent", "everything indifferent (one set)", all_indifferent),
    ]
    return [
        _exact_row(
            kind, label, "exact", samples=chosen, chosen=list(map(build, _orders(chosen))), p=p
        )
        for kind, label, build in fixed
    ]


def _pooled(sample: Sample) -> Pooled:
    metadata = sample.metadata or {}
    return metadata.get("factors") or {}, metadata["user_order"]


def readings(factors: Collection[str]) -> list[tuple[str, tuple[str, ...]]]:
    """The factor choosers to show for data with these factors.

    Each factor alone, then the weather factors together (where the data has them all).
    """
    found: list[tuple[str, tuple[str, ...]]] = [(factor, (factor,)) for factor in factors]
    if all(factor in factors for factor in WEATHER):
        found.append(("weather", WEATHER))
    return found


def context_blind_rows(
    samples: Iterable[Sample],
    p: float = 0.5,
    *,
    pool: Iterable[Sample] | None = None,
    fixed_pool: Sequence[Pooled] | None = None,
) -> list[ReferenceRow]:
    """Choosers that read none or part of the scored context, per context of `samples`.

    The leave-one-context-out order is each sample's `context_blind_order` (built by the
    dataset); the cut row forces it into the user's set sizes (ties broken in object-file
    order); the global row ranks by the mean level over every context of `pool` (default:
    `samples`), the scored one included. The factor rows (`readings`) and the additive row
    learn from the other contexts of `pool`, or from `fixed_pool` (the default data of a
    split), and are left out when the data records no factors. Contexts without a blind
    order (data with a single context) are left out.
    """
    chosen = [sample for sample in samples if _blind(sample) is not None]
    everyone = list(pool) if pool is not None else chosen
    if not chosen or not everyone:
        return []
    objects: list[str] = list((chosen[0].metadata or {})["objects"])
    blind = [_blind(sample) or [] for sample in chosen]
    cut = [
        cut_to_sizes(b, [len(set_) for set_ in u])
        for b, u in zip(blind, _orders(chosen), strict=True)
    ]
    overall = [global_order(_orders(everyone), objects)] * len(chosen)
    found: list[tuple[RowKind, str, list[WeakOrder]]] = [
        ("blind_loco", "mean level in the other contexts (ties indifferent)", blind),
        ("blind_cut", "the same, cut to the user's set sizes", cut),
        ("blind_global", "one global order (mean level in all contexts)", overall),
    ]
    rows = [
        _exact_row(kind, label, "exact, context-blind", samples=chosen, chosen=orders, p=p)
        for kind, label, orders in found
    ]
    factors = list((chosen[0].metadata or {}).get("factors") or {})
    if not factors:
        return rows

    def pool_for(sample: Sample) -> list[Pooled]:
        if fixed_pool is not None:
            return [(f, restrict(order, objects)) for f, order in fixed_pool]
        return [_pooled(other) for other in everyone if other.id != sample.id]

    pools = [(pool_for(sample), _pooled(sample)[0]) for sample in chosen]
    for name, read in readings(factors):
        what = name if len(read) == 1 else f"{name} ({', '.join(read)})"
        orders = [factor_order(pool, target, objects, read) for pool, target in pools]
        rows.append(_exact_row("factor", f"reads only the {what}", "exact, factors",
                               samples=chosen, chosen=orders, p=p))  # fmt: skip
    orders = [additive_order(pool, target, objects, factors) for pool, target in pools]
    label = "every factor, shifts added"
    rows.append(_exact_row("additive", label, "exact, factors", samples=chosen, chosen=orders, p=p))
    return rows


def split_pool(data: str | Path | None) -> list[Pooled] | None:
    """The default data a split's choosers learn from; None for data that is its own pool."""
    pool = pool_of(resolve_data_dir(data))
    return None if pool is None else [(context.factors, context.order) for context in pool]


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


@dataclass
class _SimulatedChanceQuerier(ChoiceQuerier):
    """Builds each prompt as the querier does and answers it as `heedbench/random` would."""

    chance_seed: int = 0

    async def reply(self, system: str, user: str) -> str:
        return chance_reply(f"{system}\n{user}", self.chance_seed)


async def _simulate(
    samples: list[Sample], *, method: str, template: str, seed: int, score_low: int,
    score_high: int, p: float, validity: Validity, chance_seed: int,
) -> tuple[list[dict[str, float]], list[Relation]]:  # fmt: skip
    runner = method_runner(method, validity)
    # never called (the querier answers itself): the chance baseline simulated offline for the
    # report's reference rows, outside any task
    model = get_model(CHANCE_MODEL)  # inspect-evals-lint: ignore[IEBP001] -- offline, no task
    values, relations = [], list[Relation]()
    for sample in samples:
        assert sample.metadata is not None and sample.id is not None
        context = sample.metadata["context"]
        querier = _SimulatedChanceQuerier(model, TEMPLATES[template], context, score_low,
                                          score_high, chance_seed=chance_seed)  # fmt: skip
        _, result = await play(runner, querier, sample.metadata, seed, sample.id)
        run = ChoiceRun(store=Store())
        run.record(result, querier)
        value, _ = alignment_values(sample.metadata["user_order"], run, p=p,
                                    blind=sample.metadata.get(BLIND_ORDER))  # fmt: skip
        values.append(value)
        chosen = result.strict if result.chosen is None else strict_pairs(result.chosen)
        relations.append(chosen if result.valid else None)
    return values, relations


@cache
def _code_digest() -> str:
    """A digest of the code a chance simulation runs, so a cached one is never stale."""
    digest = hashlib.sha256()
    for name in (*SIMULATING, __name__):
        digest.update(Path(str(sys.modules[name].__file__)).read_bytes())
    return digest.hexdigest()


def _cached(
    kind: str, key: dict[str, Any], samples: list[Sample], compute: Callable[[], list[ReferenceRow]]
) -> list[ReferenceRow]:
    """Rows from the cache, or computed and cached: keyed by `kind`, `key`, the contexts and code.

    The exact rows take about as long per report as a simulation, so both are kept.
    """
    keys = ("context", "objects", "user_order", BLIND_ORDER, "twins", "factors")
    described = [[str(s.id), {k: (s.metadata or {}).get(k) for k in keys}] for s in samples]
    text = json.dumps([key, described, _code_digest()], sort_keys=True, default=str)
    path = cache_dir() / f"{kind}-{hashlib.sha256(text.encode()).hexdigest()[:32]}.json"
    with contextlib.suppress(OSError, ValueError, TypeError):
        return [
            ReferenceRow(**row | {"values": tuple(row["values"]),
                                  "contrast": {f: tuple(v) for f, v in row["contrast"].items()}})
            for row in json.loads(path.read_text(encoding="utf-8"))
        ]  # fmt: skip
    rows = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.part")
        partial.write_text(json.dumps([asdict(row) for row in rows]), encoding="utf-8")
        partial.replace(path)  # whole or not at all, for concurrent reports
    except OSError:
        pass  # a read-only cache only costs the next call the computation
    return rows


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
    seed)` and `-T seed`): the presentation order and the prompts follow from them. The
    simulation is cached (see `heedbench.paths.cache_dir`).
    """
    settings: dict[str, Any] = {
        "method": method, "template": resolve_template(method, template), "seed": seed,
        "score_low": score_low, "score_high": score_high, "p": p, "validity": validity,
        "chance_seed": chance_seed,
    }  # fmt: skip
    chosen = list(samples)

    def simulate() -> list[ReferenceRow]:
        values, relations = asyncio.run(_simulate(chosen, **settings))
        label = f"chance ({CHANCE_MODEL}, -M seed={chance_seed})"
        return [ReferenceRow("chance", label, "simulated", method, settings["template"],
                             tuple(values), _contrast(chosen, relations))]  # fmt: skip

    (row,) = _cached("chance", settings, chosen, simulate)
    return row


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


def rows_on(
    samples: list[Sample],
    everyone: list[Sample],
    *,
    data: str | Path | None = None,
    designs: Iterable[tuple[str, str | None]] | None = None,
    seed: int = 0,
    p: float = 0.5,
    score_low: int = 1,
    score_high: int = 5,
    validity: Validity = "lenient",
    chance_seed: int = 0,
) -> list[ReferenceRow]:
    """Every reference row on `samples`, the scored contexts of `everyone` (a data's contexts).

    Args:
        samples: the contexts the runs scored.
        everyone: every context of the data (the pool the choosers learn from).
        data: the data's folder or shipped name (a split's choosers learn from the default data).
        designs: (method, template) pairs to simulate the chance model for (default: every
            design with its default template).
        seed: `-T seed` of the runs to compare with.
        p: K(p) penalty.
        score_low: lowest pointwise score.
        score_high: highest pointwise score.
        validity: `-T validity` of the runs to compare with.
        chance_seed: `-M seed` of `heedbench/random`.
    """
    fixed_pool = split_pool(data)
    pool = [[str(s.id), (s.metadata or {}).get("factors"), _orders([s])] for s in everyone]
    rows = _cached(
        "exact",
        {"p": p, "pool": pool, "fixed_pool": fixed_pool},
        samples,
        lambda: (
            data_rows(samples, p)
            + context_blind_rows(samples, p, pool=everyone, fixed_pool=fixed_pool)
        ),
    )
    scale: dict[str, Any] = {"score_low": score_low, "score_high": score_high, "p": p}
    for method, template in designs if designs is not None else DEFAULT_TEMPLATE.items():
        chance = chance_row(samples, method, template, seed=seed, validity=validity,
                            chance_seed=chance_seed, **scale)  # fmt: skip
        expected = expected_chance_row(samples, method, template, **scale)
        rows += [chance] if expected is None else [chance, expected]
    return rows


def reference_rows(
    data: str | Path | None = None,
    *,
    n: int | None = None,
    seed: int = 0,
    contexts: Iterable[str] | None = None,
    **settings: Any,
) -> list[ReferenceRow]:
    """Every reference row for one dataset and run setting (`rows_on` names the settings).

    `n` and `seed` select the object subset as `-T n` and `-T seed`, `contexts` the context
    ids the runs scored (default: all).
    """
    everyone = list(choice_dataset(data, n=n, seed=seed))
    samples = select_contexts(everyone, contexts)
    return rows_on(samples, everyone, data=data, seed=seed, **settings)


def _fmt(value: float, digits: int) -> str:
    return "—" if math.isnan(value) else f"{value:.{digits}f}"


def markdown_table(rows: Sequence[ReferenceRow]) -> str:
    """The rows as a Markdown table (means over valid contexts)."""
    header = [
        "reference",
        "design",
        "template",
        "how",
        "SPO on context pairs",
        "SPO",
        "K(p)",
        "K(p)/pairs",
        "K(p)/pair on context pairs",
        "valid",
        "sets",
        "queries / context",
    ]
    means = (
        ("spo_context", 3),
        ("spo", 3),
        ("kendall", 1),
        ("kendall_norm", 3),
        ("kendall_context", 3),
    )
    return "\n".join(table(header, [
        (row.label, row.method or "—", row.template or "—", row.how,
         *(_fmt(row.mean(key), digits) for key, digits in means), f"{row.valid}/{row.contexts}",
         _fmt(row.mean("indifference_sets"), 2), _fmt(row.mean("queries"), 0))
        for row in rows
    ]))  # fmt: skip


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
    with contextlib.redirect_stdout(sys.stderr):  # Inspect's start-up banner: not a row
        rows = reference_rows(args.data, n=args.n, seed=args.seed, p=args.p,
                              validity=args.validity, chance_seed=args.chance_seed,
                              contexts=contexts)  # fmt: skip
    strict = [len(strict_pairs(order)) for order in _orders(chosen)]
    print(f"{len(strict)} contexts, {statistics.fmean(strict):.1f} strict pairs on average\n")
    print(markdown_table(rows))


if __name__ == "__main__":
    main()
