"""Time played: each player's sessions, hours at the tables and winnings per hour, per money (docs/stats.md, "Sessions").

The sessions are :func:`hhtool.stats.series.session_list`'s (a new one
after ``gap_minutes`` without a hand of the same player and money); a
session lasts from its first hand's start to its last hand's start, plus
:data:`HAND_SECONDS` for that last hand, whose end no history writes.  So
a session of one hand lasts a minute, not nothing, and no rate per hour is
ever a division by zero.

Only the sessions' count and length are needed per (player, money), not
the sessions themselves: the length of a money's sessions is the sum of
the gaps between consecutive hands that are not over the limit, plus one
:data:`HAND_SECONDS` a session.  One window query computes that for every
player at once (:func:`load_play_time`), without a hand reaching Python;
it is read only when asked for (``hhtool stats`` detail, CSV and JSON, the
grid's time columns, the Python API), since the statistics are sums and
this is a walk of every hand in time order.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from hhtool.history.currency import currency_of
from hhtool.stats.filters import Filters, hands_where, scope
from hhtool.store.totals import PLAYER_HANDS, current

if TYPE_CHECKING:
    import duckdb
    import polars as pl

HAND_SECONDS = 60
"""What a session's last hand adds to its length: a hand's end is in no history, and a session of one hand was still
played.  A minute: about what a Telesina hand takes online (one that ends on 2nd street less, five streets and a vela
more; the simulator deals one every 25 to 240 seconds), and short enough that a few short sessions do not count time
nobody played."""

US_PER_HOUR = 3_600_000_000

PLAY_COLUMNS = ("sessions", "played_us")
"""The frame's figures per (player, currency, unit): how many sessions, and their length in microseconds (exact)."""


def play_time_sql(where: str, table: str, gap_minutes: int) -> str:
    """Each account's (player, site) sessions per money (currency, unit) and their length in microseconds, of the rows
    of ``table`` matching ``where``.

    ``d`` is the time since the same player's previous hand in the same
    money (NULL for the first, or where a start is not known: such a hand
    joins the session it comes in, as in :func:`~hhtool.stats.series.session_list`,
    whose order -- unknown starts first, then time, then the hand -- this
    follows); a ``d`` over the gap starts a session, the others add to one.
    """
    gap = int(gap_minutes) * 60_000_000
    return f"""
        SELECT player, site, currency, unit, 1 + count(*) FILTER (WHERE d > {gap}) AS sessions,
               coalesce(sum(d) FILTER (WHERE d <= {gap}), 0)::BIGINT AS span_us
        FROM (
            SELECT {table}.player, h.site, h.currency, h.unit,
                   epoch_us(h.started_at) - lag(epoch_us(h.started_at)) OVER (
                       PARTITION BY {table}.player, h.site, h.currency, h.unit ORDER BY h.started_at ASC NULLS FIRST, h.hand_key
                   ) AS d
            {where}
        )
        GROUP BY ALL
    """


def load_play_time(
    con: duckdb.DuckDBPyConnection, f: Filters, accounts: dict[str, tuple[tuple[str, str], ...]], gap_minutes: int = 30, *,
    from_seats: bool = False, derived: frozenset[str] | None = None,
) -> pl.DataFrame:
    """A row per row key of ``accounts`` (a result's :attr:`~hhtool.stats.result.StatsResult.accounts`) and money
    played in scope of ``f``: ``player`` (the key), ``currency`` (ISO code), ``unit``, ``sessions``, ``played_us``
    (the sessions' length, :data:`HAND_SECONDS` included).

    Sessions are an account's each (a person's time is the sum of their
    accounts', as it is of their monies').  From ``player_hands`` where it
    holds exactly the stored hands (a player's rows together, already
    nearly in time order), else (and with ``from_seats``) from the seats
    joined to the hands.  Every account at once when ``f`` names none (the
    others are dropped here: the result's ``--min-hands``).
    """
    import polars as pl

    from hhtool.stats.accounts import accounts_where

    key_of = {account: key for key, members in accounts.items() for account in members}
    params: list[Any]
    if not from_seats and current(con, PLAYER_HANDS, derived):
        where, params = hands_where(f)
        if f.players:
            who, named = accounts_where("h.player", "h.site", [(site, name) for site, name in key_of])
            where, params = f"{where} AND {who}", params + named
        body, table = f"FROM {PLAYER_HANDS.name} h WHERE {where}", "h"
    else:
        hand_where, hand_params, seat_where, seat_params = scope(f)
        body, table = f"FROM seats s JOIN hands h USING (hand_key) WHERE {hand_where} AND {seat_where}", "s"
        params = hand_params + seat_params
    rows = con.execute(play_time_sql(body, table, gap_minutes), params).fetchall()
    kept = [(key_of[(str(s), str(p))], currency_of(c, u).code, u, int(n), int(span) + int(n) * HAND_SECONDS * 1_000_000)
            for p, s, c, u, n, span in rows if (str(s), str(p)) in key_of]
    kept.sort(key=lambda r: (r[0], r[1], r[2] or ""))
    return pl.DataFrame(
        kept, orient="row",
        schema={"player": pl.String, "currency": pl.String, "unit": pl.String, "sessions": pl.Int64, "played_us": pl.Int64},
    )


def hours(played_us: int) -> Fraction:
    """Microseconds as hours, exactly."""
    return Fraction(played_us, US_PER_HOUR)


def per_hour(amount: int | Fraction, played_us: int) -> Fraction | None:
    """``amount`` (minor units, or big bets) per hour of ``played_us``, exactly; None without time played."""
    return None if played_us <= 0 else Fraction(amount) * US_PER_HOUR / played_us


def duration_text(played_us: int | Fraction) -> str:
    """A length as a person reads it, to the minute (rounded half to even): ``45 min``, ``3 h 05 min``, ``1,204 h 00 min``."""
    minutes = round(Fraction(played_us, 60_000_000))
    h, m = divmod(minutes, 60)
    return f"{m} min" if h == 0 else f"{h:,} h {m:02d} min"
