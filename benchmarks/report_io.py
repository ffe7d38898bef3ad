"""What `heedbench report` reads: wall time, CPU and bytes over 200 logs, local disk and S3.

Five short offline runs (`choice` with the chance model in three designs, two scripted
`carryon` runs), each copied 40 times as if 40 models had run it: 200 logs, also uploaded to a
local S3 server (`tests.s3.moto_server`). The report's reading (everything `heedbench report`
does before it writes files) is timed in a fresh process over each copy, after a warm-up over
one other log; bytes are counted where they are read (`rchar` in /proc/self/io on disk, the
response-body bytes the server sent on S3). BENCHMARKS.md explains the figures.

    python -m benchmarks.report_io --label after [--repeats 3]
        -> benchmarks/results/report_io_<label>.json and a Markdown table
    python -m benchmarks.report_io --client-sharing --work DIR
        headers and sample summaries only, on S3, with one shared client (the report's
        reading) and with Inspect's public async readers awaited directly (a client each)
        -> benchmarks/results/report_io_client_sharing.json
    python -m benchmarks.report_io --three --label after [--repeats 3] [--work DIR]
        the whole command on one small log per family (the README's quick start), each
        `heedbench report` in a fresh process after a warm-up, and `heedbench --help`
        -> benchmarks/results/report_three_<label>.json
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
COPIES = 40
BUCKET = "heedbench-report-io"


def base_logs(folder: Path) -> list[Path]:
    """The five short runs, written to `folder`."""
    from inspect_ai import eval as inspect_eval

    from heedbench.evals.carryon import load_queries
    from heedbench.evals.carryon.task import carryon
    from heedbench.evals.choice.task import choice
    from heedbench.testing import scripted_model
    from heedbench.testing_carryon import stub_reply, write_queries

    runs = [
        (choice(method="pointwise", n=10), "heedbench/random"),
        (choice(method="listwise", n=10), "heedbench/random"),
        (choice(method="pairwise_score", n=5), "heedbench/random"),
    ]
    data = write_queries(folder / "queries.jsonl", load_queries()[:3], items=4)
    for condition in ("turn1", "all"):
        task = carryon(data=str(data), flows_per_query=2, condition=condition)
        runs.append((task, "scripted"))
    logs: list[Path] = []
    for task, model in runs:
        roles = {
            "user": scripted_model(stub_reply, "user"),
            "grader": scripted_model(stub_reply, "grader"),
        }
        target = model if model != "scripted" else scripted_model(stub_reply, "target")
        [log] = inspect_eval(
            task,
            model=target,
            model_roles=roles if model == "scripted" else None,
            display="none",
            log_dir=str(folder / "base"),
        )
        logs.append(Path(log.location.removeprefix("file://")))
    return logs


def synthesize(bases: list[Path], out: Path, copies: int = COPIES) -> list[Path]:
    """`copies` renamed copies of every base log in `out` (as if other models had run)."""
    from inspect_ai.log import read_eval_log, write_eval_log

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for base in bases:
        log = read_eval_log(str(base))
        original = log.eval.model
        for i in range(copies):
            copy = log.model_copy(deep=True)
            model = f"lab/model-{i:02d}"
            copy.eval.model = model
            copy.eval.eval_id = uuid.uuid4().hex
            copy.eval.run_id = uuid.uuid4().hex
            copy.eval.task_id = uuid.uuid4().hex
            copy.stats.model_usage = {
                (model if name == original else name): usage
                for name, usage in copy.stats.model_usage.items()
            }
            for sample in copy.samples or []:
                sample.uuid = uuid.uuid4().hex
            path = out / f"{base.stem}-{i:02d}.eval"
            write_eval_log(copy, str(path))
            written.append(path)
    return written


def upload(folder: Path, url: str) -> None:
    """Copy every log in `folder` to the S3 prefix `url` (s3://bucket/prefix)."""
    import s3fs  # type: ignore[import-untyped]

    fs = s3fs.S3FileSystem(skip_instance_cache=True)
    bucket = url.removeprefix("s3://").split("/", 1)[0]
    if not fs.exists(bucket):
        fs.mkdir(bucket)
    for path in sorted(folder.glob("*.eval")):
        fs.put_file(str(path), f"{url.removeprefix('s3://')}/{path.name}")


def report_sections(path: str) -> int:
    """Everything `heedbench report` does before writing files; returns the section count."""
    from heedbench.prices import load_prices
    from heedbench.report.carryon import carryon_section
    from heedbench.report.choice import choice_section
    from heedbench.report.cost import cost_section
    from heedbench.report.judge_check import judge_check_section
    from heedbench.report.load import load_runs
    from heedbench.report.prefdisco import prefdisco_section
    from heedbench.report.runs import runs_section
    from heedbench.scorers.carryon import FailureThresholds

    loaded = load_runs([path])
    sections = [
        choice_section(loaded),
        carryon_section(loaded, FailureThresholds()),
        prefdisco_section(loaded),
        judge_check_section(loaded),
        cost_section(loaded, load_prices(None)),
        runs_section(loaded, False),
    ]
    return sum(1 for section in sections if section is not None)


def _cpu(who: int = resource.RUSAGE_SELF) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def metered(read: Callable[[], Any], endpoint: str | None) -> dict[str, Any]:
    """Wall and CPU time of `read()`, and the bytes it read (and requests, from S3)."""
    from tests.s3.moto_server import server_stats

    def rchar() -> int:
        lines = Path("/proc/self/io").read_text(encoding="ascii").splitlines()
        return next((int(line.split()[1]) for line in lines if line.startswith("rchar:")), 0)

    if endpoint:
        server_stats(endpoint, reset=True)
    before, cpu, start = rchar(), _cpu(), time.perf_counter()
    read()
    result: dict[str, Any] = {"wall_s": time.perf_counter() - start, "cpu_s": _cpu() - cpu}
    if endpoint:
        stats = server_stats(endpoint)
        return result | {"bytes_read": stats["body_bytes"], "requests": stats["requests"]}
    return result | {"bytes_read": rchar() - before}


def measure(path: str, warm: str) -> dict[str, Any]:
    """In this process: warm up on `warm`, then time the report's reading of `path`."""
    report_sections(warm)
    remote = path.startswith("s3://")
    sections: list[int] = []
    result = metered(lambda: sections.append(report_sections(path)),
                     os.environ.get("AWS_ENDPOINT_URL") if remote else None)  # fmt: skip
    return {"wall_s": result.pop("wall_s"), "cpu_s": result.pop("cpu_s"),
            "sections": sections[0], **result}  # fmt: skip


def _timed(command: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Wall and CPU time (user + system) of one child process, and its output; it must succeed."""
    cpu, start = _cpu(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, check=False)  # fmt: skip
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {done.stderr[-3000:]}")
    return {"wall_s": wall, "cpu_s": _cpu(resource.RUSAGE_CHILDREN) - cpu, "out": done.stdout}


def _child(path: str, warm: str, env: dict[str, str]) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.report_io", "--measure", path, "--warm", warm]
    result: dict[str, Any] = json.loads(_timed(command, env)["out"].strip().splitlines()[-1])
    return result


def _medians(runs: list[dict[str, Any]], *keys: str) -> dict[str, Any]:
    """The runs and the median of each of `keys` over them."""
    return {"runs": runs, **{k: float(statistics.median(r[k] for r in runs)) for k in keys}}


@contextmanager
def s3_copy(work: Path, name: str, folders: Sequence[str]) -> Iterator[dict[str, str]]:
    """A local S3 server holding `folders` of `work` under s3://BUCKET/; yields its env."""
    from tests.s3.moto_server import start_s3_server

    server = start_s3_server(work / name)
    try:
        os.environ.update(server.env)
        for folder in folders:
            upload(work / folder, f"s3://{BUCKET}/{folder}")
        yield server.env
    finally:
        server.stop()


def run(label: str, repeats: int, work: Path) -> dict[str, Any]:
    """Make the logs, serve them from S3, measure both copies `repeats` times."""
    logs = work / "logs"
    if not logs.exists():
        bases = base_logs(work)
        synthesize(bases, logs)
        synthesize(bases[:1], work / "warm", copies=1)
    files = sorted(logs.glob("*.eval"))
    results: dict[str, Any] = {"label": label, "logs": len(files),
                               "total_bytes": sum(path.stat().st_size for path in files),
                               "measured": time.strftime("%Y-%m-%d")}  # fmt: skip
    with s3_copy(work, "s3", ("logs", "warm")) as env:
        targets = {"local": (str(logs), str(work / "warm")),
                   "s3": (f"s3://{BUCKET}/logs", f"s3://{BUCKET}/warm")}  # fmt: skip
        for name, (path, warm) in targets.items():
            runs = [_child(path, warm, env) for _ in range(repeats)]
            keys = ("wall_s", "cpu_s", "bytes_read", *(("requests",) if name == "s3" else ()))
            results[name] = _medians(runs, *keys)
    return results


def client_sharing(work: Path) -> list[dict[str, Any]]:
    """Every log's header and summaries on S3, read as the report does (one client shared by
    every read, `heedbench.report.logfiles.read_logs`) and with Inspect's public async readers
    awaited directly, 16 at a time, each read opening its own client."""
    import asyncio

    from inspect_ai.log import read_eval_log_async, read_eval_log_sample_summaries_async

    from heedbench.report.logfiles import list_logs, read_logs

    async def read(name: str, limit: asyncio.Semaphore) -> None:
        async with limit:
            await read_eval_log_async(name, header_only=True)
            await read_eval_log_sample_summaries_async(name)

    async def read_all() -> None:
        limit = asyncio.Semaphore(16)
        await asyncio.gather(*(read(log.location, limit) for log in listed))

    with s3_copy(work, "s3-sharing", ("logs",)) as env:
        listed = list_logs(f"s3://{BUCKET}/logs")
        readers = {True: lambda: read_logs(listed), False: lambda: asyncio.run(read_all())}
        return [{"shared_client": shared, "logs": len(listed),
                 **metered(reader, env["AWS_ENDPOINT_URL"])}
                for shared, reader in readers.items()]  # fmt: skip


THREE_LOGS = (
    "heedbench/choice --model heedbench/random",
    *(
        f"heedbench/{task} --model heedbench/smoke --model-role user=heedbench/smoke "
        "--model-role grader=heedbench/smoke --limit 2"
        for task in ("carryon", "prefdisco")
    ),
)
"""The three logs, as `inspect eval` arguments (the README's quick start)."""


def three_logs(label: str, repeats: int, work: Path, options: list[str]) -> dict[str, Any]:
    """Time `heedbench report` on one small log per family, and `heedbench --help`."""
    bin_dir = Path(sys.executable).parent
    logs = work / "three-logs"
    if not logs.exists():
        for arguments in THREE_LOGS:
            command = [str(bin_dir / "inspect"), "eval", *arguments.split()]
            _timed([*command, "--log-dir", str(logs), "--display", "none"])
    env = {"HEEDBENCH_CACHE_DIR": str(work / "cache")}
    report = [str(bin_dir / "heedbench"), "report", str(logs), "-o", str(work / "out"), *options]
    _timed(report, env)  # warm-up: fills the chance cache, loads the files into memory
    runs = [_timed(report, env) for _ in range(repeats)]
    helps = [_timed([str(bin_dir / "heedbench"), "--help"]) for _ in range(repeats)]
    for timed in (*runs, *helps):
        del timed["out"]
    return {
        "label": label, "measured": time.strftime("%Y-%m-%d"), "logs": THREE_LOGS,
        "options": options, "load_average_1min": os.getloadavg()[0],
        "report": _medians(runs, "wall_s", "cpu_s"), "help": _medians(helps, "wall_s", "cpu_s"),
    }  # fmt: skip


def table(results: list[dict[str, Any]]) -> str:
    """The BENCHMARKS.md table, one row per label and storage."""
    lines = [
        "| code | storage | logs (MB) | wall | CPU | bytes read | read / logs | S3 requests |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for result in results:
        total = result["total_bytes"]
        for name in ("local", "s3"):
            row = result[name]
            requests = f"{row['requests']:,.0f}" if "requests" in row else "—"
            lines.append(
                f"| {result['label']} | {name} | {result['logs']} ({total / 1e6:.1f}) "
                f"| {row['wall_s']:.1f} s | {row['cpu_s']:.1f} s "
                f"| {row['bytes_read'] / 1e6:.1f} MB | {row['bytes_read'] / total:.2f} "
                f"| {requests} |"
            )
    return "\n".join(lines)


def save(name: str, found: Any) -> Path:
    """Write one results file."""
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / name).write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    return RESULTS / name


def main() -> None:
    """Measure, or (with --measure) be the child that measures one copy."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", default="current", help="name of the code measured")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--work", type=Path, help="reuse logs made here by an earlier run")
    parser.add_argument("--client-sharing", action="store_true",
                        help="header and summary reads only, on S3")  # fmt: skip
    parser.add_argument("--three", action="store_true",
                        help="the whole command on one small log per family")  # fmt: skip
    parser.add_argument("--option", action="append", default=[],
                        help="an option added to `heedbench report`")  # fmt: skip
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--warm", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.warm)))
        return
    work = args.work or Path(tempfile.mkdtemp(prefix="report-io-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.three:
        found = three_logs(args.label, args.repeats, work, args.option)
        out = save(f"report_three_{args.label}.json", found)
        for name in ("report", "help"):
            print(f"{name}: wall {found[name]['wall_s']:.2f} s, CPU {found[name]['cpu_s']:.2f} s")
        print(f"written {out} (logs in {work}; load average {found['load_average_1min']:.1f})")
    elif args.client_sharing:
        if not (work / "logs").exists():
            synthesize(base_logs(work), work / "logs")
        rows = client_sharing(work)
        save("report_io_client_sharing.json", rows)
        print("\n".join(map(json.dumps, rows)))
    else:
        out = save(f"report_io_{args.label}.json", run(args.label, args.repeats, work))
        shown = [json.loads(path.read_text(encoding="utf-8"))
                 for path in sorted(RESULTS.glob("report_io_*.json"))]  # fmt: skip
        print(table([result for result in shown if isinstance(result, dict)]))
        print(f"written {out} (logs in {work})")


if __name__ == "__main__":
    main()
