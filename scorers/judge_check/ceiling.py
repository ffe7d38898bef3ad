"""Labeller–labeller agreement: the ceiling a grader's agreement with the gold is compared with.

Two people labelling the same cases blind do not agree perfectly; a grader that agrees with the
gold as well as a second labeller does is as good as the gold lets anyone show. Each pair of
labellings of a file (`labels/`) gets a grader's statistics (`summary.py`), the first one in
the place of the gold; a single extra labelling is compared with the adjudicated gold, which
flatters the agreement (the adjudication saw both).
"""

import itertools
from dataclasses import dataclass, field
from pathlib import Path

from inspect_ai.dataset import Sample

from heedbench.evals.judge_check.labels import gold_labels, load_labellings
from heedbench.scorers.judge_check.bootstrap import N_RESAMPLES, SEED
from heedbench.scorers.judge_check.cases import Case, Unit
from heedbench.scorers.judge_check.summary import Summary, by_category, summarise

ADJUDICATED = "adjudicated gold"


@dataclass(frozen=True)
class Agreement:
    """How far two labellings of one file agree, overall and per category."""

    stem: str
    first: str
    second: str
    cases: int
    summary: Summary
    categories: dict[tuple[str, str], Summary] = field(default_factory=dict)


def _case(sample: Sample, first: dict[str, int], second: dict[str, int]) -> Case:
    metadata = sample.metadata or {}
    return Case(
        part=str(metadata["part"]),
        record=str(sample.id),
        category=str(metadata.get("category") or "—"),
        adversarial=bool(metadata.get("adversarial")),
        push=metadata.get("push"),
        twin=metadata.get("twin"),
        units=tuple(Unit(key, first[key], (second[key],)) for key in first),
    )


def labeller_agreement(
    folder: str | Path, *, seed: int = SEED, n_resamples: int = N_RESAMPLES
) -> list[Agreement]:
    """Every pair of labellings of every file under `folder` (empty without `labels/`)."""
    found = []
    for stem, (cases, labellings) in load_labellings(folder).items():
        sets = {labelling.labeller: labelling.labels for labelling in labellings}
        if len(sets) == 1:
            sets = {ADJUDICATED: {i: gold_labels(s) for i, s in cases.items()}} | sets
        for first, second in itertools.combinations(sets, 2):
            shared = sorted(set(sets[first]) & set(sets[second]))
            judged = [_case(cases[i], sets[first][i], sets[second][i]) for i in shared]
            found.append(
                Agreement(
                    stem,
                    first,
                    second,
                    len(judged),
                    summarise(judged, seed=seed, n_resamples=n_resamples),
                    by_category(judged, seed=seed, n_resamples=n_resamples),
                )
            )
    return found
