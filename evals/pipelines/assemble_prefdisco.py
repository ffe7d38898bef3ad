"""`prefdisco_profiles` logs -> the release layout, checked by the `prefdisco` loader.

Writes `<folder>/benchmark_1k/<source>/train.jsonl` (or the 5k layout): a metadata first line,
then one record per problem × persona, ordered by problem index and then by the order the
personas were assigned, with each persona's `usage_count` set to its records in the file.
Every record is checked by the loader (strict, and nothing may need a repair) with the log
and sample named; each file is written beside its destination, loaded again with the loader,
and only then moved into place.
"""

import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from heedbench.evals.pipelines.assemble_carryon import (
    BuildOutputError,
    jsonl_lines,
    left_out_lines,
    write_checked,
)
from heedbench.evals.pipelines.logs import BuiltSample, newest, read_build_samples
from heedbench.evals.prefdisco.dataset import (
    PrefDiscoDataError,
    Variant,
    parse_records,
    read_source,
    release_path,
)
from heedbench.markdown import table
from heedbench.solvers.pipelines.prefdisco_checks import with_usage

PROFILES_TASK = "prefdisco_profiles"


def _check(record: Mapping[str, Any], source: str, where: str) -> None:
    try:
        _, report = parse_records([(where, record)], source, strict=True)
    except PrefDiscoDataError as error:
        raise BuildOutputError(str(error)) from error
    if not report.clean:
        raise BuildOutputError(f"{where}: the loader would repair the record: {report.message()}")


def assemble_prefdisco(
    paths: Sequence[str],
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, dict[str, Any]], dict[str, str]]:
    """Per source: the records and the metadata line; and sample id -> why left out.

    Raises:
        BuildOutputError: a record the loader rejects or would repair, or two logs that
            drew different problems under one index.
    """
    chosen = newest(read_build_samples(paths, (PROFILES_TASK,)))
    by_source: dict[str, list[BuiltSample]] = defaultdict(list)
    left_out: dict[str, str] = {}
    for sample_id in sorted(chosen):
        sample = chosen[sample_id]
        record = (sample.product or {}).get("record")
        if sample.failure is not None or record is None:
            left_out[sample_id] = sample.failure or "no record"
            continue
        by_source[str(sample.metadata["source"])].append(sample)
    records: dict[str, list[dict[str, Any]]] = {}
    metadata: dict[str, dict[str, Any]] = {}
    for source, samples in sorted(by_source.items()):
        rows: dict[int, tuple[str, Any]] = {}
        for sample in samples:
            index = int(sample.metadata["index"])
            seen = rows.setdefault(index, (sample.log, sample.metadata["row"]))
            if seen[1] != sample.metadata["row"]:
                raise BuildOutputError(
                    f"{sample.log}: sample {sample.id!r}: problem {index} is another row than "
                    f"in {seen[0]}; assemble logs of one draw (same source, seed and problems)"
                )
            _check(sample.product["record"], source, f"{sample.log}: sample {sample.id!r}")  # type: ignore[index]
        ordered = sorted(samples, key=lambda s: (int(s.metadata["index"]), int(s.metadata["slot"])))
        records[source] = with_usage(s.product["record"] for s in ordered)  # type: ignore[index]
        metadata[source] = metadata_line(source, samples)
    return records, metadata, left_out


def metadata_line(source: str, samples: Sequence[BuiltSample]) -> dict[str, Any]:
    """The release's optional first line, with the build's generator models."""
    models = sorted({str((s.product or {}).get("generator", "")) for s in samples} - {""})
    return {
        "type": "metadata",
        "dataset": source,
        "general_preferences": [],
        "total_personas_in_library": max(int(s.metadata["library_size"]) for s in samples),
        "fixed_persona_library": True,
        "personas_per_problem": max(int(s.metadata["per_problem"]) for s in samples),
        "sample_size": len({int(s.metadata["index"]) for s in samples}),
        "multi_model_generation": len(models) > 1,
        "llm_clients": models,
        "build_logs": sorted({s.log for s in samples}),
    }


def write_prefdisco(
    records: Mapping[str, Sequence[Mapping[str, Any]]],
    metadata: Mapping[str, Mapping[str, Any]],
    out: Path,
    variant: Variant = "1k",
) -> list[Path]:
    """Write each source's file in the release layout under `out`, each only if it loads.

    Raises:
        BuildOutputError: a file would not load (the message names it and the record).
    """
    if not records:
        raise BuildOutputError(f"{out}: no built record to write")
    written: list[Path] = []
    for source, rows in records.items():
        try:
            target = out / release_path(source, variant)
        except PrefDiscoDataError as error:
            raise BuildOutputError(str(error)) from error

        def load(path: str, source: str = source, rows: Sequence[Any] = rows) -> None:
            _, report = read_source(source, variant, data=path, strict=True)
            if not report.clean or report.loaded != len(rows):
                raise PrefDiscoDataError(report.message())

        write_checked(target, jsonl_lines([metadata[source], *rows]), load, PrefDiscoDataError)
        written.append(target)
    return written


def prefdisco_card(
    records: Mapping[str, Sequence[Mapping[str, Any]]], left_out: Mapping[str, str]
) -> str:
    """Per source: records, problems, personas, dimensions and importance distributions."""
    lines = ["## Statistics", ""]
    header = ["source", "records", "problems", "personas", "dims/record min", "mean", "max",
              "expertise", "personal", "numeric values", "distinct names"]  # fmt: skip
    rows = []
    importance: Counter[int] = Counter()
    names: Counter[str] = Counter()
    for source, listed in records.items():
        prefs = [entry for r in listed for entry in r["persona_preferences"].values()]
        sizes = [len(r["persona_preferences"]) for r in listed]
        importance.update(int(entry["local_importance"]) for entry in prefs)
        names.update(r_name for r in listed for r_name in r["persona_preferences"])
        rows.append([
            source, len(listed),
            len({r["problem_id"].split("_")[1] for r in listed}),
            len({r["persona"]["id"] for r in listed}),
            min(sizes), f"{statistics.mean(sizes):.1f}", max(sizes),
            sum(e["type"] == "expertise" for e in prefs),
            sum(e["type"] == "personal" for e in prefs),
            sum(isinstance(e["value"], int) for e in prefs),
            len({name for r in listed for name in r["persona_preferences"]}),
        ])  # fmt: skip
    lines += table(header, rows)
    total = sum(importance.values())
    shares = [f"{100 * importance[k] / total:.1f} %" for k in range(1, 6)]
    lines += ["", *table(["local importance", *map(str, range(1, 6))], [["share", *shares]]), ""]
    lines += [
        "Most frequent dimensions: "
        + ", ".join(f"{name} ({count})" for name, count in names.most_common(10))
        + "."
    ]
    return "\n".join(lines + left_out_lines(left_out)) + "\n"
