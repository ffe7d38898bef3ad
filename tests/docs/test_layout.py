"""The documentation a newcomer reads: a short top-level README, one README per task family
with inspect_evals' sections, and guides in docs/."""

import re

import pytest

from tests.docs.commands import ROOT

FAMILIES = sorted(p.parent.name for p in (ROOT / "evals").glob("*/eval.yaml"))
SECTIONS = (
    "Overview",
    "Usage",
    "Options",
    "Dataset",
    "Scoring",
    "Reference results",
    "Cost",
    "Changelog",
)
"""inspect_evals' README sections, in their order."""


def test_the_top_level_readme_is_short_and_has_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    assert 'pip install -e ".[test]" && inspect eval heedbench/choice' in text
    assert "python -m pytest -n 2 -q -p no:logging" in text
    assert not re.search(r"\b[A-Z]+_TIME\b|\bTBD\b", text), "a time left unmeasured"


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_readme_has_the_sections_in_order(family: str) -> None:
    text = (ROOT / "evals" / family / "README.md").read_text(encoding="utf-8")
    found = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert [s for s in found if s in SECTIONS] == list(SECTIONS), found


def test_every_family_and_guide_is_linked_from_the_readme() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for family in FAMILIES:
        assert f"(evals/{family}/README.md)" in text or f"(evals/{family})" in text, family
    for guide in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{guide.name})" in text, guide.name


def test_relative_links_in_the_docs_resolve() -> None:
    pages = [ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("evals/*/README.md")]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken, "\n".join(broken)
