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

from hhtool.stats.accounts import accounts_where
from hhtool.stats.filters import Filters, hands_where, scope, totals_scope
from hhtool.store.totals import PLAYER_HANDS, PLAYER_TOTALS, current

if TYPE_CHECKING:
    import duckdb
    import polars as pl


def load_per_hand(
    con: duckdb.DuckDBPyConnection, f: Filters, players: list[str], accounts: dict[str, tuple[tuple[str, str], ...]] | None = None, *,
    from_seats: bool = False, every: bool = False,
) -> pl.DataFrame:
    """One row per hand and row key of ``players`` in scope: the money of the hand, in no particular order.

    ``players`` are a result's row keys, ``accounts`` their accounts
    (:attr:`~hhtool.stats.result.StatsResult.accounts`; without it each
    key is read as an account's, ``NAME@SITE`` or a bare name): a person's
    rows are their accounts' hands, each labelled with the person.
    ``net`` is in the hand's minor unit of its ``currency``/``unit``;
    ``big_bets`` is net over the hand's big bet (the winnings graph's unit),
    ``allin_big_bets`` the all-in adjusted net over it (docs/stats.md),
    ``big_bet`` the big bet itself (the sessions' big bets, summed exactly).
    Read from ``player_hands`` where it holds exactly the stored hands (the
    players' own rows, a few row groups each: :mod:`hhtool.store.totals`),
    else (and with ``from_seats``) from the seats joined to the hands.
    ``every``: ``players`` are every account in scope (no player filter, no
    minimum of hands), so the rows need no condition on the accounts (a
    report of 95 accounts' 5.6 million rows: a comparison a row saved).
    """
    import polars as pl

    picks = key_picks(players, accounts)
    every_account = every
    columns = [
        "{s}.hand_key", "{s}.player", "{h}.site", "{h}.started_at", "{h}.currency", "{h}.unit", "{s}.net", "{s}.went_to_showdown",
        "{s}.net / {h}.big_bet AS big_bets", "coalesce({s}.allin_net, {s}.net) / {h}.big_bet AS allin_big_bets", "{h}.big_bet",
    ]
    order = ["hand_key", "player", "site", "started_at", "currency", "unit", "net", "went_to_showdown", "big_bets", "allin_big_bets", "big_bet"]

    def select(s: str, h: str, drop: tuple[str, ...] = ()) -> str:
        return ", ".join(c.format(s=s, h=h) for c in columns if c.format(s=s, h=h) not in drop)

    wanted = list(dict.fromkeys(p for ps in picks.values() for p in ps))
    if not from_seats and (not f.players or set(wanted) <= set(f.picks())) and current(con, PLAYER_HANDS):
        # the named players' hands are their own rows: the filters read the hands' columns the table keeps
        where, params = hands_where(f)
        who, names = ("TRUE", []) if every_account else accounts_where("h.player", "h.site", wanted)
        kinds = _money_kinds(con, f, wanted)
        if kinds is None:
            d = pl.DataFrame(
                con.sql(f"SELECT {select('h', 'h')} FROM {PLAYER_HANDS.name} h WHERE {where} AND {who}", params=params + names)
            )
        else:
            # a query an account and money, numbers only: a name, a site, a currency and a unit each once, not once a hand
            parts = [
                pl.DataFrame(
                    con.sql(
                        f"SELECT {select('h', 'h', ('h.player', 'h.site', 'h.currency', 'h.unit'))} FROM {PLAYER_HANDS.name} h "
                        f"WHERE {where} AND h.player = ? AND h.site = ? "
                        "AND h.currency IS NOT DISTINCT FROM ? AND h.unit IS NOT DISTINCT FROM ?",
                        params=[*params, player, site, currency, unit],
                    )
                ).with_columns(player=pl.lit(player, pl.String), site=pl.lit(site, pl.String), currency=pl.lit(currency, pl.String),
                               unit=pl.lit(unit, pl.String))
                for player, site, currency, unit in kinds
            ]
            d = pl.concat([x.select(order) for x in parts]) if parts else pl.DataFrame(
                con.sql(f"SELECT {select('h', 'h')} FROM {PLAYER_HANDS.name} h WHERE FALSE")
            )
        return labelled(d, picks)
    hand_where, hand_params, seat_where, seat_params = scope(f, None if every_account else wanted)
    return labelled(pl.DataFrame(
        con.sql(
            f"""
            SELECT {select('s', 'h')}
            FROM seats s JOIN hands h USING (hand_key)
            WHERE {hand_where} AND {seat_where}
            """,
            params=hand_params + seat_params,
        )
    ), picks)


def key_picks(players: list[str], accounts: dict[str, tuple[tuple[str, str], ...]] | None) -> dict[str, list[tuple[str | None, str]]]:
    """Each key's accounts ((site or None for every site, name)): ``accounts``' own, else the key read as an account's."""
    from hhtool.stats.accounts import picks_of

    out: dict[str, list[tuple[str | None, str]]] = {}
    for p in players:
        got = (accounts or {}).get(p)
        out[p] = [(s, n) for s, n in got] if got is not None else picks_of([p])
    return out


def labelled(d: pl.DataFrame, picks: dict[str, list[tuple[str | None, str]]]) -> pl.DataFrame:
    """The accounts' rows of ``d`` (its ``player`` and ``site``) as their keys' rows: ``player`` the key, once per key they count under."""
    import polars as pl

    exact = [(s, n, k) for k, ps in picks.items() for s, n in ps if s is not None]
    anywhere = [(n, k) for k, ps in picks.items() for s, n in ps if s is None]
    if all(k == n for _, n, k in exact) and all(k == n for n, k in anywhere) and len({n for _, n, _ in exact} | {n for n, _ in anywhere}) == len(exact) + len(anywhere):
        return d.drop("site")  # every key its account's own name, once: the rows as they are
    parts = []
    if exact:
        m = pl.DataFrame({"site": [s for s, _, _ in exact], "player": [n for _, n, _ in exact], "key": [k for _, _, k in exact]},
                         schema={"site": pl.String, "player": pl.String, "key": pl.String})
        parts.append(d.join(m, on=["site", "player"], how="inner"))
    if anywhere:
        m = pl.DataFrame({"player": [n for n, _ in anywhere], "key": [k for _, k in anywhere]}, schema={"player": pl.String, "key": pl.String})
        parts.append(d.join(m, on="player", how="inner"))
    out = pl.concat(parts) if parts else d.clear().with_columns(key=pl.lit(None, pl.String))
    return out.with_columns(player=pl.col("key")).drop("key", "site")


def _money_kinds(
    con: duckdb.DuckDBPyConnection, f: Filters, picks: list[tuple[str | None, str]], most: int = 16
) -> list[tuple[str, str, str | None, str | None]] | None:
    """Each (player, site, currency, unit) of ``picks`` with a hand in scope, from their totals; None where those are not current or many."""
    from hhtool.stats.accounts import accounts_where

    if f.tags or not current(con, PLAYER_TOTALS):  # a tag is a condition on each hand: not in the hourly sums
        return None
    where, params = totals_scope(replace(f, players=()))
    who, names = accounts_where("h.player", "h.site", picks)
    rows = con.execute(
        f"SELECT h.player, h.site, h.currency, h.unit FROM {PLAYER_TOTALS.name} h WHERE {where} AND {who} GROUP BY ALL "
        "HAVING sum(h.hands) > 0 ORDER BY ALL",
        params + names,
    ).fetchall()
    return None if len(rows) > most else [(str(p), str(s), c, u) for p, s, c, u in rows]
