"""`heedbench build carryon|prefdisco LOG... -o OUT`: build logs -> a dataset the task loads.

Its parser is in `heedbench.report.cli`, with the other `heedbench` commands.

- `heedbench build carryon LOG... -o queries.jsonl` reads `carryon_checklist` logs and
  writes the queries file, plus `queries.card.md` with the distributions.
- `heedbench build prefdisco LOG... -o folder/` reads `prefdisco_profiles` logs and writes
  `folder/benchmark_1k/<source>/train.jsonl` (and `card.md` beside it).

Nothing is written when a record would not load: the message names the log (or file), the
record and the field. Items that failed in the build (a blocked call, an unreadable reply) or
errored (run `inspect eval-retry` on the log) are listed and left out; `--strict` refuses
to write while any is left out.
"""

import argparse
import sys
from typing import cast

from heedbench.evals.pipelines.assemble_carryon import (
    BuildOutputError,
    assemble_carryon,
    carryon_card,
    write_carryon,
)
from heedbench.evals.pipelines.assemble_prefdisco import (
    assemble_prefdisco,
    prefdisco_card,
    write_prefdisco,
)
from heedbench.evals.pipelines.logs import BuildLogError
from heedbench.evals.prefdisco.dataset import Variant


def _left_out(left_out: dict[str, str], strict: bool) -> None:
    for item, reason in sorted(left_out.items()):
        print(f"left out {item}: {reason}", file=sys.stderr)
    if left_out and strict:
        raise BuildOutputError(
            f"{len(left_out)} items are not built (--strict); rerun them with "
            "`inspect eval-retry LOG` or drop --strict"
        )


def run_build(args: argparse.Namespace) -> int:
    """Run `heedbench build`; 1 with a message naming what is wrong when nothing is written."""
    try:
        if args.pipeline == "carryon":
            records, left_out = assemble_carryon(args.logs)
            _left_out(left_out, args.strict)
            write_carryon(records, args.output)
            card = carryon_card(records, left_out)
            card_path = args.output.with_name(args.output.stem + ".card.md")
            card_path.write_text(card)
            print(card)
            print(f"wrote {len(records)} queries to {args.output} (card: {card_path})")
            return 0
        by_source, metadata, left_out = assemble_prefdisco(args.logs)
        _left_out(left_out, args.strict)
        written = write_prefdisco(by_source, metadata, args.output, cast(Variant, args.variant))
        card = prefdisco_card(by_source, left_out)
        for path in written:
            (path.parent / "card.md").write_text(card)
        print(card)
        for path, (source, rows) in zip(written, by_source.items(), strict=True):
            print(f"wrote {len(rows)} {source} records to {path}")
        return 0
    except (BuildOutputError, BuildLogError) as error:
        print(f"heedbench build: {error}", file=sys.stderr)
        return 1
