"""`heedbench/prefdisco`: does a model discover a new user's preferences by asking?"""

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast, get_args

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import HeadlineMetric
from inspect_ai.viewer import (
    ScoreColorScale,
    TaskSamplesColumn,
    TaskSamplesView,
    ViewerConfig,
)

from heedbench import params
from heedbench.evals.prefdisco.dataset import (
    DEFAULT_SEED,
    FIVE_K_SOURCES,
    LoadReport,
    PrefDiscoDataError,
    PrefDiscoRecord,
    Variant,
    check_strict,
    draw_records,
    load_reports,
    record_index,
    release_path,
)
from heedbench.evals.prefdisco.sources import SOURCES
from heedbench.paths import shipped_data_dir
from heedbench.roles import check_roles_at_build
from heedbench.scorers.judge import CHANNELS, DEFAULT_CHANNEL
from heedbench.scorers.prefdisco.correctness import CorrectnessMode
from heedbench.scorers.prefdisco.judge import JudgeMode
from heedbench.scorers.prefdisco.scorer import prefdisco_scorer
from heedbench.solvers.prefdisco.prompts import TASK_REQUEST, UserType
from heedbench.solvers.prefdisco.settings import CHOICES, Protocol, evaluated_config, resolve
from heedbench.solvers.prefdisco.solver import prefdisco_solver

CONDITIONS = ("baseline", "discovery", "oracle")
MAX_FIXED_QUESTIONS = 20
MAX_TURNS = 50
SCORER = "prefdisco"
NORMALIZED_ALIGNMENT = HeadlineMetric(scorer=SCORER, score=SCORER, metric="normalized_alignment")
"""The paper's headline: normalized alignment, 0 = no better than baseline, 100 = oracle."""
SCORE_LABELS = {
    "prefalign": "PrefAlign (1-5) ↑",
    "correct": "correct ↑",
    "questions": "questions asked",
}
SCORE_COLOURS: dict[str, ScoreColorScale] = {
    "prefalign": ScoreColorScale(palette="good-high", min=1.0, max=5.0),
    "correct": ScoreColorScale(palette="good-high", min=0.0, max=1.0),
    "questions": ScoreColorScale(palette="neutral", min=0.0),
}


def viewer(conditions: Sequence[str]) -> ViewerConfig:
    """The sample list: a row per sample (condition first in its id) with the keys it holds.

    `questions` is a key, and a column, only in a run with discovery (the others never ask).
    """
    keys = ["prefalign", "correct"] + (["questions"] if "discovery" in conditions else [])
    return ViewerConfig(
        task_samples_view=TaskSamplesView(
            name="samples",
            columns=[
                TaskSamplesColumn(id="sampleId"),
                *(TaskSamplesColumn.score(SCORER, key) for key in keys),
            ],
            score_labels={key: SCORE_LABELS[key] for key in keys},
            score_color_scales={key: SCORE_COLOURS[key] for key in keys},
        )
    )


def headline(conditions: Sequence[str]) -> HeadlineMetric:
    """Normalized alignment for a run of all three conditions, else the mean PrefAlign."""
    if all(c in conditions for c in CONDITIONS):
        return NORMALIZED_ALIGNMENT
    return HeadlineMetric(scorer=SCORER, score="prefalign", metric="mean")


def resolve_conditions(condition: str) -> tuple[str, ...]:
    """The conditions a run covers: one, or all three on the same records."""
    params.one_of("condition", condition, (*CONDITIONS, "all"))
    return CONDITIONS if condition == "all" else (condition,)


def resolve_sources(source: str, variant: str, data: str | None) -> tuple[str, ...]:
    """`all` → every source present where the data lives (shipped sample, folder or hub)."""
    if source != "all":
        params.one_of("source", source, (*SOURCES, "all"))
        return (source,)
    candidates = FIVE_K_SOURCES if variant == "5k" else SOURCES
    if data == "hub":
        return candidates
    if data is not None and not Path(data).is_dir():
        raise ValueError("source=all needs a release-layout folder, the shipped sample or hub")
    root = shipped_data_dir("prefdisco") if data is None else Path(data)
    present = tuple(s for s in candidates if (root / release_path(s, variant)).is_file())  # type: ignore[arg-type]
    if not present:
        raise PrefDiscoDataError(f"no {variant} source files under {root}")
    return present


def select_records(
    records: Iterable[PrefDiscoRecord],
    reports: Mapping[str, LoadReport],
    max_problems: int | None,
    seed: int,
) -> list[PrefDiscoRecord]:
    """Every loaded record, or per source the reference's seeded draw of `max_problems`."""
    by_source: dict[str, list[PrefDiscoRecord]] = {}
    for record in records:
        by_source.setdefault(record.source, []).append(record)
    if max_problems is None:
        return [record for group in by_source.values() for record in group]
    return [
        record
        for source, group in by_source.items()
        for record in draw_records(group, reports[source].records, max_problems, seed)
    ]


def samples(
    records: Sequence[PrefDiscoRecord],
    conditions: Sequence[str],
    user_type: str,
    prefix_source: bool,
    load: Mapping[str, Any] | None = None,
) -> list[Sample]:
    """One sample per record × condition, record-major so `--limit 3k` keeps whole triples.

    Ids lead with the condition (`discovery/problem_0_lee_1a2b3c4d`, with `source=all`
    `discovery/math/problem_0_...`) so that the viewer's sample list, which cuts long ids at
    its right edge, still shows which condition a row is. `load` (variant, data, revision)
    goes into each sample's metadata, so that a scorer made from a log with no arguments
    finds the sample's record.
    """
    located = {k: v for k, v in (load or {}).items() if k in ("variant", "data", "revision")}
    out = []
    for record in records:
        persona_id = str(record.persona.get("id") or record.problem_id)
        for condition in conditions:
            stem = f"{record.source}/{record.problem_id}" if prefix_source else record.problem_id
            out.append(
                Sample(
                    id=f"{condition}/{stem}",
                    input=TASK_REQUEST.format(task=record.problem.task_text()),
                    target=record.problem.answer or "",
                    metadata={
                        "problem_id": record.problem_id,
                        "source": record.source,
                        "condition": condition,
                        "persona_id": persona_id,
                        "user_type": user_type,
                        "answer_kind": record.problem.kind,
                        **located,
                    },
                )
            )
    return out


@task
def prefdisco(
    *,
    condition: str = "all",
    protocol: str = "paper",
    source: str = "math",
    variant: str = "1k",
    data: str | None = None,
    revision: str | None = None,
    max_turns: int = 5,
    user_type: str = "passive",
    fixed_questions: int | None = None,
    judge: str = "per_criterion",
    correctness: str = "deterministic",
    strict: bool = False,
    max_problems: int | None = None,
    seed: int | None = None,
    allow_self_roles: bool = False,
    verdict: str = DEFAULT_CHANNEL,
    grader_prompt: str | None = None,
    user_format: str | None = None,
    sampling: str | None = None,
    **unknown: Any,
) -> Task:
    """PrefDisco: proactive preference discovery, judged by PrefAlign and correctness.

    Args:
        condition: baseline (task alone), discovery (may ask the simulated user first),
            oracle (profile given up front) or all (the three on the same records, which gives
            normalized alignment).
        protocol: paper (default: the PrefDisco reference evaluator's protocol — the oracle
            and the final request say the answer is judged on how well it fits the user's
            preferences; discovery starts by asking one or two questions per turn, is not told
            its budget, and the final answer is always requested after the loop; fixed-k runs
            exactly k question turns; the reference's grader prompt, JSON user and settings:
            the evaluated model at temperature 0.7, top-p 0.9 and 8,192 tokens unless the
            command line says otherwise, the user and grader at top-p 0.95 with 4,096 tokens,
            see grader_prompt, user_format, sampling) or budgeted
            (heedbench's earlier protocol: the model may ask up to max_turns questions, one per
            message, is told the budget, and an answer it gives by itself is judged).
        source: one of math, aime, medqa, commonsenseqa, socialiqa, logiqa, simpleqa, mascqa,
            scienceqa, mmlu, or all (every source present in the data).
        variant: 1k or 5k (the public release's two sizes; 5k covers aime, commonsenseqa,
            medqa, socialiqa).
        data: unset for the shipped offline sample; a JSONL file or a release-layout folder;
            or "hub" for stellalisy/prefq-bench (needs revision).
        revision: hub commit to pin (required with data=hub).
        max_turns: discovery turns before the answer is requested (paper: model messages,
            questions or an answer; budgeted: questions).
        user_type: passive (minimal answers, a preference only when asked about it),
            passive_stop (the same, but may end the questions with a stop signal; paper only)
            or collaborative (volunteers context; under paper it may also ask follow-ups and
            end the questions with a stop signal).
        fixed_questions: make the model ask exactly this many times (the paper uses 2, 4, 8);
            overrides max_turns.
        judge: PrefAlign grading: per_criterion (default: one grader call per criterion, as in
            the paper) or batched (all criteria in one grader call, about 20 times fewer calls
            on the release).
        correctness: deterministic (default: the answer is read without a grader where the
            response commits to one answer unambiguously, graded otherwise) or grader (the
            grader judges every answer, as the reference evaluator does).
        strict: stop at the first record that cannot be run (no problem text, no rubric, no
            options or gold answer, ...) instead of skipping it; repairs the reference also
            makes (weights normalised, a missing weight as 1/n, levels other than 1/3/5) are
            applied either way and counted in the task metadata (`load_repairs`).
        max_problems: run a seeded random subset of this many records per source, drawn as
            the reference evaluator draws it (`random.sample` over the file's records); unset
            runs every record. Records, not distinct problems: the release's problem ids are
            `problem_{i}_{persona_id}`, one per persona variant.
        seed: the draw's seed (needs max_problems; default 42, the reference's).
        allow_self_roles: let the evaluated model play an unbound user/grader role itself.
        verdict: how the grader gives each verdict: schema (a strict response schema; default),
            tool (a forced submit_verdict tool call, for servers with tools but no schemas) or
            text (a reply that is exactly one JSON object, for models with neither).
        grader_prompt: the PrefAlign grader's prompt: paper (the reference's: a system message
            asking for valid JSON, its instruction list, the score before the justification)
            or anchored (heedbench's earlier prompt: justification first, with scale anchors).
            Unset: paper under protocol=paper, anchored under budgeted.
        user_format: the simulated user's reply: json (the reference's {thought, response},
            only the response reaching the assistant) or text (a plain reply). Unset: json
            under protocol=paper, text under budgeted.
        sampling: paper (the reference's top-p and token limits: the evaluated model top-p
            0.9 with 8,192 tokens, the user and grader top-p 0.95 with 4,096 tokens) or
            provider (top-p and the model's token limit left to the provider, the user at 512
            tokens). Unset: paper under protocol=paper, provider under budgeted.
        **unknown: refused: a parameter the task does not have is an error.
    """
    params.reject_unknown("prefdisco", unknown, prefdisco)
    conditions = resolve_conditions(condition)
    params.one_of("protocol", protocol, get_args(Protocol))
    params.one_of("variant", variant, get_args(Variant))
    params.one_of("user_type", user_type, get_args(UserType))
    if protocol == "budgeted" and user_type == "passive_stop":
        raise params.ParameterError(
            f"-T user_type={user_type}: a user who can stop the questions needs -T protocol=paper"
        )
    params.one_of("judge", judge, get_args(JudgeMode))
    params.one_of("correctness", correctness, get_args(CorrectnessMode))
    chosen = {"grader_prompt": grader_prompt, "user_format": user_format, "sampling": sampling}
    for name, value in chosen.items():
        if value is not None:
            params.one_of(name, value, CHOICES[name])
    switches = resolve(cast(Protocol, protocol), **chosen)
    max_turns = params.integer("max_turns", max_turns, low=1, high=MAX_TURNS)
    fixed_questions = params.optional_integer(
        "fixed_questions", fixed_questions, low=1, high=MAX_FIXED_QUESTIONS
    )
    allow_self_roles = params.flag("allow_self_roles", allow_self_roles)
    channel = params.one_of("verdict", verdict, CHANNELS)
    strict = params.flag("strict", strict)
    max_problems = params.optional_integer("max_problems", max_problems, low=1)
    seed = params.optional_integer("seed", seed, low=0)
    if seed is not None and max_problems is None:
        raise params.ParameterError(
            "-T seed: seeds the draw of -T max_problems, so it needs -T max_problems=<n>"
        )
    data = params.optional_text("data", data)
    revision = params.optional_text("revision", revision)
    if data == "hub" and not revision:
        raise params.ParameterError("-T data=hub needs a pinned revision: -T revision=<commit sha>")
    if revision is not None and data != "hub":
        raise params.ParameterError("-T revision: pins the hub release, so it needs -T data=hub")
    roles = ("user", "grader") if "discovery" in conditions else ("grader",)
    check_roles_at_build(roles, allow_self_roles, task="prefdisco")
    sources = resolve_sources(source, variant, data)
    load = {"sources": list(sources), "variant": variant, "data": data, "revision": revision}
    reports = load_reports(**load)  # type: ignore[arg-type]
    if strict:
        check_strict(reports)
    draw_seed = DEFAULT_SEED if seed is None else seed
    index = record_index(**load)  # type: ignore[arg-type]
    records = select_records(index.values(), reports, max_problems, draw_seed)
    dataset = MemoryDataset(
        samples(records, conditions, user_type, prefix_source=len(sources) > 1, load=load),
        name=f"prefdisco-{source}-{variant}",
    )
    return Task(
        dataset=dataset,
        solver=prefdisco_solver(
            **load,  # type: ignore[arg-type]
            roles=roles,
            protocol=cast(Protocol, protocol),
            max_turns=max_turns,
            user_type=user_type,
            fixed_questions=fixed_questions,
            allow_self_roles=allow_self_roles,
            switches=switches,
        ),
        scorer=prefdisco_scorer(
            **load,  # type: ignore[arg-type]
            judge_mode=cast(JudgeMode, judge),
            correctness_mode=cast(CorrectnessMode, correctness),
            allow_self_roles=allow_self_roles,
            verdict=channel,
            protocol=cast(Protocol, protocol),
            grader_prompt=switches.grader_prompt,
            sampling=switches.sampling,
            conditions=conditions,
        ),
        config=evaluated_config(cast(Protocol, protocol), switches.sampling),
        version="3.0.0",
        headline_metric=headline(conditions),
        viewer=viewer(conditions),
        metadata={
            "family": "prefdisco",
            "dataset_ids": [sample.id for sample in dataset],
            "conditions": list(conditions),
            "protocol": protocol,
            **switches.record(),
            "sources": list(sources),
            "variant": variant,
            "user_type": user_type,
            "max_turns": max_turns,
            "fixed_questions": fixed_questions,
            "judge": judge,
            "correctness": correctness,
            "verdict": channel,
            "strict": strict,
            "max_problems": max_problems,
            "seed": draw_seed if max_problems is not None else None,
            "records": {s: sum(r.source == s for r in records) for s in sources},
            "load_repairs": {s: report.summary() for s, report in reports.items()},
        },
    )
