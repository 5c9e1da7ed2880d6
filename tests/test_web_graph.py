"""The player page's winnings graph: a long line reduced to the points that draw it, each still naming its hand."""

from __future__ import annotations

import random

import numpy as np
import polars as pl
import pytest

from hhtool.stats.points import MAX_POINTS, line_points
from hhtool.web.player import winnings_traces


def walk(n: int, seed: int, big: dict[int, float] | None = None) -> list[float]:
    """A running total of ``n`` hands of small random steps, with the steps ``big`` (index: step) planted."""
    rng = random.Random(seed)
    total, out = 0.0, []
    for i in range(n):
        total += (big or {}).get(i, rng.uniform(-1.0, 1.0))
        out.append(total)
    return out


def test_a_short_line_keeps_every_point() -> None:
    for n in (0, 1, 2, MAX_POINTS):
        assert line_points(pl.Series(walk(n, 1))) == list(range(n))


@pytest.mark.parametrize("n", [MAX_POINTS + 1, 12_345, 200_000])
def test_a_long_line_keeps_its_ends_extremes_and_big_hands(n: int) -> None:
    planted = {n // 3: 400.0, n // 2: -900.0, n - 7: 250.0}
    y = walk(n, n, planted)
    kept = line_points(pl.Series(y))
    assert len(kept) <= MAX_POINTS
    assert kept == sorted(set(kept)) and kept[0] == 0 and kept[-1] == n - 1
    assert y.index(min(y)) in kept and y.index(max(y)) in kept
    for i in planted:  # each big hand and the point before it: the jump drawn as it was
        assert i in kept and i - 1 in kept
    buckets = MAX_POINTS // 5
    by_bucket: dict[int, list[int]] = {}
    for i in range(n):
        by_bucket.setdefault(i * buckets // n, []).append(i)
    assert len(by_bucket) == buckets
    for hands in by_bucket.values():  # every stretch of the line keeps its lowest and highest point, its first and last
        low, high = min(y[i] for i in hands), max(y[i] for i in hands)
        lows, highs = [i for i in hands if y[i] == low], [i for i in hands if y[i] == high]
        assert set(lows) & set(kept) and set(highs) & set(kept)
        assert hands[0] in kept and hands[-1] in kept


def test_each_kept_point_is_the_running_total_of_its_hand() -> None:
    n = 30_000
    rng = random.Random(7)
    steps = [rng.choice([0.0, 0.5, -0.5, 1.0, -1.0, 12.0, -20.0]) for _ in range(n)]
    showdown = [rng.random() < 0.3 for _ in range(n)]
    traces = winnings_traces(np.array([10 * i + 3 for i in range(n)]), np.array(steps), np.array(showdown))
    assert [t["name"] for t in traces] == ["showdown", "non-showdown", "net"]
    sums = {
        "showdown": [s if sd else 0.0 for s, sd in zip(steps, showdown)],
        "non-showdown": [0.0 if sd else s for s, sd in zip(steps, showdown)],
        "net": steps,
    }
    for t in traces:
        assert len(t["x"]) == len(t["y"]) == len(t["customdata"]) <= MAX_POINTS
        assert t["x"][0] == 1 and t["x"][-1] == n
        running, total = [], 0.0
        for s in sums[t["name"]]:
            total += s
            running.append(total)
        for x, y, key in zip(t["x"], t["y"], t["customdata"]):
            assert y == pytest.approx(round(running[x - 1], 2), abs=0.006)
            assert key == 10 * (x - 1) + 3  # the point names the hand it is the total after


def test_the_biggest_steps_are_found_as_a_partition_finds_them() -> None:
    """``_big_th_largest`` (a partition of the steps at or above a bound, not of every step) gives np.partition's value exactly,
    and the steps the line's biggest hands are looked for among hold every one at or above it."""
    from hhtool.stats.points import BLOCK, _big_th_largest

    rng = np.random.default_rng(18)
    for trial in range(600):
        n = int(rng.integers(1, 40 * BLOCK * 4))
        big = int(rng.integers(1, min(n, 300) + 1))
        kind = trial % 4
        if kind == 0:  # all different
            s = np.abs(rng.normal(size=n))
        elif kind == 1:  # a few values, many ties
            s = rng.integers(0, 5, size=n).astype(float)
        elif kind == 2:  # every step the same
            s = np.full(n, 0.5)
        else:  # most the same small step (a fold of the ante), a few big ones
            s = np.where(rng.random(n) < 0.8, 0.5, rng.exponential(3.0, size=n))
        edge, near = _big_th_largest(s, big)
        assert edge == np.partition(s, n - big)[n - big], (trial, n, big)
        # the indices it hands back: in order, and every step at or above the value among them
        assert np.all(np.diff(near) > 0) and set(np.flatnonzero(s >= edge).tolist()) <= set(near.tolist()), (trial, n, big)
