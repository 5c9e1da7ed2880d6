"""Player statistics over the hand database: counts of actions over counts of opportunities, for every player at once.

The run (:func:`compute`, :func:`compute_on`): the players named checked,
then one query -- over ``player_totals`` where it counts exactly the
stored hands, else over the seats (:mod:`hhtool.stats.sql`) -- and its few
rows made into the result (:mod:`hhtool.stats.result`).  The rest of the
statistics stands in modules of its own: the table of statistics
(:mod:`hhtool.stats.definitions`), the filters and their WHERE clauses
(:mod:`hhtool.stats.filters`), the order of names and monies
(:mod:`hhtool.stats.order`), the per-hand frames
(:mod:`hhtool.stats.per_hand`) and the sessions (:mod:`hhtool.stats.series`).
The names their callers use are importable from here too (``__all__``), so
that the CLI, the server and the library ask one module for the statistics.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from hhtool.stats.accounts import accounts_where, keys_of, resolve
from hhtool.stats.definitions import MONEY_KEYS, RATES, RATIO_KINDS, STATS, Ratio, StatDef
from hhtool.stats.filters import Filters, UnknownPlayerError, check_players, scope
from hhtool.stats.order import name_key
from hhtool.stats.per_hand import load_per_hand
from hhtool.stats.playtime import load_play_time
from hhtool.stats.result import StatsResult, make_result
from hhtool.stats.series import sessions
from hhtool.stats.sql import by_keys, from_totals, money_sql, rate_numerators, rate_units_sql, stats_sql
from hhtool.store.db import connect
from hhtool.store.totals import PLAYER_TOTALS, current

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "MONEY_KEYS", "RATES", "RATIO_KINDS", "STATS", "Filters", "Ratio", "StatDef", "StatsResult", "UnknownPlayerError",
    "check_players", "compute", "compute_on", "load_per_hand", "name_key", "scope", "sessions",
]


def compute(db: str | Path, filters: Filters | None = None, *, play_time: bool = False, gap_minutes: int = 30) -> StatsResult:
    """Every statistic for every player (or ``filters.players``) on a read-only connection.

    ``play_time``: with each player's sessions and time played
    (:mod:`hhtool.stats.playtime`, a new session after ``gap_minutes``
    without a hand), a walk of every hand in time order that the sums do not need.
    """
    con = connect(db, read_only=True)
    try:
        result = compute_on(con, filters, db if isinstance(db, Path) else Path(db), play_time=play_time, gap_minutes=gap_minutes)
        result.left_out = left_out(con, result.filters)
        return result
    finally:
        con.close()


def only_tagged(con: duckdb.DuckDBPyConnection, keys: dict[tuple[str, str], list[str]], tags: tuple[str, ...]) -> dict[tuple[str, str], list[str]]:
    """``keys`` (each account's row keys) of the accounts with any of ``tags`` only: the others are in no row."""
    from hhtool.stats.notes import tagged_accounts

    tagged = tagged_accounts(con, tags)
    return {a: k for a, k in keys.items() if a in tagged}


def left_out(con: duckdb.DuckDBPyConnection, f: Filters) -> int:
    """How many hands the other filters select that ``f.verdicts`` leaves out: what the text's footer says was not counted."""
    if not f.left_out:
        return 0
    where, params, _, _ = scope(replace(f, verdicts=f.left_out))
    (n,) = con.execute(f"SELECT count(*) FROM hands h WHERE {where}", params).fetchall()[0]
    return int(n)


def compute_on(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, db: Path | None = None, *, from_seats: bool = False,
    derived: frozenset[str] | None = None, known: bool = False, play_time: bool = False, gap_minutes: int = 30,
) -> StatsResult:
    """Every statistic for every player (or ``filters.players``) on an open connection.

    Summed from ``player_totals`` where it counts exactly the stored hands
    (:func:`~hhtool.store.totals.current`), else from the seats;
    ``from_seats``: from the seats always (the reference the totals are
    held to; a Parquet dataset has no totals and always is).  ``derived``:
    the derived tables known current (:func:`~hhtool.store.totals.current_tables`; None: look).
    ``known``: ``filters.players`` were found by :func:`check_players` already
    (the server keeps that answer: a name once in stays; the check is a pass
    over ``player_totals``, 6 ms of a cold page).  ``play_time``, ``gap_minutes``: as :func:`compute`'s.
    """
    f = filters or Filters()
    totals = not from_seats and current(con, PLAYER_TOTALS, derived)
    if f.players and f.resolved is None:  # what the names select: accounts, a person's (docs/stats.md, "Players and accounts")
        f = replace(f, resolved=check_players(con, f.players, totals) if not known else resolve(con, f.players, totals)[0])
    if totals and not f.tags:  # the sums kept at import (hhtool.store.totals): a few rows a player, the same figures
        rows = from_totals(con, f)
    else:
        hand_where, hand_params, seat_where, seat_params = scope(f)
        # the placeholders in the order each query has them: hs, (rk,) sp
        t = con.execute(stats_sql(hand_where, seat_where), hand_params + seat_params).fetchall()
        units = rate_numerators(con.execute(rate_units_sql(hand_where, seat_where), hand_params + seat_params).fetchall())
        named, named_params = accounts_where("x.player", "x.site", f.picks()) if f.players else ("TRUE", [])
        m = con.execute(money_sql(hand_where, seat_where, named), hand_params + named_params + seat_params).fetchall()
        rows = (t, units, m)
    keys = keys_of(con, [(str(r[1]), str(r[0])) for r in rows[0]], f.resolved if f.players else None, totals)
    if f.player_tags:  # the tagged accounts' rows only (docs/study.md, "Tags on players")
        keys = only_tagged(con, keys, f.player_tags)
    (t, exact, money), members = by_keys(rows, keys, f.min_hands)
    result = make_result(t, exact, money, f, db, members)
    if play_time:
        result.play_time = load_play_time(con, f, result.accounts, gap_minutes, from_seats=from_seats, derived=derived)
    return result
