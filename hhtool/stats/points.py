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
    import polars as pl

    n = total.len()
    if n <= most:
        return list(range(n))
    buckets = max(1, most // 5)
    big = (most - 4 * buckets) // 2  # a big hand keeps two points
    d = pl.DataFrame({"y": total}).with_row_index("i").with_columns(
        b=pl.col("i") * buckets // n,
        step=pl.col("y").diff().fill_null(pl.col("y").first()).abs(),
        earlier=-pl.col("i").cast(pl.Int64),
    )
    ends = d.group_by("b").agg(
        pl.col("i").first().alias("first"),
        pl.col("i").last().alias("last"),
        pl.col("i").get(pl.col("y").arg_min()).alias("low"),
        pl.col("i").get(pl.col("y").arg_max()).alias("high"),
    )
    keep = set(ends.select(pl.concat_list("first", "last", "low", "high").explode()).to_series().to_list())
    for i in d.top_k(big, by=["step", "earlier"])["i"].to_list():
        keep.update((i, max(0, i - 1)))
    return sorted(int(i) for i in keep)
