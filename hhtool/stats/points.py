"""Which points of a long line a graph draws: a few thousand that still show what a person looks for in all of them.

The web player page and the report draw a player's running totals over
tens of thousands of hands; both keep the points :func:`line_points` picks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

MAX_POINTS = 2000
"""Points a line keeps at most."""


def line_points(total: pl.Series, most: int = MAX_POINTS) -> list[int]:
    """Indices of at most ``most`` points of a running total that draw the line a person sees in all of them.

    A graph of 100,000 points reads no better than one of 2,000, and costs
    a second to send and draw; but evenly spaced points drop what a player
    looks for: the deepest downswing, the best run, the one big pot.  So the
    line is cut into ``most // 5`` buckets of consecutive hands, each keeping
    its first and last point (the line stays whole) and its lowest and
    highest (no peak or trough is lost), and the biggest single hands of the
    whole line (the largest steps, up or down) keep their point and the one
    before it, so that each shows as the jump it was.  The first and the
    last point are always kept; with ``most`` points or fewer, every one.
    Of equal steps the earlier hand is kept.  A few passes of numpy over
    the line (a player's page draws three lines of up to all their hands).
    """
    import numpy as np
    import polars as pl

    n = total.len()
    if n <= most:
        return list(range(n))
    buckets = max(1, most // 5)
    big = (most - 4 * buckets) // 2  # a big hand keeps two points
    y = total.cast(pl.Float64).to_numpy()
    y = np.where(np.isfinite(y), y, 0.0)  # a hand with no big bet (a division by 0) takes no point from the others
    b = np.arange(n, dtype=np.int64) * buckets // n  # each hand's stretch: consecutive, none empty (n > most >= buckets)
    each = np.arange(buckets)
    first = np.searchsorted(b, each)
    last = np.append(first[1:], n) - 1

    def first_of(hit: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """In each stretch, the first hand where ``hit`` holds (it holds somewhere in each)."""
        at = np.flatnonzero(hit)
        return at[np.searchsorted(b[at], each)]

    low = first_of(y == np.minimum.reduceat(y, first)[b])
    high = first_of(y == np.maximum.reduceat(y, first)[b])
    step = np.abs(np.diff(y, prepend=0.0))  # the first hand's step is its total
    edge = np.partition(step, n - big)[n - big]  # the big-th largest step; of equal ones, the earliest hands
    over = np.flatnonzero(step > edge)
    top = np.concatenate([over, np.flatnonzero(step == edge)[: big - len(over)]])
    keep = np.unique(np.concatenate([first, last, low, high, top, np.maximum(top - 1, 0)]))
    return [int(i) for i in keep]
