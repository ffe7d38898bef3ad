"""Real offline runs read back: spo_context in the log, integer counts, the template used,
unscored contexts with Inspect's reasons, and the report's counts and reference rows on
exactly the contexts and objects the runs scored."""

import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model

from heedbench.evals.choice import choice, choice_dataset
from heedbench.evals.choice.reference import chance_row, context_blind_rows, select_contexts
from heedbench.report.choice import ChoiceRow, choice_rows, runs_data
from heedbench.report.cli import Options, build_sections
from heedbench.report.document import Section, Table
from heedbench.report.stats import fmt, mean_se
from heedbench.testing import choice_oracle, user_ranks

N = 5
CHANCE_CONTEXTS = ["park_rain", "beach_sun", "hospital_flu"]
BLOCKED_CONTEXTS = ["park_rain", "park_sun", "beach_sun", "hiking_rain"]
"""Two of these are rainy: a provider blocks every call about rain. (Half scored: a run that
scored fewer than half of its samples is left out of the report, `heedbench.loud`.)"""
BLOCKED_MODEL = "mockllm/blocked"


def blocked_model() -> Any:
    """Answers like the user, but the provider blocks every prompt that mentions rain."""
    answer = choice_oracle(user_ranks(n=N))

    def output(
        messages: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        prompt = "\n".join(message.text for message in messages)
        if "rain" in prompt:
            result = ModelOutput.from_content(
                model="blocked", content="", stop_reason="content_filter"
            )
        else:
            result = ModelOutput.from_content(model="blocked", content=answer(prompt))
        result.usage = ModelUsage(input_tokens=90, output_tokens=8, total_tokens=98)
        return result

    return get_model(BLOCKED_MODEL, custom_outputs=output, memoize=False)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, EvalLog, EvalLog]:
    folder = tmp_path_factory.mktemp("choice-counts")
    [chance] = eval(
        choice(n=N, method="pointwise"),
        model="heedbench/random",
        sample_id=CHANCE_CONTEXTS,
        display="none",
        log_dir=str(folder),
    )
    [blocked] = eval(
        choice(n=N, method="pointwise", template="T8"),
        model=blocked_model(),
        sample_id=BLOCKED_CONTEXTS,
        display="none",
        log_dir=str(folder),
    )
    assert chance.status == blocked.status == "success"
    return folder, read_eval_log(chance.location), read_eval_log(blocked.location)


@pytest.fixture(scope="module")
def section(
    logs: tuple[Path, EvalLog, EvalLog], tmp_path_factory: pytest.TempPathFactory
) -> Section:
    _, sections = build_sections(Options(logs=[str(logs[0])], out=tmp_path_factory.mktemp("r")))
    return next(s for s in sections if s.title.startswith("choice"))


def table(section: Section, start: str) -> list[Table]:
    return [t for t in section.tables if t.caption.startswith(start)]


def metrics(log: EvalLog) -> dict[str, Any]:
    assert log.results is not None
    found = {}
    for score in log.results.scores:
        for name, metric in score.metrics.items():
            if name in ("valid_contexts", "contexts"):
                found[name] = metric.value
            elif name == "mean":
                found[score.name] = metric.value
    return found  # a count by its name, any other key by its mean


def test_the_log_holds_spo_context_and_integer_counts(logs: tuple[Path, EvalLog, EvalLog]) -> None:
    _, chance, _ = logs
    found = metrics(chance)
    # the scorer returns integers; Inspect stores every metric value as a float
    assert (found["valid_contexts"], found["contexts"]) == (3, 3)
    assert 0.0 <= found["spo_context"] <= 1.0 and "kendall_context" in found
    for sample in chance.samples or []:
        assert sample.scores is not None
        value = sample.scores["choice_alignment"].value
        assert isinstance(value, dict)
        for key in ("valid", "queries", "context_pairs", "indifference_sets"):
            assert isinstance(value[key], int), key
        assert value["queries"] == N
        assert "SPO on the" in str(sample.scores["choice_alignment"].explanation)


def test_the_template_used_is_recorded_never_null(logs: tuple[Path, EvalLog, EvalLog]) -> None:
    _, chance, blocked = logs
    assert chance.eval.task_args["template"] == "best"
    assert chance.eval.metadata is not None and chance.eval.metadata["template"] == "T7"
    assert blocked.eval.task_args["template"] == "T8"


def test_a_blocked_context_is_unscored_with_inspects_reason(
    logs: tuple[Path, EvalLog, EvalLog],
) -> None:
    _, _, blocked = logs
    reasons = {}
    for sample in blocked.samples or []:
        assert sample.scores is not None
        score = sample.scores["choice_alignment"]
        reasons[str(sample.id)] = score.reason
        if "rain" in str(sample.input):
            assert isinstance(score.value, float) and math.isnan(score.value)
            assert score.reason == "no_response"
            assert "calls gave no answer" in str(score.explanation)
            assert "content filter" in str(score.explanation)
        else:
            assert isinstance(score.value, dict)
    assert sorted(k for k, v in reasons.items() if v == "no_response") == [
        "hiking_rain",
        "park_rain",
    ]
    found = metrics(blocked)
    assert (found["valid_contexts"], found["contexts"]) == (2, 2)  # unscored count in neither


def test_the_report_counts_valid_among_scored_and_names_unscored_apart(section: Section) -> None:
    [row] = [r for r in choice_rows_of(section) if r[2].startswith(BLOCKED_MODEL)]
    assert row[-1] == "2/2 (2 unscored)"
    [table1] = table(section, "Table 1")
    column = table1.columns.index(BLOCKED_MODEL)
    # spo_context leads, the paper's SPO beside it, each mean ± stderr over the 2 valid contexts
    assert table1.rows[0][column] == ("1.000 ± 0.000 (SPO 1.000 ± 0.000) / 2/2 (2 unscored) / T8")
    [table2] = table(section, "Table 2")
    assert "no fully valid" not in table2.rows[0][column]  # 2 of 2 scored contexts are valid
    summary = next(line for line in section.summary if BLOCKED_MODEL in line)
    assert summary.endswith("valid 2/2 (2 unscored)")


def choice_rows_of(section: Section) -> list[list[str]]:
    [alignment] = table(section, "Alignment per run")
    return alignment.rows


def test_reference_rows_are_on_exactly_the_runs_contexts_and_objects(
    logs: tuple[Path, EvalLog, EvalLog], section: Section
) -> None:
    folder, _, _ = logs
    tables = table(section, "Reference rows")
    # the two runs scored different contexts: one table for each set
    captions = sorted(t.caption for t in tables)
    assert len(tables) == 2
    assert "on the 2 contexts and 5 objects" in captions[0]
    assert "on the 3 contexts and 5 objects" in captions[1]
    assert "beach_sun, hospital_flu, park_rain" in captions[1]
    [chance_table] = [t for t in tables if "hospital_flu" in t.caption]
    by_label = {(r[0], r[1]): r for r in chance_table.rows}
    assert all(r[-1] == "3/3" for r in chance_table.rows)
    # the simulated chance row is the run itself, context pairs included
    [run] = [r for r in choice_rows(loaded(folder)) if r.model == "heedbench/random"]
    simulated = by_label[("chance (heedbench/random, -M seed=0)", "pointwise")]
    assert simulated[4] == fmt(run.estimates["spo_context"])
    assert simulated[5] == fmt(run.estimates["spo"])
    # the context-blind rows, recomputed on the same three contexts
    samples = select_contexts(list(choice_dataset(n=N)), CHANCE_CONTEXTS)
    references = context_blind_rows(samples, pool=choice_dataset(n=N))
    assert len(references) == 3 + 7 + 1  # context-blind, one per factor and weather, additive
    for ref in references:
        line = by_label[(ref.label, "—")]
        assert line[4] == fmt(mean_se(ref.column("spo_context")))
        assert line[5] == fmt(mean_se(ref.column("spo")))
    assert by_label[(references[0].label, "—")][4].startswith("0.000")
    assert chance_row(samples, "pointwise").contexts == 3


def loaded(folder: Path) -> Any:
    found, _ = build_sections(Options(logs=[str(folder)], out=folder / "unused"))
    return found


def test_a_log_of_the_earlier_data_gets_reference_rows_on_that_data() -> None:
    # a run logged before version 3 shipped: no `data` argument, version 2's user orders
    old = {str(s.id): s.metadata["user_order"] for s in choice_dataset("v2", n=N) if s.metadata}
    now = {str(s.id): s.metadata["user_order"] for s in choice_dataset(n=N) if s.metadata}
    contexts = tuple(old)[:3]

    def row(orders: dict[str, Any]) -> ChoiceRow:
        return ChoiceRow(
            method="pointwise",
            template="T7",
            model="heedbench/random",
            settings="n=5",
            group="{}",
            group_label="n=5",
            contexts=3,
            valid=3,
            estimates={},
            user_sets=3.0,
            args={"n": N},
            context_ids=contexts,
            user_orders={context: orders[context] for context in contexts},
        )

    found = runs_data([row(old)], contexts)
    assert not isinstance(found, str) and found[2] == "v2"
    assert [s.metadata["user_order"] for s in found[1] if s.metadata] == [old[c] for c in contexts]
    current = runs_data([row(now)], contexts)
    assert not isinstance(current, str) and current[2] is None
    garbled = {context: [["nothing", "like", "it"]] for context in contexts}
    assert "match no data" in str(runs_data([row(garbled)], contexts))
