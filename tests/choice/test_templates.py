"""Templates are built from what they declare, read back by the chance model through the
template itself, and a new one is added by touching only the files the README names."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from heedbench.evals.choice.task import fitting_templates
from heedbench.solvers.choice.prompts import TEMPLATES, ChoiceTemplate, read_prompt

ROOT = Path(__file__).resolve().parents[2]
FIELDS = {
    "context": "Driving to the beach on a hot day.",
    "object1": "umbrella",
    "object2": "sun hat",
    "object": "wool hat",
    "objects": "umbrella, sun hat, wool hat",
    "score_low": 2,
    "score_high": 9,
}


def render(template: ChoiceTemplate) -> str:
    return f"{template.system.format(**FIELDS)}\n{template.user.format(**FIELDS)}"


@pytest.mark.parametrize("template_id", sorted(TEMPLATES))
def test_a_prompt_reads_back_as_its_template_and_fields(template_id: str) -> None:
    template = TEMPLATES[template_id]
    found = read_prompt(render(template))
    assert found is not None
    read, fields = found
    assert read is template
    assert all(
        FIELDS[name] == value or str(FIELDS[name]) == value for name, value in fields.items()
    )
    assert read_prompt(render(template).replace("Context:", "Situation:")) is None


@pytest.mark.parametrize("template_id", sorted(TEMPLATES))
def test_the_text_says_what_the_template_declares(template_id: str) -> None:
    template = TEMPLATES[template_id]
    assert ("answer none" in template.system) == template.allows_none
    user = template.user.splitlines()
    if template.kind == "pairwise":
        assert user[0].startswith("Object 1" if template.objects_first else "Context")
        assert ('{{"answer": ""}}' in template.system) == template.example
    else:
        assert user[0].startswith("Context") and len(user) == 2


def test_only_pairwise_templates_offer_none_or_reorder() -> None:
    with pytest.raises(ValueError, match="only a pairwise template"):
        ChoiceTemplate("T7", "pointwise", "Score it.", allows_none=True)


NEW_TEMPLATE = """
TEMPLATES["T14"] = ChoiceTemplate(
    "T14", "pairwise", "Which of the two objects is more useful here?", allows_none=True
)
"""
PROBE = """
import json, heedbench
from inspect_ai import eval
from inspect_ai.log import resolve_sample_attachments
from heedbench.evals.choice import choice
from heedbench.evals.choice.task import fitting_templates
[log] = eval(choice(method="pairwise_score", template="T14", n=3), model="heedbench/random",
             limit=2, display="none", log_dir=LOG_DIR)
sample = resolve_sample_attachments(log.samples[0])
print(json.dumps({"package": heedbench.__file__, "fits": fitting_templates("pairwise_score"),
                  "status": log.status, "value": sample.scores["choice_alignment"].value,
                  "prompt": sample.events and next(e.input[0].text for e in sample.events
                                                   if e.event == "model")}))
"""


def copy_package(target: Path) -> Path:
    """The installed layout in a folder: heedbench/ with evals, solvers, scorers and data."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    package = target / "heedbench"
    shutil.copytree(ROOT / "heedbench", package, ignore=ignore)
    for folder in ("evals", "solvers", "scorers"):
        shutil.copytree(ROOT / folder, package / folder, ignore=ignore)
    shutil.copytree(ROOT / "datasets", package / "data", ignore=ignore)
    return package


@pytest.mark.slow
def test_a_template_is_added_by_declaring_it_in_prompts_alone(tmp_path: Path) -> None:
    # the README's "Where to change what": a template is one declaration in prompts.py (its
    # id in TemplateId and an entry in TEMPLATES); the options table documents it
    package = copy_package(tmp_path / "copy")
    prompts = package / "solvers" / "choice" / "prompts.py"
    text = prompts.read_text(encoding="utf-8")
    text = text.replace('"T12", "T13"\n]', '"T12", "T13", "T14"\n]')
    prompts.write_text(text + NEW_TEMPLATE, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "copy"), "HEEDBENCH_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE.replace("LOG_DIR", repr(str(tmp_path / "logs")))],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,  # not the checkout, whose heedbench/ would shadow the copy
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["package"].startswith(str(tmp_path / "copy"))  # the copy, not the checkout
    assert "T14" in found["fits"] and "T14" not in fitting_templates("pairwise_score")
    assert found["status"] == "success"
    # the chance model read the new template's prompts: every answer well-formed
    assert found["value"]["invalid_rate"] == 0.0 and found["value"]["valid"] == 1
    assert "Which of the two objects is more useful here?" in found["prompt"]
