"""Which points of a long line a graph draws: a few thousand that still show what a person looks for in all of them.

The web player page and the report draw a player's running totals over
tens of thousands of hands; both keep the points :func:`line_points` picks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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
    Of equal steps the earlier hand is kept.
    """
    import numpy as np
    import polars as pl

    n = total.len()
    if n <= most:
        return list(range(n))
    buckets = max(1, most // 5)
    big = (most - 4 * buckets) // 2  # a big hand keeps two points
    # in numpy, a few passes over the line (polars' group_by took 0.1 s of CPU for 900,000 points, and a
    # player page or the report draws several lines); money's exact Int128 totals are only compared here
    y = total.cast(pl.Float64).to_numpy()
    first = -(-np.arange(buckets, dtype=np.int64) * n // buckets)  # hand i is in bucket i * buckets // n
    last = np.append(first[1:], n) - 1
    keep = {0, n - 1, *first.tolist(), *last.tolist()}
    sizes = np.diff(np.append(first, n))
    for extreme in (np.minimum, np.maximum):
        at = np.flatnonzero(y == np.repeat(extreme.reduceat(y, first), sizes))  # each bucket's hands at its extreme
        keep.update(at[np.unique(at * buckets // n, return_index=True)[1]].tolist())  # the first of them in each bucket
    step = np.abs(np.diff(y, prepend=0.0))
    if big > 0:
        edge = np.partition(step, n - big)[n - big]  # the big-th largest step
        above = np.flatnonzero(step > edge)
        ties = np.flatnonzero(step == edge)[: big - above.size]  # of equal steps, the earlier hands
        for i in (*above.tolist(), *ties.tolist()):
            keep.update((i, max(0, i - 1)))
    return sorted(int(i) for i in keep)
