"""A new choice template touches only the files the README's "Where to change what" names.

The repository is copied to a temporary folder in its installed layout (`heedbench/` with
`evals/`, `solvers/`, `scorers/` and the data inside), a template is added by editing only
the files that section lists (at most three), and a fresh Python that imports the copy runs
it through the task with a scripted mockllm model and with the chance model, and checks that
the chance reference row reads it: simulated, it equals the real chance run context by context.
"""

import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from heedbench.evals.choice.task import fitting_templates

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "evals" / "choice" / "README.md"
NEW = "T14"
WORDING = "Which of the two objects is more useful here?"
INSTALLED = {"heedbench": "", "evals": "evals", "solvers": "solvers", "scorers": "scorers",
             "datasets": "data"}  # fmt: skip
"""Source folder -> where the installed package holds it (inside `heedbench/`)."""

RUN = """
import json, math, heedbench
from inspect_ai import eval
from heedbench.evals.choice import choice, choice_dataset
from heedbench.evals.choice.reference import chance_row
from heedbench.evals.choice.task import fitting_templates, resolve_template
from heedbench.testing import choice_oracle, scripted_model, user_ranks

assert heedbench.__file__.startswith({copy!r}), heedbench.__file__
def values(log):
    assert log.status == "success", log.error
    return {{str(s.id): s.scores["choice_alignment"].value for s in log.samples}}
task = lambda: choice(method="pairwise_score", template={new!r}, n=4, seed=3)
prompts = []
def oracle(prompt, reply=choice_oracle(user_ranks(n=4, seed=3))):
    prompts.append(prompt)
    return reply(prompt)
[scripted] = eval(task(), model=scripted_model(oracle), limit=2, display="none", log_dir={logs!r})
[chance] = eval(task(), model="heedbench/random", limit=3, display="none", log_dir={logs!r})
row = chance_row(list(choice_dataset(n=4, seed=3))[:3], "pairwise_score", {new!r}, seed=3)
real = values(chance)
print(json.dumps({{
    "scripted": list(values(scripted).values()),
    "metadata": scripted.eval.metadata,
    "prompt": prompts[0],
    "chance": [real[str(s.id)] for s in list(choice_dataset(n=4, seed=3))[:3]],
    "row": [{{k: None if math.isnan(v) else v for k, v in r.items()}} for r in row.values],
    "row_template": row.template,
    "fits": {{m: fitting_templates(m) for m in ("pairwise_score", "pairwise_test")}},
    "default_sort": resolve_template("pairwise_sort", None),
    "sort_row_template": chance_row(list(choice_dataset(n=4))[:1], "pairwise_sort").template,
}}))
"""


def adding_a_template() -> list[str]:
    """The paths the README's "A prompt template" item names, in order."""
    section = README.read_text(encoding="utf-8").split("## Where to change what", 1)[1]
    item = section.split("- **A prompt template**", 1)[1].split("\n- **", 1)[0]
    named = []
    for line in item.split("\n  "):
        found = re.search(r"`((?:evals|datasets|solvers|scorers)/[^`]+)`", line)
        if re.match(r"\s*\d\. ", line):
            named.append(found.group(1) if found else "evals/choice/README.md")
    return named


def installed_copy(folder: Path) -> Path:
    package = folder / "heedbench"
    for source, inside in INSTALLED.items():
        shutil.copytree(ROOT / source, package / inside, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))  # fmt: skip
    return package


def replaced(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.mark.slow
def test_a_template_added_through_the_named_files_runs_and_the_chance_row_reads_it(
    tmp_path: Path,
) -> None:
    named = adding_a_template()
    assert named == ["solvers/choice/prompts.py", "evals/choice/README.md", "evals/choice/task.py"]
    package = installed_copy(tmp_path / "copy")

    def at(path: str) -> Path:
        top, rest = path.split("/", 1)
        return package / INSTALLED[top] / rest

    prompts, readme, task = (at(path) for path in named)
    replaced(prompts, '"T12", "T13"\n]', f'"T12", "T13", "{NEW}"\n]')
    declaration = (
        f'TEMPLATES["{NEW}"] = ChoiceTemplate("{NEW}", "pairwise", "{WORDING}", allows_none=True)\n'
    )
    prompts.write_text(prompts.read_text(encoding="utf-8") + declaration, encoding="utf-8")
    replaced(
        readme,
        'Pairwise: T1, T2, T4, T11 allow "none"',
        f'Pairwise: T1, T2, T4, T11, {NEW} allow "none"',
    )
    replaced(task, '"pairwise_sort": "T1",', f'"pairwise_sort": "{NEW}",')

    code = RUN.format(copy=str(package), new=NEW, logs=str(tmp_path / "logs"))
    env = {**os.environ, "PYTHONPATH": str(package.parent), "HEEDBENCH_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], check=False, cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])  # after Inspect's hook banner

    # the template's declared shape decides which designs take it; the checkout is untouched
    assert NEW in found["fits"]["pairwise_score"] and NEW not in found["fits"]["pairwise_test"]
    assert NEW not in fitting_templates("pairwise_score")
    assert found["metadata"]["template"] == NEW and WORDING in found["prompt"]
    assert "answer none" in found["prompt"]  # it declared "none", so its text offers it
    # the scripted model answers from the user's order: every answer parsed, fully aligned
    for value in found["scripted"]:
        assert value["invalid_rate"] == 0.0 and value["valid"] == 1 and value["spo"] == 1.0
    # the chance model read the new template's prompts, and its simulated row equals the run
    assert found["row_template"] == NEW and len(found["row"]) == len(found["chance"]) == 3
    for simulated, logged in zip(found["row"], found["chance"], strict=True):
        assert logged["invalid_rate"] == 0.0 and logged["valid"] == 1
        for key, number in simulated.items():
            if number is None:
                assert logged[key] is None or math.isnan(logged[key]), key
            else:
                assert number == pytest.approx(float(logged[key])), key
    # the default set in task.py is what the reference rows use for that design
    assert found["default_sort"] == NEW and found["sort_row_template"] == NEW
