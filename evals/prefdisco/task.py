"""`heedbench/prefdisco`: does a model discover a new user's preferences by asking?"""

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, get_args

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import HeadlineMetric
from inspect_ai.viewer import ScoreColorScale, TaskSamplesColumn, TaskSamplesView, ViewerConfig

from heedbench import params
from heedbench.evals.prefdisco.dataset import (
    DEFAULT_SEED,
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
from heedbench.scorers.judge import CHANNELS, DEFAULT_CHANNEL, VerdictChannel
from heedbench.scorers.prefdisco.judge import JudgeMode
from heedbench.scorers.prefdisco.scorer import prefdisco_scorer
from heedbench.solvers.prefdisco.prompts import STOCK_QUESTIONS, TASK_REQUESTS, UserType
from heedbench.solvers.prefdisco.settings import (
    CHOICES,
    CorrectnessMode,
    GraderPrompt,
    Markers,
    Protocol,
    Reasoning,
    Role,
    Sampling,
    UserFormat,
    resolve,
    role_config,
)
from heedbench.solvers.prefdisco.solver import Questions, prefdisco_solver

Condition = Literal["baseline", "discovery", "oracle"]
CONDITIONS: tuple[Condition, ...] = get_args(Condition)
MAX_FIXED_QUESTIONS = 20
MAX_TURNS = 50
SCORER = "prefdisco"
NORMALIZED_ALIGNMENT = HeadlineMetric(scorer=SCORER, score=SCORER, metric="normalized_alignment")
"""The paper's headline: normalized alignment, 0 = no better than baseline, 100 = oracle."""
SCORE_LABELS = {"prefalign": "PrefAlign (1-5) ↑", "correct": "correct ↑",
                "questions": "questions asked"}  # fmt: skip
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


def resolve_sources(source: str, variant: Variant, data: str | None) -> tuple[str, ...]:
    """`all` → every source present where the data lives (shipped sample, folder or hub)."""
    if source != "all":
        return (params.one_of("source", source, (*SOURCES, "all")),)
    candidates = tuple(s for s, spec in SOURCES.items() if variant == "1k" or spec.in_5k)
    if data == "hub":
        return candidates
    if data is not None and not Path(data).is_dir():
        raise ValueError("source=all needs a release-layout folder, the shipped sample or hub")
    root = shipped_data_dir("prefdisco") if data is None else Path(data)
    present = tuple(s for s in candidates if (root / release_path(s, variant)).is_file())
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
    fewest = min(by_source, key=lambda source: reports[source].records)
    if max_problems > reports[fewest].records:
        # the reference's random.sample refuses a draw larger than the file, and so do we
        raise params.ParameterError(
            f"-T max_problems: must be at most {reports[fewest].records}, the records of "
            f"source {fewest}; got {max_problems}"
        )
    return [
        record
        for source, group in by_source.items()
        for record in draw_records(group, reports[source].records, max_problems, seed)
    ]


def samples(
    records: Sequence[PrefDiscoRecord],
    conditions: Sequence[str],
    user_type: str,
    *,
    prefix_source: bool,
    load: Mapping[str, Any] | None = None,
    protocol: Protocol = "paper",
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
        stem = f"{record.source}/{record.problem_id}" if prefix_source else record.problem_id
        for condition in conditions:
            metadata = {
                "problem_id": record.problem_id, "source": record.source,
                "condition": condition, "persona_id": str(record.persona.get("id") or
                                                         record.problem_id),
                "user_type": user_type, "answer_kind": record.problem.kind, **located,
            }  # fmt: skip
            out.append(
                Sample(
                    id=f"{condition}/{stem}",
                    input=TASK_REQUESTS[protocol].format(task=record.problem.task_text()),
                    target=record.problem.answer or "",
                    metadata=metadata,
                )
            )
    return out


@task
def prefdisco(
    *,
    condition: Condition | Literal["all"] = "all",
    protocol: Protocol = "paper",
    source: str = "math",
    variant: Variant = "1k",
    data: str | None = None,
    revision: str | None = None,
    max_turns: int = 5,
    user_type: UserType = "passive",
    fixed_questions: int | None = None,
    questions: Questions = "model",
    judge: JudgeMode = "per_criterion",
    strict: bool = False,
    max_problems: int | None = None,
    seed: int | None = None,
    allow_self_roles: bool = False,
    verdict: VerdictChannel = DEFAULT_CHANNEL,
    correctness: CorrectnessMode | None = None,
    grader_prompt: GraderPrompt | None = None,
    user_format: UserFormat | None = None,
    sampling: Sampling | None = None,
    reasoning: Reasoning | None = None,
    markers: Markers | None = None,
    share_baseline: bool | None = None,
    **unknown: Any,
) -> Task:
    """PrefDisco: proactive preference discovery, judged by PrefAlign and correctness.

    Every option is described in evals/prefdisco/README.md; the switches (correctness to
    share_baseline) default to the protocol's own value (solvers/prefdisco/settings.py).

    Args:
        condition: baseline, discovery, oracle, or all (the three on the same records).
        protocol: paper (the reference evaluator's protocol) or budgeted (heedbench's earlier).
        source: a source of evals/prefdisco/sources.py, or all (every source in the data).
        variant: 1k or 5k (the public release's two sizes).
        data: unset (the shipped sample), a JSONL file, a release-layout folder, or hub.
        revision: the hub commit to pin (required with data=hub).
        max_turns: discovery turns (paper) or questions (budgeted) before the final answer.
        user_type: passive, passive_stop (paper only) or collaborative.
        fixed_questions: make the model ask exactly this many times (overrides max_turns).
        questions: model (the model asks) or stock (a generic questionnaire asks instead).
        judge: per_criterion (one grader call per criterion) or batched (one call).
        strict: stop at the first record that cannot be run instead of skipping it.
        max_problems: a seeded subset of this many records per source, as the reference draws.
        seed: the draw's seed (needs max_problems; default 42, the reference's).
        allow_self_roles: let the evaluated model play an unbound user/grader role itself.
        verdict: the grader's verdict channel: schema, tool or text.
        correctness: grader (every answer graded) or deterministic (read by form first).
        grader_prompt: paper (the reference's prompts) or anchored (heedbench's earlier).
        user_format: json (the user writes {thought, response}) or text (a plain reply).
        sampling: paper (the reference's top-p and token limits) or provider.
        reasoning: paper (effort low for the model, high for user and grader) or provider.
        markers: action (the reference's ###ACTION### lines; paper only) or labels.
        share_baseline: cache the model's replies by their messages for the run.
        **unknown: refused: a parameter the task does not have is an error.
    """
    params.reject_unknown("prefdisco", unknown, prefdisco)
    condition = params.one_of("condition", condition, (*CONDITIONS, "all"))
    conditions = CONDITIONS if condition == "all" else (condition,)
    protocol = params.one_of("protocol", protocol, get_args(Protocol))
    variant = params.one_of("variant", variant, get_args(Variant))
    user_type = params.one_of("user_type", user_type, get_args(UserType))
    questions = params.one_of("questions", questions, get_args(Questions))
    judge = params.one_of("judge", judge, get_args(JudgeMode))
    channel = params.one_of("verdict", verdict, CHANNELS)
    given = {"correctness": correctness, "grader_prompt": grader_prompt,
             "user_format": user_format, "sampling": sampling, "reasoning": reasoning,
             "markers": markers}  # fmt: skip
    chosen: dict[str, Any] = {
        name: params.optional_one_of(name, value, CHOICES[name]) for name, value in given.items()
    }
    chosen["share_baseline"] = (
        None if share_baseline is None else params.flag("share_baseline", share_baseline)
    )
    switches = resolve(protocol, **chosen)
    if protocol == "budgeted" and (user_type == "passive_stop" or markers == "action"):
        what = f"user_type={user_type}" if user_type == "passive_stop" else "markers=action"
        raise params.ParameterError(f"-T {what}: needs -T protocol=paper")
    max_turns = params.integer("max_turns", max_turns, low=1, high=MAX_TURNS)
    fixed_questions = params.optional_integer(
        "fixed_questions", fixed_questions, low=1, high=MAX_FIXED_QUESTIONS
    )
    if questions == "stock" and (fixed_questions or max_turns) > len(STOCK_QUESTIONS):
        raise params.ParameterError(
            f"-T questions=stock: the questionnaire has {len(STOCK_QUESTIONS)} questions, so "
            "-T fixed_questions (or max_turns) must be at most that"
        )
    allow_self_roles = params.flag("allow_self_roles", allow_self_roles)
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
    load: dict[str, Any] = {"sources": list(sources), "variant": variant, "data": data,
                            "revision": revision}  # fmt: skip
    reports = load_reports(**load)
    if strict:
        check_strict(reports)
    draw_seed = DEFAULT_SEED if seed is None else seed
    records = select_records(record_index(**load).values(), reports, max_problems, draw_seed)
    dataset = MemoryDataset(
        samples(
            records,
            conditions,
            user_type,
            prefix_source=len(sources) > 1,
            load=load,
            protocol=protocol,
        ),
        name=f"prefdisco-{source}-{variant}",
    )
    return Task(
        dataset=dataset,
        solver=prefdisco_solver(
            **load,
            roles=roles,
            protocol=protocol,
            max_turns=max_turns,
            user_type=user_type,
            fixed_questions=fixed_questions,
            allow_self_roles=allow_self_roles,
            switches=switches,
            questions=questions,
        ),
        scorer=prefdisco_scorer(
            **load,
            judge_mode=judge,
            allow_self_roles=allow_self_roles,
            verdict=channel,
            protocol=protocol,
            conditions=conditions,
        ),
        config=role_config("model", protocol, switches),
        version="4.0.0",
        headline_metric=headline(conditions),
        viewer=viewer(conditions),
        metadata={
            "family": "prefdisco",
            "dataset_ids": [sample.id for sample in dataset],
            "conditions": list(conditions),
            "protocol": protocol,
            **switches.record(),
            "role_settings": {
                role: role_config(role, protocol, switches).model_dump(exclude_none=True)
                for role in get_args(Role)
            },
            "questions": questions,
            "sources": list(sources),
            "variant": variant,
            "user_type": user_type,
            "max_turns": max_turns,
            "fixed_questions": fixed_questions,
            "judge": judge,
            "verdict": channel,
            "strict": strict,
            "max_problems": max_problems,
            "seed": draw_seed if max_problems is not None else None,
            "records": {s: sum(r.source == s for r in records) for s in sources},
            "load_repairs": {s: report.summary() for s, report in reports.items()},
        },
    )
