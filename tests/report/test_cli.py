"""The command: errors, skipped and failed logs, figures, HTML, cost, --all-runs."""

import json
import struct
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from inspect_ai import eval

from heedbench.prices import load_prices, price_of
from heedbench.report.cli import Options, build_sections, main
from heedbench.report.cost import cost_section
from heedbench.report.document import Section
from heedbench.report.load import Loaded, load_runs
from tests.report import foreign
from tests.report.conftest import roles, scripted
from tests.report.helpers import report_markdown

Report = tuple[Loaded, list[Section], Path]


def test_empty_folder_fails_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(tmp_path), "-o", str(tmp_path / "out")]) == 1
    assert "no Inspect eval logs" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_missing_folder_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "nope")]) == 1
    assert "no such file or folder" in capsys.readouterr().err


def test_only_other_suites_fails_and_lists_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    eval(
        foreign.other_suite(),
        model=scripted("outsider"),
        model_roles=roles(),
        display="none",
        log_dir=str(tmp_path),
    )
    assert main(["report", str(tmp_path), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "no successful heedbench run" in err and "skipped (not heedbench): other_suite" in err


def test_failed_and_foreign_runs_are_listed_and_kept_out(report: Report) -> None:
    loaded, sections, out = report
    assert [r.model for r in loaded.failed] == ["mockllm/broken"]
    assert [r.task for r in loaded.foreign] == ["other_suite"]
    assert all(r.model != "mockllm/broken" for r in loaded.used)
    text = report_markdown(out / "report.md")
    assert "no: run error (RuntimeError" in text and "no: not a heedbench task" in text
    carryon = next(s for s in sections if s.title.startswith("carryon"))
    assert not any("broken" in line for line in carryon.summary)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_figures_are_sane_pngs_referenced_by_html_and_markdown(report: Report) -> None:
    _, sections, out = report
    names = [figure.name for section in sections for figure in section.figures]
    assert len(names) == 3 + 10 + 6  # choice, carryon, prefdisco
    page = (out / "report.html").read_text()
    markdown = report_markdown(out / "report.md")
    for name in names:
        width, height = png_size(out / name)
        assert 400 <= width <= 2500 and 300 <= height <= 1500, (name, width, height)
        assert (out / name).stat().st_size > 10_000
        assert f'<img src="{name}"' in page and f"]({name})" in markdown


def test_command_line_writes_report_and_prints_summary(
    log_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = tmp_path / "prices.yaml"  # Inspect's --model-cost-config format
    prices.write_text(
        "mockllm/judge:\n  input: 1.0\n  output: 2.0\n"
        "  input_cache_write: 1.0\n  input_cache_read: 0.5\n"
    )
    out = tmp_path / "out"
    assert main(["report", str(log_dir), "-o", str(out), "--prices", str(prices)]) == 0
    printed = capsys.readouterr().out
    assert "== choice" in printed and "== carryon" in printed and "== prefdisco" in printed
    assert "excluded: carryon mockllm/broken" in printed
    assert (out / "report.md").exists() and (out / "report.html").exists()
    # the grader role now costs money: every used carryon and prefdisco run, usage from the logs
    loaded = load_runs([str(log_dir)])
    judge_in = sum(r.role_usage["grader"]["input_tokens"] for r in loaded.used if r.role_usage)
    judge_out = sum(r.role_usage["grader"]["output_tokens"] for r in loaded.used if r.role_usage)
    expected = (judge_in * 1.0 + judge_out * 2.0) / 1e6
    assert f"cost of the used runs: ${expected:.4f}" in printed


def test_unknown_models_have_no_price(report: Report) -> None:
    loaded = report[0]
    # an empty table: the scripted models and heedbench/random stay free, a stranger has no price
    stranger = replace(next(r for r in loaded.used if r.family == "choice"), model="some/stranger")
    loaded = replace(loaded, used=[*loaded.used, stranger])
    section = cost_section(loaded, {})
    rows = section.tables[0].rows
    assert all(row[-1] != "no price" for row in rows if row[1] != "some/stranger")
    assert any(row[-1] == "0.0000" for row in rows if row[1] == "heedbench/random")
    assert [row[-1] for row in rows if row[1] == "some/stranger"] == ["no price"]
    assert "models with no price: some/stranger" in section.summary[0]


def test_price_lookup() -> None:
    prices = load_prices()
    assert price_of("openai/gpt-4o-2024-08-06", prices) == prices["openai/gpt-4o"]
    assert price_of("openai/gpt-4o-audio", prices) is None
    assert price_of("somewhere/else", prices) is None


def test_bad_price_file(tmp_path: Path) -> None:
    bad = tmp_path / "p.json"
    bad.write_text(json.dumps({"x/y": {"input": "cheap"}}))
    with pytest.raises(ValueError, match="needs numeric input, output, input_cache_write"):
        load_prices(bad)
    # the old heedbench format (input and output only) is not Inspect's: refused, not guessed
    bad.write_text(json.dumps({"x/y": {"input": 1.0, "output": 2.0}}))
    with pytest.raises(ValueError, match="needs numeric input"):
        load_prices(bad)


def test_all_runs_pools_every_successful_run(log_dir: Path, tmp_path: Path) -> None:
    loaded, sections = build_sections(Options(logs=[str(log_dir)], out=tmp_path, all_runs=True))
    assert loaded.superseded == []
    # six picky choice runs plus the superseded pointwise T7 run
    assert len([r for r in loaded.used if r.model == "mockllm/picky"]) == 7
    runs = next(s for s in sections if s.title == "Runs")
    assert "pooled" in runs.intro


HEAVY = ("inspect_ai", "pandas", "matplotlib", "numpy", "scipy")


@pytest.mark.parametrize(
    "argv", [["--help"], ["report", "--help"], ["report", "logs", "--repetition", "7"]]
)
def test_help_and_a_refused_option_import_nothing_heavy(argv: list[str]) -> None:
    code = (
        "import sys\nfrom heedbench.report.cli import main\ntry:\n    main(sys.argv[1:])\n"
        "except SystemExit:\n    pass\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"
