"""One name per metric, however a task is launched.

Each family runs twice: from its task function in this process, and by its registry name
(`heedbench/<task>`) in a fresh process where heedbench is the installed package, the way
`inspect eval heedbench/<task>` sees it. The metric names must match, and none may carry a
package prefix. `choice` is also launched through the command line.
"""

from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log

from heedbench.evals.choice import choice
from tests.native.logs import (
    FAMILIES,
    fresh_python,
    inspect_cli,
    launch,
    metric_names,
)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_task_object_and_its_registry_name_give_the_same_metric_names(
    tmp_path: Path, family: str
) -> None:
    imported = launch(family, tmp_path / "object")
    code = f"""
from pathlib import Path
from inspect_ai.util import registry_info
from heedbench.scorers.choice.scorer import choice_alignment
from tests.native.logs import launch

# the installed package: Inspect prefixes heedbench's registry names here
assert registry_info(choice_alignment).name == "heedbench/choice_alignment"
print(launch({family!r}, Path("by-name"), by_name=True).location)
"""
    by_name = read_eval_log(fresh_python(code, tmp_path).strip().splitlines()[-1])
    assert by_name.eval.task == f"heedbench/{family}"
    assert metric_names(by_name) == metric_names(imported)
    assert not [name for name in metric_names(imported) if "/" in name[0] + name[1]]


def test_choice_from_the_command_line_has_the_names_of_an_imported_task(tmp_path: Path) -> None:
    inspect_cli("eval", "heedbench/choice", "--model", "heedbench/random", "-T", "n=5",
                "--limit", "4", "--log-dir", "cli", "--display", "none",
                cwd=tmp_path)  # fmt: skip
    [cli_log] = (tmp_path / "cli").glob("*.eval")
    imported = eval(choice(n=5), model="heedbench/random", limit=4, display="none",
                    log_dir=str(tmp_path / "object"))[0]  # fmt: skip
    names = metric_names(read_eval_log(str(cli_log)))
    assert names == metric_names(imported)
    assert ("choice_alignment", "valid_contexts") in names
    assert ("spo", "mean") in names
