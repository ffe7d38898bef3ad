"""Ben-Util arithmetic over the checklist items each assistant turn fulfilled.

`turns[t]` is the set of checklist item ids that the assistant's response t fulfilled.
"""

from collections.abc import Collection, Sequence


def _check_items(n_items: int) -> None:
    if n_items < 1:
        raise ValueError(f"a checklist has at least one item, got n_items={n_items}")


def turn_utility(turns: Sequence[Collection[str]], n_items: int) -> list[float]:
    """U_t: the share of checklist items response t fulfils on its own."""
    _check_items(n_items)
    return [len(set(fulfilled)) / n_items for fulfilled in turns]


def cumulative_utility(turns: Sequence[Collection[str]], n_items: int) -> list[float]:
    """C_t: the share of checklist items fulfilled by any response up to and including t."""
    _check_items(n_items)
    seen: set[str] = set()
    return [len(seen := seen | set(fulfilled)) / n_items for fulfilled in turns]


def redundancy(turns: Sequence[Collection[str]]) -> list[float | None]:
    """R_t: the share of items fulfilled at t that an earlier response had already fulfilled.

    None where undefined: the first turn (nothing came before) and turns that fulfil nothing.
    """
    seen: set[str] = set()
    series: list[float | None] = []
    for index, fulfilled in enumerate(turns):
        current = set(fulfilled)
        if index == 0 or not current:
            series.append(None)
        else:
            series.append(len(current & seen) / len(current))
        seen |= current
    return series
