"""Where the shipped data lives, for both installed and editable (source checkout) layouts."""

import os
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def shipped_data_dir(family: str) -> Path:
    """The folder `datasets/<family>/` of the source tree, or its installed copy.

    A regular install copies `datasets/` to `heedbench/data/`; an editable install leaves it
    beside the package in the checkout.
    """
    candidates = (_PACKAGE_DIR / "data" / family, _PACKAGE_DIR.parent / "datasets" / family)
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"heedbench data for {family!r} not found; looked in "
        + ", ".join(str(c) for c in candidates)
    )


def cache_dir() -> Path:
    """Where results that the same inputs always give are kept between calls.

    `HEEDBENCH_CACHE_DIR`, else the user cache folder. The choice reference rows and the
    report's figures are kept here, each keyed by its inputs and the code that computes it,
    so a stale entry is never read.
    """
    found = os.environ.get("HEEDBENCH_CACHE_DIR")
    if found:
        return Path(found)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "heedbench"
