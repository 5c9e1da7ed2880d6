"""A player's hands as arrays (``hhtool.stats.series``): the sessions walked by numpy against a walk hand by hand."""

from __future__ import annotations

import datetime as dt
import random
from fractions import Fraction

import numpy as np
import polars as pl

from hhtool.stats.compute import name_key, sessions
from hhtool.stats.series import EPOCH, NO_TIME, HandSeries, Session, frame_series, session_list

MINUTE = 60_000_000  # microseconds


def reference(rows: list[tuple[int, int, int, int, int]], groups: list[tuple[str, str | None, str | None]], gap: int) -> list[Session]:
    """Sessions the plain way: (key, time, group, net, big bet) rows in time order, a group's hands one after another."""
    out = []
    for g, (player, currency, unit) in enumerate(groups):
        mine = [r for r in rows if r[2] == g]
        runs: list[list[tuple[int, int, int, int, int]]] = []
        for r in mine:
            prev = runs[-1][-1] if runs else None
            if prev is None or (r[1] != NO_TIME and prev[1] != NO_TIME and r[1] - prev[1] > gap * MINUTE):
                runs.append([r])
            else:
                runs[-1].append(r)
        for number, run in enumerate(runs, start=1):
            times = [r[1] for r in run if r[1] != NO_TIME]
            total = sum((Fraction(r[3], r[4]) for r in run if r[4]), Fraction(0))

            def when(us: int) -> dt.datetime:
                return EPOCH + dt.timedelta(microseconds=us)

            out.append(Session(player, currency, unit, number, when(min(times)) if times else None, when(max(times)) if times else None,
                               len(run), sum(r[3] for r in run), float(round(total, 2))))
    return out


def series(rows: list[tuple[int, int, int, int, int]], groups: list[tuple[str, str | None, str | None]]) -> HandSeries:
    return HandSeries(
        hand_key=np.array([r[0] for r in rows], dtype=np.int64),
        started_at=np.array([r[1] for r in rows], dtype=np.int64),
        group=np.array([r[2] for r in rows], dtype=np.int64),
        groups=groups,
        net=np.array([r[3] for r in rows], dtype=np.int64),
        showdown=np.zeros(len(rows), dtype=bool),
        big_bets=np.array([r[3] / r[4] if r[4] else float("nan") for r in rows], dtype=np.float64),
        big_bet=np.array([r[4] for r in rows], dtype=np.int64),
    )


SIZES = ([200], [0, 2, 200, 25, 400], [100, 200], [0, 400])
"""The big bets a test's hands draw from: one stake, many, two at once (alternating hand by hand), one and hands without."""


def test_the_sessions_are_those_of_a_walk_hand_by_hand() -> None:
    groups: list[tuple[str, str | None, str | None]] = [("bob", "€", "cent"), ("bob", "$", "cent"), ("Ännchen", None, "chip")]
    for seed in range(80):
        rng = random.Random(seed)
        t, rows = 1_800_000_000 * 10**6, []
        for k in range(rng.choice([1, 2, 7, 300])):
            t += rng.choice([0, MINUTE, 30 * MINUTE, 30 * MINUTE + 1, 90 * MINUTE])  # at the limit, one past it
            when = NO_TIME if rng.random() < 0.05 else t
            rows.append((k, when, rng.randrange(len(groups)), rng.randint(-10**6, 10**6), rng.choice(SIZES[seed % 4])))
        rows.sort(key=lambda r: (r[1], r[0]))
        got = session_list(series(rows, groups))
        want = sorted(reference(rows, groups, 30), key=lambda s: (name_key(s.player), s.start is not None, s.start or EPOCH, s.session))
        assert got == want, seed


def test_nets_past_64_bits_are_summed_exactly() -> None:
    big = 2**62
    rows = [(k, 1_800_000_000 * 10**6 + k * MINUTE, 0, big, big) for k in range(4)]
    (one,) = session_list(series(rows, [("bob", "€", "cent")]))
    assert one.net == 4 * big and one.hands == 4 and one.big_bets == 4.0


def test_big_bets_are_the_exact_sum_rounded_half_to_even() -> None:
    """-65.85 over a big bet of 2.00 is -32.925 exactly: half to even, -32.92, whichever side of it a sum of doubles lands."""
    nets = [-5] * 1317  # 1,317 hands of -0.05 at 2.00: -65.85
    rows = [(k, 1_800_000_000 * 10**6 + k * MINUTE, 0, net, 200) for k, net in enumerate(nets)]
    (one,) = session_list(series(rows, [("bob", "€", "cent")]))
    assert one.net == -6585 and one.big_bets == -32.92


def test_a_frame_gives_the_same_sessions_as_its_arrays() -> None:
    start = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    frame = pl.DataFrame(
        {
            "hand_key": [3, 1, 2, 4],
            "player": ["bob", "bob", "carol", "bob"],
            "started_at": [start + dt.timedelta(minutes=m) for m in (10, 0, 5, 100)],
            "currency": ["€", "€", None, "€"],
            "unit": ["cent", "cent", "chip", "cent"],
            "net": [5, -3, 7, 11],
            "went_to_showdown": [True, False, None, True],
            "big_bets": [0.5, None, 0.25, 1.0],
            "big_bet": [10, None, 28, 11],
        },
        schema_overrides={"started_at": pl.Datetime("us", "UTC")},
    )
    s = frame_series(frame)
    assert sorted(s.groups) == [("bob", "€", "cent"), ("carol", None, "chip")]
    table = sessions(frame)
    assert table.select("player", "currency", "session", "hands", "net").rows() == [
        ("bob", "€", 1, 2, 2), ("bob", "€", 2, 1, 11), ("carol", None, 1, 1, 7)
    ]
    assert table["start"].dtype == frame["started_at"].dtype and table["start"][0] == start


def test_the_money_index_numbers_each_row_as_its_place_among_the_monies() -> None:
    """``money_index`` (a constant, the currency alone, or both columns) numbers a row by its (currency, unit) in the list."""
    import itertools

    import duckdb

    from hhtool.stats.series import money_index

    kinds = [("€", "cent"), ("$", "cent"), ("", "chip"), (None, "chip"), ("€", "euro"), (None, None), ("£", None)]
    con = duckdb.connect()
    for size in (1, 2, 3, 4):
        for monies in itertools.permutations(kinds, size):
            rows = [m for m in monies for _ in range(2)]
            con.execute("CREATE OR REPLACE TABLE h (currency VARCHAR, unit VARCHAR, k INTEGER)")
            con.executemany("INSERT INTO h VALUES (?, ?, ?)", [(c, u, i) for i, (c, u) in enumerate(rows)])
            sql, params = money_index(list(monies))
            got = [g for (g,) in con.execute(f"SELECT {sql} FROM h ORDER BY k", params).fetchall()]
            assert got == [list(monies).index(m) for m in rows], monies
