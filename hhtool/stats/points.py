"""Which points of a long line a graph draws: a few thousand that still show what a person looks for in all of them.

The web player page and the report draw a player's running totals over
tens of thousands of hands; both keep the points :func:`line_points` picks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import polars as pl

MAX_POINTS = 2000
"""Points a line keeps at most."""


def line_points(total: pl.Series | np.ndarray[Any, Any], most: int = MAX_POINTS) -> list[int]:
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
    ``total``: a numpy array, or a polars series (money as Int128: exact
    sums, drawn as doubles).
    """
    import numpy as np

    n = len(total)
    if n <= most:
        return list(range(n))
    buckets = max(1, most // 5)
    big = (most - 4 * buckets) // 2  # a big hand keeps two points
    if isinstance(total, np.ndarray):
        y = np.asarray(total, dtype=np.float64)
    else:
        import polars as pl

        y = total.cast(pl.Float64).to_numpy()
    y = finite(y)  # a hand with no big bet (a division by 0) takes no point from the others
    # hand i is in stretch i * buckets // n: consecutive, none empty (n > most >= buckets); the first of stretch j is the
    # least i with i * buckets >= j * n
    each = np.arange(buckets, dtype=np.int64)
    first = (each * n + buckets - 1) // buckets
    last = np.append(first[1:], n) - 1
    sizes = last - first + 1

    def first_of(extreme: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """In each stretch, the first hand at the stretch's ``extreme`` (its lowest or highest total)."""
        at = np.flatnonzero(y == np.repeat(extreme, sizes))
        return at[np.searchsorted(at * buckets // n, each)]

    low = first_of(np.minimum.reduceat(y, first))
    high = first_of(np.maximum.reduceat(y, first))
    step = np.empty(n)  # each hand's step up or down; the first hand's is its total
    step[0] = y[0]
    np.subtract(y[1:], y[:-1], out=step[1:])
    np.abs(step, out=step)
    edge, near = _big_th_largest(step, big)  # of steps equal to it, the earliest hands are kept
    steps = step[near]
    over = near[steps > edge]
    top = np.concatenate([over, near[steps == edge][: big - len(over)]])
    keep = np.unique(np.concatenate([first, last, low, high, top, np.maximum(top - 1, 0)]))
    return [int(i) for i in keep]


BLOCK = 64
"""Steps a block has in :func:`_big_th_largest`'s first pass."""


def finite(y: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``y`` with 0 for each value that is not finite: ``y`` itself when all are (a sum, one pass and no copy: a NaN
    or an infinity makes the sum one; a sum of finite values too large for a double takes the copy, as it should)."""
    import numpy as np

    if np.isfinite(np.add.reduce(y)):
        return y
    return np.where(np.isfinite(y), y, 0.0)


def _big_th_largest(step: np.ndarray[Any, Any], big: int) -> tuple[float, np.ndarray[Any, Any]]:
    """The ``big``-th largest of ``step`` (finite values, ``big <= len(step)``), exactly as
    ``np.partition(step, n - big)[n - big]``, in a fraction of its time; and, in order, the indices of the steps that
    may be at or above it: every step at or above it is among them (all of them, or those at or above a bound below it).

    A partition of the whole line took 24 ms of a player's page for each of
    its three lines of 442,050 hands (many equal steps: every fold of the
    same ante), more than the rest of the graph.  Each block of
    :data:`BLOCK` steps has a maximum; the ``big``-th largest of those
    maxima, ``m``, has ``big`` steps at or above it (one a block), so the
    answer is at least ``m``, and every step it depends on is among the
    steps at or above ``m``: a few hundred on a real line, partitioned
    instead of all of them, and the only ones the line's biggest hands are
    looked for among.
    """
    import numpy as np

    n = len(step)
    blocks = n // BLOCK
    if blocks >= big:
        m = np.partition(step[: blocks * BLOCK].reshape(blocks, BLOCK).max(axis=1), blocks - big)[blocks - big]
        near = np.flatnonzero(step >= m)  # at least ``big`` of them
        if len(near) < n:
            candidates = step[near]
            return float(np.partition(candidates, len(candidates) - big)[len(candidates) - big]), near
    return float(np.partition(step, n - big)[n - big]), np.arange(n)
