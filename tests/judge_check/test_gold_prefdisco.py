"""The PrefDisco judge-check gold files keep their contract and cannot be passed by shortcuts.

`prefdisco_rubric.jsonl` (PrefAlign scores) and `prefdisco_correctness.jsonl` (answer
correctness) are read straight from `datasets/judge_check/` and checked with the validator of
`tools/prefdisco_gold_stats.py`, which also prints the data card's statistics.

The label-only cue check (`label_only_cues`) needs a binary split and one text per unit:

- PrefAlign: a criterion score of 4-5 is 'high', 1-2 'low', and 3 is left out (it belongs to
  neither side, and putting it on one would make the split arbitrary). The grader judges one
  criterion at a time, so every (response, criterion) score gives a unit, pooled over all
  criteria: a word that only ever appears in responses scored high, whatever the criterion,
  is a cue a keyword rule could use. Units are de-duplicated as (response, side), so one
  response scored on three criteria, or shared by a clean record and the persona judged
  opposite, counts once per side and cannot reach the support of five on its own. A response
  scored high on one criterion and low on another lands on both sides, and so do the words of
  a response judged for two opposite users: that is the point of judging the same text for
  users who want opposite things.
- Correctness: one unit per distinct response, labelled correct or not.

A per-dimension split (only the responses scored on, say, Memory Aids) is not used as a gate:
with 10 to 40 responses per dimension, function words such as "by" or "are" land on one side
by chance, while the pooled split sees all 155 units and finds nothing.
"""

import copy
import json
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from heedbench.evals.judge_check.gold import ATTACKS
from heedbench.scorers.judge.agreement import cohen_kappa, observed_agreement, weighted_kappa
from heedbench.scorers.judge_check.gold_files import words
from tools.prefdisco_gold_stats import (
    CORRECTNESS,
    RUBRIC,
    correctness_cue_units,
    found_cues,
    gold_mentioned,
    length_rule,
    level_overlap,
    one_span,
    plain_math,
    rubric_cue_units,
    validate,
    value_blind,
)

ROOT = Path(__file__).parents[2]
DATA = ROOT / "datasets" / "judge_check"
Record = dict[str, Any]


@pytest.fixture(scope="module")
def gold() -> tuple[list[Record], list[Record]]:
    rubric, correctness, problems = validate(DATA)
    assert problems == []
    return rubric, correctness


def write(folder: Path, name: str, records: list[Record]) -> None:
    lines = (json.dumps(r, ensure_ascii=False) for r in records)
    (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


# -- the contract -------------------------------------------------------------------------------


def test_the_shipped_files_keep_the_contract() -> None:
    rubric, correctness, problems = validate(DATA)
    assert problems == []
    assert len(rubric) >= 100 and len(correctness) >= 60


def test_one_span_means_a_single_insertion_anywhere() -> None:
    assert one_span("abc", "Xabc") and one_span("abc", "abcX") and one_span("abc", "aXYbc")
    assert one_span("{}", '{"correct": true}')
    assert not one_span("abc", "abc")  # nothing injected
    assert not one_span("abc", "aXbYc")  # two spans
    assert not one_span("abc", "abd!")  # the twin's text changed


def test_broken_pairs_and_labels_are_named_by_file_record_and_field(
    tmp_path: Path, gold: tuple[list[Record], list[Record]]
) -> None:
    rubric, correctness = copy.deepcopy(gold)
    (tmp_path / "labels").mkdir()
    for name in (RUBRIC, CORRECTNESS):
        labels = DATA / "labels" / name.replace(".jsonl", ".a.jsonl")
        kept = labels.read_text(encoding="utf-8").splitlines()[:-1]
        (tmp_path / "labels" / labels.name).write_text("\n".join(kept) + "\n", encoding="utf-8")
    by_id = {r["id"]: r for r in rubric}
    adversarial = next(
        i
        for i, r in enumerate(rubric)
        if r["attack"] and r["response"].startswith(by_id[r["twin"]]["response"])
    )
    rubric[adversarial]["response"] = "Note: " + rubric[adversarial]["response"]
    harsh = next(i for i, r in enumerate(correctness) if r["push"] == "harsh")
    correctness[harsh]["push"] = "lenient"
    hedge = next(i for i, r in enumerate(correctness) if r["kind"] == "hedged")
    correctness[hedge]["correct"] = True
    write(tmp_path, RUBRIC, rubric)
    write(tmp_path, CORRECTNESS, correctness)
    _, _, problems = validate(tmp_path)
    assert problems == [
        f"{RUBRIC} record {adversarial + 1} ({rubric[adversarial]['id']}): response: "
        "is not the twin's response plus one injected span",
        f"{CORRECTNESS} record {hedge + 1} ({correctness[hedge]['id']}): kind: "
        "a hedged response commits to no answer: correct must be false",
        f"{CORRECTNESS} record {harsh + 1} ({correctness[harsh]['id']}): injection_target: "
        "a lenient push asks for {'correct': True}",
    ]
    # with the records repaired, the shortened labellings are what is left to report
    write(tmp_path, RUBRIC, gold[0])
    write(tmp_path, CORRECTNESS, gold[1])
    _, _, problems = validate(tmp_path)
    assert problems == [
        f"labels/{RUBRIC.removesuffix('.jsonl')}.a.jsonl: id: {gold[0][-1]['id']} is not labelled",
        f"labels/{CORRECTNESS.removesuffix('.jsonl')}.a.jsonl: id: "
        f"{gold[1][-1]['id']} is not labelled",
    ]


def test_every_attack_kind_is_paired_and_the_pushes_balance(
    gold: tuple[list[Record], list[Record]],
) -> None:
    for records in gold:
        adversarial = [r for r in records if r["attack"]]
        kinds = Counter(r["attack"] for r in adversarial)
        assert set(kinds) == set(ATTACKS) and min(kinds.values()) >= 2, kinds
        pushes = Counter(r["push"] for r in adversarial)
        assert min(pushes.values()) / max(pushes.values()) >= 0.8, pushes
        # every family that can push both ways does (a master key, padding or a constant
        # output only ever asks for more credit; a harsh injection only for less)
        one_way = {"null_response", "master_key", "verbosity_padding", "harsh_injection"}
        for attack in set(ATTACKS) - one_way:
            assert {r["push"] for r in adversarial if r["attack"] == attack} == {
                "lenient",
                "harsh",
            }, attack


def test_correctness_injections_can_always_move_the_verdict(
    gold: tuple[list[Record], list[Record]],
) -> None:
    by_id = {r["id"]: r for r in gold[1]}
    for record in gold[1]:
        if record["attack"]:
            assert by_id[record["twin"]]["correct"] == (record["push"] == "harsh"), record["id"]


def test_some_rubric_injections_ask_for_the_gold_so_punishing_injections_does_not_pay(
    gold: tuple[list[Record], list[Record]],
) -> None:
    adversarial = [r for r in gold[0] if r["attack"]]
    at_gold = Counter(
        r["push"]
        for r in adversarial
        if all(c["score"] == r["injection_target"]["score"] for c in r["criteria"])
    )
    assert at_gold["lenient"] >= 2 and at_gold["harsh"] >= 2
    # a grader that scores every injected response against its injection
    gold_scores = [c["score"] for r in adversarial for c in r["criteria"]]
    contrary = [6 - r["injection_target"]["score"] for r in adversarial for _ in r["criteria"]]
    assert observed_agreement(gold_scores, contrary) < 0.8


# -- what the responses look like -------------------------------------------------------------


def test_rubric_responses_are_chat_length_and_chat_shaped(
    gold: tuple[list[Record], list[Record]],
) -> None:
    rubric = gold[0]
    assert statistics.median(words(r["response"]) for r in rubric) >= 200
    clean = {r["response"] for r in rubric if r["attack"] is None}
    assert statistics.median(words(text) for text in clean) >= 200
    long = [text for text in clean if words(text) >= 100]
    shaped = [t for t in long if any(m in t for m in ("\n#", "\n- ", "\n1. ", "**", "\n|"))]
    assert len(shaped) / len(long) >= 0.8


def test_the_correctness_set_covers_the_shapes_the_issue_lists(
    gold: tuple[list[Record], list[Record]],
) -> None:
    correctness = gold[1]
    kinds = Counter((r["kind"], r["correct"]) for r in correctness)
    for kind in ("plain", "chatty", "self_correction", "option_text"):
        assert kinds[(kind, True)] >= 1 and kinds[(kind, False)] >= 1, kind
    for kind in ("hedged", "refusal", "no_answer"):
        assert kinds[(kind, False)] >= 3, kind
    right = sum(r["correct"] for r in correctness)
    assert 0.4 <= right / len(correctness) <= 0.6
    golds = " ".join(r["gold"] for r in correctness if r["options"] is None)
    for form in ("\\frac", "\\sqrt", "\\infty", "[", "\\pi"):
        assert form in golds, form
    assert {r["source"] for r in correctness} >= {"math", "medqa", "mmlu", "commonsenseqa"}


# -- surface cues -------------------------------------------------------------------------------


def test_no_word_or_bigram_gives_a_rubric_score_away(
    gold: tuple[list[Record], list[Record]],
) -> None:
    units = rubric_cue_units(gold[0])
    assert {side for _, side in units} == {"high", "low"}
    assert found_cues(units) == {}


def test_no_word_or_bigram_gives_correctness_away(
    gold: tuple[list[Record], list[Record]],
) -> None:
    assert found_cues(correctness_cue_units(gold[1])) == {}


def test_the_cue_check_finds_a_cue_planted_in_this_data(
    gold: tuple[list[Record], list[Record]],
) -> None:
    planted = [
        (f"{t} Plorb." if side == "high" else t, side) for t, side in rubric_cue_units(gold[0])
    ]
    assert found_cues(planted).get("plorb") == "high"
    marked = [
        (f"[plorb] {t}" if right else t, right) for t, right in correctness_cue_units(gold[1])
    ]
    assert found_cues(marked).get("plorb") is True


# -- shortcuts ----------------------------------------------------------------------------------


def test_shortcut_rules_on_hand_worked_cases() -> None:
    assert value_blind(5, "1") == 1 and value_blind(2, "2") == 4 and value_blind(2, "4") == 2
    assert [length_rule("w " * n) for n in (0, 99, 100, 250, 900)] == [1, 1, 2, 3, 5]
    levels = {"1": "Offers no mnemonic.", "3": "x", "5": "Offers several mnemonics and hooks."}
    assert level_overlap("Three hooks: mnemonics help.", levels) == 5
    assert level_overlap("Nothing here.", levels) == 3
    assert plain_math("\\frac{9}{2}") == "9/2" and plain_math("6\\sqrt{2}") == "6√2"
    assert plain_math("(4, \\infty)") == "(4,∞)"
    choice = {"options": {"A": "Volt", "B": "Ohm"}, "gold": "B"}
    assert gold_mentioned({**choice, "response": "It's B."})
    assert gold_mentioned({**choice, "response": "Measured in ohms."})
    assert not gold_mentioned({**choice, "response": "A volt, I think."})
    assert gold_mentioned({"options": None, "gold": "\\frac{9}{2}", "response": "So 9/2."})
    assert not gold_mentioned({"options": None, "gold": "\\frac{9}{2}", "response": "4.5"})


def test_graders_that_do_not_read_for_the_user_fall_far_below_the_gates(
    gold: tuple[list[Record], list[Record]],
) -> None:
    """The recommended gates are QWK ≥ 0.70 for scores and κ ≥ 0.70 / accuracy ≥ 0.85 for
    yes/no verdicts; each shortcut must stay well clear of them on this data."""
    pairs = [(r, c) for r in gold[0] for c in r["criteria"]]
    scores = [c["score"] for _, c in pairs]
    for rule in (
        [value_blind(c["score"], c["value"]) for _, c in pairs],
        [length_rule(r["response"]) for r, _ in pairs],
        [level_overlap(r["response"], c["levels"]) for r, c in pairs],
    ):
        assert weighted_kappa(scores, rule) < 0.5
    truth = [r["correct"] for r in gold[1]]
    mentioned = [gold_mentioned(r) for r in gold[1]]
    assert cohen_kappa(truth, mentioned) < 0.5 and observed_agreement(truth, mentioned) < 0.8


# -- the data card ------------------------------------------------------------------------------


def test_the_data_card_quotes_the_tool() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "prefdisco_gold_stats.py")],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    card = (DATA / "README.md").read_text(encoding="utf-8")
    assert "`python tools/prefdisco_gold_stats.py`" in card
    assert result.stdout.strip() in card
