"""Seeds that are stable across runs, processes and Python hash randomisation."""

import hashlib


def sample_seed(seed: int, sample_id: str | int) -> int:
    """A per-sample seed derived from the run's seed and the sample (or record) id."""
    digest = hashlib.sha256(f"{seed}:{sample_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")
