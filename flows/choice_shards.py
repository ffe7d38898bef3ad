"""One `choice` run fanned out over shards: contexts split by sample id, one log folder.

One Inspect process tops out at about 150-175 model calls per second here (Inspect's per-call
work is CPU-bound), so a large run goes faster split over processes or machines. Each
invocation of this spec runs one shard, every `shards`-th context starting at `shard`:

    for k in 0 1 2 3; do
      flow run flows/choice_shards.py -A shard=$k -A shards=4 -A model=openai/gpt-4o-mini \
          -A log_dir=logs/choice-4x &
    done; wait
    heedbench report logs/choice-4x

Each shard writes to its own sub-folder, `<log_dir>/shard-<k>-of-<n>`: an Inspect eval set pairs
logs with tasks by an identifier that leaves sample ids out, so two shards of one task in one
folder would be taken for one task (the second would find the first's log and stop). Under one
root folder, local or object storage shared by several machines (s3://...), `heedbench report`
reads them as one run: shards combine, a sample held twice counts once, missing ones are listed.
Re-running a shard's command resumes it. The Flow store is off here, so parallel shards never
write the same store.

Arguments (`-A key=value`):
    shard: which shard this process runs, 0 to shards - 1 (required).
    shards: how many shards the run is split into (required).
    model: the evaluated model (required).
    log_dir: the root folder of every shard (default ./logs/choice-shards).
    anything else: a `choice` task argument, the same for every shard, e.g. -A method=pointwise
        -A n=10 (data, if given, also decides the contexts that are split).
"""

from typing import Any

from inspect_flow import FlowOptions, FlowSpec, FlowTask

from heedbench.evals.choice.dataset import choice_dataset
from heedbench.evals.choice.task import choice
from heedbench.prices import DEFAULT_PRICES
from heedbench.sweeps import log_folder, one, shard_ids, task_version


def choice_shards(
    *,
    shard: int | None = None,
    shards: int | None = None,
    model: str | None = None,
    log_dir: str | None = None,
    **task_args: Any,
) -> FlowSpec:
    """One shard of the run as a FlowSpec (see the module docstring for the arguments)."""
    if shard is None or shards is None:
        raise ValueError("pass -A shard=<k> -A shards=<n> (0 <= k < n)")
    contexts = [str(sample.id) for sample in choice_dataset(task_args.get("data"))]
    root = log_folder(log_dir, "choice-shards").rstrip("/")
    return FlowSpec(
        log_dir=f"{root}/shard-{int(shard)}-of-{int(shards)}",
        store=None,
        tasks=[
            FlowTask(
                name="heedbench/choice",
                factory=choice,
                version=task_version("choice"),
                args=task_args,
                model=one(model, "model"),
                sample_id=shard_ids(contexts, int(shard), int(shards)),
            )
        ],
        options=FlowOptions(model_cost_config=str(DEFAULT_PRICES), log_realtime=False),
    )
