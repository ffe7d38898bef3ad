"""What `heedbench report` reads: wall time, CPU and bytes over 200 logs, local disk and S3.

Five short runs are made offline: `choice` with the chance model (`heedbench/random`) in
three designs, and two scripted `carryon` runs (their per-turn series need full samples).
Each is copied 40 times as if 40 different models had been run (model name, eval, run and
task ids, sample uuids renamed; contents unchanged): 200 logs in one folder. The folder is
then uploaded to a local S3-compatible server (`tests.s3.moto_server`, moto's server in a
process of its own) and the report's reading — finding the logs, identifying runs per sample,
and building every section's tables, which is everything `heedbench report` does before it
writes files — is timed in a fresh process over each copy, after a warm-up over one other log
so that imports and the S3 client are not counted.

Bytes read are counted where they are read: for local disk, the bytes the process's read
calls returned (`rchar` in /proc/self/io); for S3, the response-body bytes the server sent.

    python -m benchmarks.report_io --label after [--repeats 3]

writes benchmarks/results/report_io_<label>.json and prints a Markdown table.

    python -m benchmarks.report_io --client-sharing --work DIR

reads only the headers and sample summaries of the same 200 logs on S3, once as the report
does (one S3 client shared by every read) and once with Inspect's public async readers
awaited directly (each read opening its own client):
benchmarks/results/report_io_client_sharing.json.

    python -m benchmarks.report_io --three --label after [--repeats 3] [--work DIR]

times the whole command on three small logs, one per family (the README's quick-start choice
run with the chance model, and carryon and prefdisco played by `heedbench/smoke` with
`--limit 2`), each `heedbench report` in a fresh process after one warm-up (so the chance
rows are cached), wall and CPU time of the child; and `heedbench --help` the same way:
benchmarks/results/report_three_<label>.json.
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


def _rchar() -> int:
    with open("/proc/self/io", encoding="ascii") as io:
        for line in io:
            if line.startswith("rchar:"):
                return int(line.split()[1])
    return 0


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(path: str, warm: str) -> dict[str, Any]:
    """In this process: warm up on `warm`, then time the report's reading of `path`."""
    from tests.s3.moto_server import server_stats

    report_sections(warm)
    remote = path.startswith("s3://")
    endpoint = os.environ.get("AWS_ENDPOINT_URL", "")
    if remote:
        server_stats(endpoint, reset=True)
    rchar, cpu, start = _rchar(), _cpu(), time.perf_counter()
    sections = report_sections(path)
    wall, cpu = time.perf_counter() - start, _cpu() - cpu
    read = _rchar() - rchar
    result: dict[str, Any] = {"wall_s": wall, "cpu_s": cpu, "sections": sections}
    if remote:
        stats = server_stats(endpoint)
        result.update(bytes_read=stats["body_bytes"], requests=stats["requests"])
    else:
        result.update(bytes_read=read)
    return result


def _child(path: str, warm: str, env: dict[str, str]) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.report_io", "--measure", path, "--warm", warm]
    done = subprocess.run(
        command, cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _medians(runs: list[dict[str, Any]], *keys: str) -> dict[str, Any]:
    """The runs and the median of each of `keys` over them."""
    return {
        "runs": runs,
        **{key: float(statistics.median(run[key] for run in runs)) for key in keys},
    }


def run(label: str, repeats: int, work: Path) -> dict[str, Any]:
    """Make the logs, serve them from S3, measure both copies `repeats` times."""
    from tests.s3.moto_server import start_s3_server

    logs = work / "logs"
    if not logs.exists():
        bases = base_logs(work)
        synthesize(bases, logs)
        synthesize(bases[:1], work / "warm", copies=1)
    files = sorted(logs.glob("*.eval"))
    size = sum(path.stat().st_size for path in files)
    server = start_s3_server(work / "s3")
    try:
        os.environ.update(server.env)
        upload(logs, f"s3://{BUCKET}/logs")
        upload(work / "warm", f"s3://{BUCKET}/warm")
        results: dict[str, Any] = {
            "label": label,
            "logs": len(files),
            "total_bytes": size,
            "measured": time.strftime("%Y-%m-%d"),
        }
        targets = {
            "local": (str(logs), str(work / "warm")),
            "s3": (f"s3://{BUCKET}/logs", f"s3://{BUCKET}/warm"),
        }
        for name, (path, warm) in targets.items():
            runs = [_child(path, warm, server.env) for _ in range(repeats)]
            keys = ("wall_s", "cpu_s", "bytes_read", *(("requests",) if name == "s3" else ()))
            results[name] = _medians(runs, *keys)
    finally:
        server.stop()
    return results


def header_and_summary_reads(url: str, shared: bool) -> dict[str, Any]:
    """Read every log's header and summaries under `url`; time and count.

    Shared: the report's own reading (`heedbench.report.logfiles.read_logs`, through
    `inspect_ai.analysis`, one client for all reads). Not shared: Inspect's public async
    readers awaited directly, 16 logs at a time, each read opening its own client.
    """
    import asyncio

    from inspect_ai.log import read_eval_log_async, read_eval_log_sample_summaries_async

    from heedbench.report.logfiles import list_logs, read_logs
    from tests.s3.moto_server import server_stats

    listed = list_logs(url)

    async def read(name: str, limit: asyncio.Semaphore) -> None:
        async with limit:
            await read_eval_log_async(name, header_only=True)
            await read_eval_log_sample_summaries_async(name)

    async def read_all() -> None:
        limit = asyncio.Semaphore(16)
        await asyncio.gather(*(read(log.location, limit) for log in listed))

    endpoint = os.environ["AWS_ENDPOINT_URL"]
    server_stats(endpoint, reset=True)
    cpu, start = _cpu(), time.perf_counter()
    if shared:
        read_logs(listed)
    else:
        asyncio.run(read_all())
    wall, cpu = time.perf_counter() - start, _cpu() - cpu
    stats = server_stats(endpoint)
    return {
        "shared_client": shared,
        "logs": len(listed),
        "wall_s": wall,
        "cpu_s": cpu,
        "bytes_read": stats["body_bytes"],
        "requests": stats["requests"],
    }


def client_sharing(work: Path) -> list[dict[str, Any]]:
    """Header and summary reads over S3 with and without a shared client (logs from `work`)."""
    from tests.s3.moto_server import start_s3_server

    server = start_s3_server(work / "s3-sharing")
    try:
        os.environ.update(server.env)
        upload(work / "logs", f"s3://{BUCKET}/logs")
        return [header_and_summary_reads(f"s3://{BUCKET}/logs", shared) for shared in (True, False)]
    finally:
        server.stop()


THREE_LOGS = (
    "heedbench/choice --model heedbench/random",
    *(
        f"heedbench/{task} --model heedbench/smoke --model-role user=heedbench/smoke "
        "--model-role grader=heedbench/smoke --limit 2"
        for task in ("carryon", "prefdisco")
    ),
)
"""The three logs, as `inspect eval` arguments (the README's quick start)."""


def _timed(command: list[str], env: dict[str, str] | None = None) -> dict[str, float]:
    """Wall and CPU time (user + system) of one child process; it must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        command,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {done.stderr[-3000:]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return {"wall_s": wall, "cpu_s": cpu}


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
    return {
        "label": label,
        "measured": time.strftime("%Y-%m-%d"),
        "logs": THREE_LOGS,
        "options": options,
        "load_average_1min": os.getloadavg()[0],
        "report": _medians(runs, "wall_s", "cpu_s"),
        "help": _medians(helps, "wall_s", "cpu_s"),
    }


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


def main() -> None:
    """Measure, or (with --measure) be the child that measures one copy."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", default="current", help="name of the code measured")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--work", type=Path, help="reuse logs made here by an earlier run")
    parser.add_argument(
        "--client-sharing", action="store_true", help="header and summary reads only, on S3"
    )
    parser.add_argument(
        "--three", action="store_true", help="the whole command on one small log per family"
    )
    parser.add_argument(
        "--option", action="append", default=[], help="an option added to `heedbench report`"
    )
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
        RESULTS.mkdir(exist_ok=True)
        out = RESULTS / f"report_three_{args.label}.json"
        out.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
        for name in ("report", "help"):
            print(f"{name}: wall {found[name]['wall_s']:.2f} s, CPU {found[name]['cpu_s']:.2f} s")
        print(f"written {out} (logs in {work}; load average {found['load_average_1min']:.1f})")
        return
    if args.client_sharing:
        if not (work / "logs").exists():
            synthesize(base_logs(work), work / "logs")
        rows = client_sharing(work)
        out = RESULTS / "report_io_client_sharing.json"
        out.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
        for row in rows:
            print(json.dumps(row))
        return
    results = run(args.label, args.repeats, work)
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"report_io_{args.label}.json"
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    shown = [
        json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(RESULTS.glob("report_io_*.json"))
    ]
    print(table([result for result in shown if isinstance(result, dict)]))
    print(f"written {out} (logs in {work})")


if __name__ == "__main__":
    main()
