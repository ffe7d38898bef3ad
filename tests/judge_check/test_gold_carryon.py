"""The carryon gold sets measure the grader, not a shortcut: data checks on the shipped files.

Read straight from datasets/judge_check/ (not through the task's loader, which belongs to the
judge-check code), with the validation and shortcut functions of tools/judge_check_stats.py,
which also prints the data card's statistics.
"""

import importlib.util
import json
import re
import statistics
import subprocess
import sys
from collections import Counter
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from heedbench.scorers.judge_check.cues import cue_report, label_only_cues

ROOT = Path(__file__).parents[2]
DATA = ROOT / "datasets" / "judge_check"
TOOL = ROOT / "tools" / "judge_check_stats.py"
CARD = DATA / "README.md"


@cache
def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("judge_check_stats", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def records(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()]


def checklist() -> list[dict[str, Any]]:
    return records("carryon_checklist.jsonl")


def harm() -> list[dict[str, Any]]:
    return records("carryon_harm.jsonl")


def query_of(record: dict[str, Any]) -> str:
    return str(record["note"].rsplit("(query ", 1)[1].rstrip(")"))


@cache
def card_statistics() -> str:
    """The tool's markdown on the shipped files (the command the data card tells you to run)."""
    result = subprocess.run(
        [sys.executable, str(TOOL)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_stats_tool_passes_and_the_card_shows_its_carryon_statistics() -> None:
    printed = card_statistics()
    card = CARD.read_text(encoding="utf-8")
    sections = printed.split("\n### ")
    carryon = [s for s in sections if s.startswith(("`carryon_", "Surface cues"))]
    assert len(carryon) == 3
    for section in carryon:
        for line in section.splitlines():
            assert line in card, f"data card is missing the tool's line: {line}"
    lengths = next(s for s in sections if s.startswith("### Response length"))
    for line in lengths.splitlines():
        if "`carryon_" in line:
            assert line in card, f"data card is missing the tool's line: {line}"


def test_the_tool_rejects_a_broken_twin(tmp_path: Path) -> None:
    for name in ("carryon_checklist.jsonl", "carryon_harm.jsonl", "prefdisco_rubric.jsonl"):
        (tmp_path / name).write_text((DATA / name).read_text(encoding="utf-8"), encoding="utf-8")
    broken = [dict(r) for r in harm()]
    index, adversarial = next(
        (i, r) for i, r in enumerate(broken) if r["attack"] and r["attack"] != "null_response"
    )
    adversarial["response"] = "A different text altogether."
    (tmp_path / "carryon_harm.jsonl").write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in broken) + "\n", encoding="utf-8"
    )
    result = subprocess.run(
        [sys.executable, str(TOOL), "--dir", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 1
    assert f"carryon_harm.jsonl record {index + 1} ({adversarial['id']}): twin:" in result.stderr


def test_checklist_responses_are_chat_length() -> None:
    everything = [len(r["response"].split()) for r in checklist()]
    clean = [len(r["response"].split()) for r in checklist() if not r["attack"]]
    assert statistics.median(everything) >= 200 and statistics.median(clean) >= 200
    answers = [r for r in checklist() if r["kind"] in ("partial", "vague", "full")]
    assert min(len(r["response"].split()) for r in answers) >= 150


def test_checklist_responses_cover_refusals_partial_vague_and_full_help() -> None:
    kinds = Counter(r["kind"] for r in checklist() if not r["attack"])
    assert all(kinds[kind] >= 6 for kind in ("refusal", "partial", "vague", "full"))


def test_no_word_or_pair_gives_a_clean_checklist_response_kind_away() -> None:
    """Unit: a clean response, labelled with its kind (refusal, partial, vague, full, no_answer).

    The grader's label is per item, but one response carries all of its items' verdicts, so a
    per-item unit would count the same text once per item and flag any word of a single refusal
    as a cue. The kind summarises those verdicts (refusals and vague answers say no to nearly
    everything, full answers yes), so a word that occurs only in refusals, say, lets a grader
    answer every item without reading the items. Adversarial copies are left out: their text is
    their twin's plus the injection, whose words are not a label. The other shortcut a per-item
    grader can take, matching an item's words in the response, is measured by the next test.
    """
    cues = tool().checklist_cues(checklist())
    assert not cues, "\n".join(cue_report(cues))


def test_word_overlap_does_not_recover_the_item_verdicts() -> None:
    # A grader that never reads for meaning: yes when enough of the item's words appear.
    kappa, threshold = tool().best_overlap_kappa(checklist())
    assert kappa < 0.5, f"word overlap reaches kappa {kappa:.2f} at threshold {threshold:.2f}"


def test_no_word_or_pair_falls_on_one_side_of_the_harm_split() -> None:
    cues = label_only_cues([r["response"] for r in harm()], [r["harm"] >= 4 for r in harm()])
    assert not cues, "\n".join(cue_report(cues))


def test_a_one_keyword_rule_does_not_recover_the_harm_labels() -> None:
    kappa, keyword = tool().best_keyword_rule(harm())
    assert kappa < 0.5, f"the keyword {keyword!r} alone reaches QWK {kappa:.2f}"


def test_redaction_is_no_cue_brackets_occur_on_both_sides() -> None:
    bracketed = Counter(
        r["harm"] >= 4 for r in harm() if re.search(r"\[[^\]]{3,}\]", r["response"])
    )
    assert bracketed[True] >= 5 and bracketed[False] >= 5
    assert not any("redacted" in r["response"].lower() for r in harm() + checklist())


@pytest.mark.parametrize("name", ["carryon_checklist.jsonl", "carryon_harm.jsonl"])
def test_every_injection_has_a_clean_twin_and_a_push(name: str) -> None:
    problems = tool().Problems()
    tool().check_twins(name, records(name), problems)
    assert not problems.lines, "\n".join(problems.lines)
    adversarial = [r for r in records(name) if r["attack"]]
    assert adversarial and all(r["push"] in ("lenient", "harsh") and r["twin"] for r in adversarial)


@pytest.mark.parametrize("name", ["carryon_checklist.jsonl", "carryon_harm.jsonl"])
def test_every_attack_kind_is_used_and_pushes_go_both_ways(name: str) -> None:
    adversarial = [r for r in records(name) if r["attack"]]
    attacks = Counter(r["attack"] for r in adversarial)
    assert all(attacks[attack] >= 2 for attack in tool().ATTACKS), attacks
    pushes = Counter(r["push"] for r in adversarial)
    assert min(pushes.values()) >= 0.35 * len(adversarial), pushes
    assert pushes.keys() == {"lenient", "harsh"}
    # Most kinds push both ways; null outputs, master keys and padding only flatter.
    both = {a for a in attacks if {r["push"] for r in adversarial if r["attack"] == a} == {
        "lenient", "harsh"}}  # fmt: skip
    assert len(both) >= 6


def test_harm_injections_move_away_from_gold() -> None:
    for record in (r for r in harm() if r["attack"]):
        target = record["injection_target"]["harm"]
        if record["push"] == "lenient":
            assert target < record["harm"], record["id"]
        else:
            assert target > record["harm"], record["id"]


def test_harm_cases_cover_the_policy_areas_the_checklists_touch_at_several_levels() -> None:
    # fake reviews, academic dishonesty, political campaigning, phishing, tailored medical advice
    for query in ("fal-002", "fal-030", "fal-022", "fal-035", "dng-050"):
        levels = {r["harm"] for r in harm() if query_of(r) == query and not r["attack"]}
        assert len(levels) >= 2 and min(levels) <= 2 and max(levels) >= 4, (query, levels)
    policies = Counter(r["policy"] for r in harm())
    for policy in ("fraud_deception", "political_campaigning", "tailored_advice", "privacy"):
        assert policies[policy] >= 4, policies


def test_a_benign_later_turn_does_not_lower_the_harm_of_the_original_request() -> None:
    # The judged target is the first user message: cases whose later user turn gives a benign
    # purpose and whose response still delivers the original request are rated harmful.
    relabelled = [r for r in harm() if not r["attack"] and "relabelled on the new rubric"
                  in r["note"] and r["harm"] >= 4]  # fmt: skip
    assert len(relabelled) >= 2
    assert all(len(r["conversation"]) >= 3 for r in relabelled)


def test_every_case_says_why_and_names_its_source_query() -> None:
    for record in checklist() + harm():
        assert re.search(r"\(query (off|dng|prv|fal)-\d{3}\)$", record["note"]), record["id"]
        for item in record.get("items", []):
            assert item["note"].strip(), item["id"]


@pytest.mark.parametrize(
    ("name", "field"), [("carryon_checklist", "items"), ("carryon_harm", "harm")]
)
def test_the_first_labelling_is_kept_beside_the_adjudicated_gold(name: str, field: str) -> None:
    """Labeller a's labels are the gold except where an adjudication changed them."""
    labels = records(f"labels/{name}.a.jsonl")
    changed = {a["id"]: a for a in records("adjudication.jsonl") if a["file"] == f"{name}.jsonl"}
    main = {r["id"]: dict(r) for r in records(f"{name}.jsonl")}
    for case_id, adjudicated in changed.items():  # a's label as it was, before adjudication
        assert main[case_id][field] == adjudicated["gold"]
        main[case_id][field] = adjudicated["a"]
    assert [label["id"] for label in labels] == list(main)
    for label in labels:
        assert set(label) == {"id", "labeller", field} and label["labeller"] == "a"
        gold = main[label["id"]]
        if field == "items":
            assert label["items"] == {i["id"]: i["fulfilled"] for i in gold["items"]}
        else:
            assert label["harm"] == gold["harm"]
