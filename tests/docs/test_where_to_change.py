"""Each family README (and the report guide) says where the common changes are made.

Issue 31: the four changes a newcomer makes most (a carryon judge prompt, a choice template, a
prefdisco source, a report table) are each described, and every file the section names exists.
The choice and prefdisco changes are also carried out in a copy (`test_new_template.py`,
`test_new_source.py`).
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDES = {
    "evals/carryon/README.md": "**A judge prompt**",
    "evals/choice/README.md": "**A prompt template**",
    "evals/prefdisco/README.md": "**Add a source**",
    "docs/report.md": "To add a table for a family",
}


def section(guide: str) -> str:
    text = (ROOT / guide).read_text(encoding="utf-8")
    assert "## Where to change what" in text, guide
    return text.split("## Where to change what", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("guide", sorted(GUIDES))
def test_the_section_describes_the_common_change(guide: str) -> None:
    assert GUIDES[guide] in section(guide)


@pytest.mark.parametrize("guide", sorted(GUIDES))
def test_every_file_it_names_exists(guide: str) -> None:
    named = set(
        re.findall(
            r"`((?:evals|solvers|scorers|heedbench|datasets|docs)/[\w/.]+\.\w+)`", section(guide)
        )
    )
    assert named, guide
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing, f"{guide} names files that do not exist: {missing}"


def test_the_carryon_judge_prompt_names_are_the_prompt_modules_own() -> None:
    from heedbench.scorers.carryon import prompts

    names = re.findall(r"`([A-Z][A-Z_0-9]+)`", section("evals/carryon/README.md"))
    assert names and all(hasattr(prompts, name) for name in names), names
