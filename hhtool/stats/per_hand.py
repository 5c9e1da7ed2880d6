"""Per-hand frames: one row per hand and player in scope, with the money of the hand, for the report's graph and sessions.

Not part of the statistics, which are sums: read only when asked for
(:attr:`hhtool.stats.result.StatsResult.per_hand`, the report), because on
a large database it is millions of rows that the statistics never need.
The player's page walks the same hands as arrays instead
(:func:`hhtool.stats.series.player_series`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from hhtool.stats.filters import Filters, hands_where, one_of, scope, totals_scope
from hhtool.store.totals import PLAYER_HANDS, PLAYER_TOTALS, current

if TYPE_CHECKING:
    import duckdb
    import polars as pl


def load_per_hand(con: duckdb.DuckDBPyConnection, f: Filters, players: list[str], *, from_seats: bool = False) -> pl.DataFrame:
    """One row per hand and player of ``players`` in scope: the money of the hand, in no particular order.

    ``net`` is in the hand's minor unit of its ``currency``/``unit``;
    ``big_bets`` is net over the hand's big bet (the winnings graph's unit),
    ``allin_big_bets`` the all-in adjusted net over it (docs/stats.md),
    ``big_bet`` the big bet itself (the sessions' big bets, summed exactly).
    Read from ``player_hands`` where it holds exactly the stored hands (the
    players' own rows, a few row groups each: :mod:`hhtool.store.totals`),
    else (and with ``from_seats``) from the seats joined to the hands.
    """
    import polars as pl

    columns = [
        "{s}.hand_key", "{s}.player", "{h}.started_at", "{h}.currency", "{h}.unit", "{s}.net", "{s}.went_to_showdown",
        "{s}.net / {h}.big_bet AS big_bets", "coalesce({s}.allin_net, {s}.net) / {h}.big_bet AS allin_big_bets", "{h}.big_bet",
    ]

    def select(s: str, h: str, drop: tuple[str, ...] = ()) -> str:
        return ", ".join(c.format(s=s, h=h) for c in columns if c.format(s=s, h=h) not in drop)

    if not from_seats and (not f.players or set(players) <= set(f.players)) and current(con, PLAYER_HANDS):
        # the named players' hands are their own rows: the filters read the hands' columns the table keeps
        where, params = hands_where(f)
        who, names = one_of("h.player", players)
        kinds = _money_kinds(con, f, players)
        if kinds is None:
            return pl.DataFrame(
                con.sql(f"SELECT {select('h', 'h')} FROM {PLAYER_HANDS.name} h WHERE {where} AND {who}", params=params + names)
            )
        # a query a player and money, numbers only: a name, a currency and a unit each once, not once a hand
        parts = [
            pl.DataFrame(
                con.sql(
                    f"SELECT {select('h', 'h', ('h.player', 'h.currency', 'h.unit'))} FROM {PLAYER_HANDS.name} h WHERE {where} AND h.player = ? "
                    "AND h.currency IS NOT DISTINCT FROM ? AND h.unit IS NOT DISTINCT FROM ?",
                    params=[*params, player, currency, unit],
                )
            ).with_columns(player=pl.lit(player, pl.String), currency=pl.lit(currency, pl.String), unit=pl.lit(unit, pl.String))
            for player, currency, unit in kinds
        ]
        order = ["hand_key", "player", "started_at", "currency", "unit", "net", "went_to_showdown", "big_bets", "allin_big_bets", "big_bet"]
        return pl.concat([d.select(order) for d in parts]) if parts else pl.DataFrame(
            con.sql(f"SELECT {select('h', 'h')} FROM {PLAYER_HANDS.name} h WHERE FALSE")
        )
    hand_where, hand_params, seat_where, seat_params = scope(f, players)
    return pl.DataFrame(
        con.sql(
            f"""
            SELECT {select('s', 'h')}
            FROM seats s JOIN hands h USING (hand_key)
            WHERE {hand_where} AND {seat_where}
            """,
            params=hand_params + seat_params,
        )
    )


def _money_kinds(con: duckdb.DuckDBPyConnection, f: Filters, players: list[str], most: int = 16) -> list[tuple[str, str | None, str | None]] | None:
    """Each (player, currency, unit) of ``players`` with a hand in scope, from their totals; None where those are not current or many."""
    if not current(con, PLAYER_TOTALS):
        return None
    where, params = totals_scope(replace(f, players=tuple(players)))
    rows = con.execute(
        f"SELECT h.player, h.currency, h.unit FROM {PLAYER_TOTALS.name} h WHERE {where} GROUP BY ALL HAVING sum(h.hands) > 0 ORDER BY ALL",
        params,
    ).fetchall()
    return None if len(rows) > most else [(str(p), c, u) for p, c, u in rows]
