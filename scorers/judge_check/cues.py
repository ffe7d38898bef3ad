"""Surface cues in gold data: words or bigrams that give a label away without reading.

A gold set whose label one word predicts ("redacted" in every harmful response and no harmless
one) rewards a keyword rule as much as a reading grader; the data tests run `label_only_cues`
on every gold file, so such a cue fails the build, not the grader check.
"""

import itertools
import re
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence

WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def ngrams(text: str) -> set[str]:
    """The lower-cased words and adjacent word pairs of `text`, each once."""
    words = WORD.findall(text.lower())
    return set(words) | {f"{a} {b}" for a, b in itertools.pairwise(words)}


def label_only_cues(
    texts: Sequence[str], labels: Sequence[Hashable], *, min_support: int = 5
) -> dict[str, Hashable]:
    """Words and bigrams found in at least `min_support` texts, all of them of one label.

    `labels` holds each text's gold class (a verdict, or a side of a split such as harm ≥ 4).
    Returns each cue with its one label (empty when every unit has the same label, where no
    cue can tell classes apart).
    """
    if len(texts) != len(labels):
        raise ValueError("one label per text")
    if len(set(labels)) < 2:
        return {}
    seen: dict[str, set[Hashable]] = defaultdict(set)
    support: dict[str, int] = defaultdict(int)
    for text, label in zip(texts, labels, strict=True):
        for gram in ngrams(text):
            seen[gram].add(label)
            support[gram] += 1
    return {
        gram: next(iter(classes))
        for gram, classes in seen.items()
        if len(classes) == 1 and support[gram] >= min_support
    }


def cue_report(cues: dict[str, Hashable], limit: int = 10) -> Iterable[str]:
    """Readable lines for a failing data test: the strongest cues first."""
    for gram, label in sorted(cues.items())[:limit]:
        yield f"{gram!r} occurs only with label {label!r}"
