"""Reference rows: the reversed user, the all-indifferent chooser and the simulated chance model."""

import json
import math
import statistics
from pathlib import Path

import pytest
from inspect_ai import eval

from heedbench.evals.choice import choice, choice_dataset, reference
from heedbench.evals.choice.dataset import default_data_dir
from heedbench.evals.choice.reference import (
    all_indifferent,
    chance_row,
    context_blind_rows,
    data_rows,
    expected_chance_row,
    main,
    markdown_table,
    reference_rows,
    reversed_order,
    select_contexts,
)
from heedbench.preference import strict_pairs
from heedbench.scorers import kendall_penalty, spo
from heedbench.solvers.choice import CHOICE_METHODS, ChoiceMethod

N = 5
METHODS = list(CHOICE_METHODS)


def test_reversed_and_indifferent_orders() -> None:
    user = [["a", "b"], ["c"], ["d", "e", "f"]]
    assert reversed_order(user) == [["d", "e", "f"], ["c"], ["a", "b"]]
    assert all_indifferent(user) == [["a", "b", "c", "d", "e", "f"]]
    strict = len(strict_pairs(user))  # 2*1 + 2*3 + 1*3 = 11
    assert strict == 11
    assert spo(user, reversed_order(user)) == 0.0
    assert kendall_penalty(user, reversed_order(user), p=0.5) == strict
    assert spo(user, all_indifferent(user)) == 0.0
    assert kendall_penalty(user, all_indifferent(user), p=0.3) == pytest.approx(0.3 * strict)


def test_data_rows_on_the_shipped_data_scale_with_strict_pairs() -> None:
    samples = list(choice_dataset())
    strict = [len(strict_pairs(s.metadata["user_order"])) for s in samples if s.metadata]
    reversed_row, indifferent_row = data_rows(samples, p=0.5)
    assert reversed_row.valid == reversed_row.contexts == 23
    assert reversed_row.mean("spo") == 0.0
    assert reversed_row.mean("kendall") == pytest.approx(statistics.fmean(strict))
    assert 540 <= reversed_row.mean("kendall") <= 600  # the paper's inversion: 568
    assert indifferent_row.mean("spo") == 0.0
    assert indifferent_row.mean("kendall") == pytest.approx(0.5 * statistics.fmean(strict))
    assert indifferent_row.mean("indifference_sets") == 1.0


def test_the_data_card_and_the_readme_show_the_computed_exact_rows() -> None:
    samples = list(choice_dataset())
    rows = data_rows(samples, p=0.5) + context_blind_rows(samples, p=0.5)
    lines = markdown_table(rows).splitlines()[2:]
    assert len(lines) == 2 + 3 + 6 + 1 + 1  # trivial, blind, each factor, weather, additive
    card = (default_data_dir() / "README.md").read_text(encoding="utf-8")
    readme = (Path(__file__).parents[2] / "evals" / "choice" / "README.md").read_text()
    for line in lines:
        assert line in card
        assert line in readme


def test_context_blind_rows_earn_nothing_where_the_context_decides() -> None:
    samples = list(choice_dataset(n=12, seed=2))
    loco, cut, whole, *reading = context_blind_rows(samples, p=0.5)
    assert loco.mean("spo_context") == 0.0  # by construction
    assert loco.mean("kendall_context") >= 0.5  # D or W on every pair it disagrees on
    assert 0.0 < loco.mean("spo") < 1.0
    assert cut.mean("indifference_sets") == pytest.approx(
        statistics.fmean(len(s.metadata["user_order"]) for s in samples if s.metadata)
    )
    # the global order has seen the scored context, so it recovers a little of it
    assert whole.mean("spo_context") > 0.0
    # reading a factor recovers some of what the context decides, every factor more
    assert [row.kind for row in reading] == ["factor"] * 7 + ["additive"]
    assert all(0.0 < row.mean("spo_context") < 1.0 for row in reading)
    assert reading[-1].mean("spo_context") > max(row.mean("spo_context") for row in reading[:-1])


def test_on_the_contrast_split_a_chooser_blind_to_a_factor_scores_0_on_it() -> None:
    rows = reference_rows("contrast", designs=[("pairwise_test", None)])
    by_label = {row.label: row for row in rows}
    factors = ("companion", "destination", "precipitation", "sky", "temperature", "time")
    for factor in factors:
        reads = by_label[f"reads only the {factor}"].contrast
        assert set(reads) == set(factors)
        for other in factors:  # it chooses alike in twins that differ in another factor
            assert (statistics.fmean(reads[other]) > 0) == (other == factor), (factor, other)
    assert set(by_label["mean level in the other contexts (ties indifferent)"].contrast) == set(
        factors
    )
    assert all(
        value == 0.0
        for values in by_label[
            "mean level in the other contexts (ties indifferent)"
        ].contrast.values()
        for value in values
    )
    chance = next(row for row in rows if row.kind == "chance")
    assert 0.1 < statistics.fmean(v for vs in chance.contrast.values() for v in vs) < 0.5


def test_rows_are_computed_on_the_contexts_asked_for() -> None:
    ids = ["lake_fog", "park_rain", "tennis_heat"]
    rows = reference_rows(n=N, contexts=ids, designs=[("pointwise", None)])
    assert {row.contexts for row in rows} == {3}
    alone = choice_dataset(n=N)
    chosen = select_contexts(list(alone), ids)
    assert [str(s.id) for s in chosen] == ["park_rain", "lake_fog", "tennis_heat"]  # data order
    strict = [len(strict_pairs(s.metadata["user_order"])) for s in chosen if s.metadata]
    assert rows[0].mean("kendall") == pytest.approx(statistics.fmean(strict))
    with pytest.raises(ValueError, match="unknown context id"):
        select_contexts(list(alone), ["moon_base"])


def test_the_reference_command_prints_the_rows_for_a_run_subset(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["--n", str(N), "--contexts", "park_rain,beach_sun"])
    printed = capsys.readouterr().out
    assert printed.startswith("2 contexts,")
    assert "| mean level in the other contexts (ties indifferent) |" in printed
    assert printed.count("| 2/2 |") >= 5


@pytest.mark.parametrize("method", METHODS)
def test_simulated_chance_row_equals_a_real_chance_run(
    tmp_path: Path, method: ChoiceMethod
) -> None:
    log = eval(
        choice(method=method, n=N, seed=3),
        model="heedbench/random",
        display="none",
        log_dir=str(tmp_path),
    )[0]
    assert log.status == "success", log.error
    real = {}
    for sample in log.samples or []:
        assert sample.scores is not None
        value = sample.scores["choice_alignment"].value
        assert isinstance(value, dict)
        real[str(sample.id)] = value
    row = chance_row(list(choice_dataset(n=N, seed=3)), method, seed=3)
    assert row.contexts == len(real) == 23
    for context, simulated in zip(choice_dataset(n=N, seed=3), row.values, strict=True):
        logged = real[str(context.id)]
        for key, number in simulated.items():
            expected = logged[key]
            if expected is None or (isinstance(expected, float) and math.isnan(expected)):
                assert math.isnan(number), (context.id, key)
            else:
                assert number == pytest.approx(float(expected)), (context.id, key)


def test_expected_chance_rows_match_a_long_simulation() -> None:
    # Averaging the seeded simulation over several chance seeds approaches the closed form.
    samples = list(choice_dataset(n=8, seed=1))
    for method in ("pointwise", "listwise", "pairwise_test"):
        expected = expected_chance_row(samples, method, p=0.5)
        assert expected is not None
        runs = [chance_row(samples, method, seed=1, chance_seed=k) for k in range(12)]
        mean_spo = statistics.fmean(r.mean("spo") for r in runs)
        assert mean_spo == pytest.approx(expected.mean("spo"), abs=0.04), method
        if method != "pairwise_test":
            mean_k = statistics.fmean(r.mean("kendall") for r in runs)
            assert mean_k == pytest.approx(expected.mean("kendall"), rel=0.06), method
    assert expected_chance_row(samples, "pairwise_score") is None


def test_reference_rows_default_to_every_design() -> None:
    rows = reference_rows(n=N)
    kinds = [row.kind for row in rows]
    assert kinds[:2] == ["reversed", "indifferent"]
    assert sorted({row.method for row in rows if row.kind == "chance"}) == sorted(METHODS)
    assert {row.method for row in rows if row.kind == "chance_expected"} == {
        "pointwise",
        "listwise",
        "pairwise_test",
    }


def test_a_simulated_chance_row_is_cached_per_data_and_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HEEDBENCH_CACHE_DIR", str(tmp_path))
    samples = list(choice_dataset(n=N))[:4]
    first = chance_row(samples, "pointwise")
    assert len(list(tmp_path.glob("chance-*.json"))) == 1

    def no_simulation(*args: object, **kwargs: object) -> None:
        raise AssertionError("simulated again")

    monkeypatch.setattr(reference, "_simulate", no_simulation)
    again = chance_row(samples, "pointwise")
    assert json.dumps(again.values) == json.dumps(first.values)  # NaN included
    assert again.contrast == first.contrast
    # another setting or other contexts are simulated afresh
    with pytest.raises(AssertionError, match="simulated again"):
        chance_row(samples, "pointwise", chance_seed=1)
    with pytest.raises(AssertionError, match="simulated again"):
        chance_row(samples[:3], "pointwise")


def test_the_exact_rows_are_cached_so_a_second_report_does_not_recompute_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HEEDBENCH_CACHE_DIR", str(tmp_path))
    everyone = list(choice_dataset(n=N))
    samples = everyone[:4]
    first = reference.rows_on(samples, everyone, designs=[("pointwise", None)])
    assert len(list(tmp_path.glob("exact-*.json"))) == 1

    def no_computation(*args: object, **kwargs: object) -> None:
        raise AssertionError("computed again")

    for name in ("context_blind_rows", "data_rows", "_exact_row", "_simulate"):
        monkeypatch.setattr(reference, name, no_computation)
    again = reference.rows_on(samples, everyone, designs=[("pointwise", None)])
    assert [row.kind for row in again] == [row.kind for row in first]
    assert json.dumps([row.values for row in again]) == json.dumps([r.values for r in first])
    assert [row.contrast for row in again] == [row.contrast for row in first]
    # another penalty or other contexts are computed afresh
    with pytest.raises(AssertionError, match="computed again"):
        reference.rows_on(samples, everyone, designs=[], p=0.25)
    with pytest.raises(AssertionError, match="computed again"):
        reference.rows_on(samples[:3], everyone, designs=[])
