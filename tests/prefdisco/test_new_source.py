"""A new prefdisco source touches only the files the README's "Where to change what" names.

The package is copied to a temporary folder in its installed layout (`heedbench/` with
`evals/`, `solvers/`, `scorers/` and the data inside), the source is added by editing only the
files that section lists, and a fresh Python that imports the copy runs the task on it.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "evals" / "prefdisco" / "README.md"
NEW = "toyqa"
INSTALLED = {"heedbench": "", "evals": "evals", "solvers": "solvers", "scorers": "scorers",
             "datasets": "data"}  # fmt: skip
"""Source folder -> where the installed package holds it (inside `heedbench/`)."""

RUN = """
import heedbench
from inspect_ai import eval
from heedbench.evals.prefdisco.task import prefdisco
from heedbench.testing import scripted_model

assert heedbench.__file__.startswith({copy!r}), heedbench.__file__
def grader(prompt):
    if "correct answer" in prompt:
        return '{{"justification": "same", "correct": 1}}'
    return '{{"score": 4, "justification": "fits"}}'
log = eval(prefdisco(source={new!r}, condition="baseline"), model=scripted_model(lambda p: "B"),
           model_roles={{"grader": scripted_model(grader, "grader")}}, display="none",
           log_dir={logs!r})[0]
assert log.status == "success", log.error
print(len(log.samples), log.results.scores[0].metrics["prefalign_baseline"].value)
"""


def adding_a_source() -> list[str]:
    """The paths the README's "Add a source" item names, `<name>` left as it is written."""
    section = README.read_text(encoding="utf-8").split("## Where to change what", 1)[1]
    item = " ".join(section.split("- **Add a source**", 1)[1].split("\n- **", 1)[0].split())
    named = re.findall(r"`((?:evals|datasets|solvers|scorers)/[^`]+)`", item)
    return named + (["evals/prefdisco/README.md"] if "this README" in item else [])


def installed_copy(folder: Path) -> Path:
    package = folder / "heedbench"
    for source, inside in INSTALLED.items():
        shutil.copytree(ROOT / source, package / inside, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    shutil.copy(README, package / "evals" / "prefdisco" / "README.md")
    return package


def test_a_source_added_through_the_named_files_runs(tmp_path: Path) -> None:
    named = adding_a_source()
    assert named == [
        "evals/prefdisco/sources.py",
        "datasets/prefdisco/benchmark_1k/<name>/train.jsonl",
        "evals/prefdisco/README.md",
    ]
    package = installed_copy(tmp_path / "copy")

    def at(path: str) -> Path:
        top, rest = path.split("/", 1)
        return package / INSTALLED[top] / rest.replace("<name>", NEW)

    sources = at(named[0])
    text = sources.read_text(encoding="utf-8")
    addition = (
        f'SOURCE_LIST = (*SOURCE_LIST, Source("{NEW}", "choice", "question", "answer", '
        f'Hub("example/toyqa", "test", 1), options="choices"))\n'
    )
    sources.write_text(text.replace("SOURCES: dict", addition + "SOURCES: dict", 1))
    mmlu = (ROOT / "datasets/prefdisco/benchmark_1k/mmlu/train.jsonl").read_text(encoding="utf-8")
    records = [line for line in mmlu.splitlines() if '"personalized_problem"' in line][:4]
    data = at(named[1])
    data.parent.mkdir(parents=True)
    data.write_text("\n".join(json.dumps(json.loads(r)) for r in records) + "\n")
    readme = at(named[2])
    readme.write_text(readme.read_text(encoding="utf-8").replace("`mmlu`, or `all`",
                                                                 f"`mmlu`, `{NEW}`, or `all`"))  # fmt: skip

    code = RUN.format(copy=str(package), new=NEW, logs=str(tmp_path / "logs"))
    env = {**os.environ, "PYTHONPATH": str(package.parent)}
    done = subprocess.run([sys.executable, "-c", code], check=False, cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[-1].split() == ["4", "4.0"]  # after Inspect's hook banner
