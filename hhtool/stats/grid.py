"""The players grid: one row per player with the figures a player scans first, the same in ``serve`` and the report.

A tracker's first screen is a grid of players: hands, net won, win rate,
VPIP, completion, steal, aggression, went to showdown, won at showdown.
Both ``/players`` (:mod:`hhtool.web.grid`) and the report's "Players"
section show this grid, so its columns, their values and their order live
here once:

* the net is one column per currency present (never one currency added to
  another), in minor units, shown in that currency's notation;
* every other figure is a statistic of :data:`~hhtool.stats.definitions.STATS`,
  its exact fraction (:func:`~hhtool.stats.render.exact_value`), shown as
  ``hhtool stats`` shows it (:func:`~hhtool.stats.render.fmt_value`:
  rounded half to even, ``-`` without opportunity);
* sorting by a column compares the exact values of that column only; a
  player without a value there (no hand in that currency, no opportunity)
  sorts after every player with one, whichever the direction; ties go by
  name (:func:`~hhtool.stats.order.name_key`).

A grid is made from a :class:`~hhtool.stats.result.StatsResult` (the
report, and the server where ``player_totals`` is not current:
:func:`grid_from_result`) or from ``player_totals`` in one grouped query
(:func:`grid_from_totals`, the server's way: every player of a million
hands in a few milliseconds).  Both give the same rows
(``tests/test_players_grid.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from hhtool.history.currency import Currency, currency_of, format_money
from hhtool.stats.definitions import RATES, STATS, StatDef
from hhtool.stats.filters import Filters, totals_scope
from hhtool.stats.order import currency_rank, name_key
from hhtool.stats.render import exact_value, fmt_value
from hhtool.stats.sql import stat_parts
from hhtool.store.totals import PLAYER_TOTALS

if TYPE_CHECKING:
    import duckdb

    from hhtool.stats.result import StatsResult

GRID_STATS: tuple[str, ...] = ("bb100", "vpip", "complete", "steal", "af", "wtsd", "wsd")
"""The statistics of the grid after the hands and the nets, in their order (keys of :data:`~hhtool.stats.definitions.STATS`)."""

SHORT: dict[str, str] = {
    "bb100": "BB/100",
    "vpip": "VPIP",
    "complete": "compl.",
    "steal": "steal",
    "af": "AF",
    "wtsd": "WTSD",
    "wsd": "W$SD",
}
"""Each grid statistic's heading: short, so that the grid fits a screen; its full label is the heading's tooltip."""

_DEFS: dict[str, StatDef] = {s.key: s for s in STATS}
_NET = re.compile(r"net_([A-Za-z]{3}|chips)")


def _needed() -> tuple[str, ...]:
    """The counts a grid row holds: each grid statistic's actions and opportunities (or its rate's hands)."""
    out: list[str] = ["hands"]
    for key in GRID_STATS:
        out += [RATES[key][1]] if key in RATES else [f"{key}_n", f"{key}_d"]
    return tuple(out)


NEEDED = _needed()


@dataclass(frozen=True, slots=True)
class GridColumn:
    """A column of the grid: its sort key (``?sort=``), heading, tooltip and whether its values are numbers."""

    key: str
    heading: str
    title: str
    currency: Currency | None = None


@dataclass(frozen=True, slots=True)
class Cell:
    """One figure of the grid: as shown, its detail (counts, on hover) and its exact value (None: nothing to show)."""

    text: str
    detail: str
    value: Fraction | int | None


@dataclass(frozen=True, slots=True)
class GridRow:
    """One player's row: the counts of :data:`NEEDED` (with ``bb_n_exact``), and their net and hands per currency."""

    player: str
    counts: dict[str, Any]
    net: dict[Currency, int]
    money_hands: dict[Currency, int]

    @property
    def hands(self) -> int:
        return int(self.counts["hands"])

    def cell(self, column: GridColumn) -> Cell:
        """This row's figure in ``column``."""
        if column.key == "player":
            return Cell(self.player, "", None)
        if column.key == "hands":
            return Cell(f"{self.hands:,}", "", self.hands)
        if column.currency is not None:
            cur = column.currency
            if cur not in self.net:
                return Cell("-", f"no {'chip' if cur.chips else cur.name} hand", None)
            n = self.money_hands[cur]
            return Cell(format_money(self.net[cur], cur), f"over {n:,} hand{'s' if n != 1 else ''}", self.net[cur])
        s = _DEFS[column.key]
        text, detail = fmt_value(s, self.counts)
        return Cell(text, detail, exact_value(s, self.counts))


@dataclass(frozen=True, slots=True)
class Grid:
    """Every player's row (in name order) and the currencies present, euro, dollar, pound first, chips last."""

    rows: list[GridRow]
    currencies: list[Currency]

    def columns(self) -> list[GridColumn]:
        """player, hands, a net per currency, then :data:`GRID_STATS`."""
        out = [GridColumn("player", "player", "the player's name"), GridColumn("hands", "hands", "hands dealt in")]
        for cur in self.currencies:
            out.append(GridColumn(net_key(cur), f"net {cur.name}", f"net won in {cur.name} hands (never added to another money)", cur))
        out += [GridColumn(key, SHORT[key], _DEFS[key].label) for key in GRID_STATS]
        return out

    def column(self, key: str) -> GridColumn | None:
        """The column of sort key ``key``; a ``net_CODE`` of a currency absent here is a column no player has a value in."""
        for c in self.columns():
            if c.key == key:
                return c
        m = _NET.fullmatch(key)
        if m is not None:
            code = m.group(1)
            return GridColumn(key, key, "", Currency(code if code == "chips" else code.upper(), "", 0 if code == "chips" else 2))
        return None

    def sort_keys(self) -> list[str]:
        return [c.key for c in self.columns()]

    def sorted(self, key: str = "hands", descending: bool = True) -> list[GridRow]:
        """The rows by column ``key``: exact values compared within the column; no value last either way; ties by name."""
        column = self.column(key)
        if column is None:
            raise KeyError(key)
        by_name = sorted(self.rows, key=lambda r: name_key(r.player))
        if key == "player":
            return by_name[::-1] if descending else by_name
        cells = [(r, r.cell(column).value) for r in by_name]
        have = [(r, v) for r, v in cells if v is not None]
        have.sort(key=lambda rv: rv[1], reverse=descending)  # stable: equal values keep the names' order
        return [r for r, _ in have] + [r for r, v in cells if v is None]


def net_key(cur: Currency) -> str:
    """A currency's net column's sort key: ``net_EUR``, ``net_USD``, ``net_chips``."""
    return f"net_{cur.code}"


def grid_from_result(result: StatsResult) -> Grid:
    """The grid of a statistics' result (``hhtool stats``' figures, whichever query summed them)."""
    rows = []
    for r in result.table.to_dicts():
        player = str(r["player"])
        counts = {k: r[k] for k in NEEDED}
        counts["bb_n_exact"] = r["bb_n_exact"]
        money = result.money_of(player)
        rows.append(GridRow(player, counts, {c: f["net"] for c, f in money.items()}, {c: f["hands"] for c, f in money.items()}))
    return Grid(sorted(rows, key=lambda g: name_key(g.player)), result.currencies())


def grid_sql(where: str) -> str:
    """Every account's grid counts from ``player_totals h`` in scope, a row per account, money and big bet (few an account).

    DuckDB adds up the table's rows (137,400 for a million hands); Python
    only the few rows a player left (the win rate's exact numerator is a
    sum of fractions, one per size of the big bet).  Placeholders: ``where``'s.
    """
    parts = dict(stat_parts())
    sums = ", ".join(f"sum({' + '.join(f'h.{p}' for p in parts[name])})::BIGINT AS {name}" for name in NEEDED)
    return f"""
    SELECT h.player, h.site, h.currency, h.unit, h.big_bet, {sums}, sum(h.net)::HUGEINT AS net
    FROM {PLAYER_TOTALS.name} h
    WHERE {where}
    GROUP BY ALL
    """


def grid_from_totals(con: duckdb.DuckDBPyConnection, f: Filters) -> Grid:
    """The grid of the players in scope of ``f`` from ``player_totals`` (which must hold every stored hand:
    :func:`~hhtool.store.totals.current`); the same rows as :func:`grid_from_result` of the statistics: a row per
    account, or per person for their accounts (docs/stats.md, "Players and accounts")."""
    from dataclasses import replace

    from hhtool.stats.accounts import keys_of, resolve

    if f.players and f.resolved is None:
        f = replace(f, resolved=resolve(con, f.players, True)[0])
    where, params = totals_scope(f)
    rows = con.execute(grid_sql(where), params).fetchall()
    keys = keys_of(con, [(str(r[1]), str(r[0])) for r in rows], f.resolved if f.players else None, True)
    if f.player_tags:  # the tagged accounts' rows only, as compute_on's
        from hhtool.stats.compute import only_tagged

        keys = only_tagged(con, keys, f.player_tags)
    n = len(NEEDED)
    counts: dict[str, list[int]] = {}
    bb_n: dict[str, Fraction] = {}
    net: dict[str, dict[Currency, int]] = {}
    money_hands: dict[str, dict[Currency, int]] = {}
    for r in rows:
        values = [int(v or 0) for v in r[5 : 5 + n]]
        hands, big_bet, won = values[0], r[4], int(r[5 + n] or 0)
        for player in keys.get((str(r[1]), str(r[0])), ()):
            got = counts.get(player)
            counts[player] = values if got is None else [a + b for a, b in zip(got, values)]
            if big_bet is not None and big_bet > 0:
                bb_n[player] = bb_n.get(player, Fraction(0)) + Fraction(won, int(big_bet))
            if hands:
                cur = currency_of(r[2], r[3])
                mine = net.setdefault(player, {})
                mine[cur] = mine.get(cur, 0) + won
                mh = money_hands.setdefault(player, {})
                mh[cur] = mh.get(cur, 0) + hands
    out = []
    currencies: set[Currency] = set()
    for player, values in counts.items():
        c: dict[str, Any] = dict(zip(NEEDED, values))
        if c["hands"] <= 0 or c["hands"] < f.min_hands:
            continue
        exact = bb_n.get(player, Fraction(0))
        c["bb_n_exact"] = f"{exact.numerator}/{exact.denominator}"
        monies = dict(sorted(net.get(player, {}).items(), key=lambda kv: currency_rank(kv[0])))
        currencies |= set(monies)
        out.append(GridRow(player, c, monies, {cur: money_hands[player][cur] for cur in monies}))
    return Grid(sorted(out, key=lambda g: name_key(g.player)), sorted(currencies, key=currency_rank))
