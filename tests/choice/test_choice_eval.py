"""End-to-end `choice` runs with scripted models, offline: data -> solver -> scorer -> log."""

import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from heedbench.evals.choice import choice, choice_dataset
from heedbench.preference import strict_pairs
from heedbench.testing import choice_oracle as oracle
from heedbench.testing import log_metric as metric
from heedbench.testing import scripted_model, user_ranks

N = 6
CONTEXTS = 6
"""Contexts per run: the behaviours tested here hold context by context, so a quarter of the
23 keeps every test meaningful at a quarter of the calls."""
METHODS = [
    "pairwise_score",
    "pairwise_scc",
    "pairwise_test",
    "pointwise",
    "listwise",
    "pairwise_sort",
]
RANKS = user_ranks(n=N)


def malformed(prompt: str) -> str:
    """Prose instead of JSON: every answer is ⊥."""
    return "Honestly, I would pack whatever feels right for the trip."


def run(tmp_path: Path, reply: Any, limit: int | None = CONTEXTS, **params: Any) -> EvalLog:
    params.setdefault("n", N)
    log = eval(
        choice(**params),
        model=scripted_model(reply),
        display="none",
        log_dir=str(tmp_path),
        limit=limit,
    )[0]
    assert log.status == "success", log.error
    return log


def user_orders() -> dict[str, list[list[str]]]:
    """The user orders of the contexts a run with the default limit scores (the first ones)."""
    samples = list(choice_dataset(n=N))[:CONTEXTS]
    return {str(s.id): s.metadata["user_order"] for s in samples if s.metadata}


@pytest.mark.parametrize("method", METHODS)
def test_oracle_model_is_partially_aligned_and_valid(tmp_path: Path, method: str) -> None:
    log = run(tmp_path, oracle(RANKS), method=method)
    assert metric(log, "spo") == 1.0
    assert metric(log, "choice_alignment", "valid_contexts") == CONTEXTS
    assert metric(log, "invalid_rate") == 0.0
    if method == "pairwise_test":
        assert math.isnan(metric(log, "kendall"))  # SPO only
        return
    orders = user_orders()
    if method == "listwise":
        # A strict ranking breaks every user tie: K(p) = 0.5 x indifferent pairs.
        tied = [sum(len(s) * (len(s) - 1) / 2 for s in o) for o in orders.values()]
        assert metric(log, "kendall") == pytest.approx(0.5 * sum(tied) / len(tied))
    else:
        assert metric(log, "kendall") == 0.0
        mean_sets = sum(len(o) for o in orders.values()) / len(orders)
        assert metric(log, "indifference_sets") == pytest.approx(mean_sets)


@pytest.mark.parametrize("method", METHODS)
def test_inverted_model_violates_every_strict_preference(tmp_path: Path, method: str) -> None:
    log = run(tmp_path, oracle(RANKS, invert=True), method=method)
    assert metric(log, "spo") == 0.0
    assert metric(log, "choice_alignment", "valid_contexts") == CONTEXTS
    if method in ("pairwise_score", "pairwise_scc", "pairwise_sort", "pointwise"):
        strict = [len(strict_pairs(o)) for o in user_orders().values()]
        assert metric(log, "kendall") == pytest.approx(sum(strict) / len(strict))


@pytest.mark.parametrize("method", [m for m in METHODS if m != "pairwise_scc"])
def test_noisy_model_is_partly_aligned(tmp_path: Path, method: str) -> None:
    log = run(tmp_path, oracle(RANKS, noise=0.3), method=method)
    assert 0.0 < metric(log, "spo") < 1.0
    assert metric(log, "choice_alignment", "valid_contexts") == CONTEXTS
    if method != "pairwise_test":
        assert metric(log, "kendall") > 0.0
    if method in ("pairwise_score", "pairwise_sort"):
        assert 0.0 < metric(log, "order_consistency") < 1.0


def test_noise_collapses_pairwise_scc_into_few_sets(tmp_path: Path) -> None:
    # The paper's diagnostic: cycles merge SCCs, so SCC keeps fewer sets and strict pairs.
    score_log = run(tmp_path, oracle(RANKS, noise=0.3), method="pairwise_score")
    scc_log = run(tmp_path, oracle(RANKS, noise=0.3), method="pairwise_scc")
    orders = user_orders()
    user_sets = sum(len(o) for o in orders.values()) / len(orders)
    assert metric(scc_log, "indifference_sets") < user_sets < metric(score_log, "indifference_sets")
    assert metric(scc_log, "spo") < metric(score_log, "spo")


@pytest.mark.parametrize("method", METHODS)
def test_malformed_answers_are_counted_not_guessed(tmp_path: Path, method: str) -> None:
    log = run(tmp_path, malformed, method=method)
    assert metric(log, "choice_alignment", "valid_contexts") == 0
    assert metric(log, "invalid_rate") == 1.0
    spo_score = next(s for s in log.results.scores if s.name == "spo")  # type: ignore[union-attr]
    assert spo_score.scored_samples == 0
    assert spo_score.unscored_samples == CONTEXTS


def test_invalid_answer_in_one_order_keeps_pairwise_score_valid(tmp_path: Path) -> None:
    answer = oracle(RANKS)

    def half_broken(prompt: str) -> str:
        first = prompt.split("Object 1:")[1].splitlines()[0].strip()
        second = prompt.split("Object 2:")[1].splitlines()[0].strip()
        return answer(prompt) if first < second else "no idea"

    log = run(tmp_path, half_broken, method="pairwise_score")
    assert metric(log, "invalid_rate") == 0.5
    assert metric(log, "choice_alignment", "valid_contexts") == CONTEXTS
    assert metric(log, "spo") == 1.0
    assert log.eval.metadata is not None and log.eval.metadata["validity"] == "lenient"


def half_broken_reply(prompt: str) -> str:
    """Answers like the oracle when the first-presented name sorts first, else prose (⊥)."""
    first = prompt.split("Object 1:")[1].splitlines()[0].strip()
    second = prompt.split("Object 2:")[1].splitlines()[0].strip()
    return oracle(RANKS)(prompt) if first < second else "no idea"


@pytest.mark.parametrize("method", ["pairwise_score", "pairwise_scc", "pairwise_sort"])
def test_strict_validity_refuses_half_answered_pairs(tmp_path: Path, method: str) -> None:
    lenient = run(tmp_path, half_broken_reply, method=method)
    strict = run(tmp_path, half_broken_reply, method=method, validity="strict")
    assert metric(lenient, "choice_alignment", "valid_contexts") == CONTEXTS
    assert metric(strict, "choice_alignment", "valid_contexts") == 0
    assert math.isnan(metric(strict, "spo"))  # no valid context to average
    assert strict.eval.metadata is not None and strict.eval.metadata["validity"] == "strict"
    assert strict.samples is not None
    score = strict.samples[0].scores["choice_alignment"]  # type: ignore[index]
    assert score.metadata is not None
    assert score.metadata["validity"] == "strict"
    assert score.metadata["half_answered_pairs"] > 0


@pytest.mark.parametrize("method", ["pairwise_test", "pointwise", "listwise"])
def test_strict_validity_leaves_single_order_designs_alone(tmp_path: Path, method: str) -> None:
    lenient = run(tmp_path, oracle(RANKS), method=method)
    strict = run(tmp_path, oracle(RANKS), method=method, validity="strict")
    assert (
        metric(strict, "choice_alignment", "valid_contexts")
        == metric(lenient, "choice_alignment", "valid_contexts")
        == CONTEXTS
    )
    assert metric(strict, "spo") == metric(lenient, "spo")


def test_queries_spent_per_design(tmp_path: Path) -> None:
    expected = {
        "pairwise_score": N * (N - 1),
        "pairwise_test": N * (N - 1) / 2,
        "pointwise": N,
        "listwise": 1,
    }
    for method, queries in expected.items():
        assert metric(run(tmp_path, oracle(RANKS), method=method), "queries") == queries
    sort_queries = metric(run(tmp_path, oracle(RANKS), method="pairwise_sort"), "queries")
    assert sort_queries < N * (N - 1)


def test_log_keeps_per_context_details(tmp_path: Path) -> None:
    log = run(tmp_path, oracle(RANKS, noise=0.3), method="pairwise_score")
    assert log.samples is not None and len(log.samples) == CONTEXTS
    sample = log.samples[0]
    assert sample.scores is not None
    score = sample.scores["choice_alignment"]
    assert score.metadata is not None
    assert score.metadata["user_order"] == sample.metadata["user_order"]
    assert sorted(o for s in score.metadata["chosen_order"] for o in s) == sorted(
        sample.metadata["objects"]
    )
    assert score.metadata["template"] == "T1"
    assert isinstance(score.value, dict) and set(score.value) >= {"spo", "kendall", "valid"}


def test_presentation_order_is_seeded(tmp_path: Path) -> None:
    # All 40 objects, so only the presentation order can differ between seeds.
    ranks = user_ranks()

    def presented(seed: int) -> list[Any]:
        log = run(tmp_path, oracle(ranks), method="listwise", seed=seed, n=None)
        orders = []
        for sample in log.samples or []:
            assert sample.scores is not None
            metadata = sample.scores["choice_alignment"].metadata
            assert metadata is not None
            orders.append(metadata["presented_order"])
        return orders

    assert presented(1) == presented(1)
    assert presented(1) != presented(2)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"method": "pairwise_magic"}, "-T method: must be one of"),
        ({"method": "pairwise_test", "template": "T1"}, "use one of T3, T5, T6"),
        ({"method": "pointwise", "template": "T1"}, "use one of T7, T8, T12, T13"),
        ({"method": "pointwise", "score_low": 5, "score_high": 5}, "score_low"),
        ({"p": 2.0}, "-T p: must be a number from 0 to 1"),
        ({"n": 1}, "-T n: must be an integer of at least 2"),
        ({"validity": "loose"}, "-T validity: must be one of lenient, strict"),
    ],
)
def test_bad_parameters_fail_before_any_model_call(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        choice(**params)


def test_epochs_reduce_the_dict_score(tmp_path: Path) -> None:
    log = eval(
        choice(n=N, method="pointwise"),
        model=scripted_model(oracle(RANKS)),
        epochs=2,
        display="none",
        log_dir=str(tmp_path),
        limit=CONTEXTS,
    )[0]
    assert log.status == "success"
    assert metric(log, "spo") == 1.0
    assert metric(log, "choice_alignment", "valid_contexts") == CONTEXTS


def test_cache_answers_repeated_queries_without_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    calls = 0
    answer = oracle(RANKS)

    def counted(prompt: str) -> str:
        nonlocal calls
        calls += 1
        return answer(prompt)

    for _ in range(2):
        log = eval(
            choice(n=N, method="pointwise", cache=True),
            model=scripted_model(counted),
            display="none",
            log_dir=str(tmp_path),
            limit=CONTEXTS,
        )[0]
        assert log.status == "success"
        assert metric(log, "spo") == 1.0
    assert calls == CONTEXTS * N


def contrast_metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    [scores] = [s for s in log.results.scores if s.name == "choice_alignment"]
    return {name: m.value for name, m in scores.metrics.items() if name.startswith("contrast")}


@pytest.mark.parametrize(
    ("method", "n"), [("pointwise", None), ("pairwise_score", 8), ("pairwise_test", 8)]
)
def test_contrast_follows_the_user_between_twins_and_a_blind_model_scores_0(
    tmp_path: Path, method: str, n: int | None
) -> None:
    ranks = user_ranks(n=n, data="contrast")
    follows = contrast_metrics(
        run(tmp_path, oracle(ranks), None, method=method, n=n, data="contrast")
    )
    factors = {"companion", "destination", "precipitation", "sky", "temperature", "time"}
    if n is None:  # with 8 objects a twin may change no pair of them
        assert set(follows) == {f"contrast_{factor}" for factor in factors} | {"contrast"}
    # without "none", Pairwise-Test cannot follow a pair into indifference: only part way
    exact = method != "pairwise_test"
    assert follows and all(value == 1.0 if exact else 0 < value < 1 for value in follows.values())
    # one strict order everywhere (ties could fall to the presentation order, which differs)
    first = {obj: index for index, obj in enumerate(next(iter(ranks.values())))}
    blind = contrast_metrics(
        run(
            tmp_path, oracle(dict.fromkeys(ranks, first)), None, method=method, n=n, data="contrast"
        )
    )
    assert set(blind) == set(follows) and all(value == 0.0 for value in blind.values())


def test_the_default_data_has_no_contrast(tmp_path: Path) -> None:
    assert contrast_metrics(run(tmp_path, oracle(RANKS), method="pointwise")) == {}


def test_the_explanation_shows_user_and_chosen_orders_side_by_side(tmp_path: Path) -> None:
    log = run(tmp_path, oracle(RANKS, invert=True), limit=1, method="pointwise")
    assert log.samples is not None
    sample = log.samples[0]
    assert sample.scores is not None and sample.metadata is not None
    explanation = str(sample.scores["choice_alignment"].explanation)
    assert explanation.startswith("SPO on the ")  # spo_context first
    table = explanation.split("\n\n", 1)[1].splitlines()
    assert table[0] == "| set | user order | chosen order |"
    user = sample.metadata["user_order"]
    _, number, users, chosen, _ = table[2].split("|")
    assert (number.strip(), users.strip()) == ("1", ", ".join(user[0]))
    assert sorted(chosen.strip().split(", ")) == sorted(user[-1])  # inverted
