"""Player statistics over the hand database: counts of actions over counts of opportunities.

Every flag is decided per hand and player, as ``docs/stats.md`` defines
them, when the hand is imported (:mod:`hhtool.store.flags`, stored on the
``seats`` rows), and summed per player here inside DuckDB, in one query
(:func:`stats_sql`); only the per-player totals travel to Python, a few
rows a player, made into the result's frames once (:func:`_result`).  A
statistic with no opportunity is ``None`` and shows as ``-``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hhtool.history.currency import Currency, currency_of
from hhtool.store.db import StoreError, connect
from hhtool.store.flags import RATIO_FLAGS, STREETS
from hhtool.store.totals import MONEY_COUNTERS, PLAYER_HANDS, PLAYER_TOTALS, RAKE_SHARE_SQL, SEAT_COUNTERS, current

if TYPE_CHECKING:
    import duckdb
    import polars as pl


@dataclass(frozen=True)
class Filters:
    """Which hands and players count.  Every value goes to DuckDB as a parameter."""

    players: tuple[str, ...] = ()
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    sites: tuple[str, ...] = ()
    profiles: tuple[str, ...] = ()
    structures: tuple[str, ...] = ()
    max_seats: tuple[int, ...] = ()
    min_hands: int = 0
    stakes: tuple[tuple[str, str], ...] = ()  # (small, big) as written: "0.50", "1.00" or "200", "400"
    day_start_hour: int = 0  # hands before this hour (UTC) count to the day before


@dataclass(frozen=True)
class Ratio:
    """``actions`` out of ``opportunities``; ``value`` is None when there was no opportunity."""

    actions: float
    opportunities: int

    @property
    def value(self) -> float | None:
        return None if self.opportunities == 0 else self.actions / self.opportunities


@dataclass(frozen=True)
class StatDef:
    key: str
    label: str
    kind: str  # "pct" (ratio shown as %), "ratio" (plain number), "money", "count", "rate"


# (key, label, kind): ratio stats have per-player columns f"{key}_n" and f"{key}_d".
STATS: tuple[StatDef, ...] = (
    StatDef("hands", "hands", "count"),
    StatDef("net", "net won", "money"),
    StatDef("sd_net", "showdown winnings", "money"),
    StatDef("nsd_net", "non-showdown winnings", "money"),
    StatDef("allin_net", "all-in adjusted winnings", "money"),
    StatDef("luck", "all-in luck (net - adjusted)", "money"),
    StatDef("rake", "rake paid", "money"),
    StatDef("bb100", "big bets/100 hands", "rate"),
    StatDef("bbl100", "big blinds/100 (blind games)", "rate"),
    StatDef("ante100", "antes/100 (ante games)", "rate"),
    StatDef("vpip", "VPIP (2nd street)", "pct"),
    StatDef("complete", "completed the bring-in", "pct"),
    StatDef("raise2", "2nd-street raise", "pct"),
    StatDef("steal", "steal (late completion)", "pct"),
    StatDef("bi_fold_steal", "bring-in folds to a steal", "pct"),
    StatDef("saw_3rd", "saw 3rd street", "pct"),
    StatDef("saw_4th", "saw 4th street", "pct"),
    StatDef("saw_5th", "saw 5th street", "pct"),
    StatDef("saw_vela", "saw the vela", "pct"),
    StatDef("af", "aggression factor", "ratio"),
    StatDef("afq", "aggression frequency", "pct"),
    StatDef("fold_to_bet", "fold to a bet", "pct"),
    StatDef("wtsd", "went to showdown (of saw 3rd)", "pct"),
    StatDef("wsd", "won money at showdown", "pct"),
    StatDef("wwsf", "won when saw 3rd street", "pct"),
)
RATIO_KINDS = ("pct", "ratio")
MONEY_KEYS = tuple(s.key for s in STATS if s.kind == "money")
RATES = {"bb100": ("bb_n", "bb_d"), "bbl100": ("bl_n", "bl_d"), "ante100": ("an_n", "an_d")}
"""Each win rate's numerator (net in forced-bet units) and denominator (the hands where that unit applies).

The numerator is summed exactly (:func:`rate_numerators`): column ``bb_n``
holds it as a float, ``bb_n_exact`` as the fraction ``"N/D"``, so that the
same hands give the same figures whatever order an engine sums them in."""

RATE_UNITS = {"bb_n": 1, "bl_n": 2, "an_n": 3}
"""Each win rate's unit: its column in :func:`rate_units_sql`'s rows (big bet, big blind, ante)."""


def name_key(name: str) -> tuple[str, str]:
    """The order a person expects names in: case and accents ignored (``Ännchen`` with the As), then as written."""
    import unicodedata

    plain = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    return (plain.casefold(), name)


@dataclass
class StatsResult:
    """Per-player totals (``table``), their money per currency (``money``) and per-street aggression (``by_street``).

    ``table`` has a row per player, in the order a person expects names
    (:func:`name_key`); ``money`` a row per player and currency with the
    exact sums in minor units (``net``, ``sd_net``, ``nsd_net``, ``rake``):
    amounts of different currencies are never added.

    ``per_hand`` (one row per hand and player, with the money of the hand)
    is not part of the statistics: it is read from the database only when
    asked for (the report's graph and sessions), because on a large
    database it is millions of rows that the statistics never need.
    """

    table: pl.DataFrame
    by_street: pl.DataFrame
    money: pl.DataFrame
    filters: Filters = field(default_factory=Filters)
    db: Path | None = None

    def currencies(self) -> list[Currency]:
        """Every currency of the hands in scope, euro, dollar, pound first, chips last."""
        return sorted({currency_of(c, u) for c, u in self.money.select("currency", "unit").unique().iter_rows()}, key=currency_rank)

    def money_of(self, player: str) -> dict[Currency, dict[str, int]]:
        """The player's money figures per currency: ``{Currency: {"hands": n, "net": minor units, ...}}``."""
        out: dict[Currency, dict[str, int]] = {}
        for r in self._money_rows.get(player, ()):
            out[currency_of(r["currency"], r["unit"])] = {k: int(r[k]) for k in ("hands", *MONEY_KEYS)}
        return dict(sorted(out.items(), key=lambda kv: currency_rank(kv[0])))

    def players(self) -> list[str]:
        return [str(p) for p in self.table["player"].to_list()]

    def row(self, player: str) -> dict[str, Any]:
        got = self._rows.get(player)
        if got is None:
            raise KeyError(player)
        return dict(got)

    @cached_property
    def _rows(self) -> dict[str, dict[str, Any]]:
        """Each player's row of ``table``, read out of the frame once: a page asks for its player's a dozen times
        (the figures, the heading), and a filter of the frame costs more than the dictionary."""
        return {str(r["player"]): r for r in self.table.to_dicts()}

    @cached_property
    def _money_rows(self) -> dict[str, list[dict[str, Any]]]:
        """Each player's rows of ``money``, in the frame's order, read out of it once (as :attr:`_rows`)."""
        out: dict[str, list[dict[str, Any]]] = {}
        for r in self.money.to_dicts():
            out.setdefault(str(r["player"]), []).append(r)
        return out

    def ratio(self, player: str, key: str) -> Ratio:
        r = self.row(player)
        return Ratio(float(r[f"{key}_n"]), int(r[f"{key}_d"]))

    @cached_property
    def per_hand(self) -> pl.DataFrame:
        """hand_key, player, started_at, net, went_to_showdown, big_bets, allin_big_bets, big_bet of every hand of ``players()``."""
        if self.db is None:
            raise ValueError("this result has no database to read its hands from")
        con = connect(self.db, read_only=True)
        try:
            return load_per_hand(con, self.filters, self.players())
        finally:
            con.close()


def hands_where(f: Filters, hours: bool = False) -> tuple[str, list[Any]]:
    """A WHERE clause on ``hands h`` with placeholders, and its parameters.

    ``hours``: on ``player_totals h`` instead (:mod:`hhtool.store.totals`),
    whose rows have the hands' columns but for ``started_at``, whose UTC
    hour they keep (a day starts on an hour, so the range is the same).
    """
    parts: list[str] = []
    params: list[Any] = []

    def any_of(column: str, values: tuple[Any, ...]) -> None:
        if values:
            parts.append(f"{column} IN ({', '.join('?' for _ in values)})")
            params.extend(values)

    any_of("h.site", f.sites)
    any_of("h.profile", f.profiles)
    any_of("h.structure", f.structures)
    any_of("h.max_seats", f.max_seats)
    if f.stakes:
        alternatives = []
        for small, big in f.stakes:
            # "0.50/1.00" is in cents; "200/400" is chips, or whole currency units stored as cents
            if "." in small or "." in big:
                alternatives.append("(h.small_bet = ? AND h.big_bet = ?)")
                params.extend([round(float(small) * 100), round(float(big) * 100)])
            else:
                alternatives.append("((h.small_bet = ? AND h.big_bet = ?) OR (h.small_bet = ? AND h.big_bet = ?))")
                params.extend([int(small), int(big), int(small) * 100, int(big) * 100])
        parts.append("(" + " OR ".join(alternatives) + ")")
    # A hand's day is the UTC date of its start less day_start_hour hours: the days from/to are a range of
    # started_at, compared as it is stored, so that DuckDB skips the row groups outside it (their min and max)
    since = "h.hour" if hours else "h.started_at"
    for day, op in ((f.date_from, ">="), (None if f.date_to is None else f.date_to + dt.timedelta(days=1), "<")):
        if day is not None:
            start = _day_start(day, f.day_start_hour)
            parts.append(f"{since} {op} ?")
            params.append(int(start.timestamp()) // 3600 if hours else start)
    return (" AND ".join(parts) or "TRUE"), params


def _day_start(day: dt.date, hour: int) -> dt.datetime:
    """When ``day`` starts, for days that start at ``hour`` UTC."""
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc) + dt.timedelta(hours=hour)


def scope(f: Filters, players: list[str] | None = None) -> tuple[str, list[Any], str, list[Any]]:
    """The hands and seats that count: a condition on ``hands h`` and its parameters, one on ``seats s`` and its.

    ``f.players`` (named by the user, usually few) narrows the hands read
    to theirs; ``players`` (the ones a result kept) narrows only the seats.
    """
    where, params = hands_where(f)
    if f.players:
        where += " AND h.hand_key IN (SELECT hand_key FROM seats WHERE dealt_in AND list_contains(?::VARCHAR[], player))"
        params = params + [list(f.players)]
    names = list(f.players) if players is None else players
    if players is None and not names:
        return where, params, "s.dealt_in", []
    return where, params, "s.dealt_in AND list_contains(?::VARCHAR[], s.player)", [names]


def _stat_parts() -> list[tuple[str, tuple[str, ...]]]:
    """Each column of the statistics' table, in :func:`stats_sql`'s order, as the counts
    (:data:`~hhtool.store.totals.SEAT_COUNTERS`) it adds up: most are one count, a few another's or a sum of some."""
    direct = {name for name, _ in SEAT_COUNTERS}
    derived: dict[str, tuple[str, ...]] = {
        **{f"saw_{st}_d": ("hands",) for st in STREETS[1:]},  # of hands dealt in
        "wtsd_d": ("saw_3rd_n",),
        "wwsf_d": ("saw_3rd_n",),
        "fold_to_bet_n": tuple(f"ftb_n_{st}" for st in STREETS),
        "fold_to_bet_d": tuple(f"ftb_d_{st}" for st in STREETS),
        "afq_n": ("af_n",),
    }
    order = [
        "hands", "bb_d", "bl_d", "an_d",
        *(f"saw_{st}_n" for st in STREETS[1:]), *(f"saw_{st}_d" for st in STREETS[1:]),
        "wtsd_n", "wtsd_d", "wsd_n", "wsd_d", "wwsf_n", "wwsf_d",
        *(f"{key}_{end}" for key in RATIO_FLAGS for end in ("n", "d")),
        "fold_to_bet_n", "fold_to_bet_d", "af_n", "af_d", "afq_d",
        *(f"{c}_{st}" for st in STREETS for c in ("aggr", "calls", "folds", "ftb_n", "ftb_d")),
        "afq_n",
    ]
    assert direct <= set(order) and set(order) == direct | set(derived)
    return [(name, (name,) if name in direct else derived[name]) for name in order]


def _stat_columns() -> list[str]:
    """The statistics' columns from their counts in SQL, as :func:`stats_sql` gives them."""
    return [name if parts == (name,) else f"({' + '.join(parts)})::BIGINT AS {name}" for name, parts in _stat_parts()]


def stats_sql(hand_where: str, seat_where: str) -> str:
    """The one query behind :func:`compute`: a row per player, every statistic's actions and opportunities.

    Every flag of docs/stats.md was decided per hand and player when the
    hand was imported (:mod:`hhtool.store.flags`, stored on ``seats``), so
    a statistic is a sum over the seats in scope: one pass over one table,
    joined to the hands only for the filters and the win rates' units
    (net over the big bet, the big blind, the ante, each over the hands
    that have one).  The counts are :data:`~hhtool.store.totals.SEAT_COUNTERS`,
    the ones ``player_totals`` keeps summed (:func:`totals_sql`).
    Money per currency is :func:`money_sql`'s.
    Placeholders, in order: ``hand_where``'s, ``seat_where``'s, ``min_hands``.
    """
    counts = ", ".join(f"({sql})::BIGINT AS {name}" for name, sql in SEAT_COUNTERS)
    return f"""
    WITH hs AS (
        SELECT h.hand_key, h.big_bet, h.big_blind, h.ante
        FROM hands h WHERE {hand_where}
    ),
    sp AS (
        SELECT s.player, {counts}
        FROM seats s JOIN hs USING (hand_key)
        WHERE {seat_where}
        GROUP BY s.player
        HAVING count(*) >= ?
    )
    SELECT player, {', '.join(_stat_columns())}
    FROM sp
    """


def rate_units_sql(hand_where: str, seat_where: str) -> str:
    """Each player's net summed exactly (HUGEINT) per combination of forced bets: the win rates' numerators, as fractions.

    A win rate adds each hand's net over its big bet (big blind, ante); a
    sum of doubles depends on the order of its terms, which the engine
    chooses (a database and a Parquet dataset of the same hands could print
    3.57 and 3.58).  The nets are summed per size of the unit instead, a
    few rows per player, and :func:`rate_numerators` adds the fractions.
    Placeholders: ``hand_where``'s, ``seat_where``'s.
    """
    return f"""
    WITH hs AS (
        SELECT h.hand_key, h.big_bet, h.big_blind, h.ante
        FROM hands h WHERE {hand_where}
    )
    SELECT s.player, hs.big_bet, hs.big_blind, hs.ante, sum(s.net)::HUGEINT AS net
    FROM seats s JOIN hs USING (hand_key)
    WHERE {seat_where}
    GROUP BY s.player, hs.big_bet, hs.big_blind, hs.ante
    """


def rate_numerators(rows: list[tuple[Any, ...]]) -> dict[str, dict[str, Fraction]]:
    """Each player's win rates' numerators (``bb_n``, ``bl_n``, ``an_n``: net in units of the forced bet), exact."""
    out: dict[str, dict[str, Fraction]] = {}
    for row in rows:
        mine = out.setdefault(str(row[0]), {key: Fraction(0) for key in RATE_UNITS})
        for key, column in RATE_UNITS.items():
            unit = row[column]
            if unit is not None and unit > 0:
                mine[key] += Fraction(int(row[4]), int(unit))
    return out


def money_sql(hand_where: str, seat_where: str, named: bool = False) -> str:
    """Each player's money per currency: exact sums in minor units, never one currency added to another.

    Sums are HUGEINT (128 bits): no stored amount can make them overflow.
    ``allin_net`` sums the all-in adjusted nets (a row imported before the
    column counts its ``net``), ``luck`` the nets less them (docs/stats.md).
    The rake a player paid is each pot's rake shared among its winners in
    proportion to their shares, rounded half up to the minor unit per pot,
    in integers (a double would lose cents on large pots).
    Placeholders: ``hand_where``'s, the player list of ``rk`` (when
    ``named``), ``seat_where``'s, ``min_hands``.
    """
    player_cond = "list_contains(?::VARCHAR[], x.player)" if named else "TRUE"
    money = ", ".join(f"{sql} AS {name}" for name, sql in MONEY_COUNTERS)
    return f"""
    WITH hs AS (SELECT h.hand_key, h.currency, h.unit FROM hands h WHERE {hand_where}),
    out AS (SELECT s.hand_key, s.player FROM seats s JOIN hs USING (hand_key) WHERE NOT s.dealt_in),
    rk AS (
        SELECT player, currency, unit, sum(share)::HUGEINT AS rake
        FROM (
            SELECT p.hand_key, hs.currency, hs.unit, u.w AS player, {RAKE_SHARE_SQL} AS share
            FROM pots p JOIN hs USING (hand_key), LATERAL (SELECT unnest(p.winners) AS w, unnest(p.shares) AS s) u
        ) x
        ANTI JOIN out ON out.hand_key = x.hand_key AND out.player = x.player
        WHERE {player_cond}
        GROUP BY ALL
    ),
    sm AS (
        SELECT s.player, hs.currency, hs.unit, count(*) AS hands, {money}
        FROM seats s JOIN hs USING (hand_key)
        WHERE {seat_where}
        GROUP BY ALL
    )
    SELECT sm.*, coalesce(rk.rake, 0)::HUGEINT AS rake
    FROM sm LEFT JOIN rk USING (player, currency, unit)
    WHERE sm.player IN (SELECT s.player FROM seats s JOIN hs USING (hand_key) WHERE {seat_where} GROUP BY s.player HAVING count(*) >= ?)
    """


def totals_sql(where: str) -> str:
    """Every count and money sum of ``player_totals h`` in scope, a row per player, money and forced bets: what
    :func:`stats_sql`, :func:`rate_units_sql` and :func:`money_sql` give from the seats, from these few rows
    (:func:`_from_totals`).  Placeholders: ``where``'s."""
    counts = ", ".join(f"sum(h.{name})::BIGINT AS {name}" for name, _ in SEAT_COUNTERS)
    money = ", ".join(f"sum(h.{name})::HUGEINT AS {name}" for name, _ in (*MONEY_COUNTERS, ("rake", "")))
    return f"""
    SELECT h.player, h.currency, h.unit, h.big_bet, h.big_blind, h.ante, {counts}, {money}
    FROM {PLAYER_TOTALS.name} h
    WHERE {where}
    GROUP BY ALL
    """


def _from_totals(con: duckdb.DuckDBPyConnection, f: Filters) -> tuple[list[tuple[Any, ...]], dict[str, dict[str, Fraction]], list[tuple[Any, ...]]]:
    """The statistics' rows (before their win rates), the win rates' exact numerators and the money rows, from ``player_totals``.

    One query (:func:`totals_sql`), its rows added up here three ways: per
    player (the counts, as :func:`stats_sql` words them), per player and
    forced bets (the nets the win rates divide), per player and money.
    The rows are few (a player's are one per money and forced bets: five
    for the benchmark's busiest), so they are added in Python: a frame's
    group-bys and filters cost a player's page 8 ms of fixed overhead for
    a few additions.  A sum of none of a column's values is 0, as the
    seats' are.
    """
    where, params = totals_scope(f)
    rows = con.execute(totals_sql(where), params).fetchall()
    # a row: player, currency, unit, big_bet, big_blind, ante (DIMENSIONS' order), the counts, the money sums and the rake
    counts = len(SEAT_COUNTERS)
    at = {name: i for i, (name, _) in enumerate(SEAT_COUNTERS)}
    hands, money = at["hands"], 6 + counts
    net = money + MONEY_COLUMNS.index("net") - 1
    per: dict[str, list[int]] = {}
    for r in rows:
        got = per.get(r[0])
        if got is None:
            per[r[0]] = [v or 0 for v in r[6 : 6 + counts]]
        else:
            per[r[0]] = [a + (v or 0) for a, v in zip(got, r[6 : 6 + counts])]
    kept = {p: c for p, c in per.items() if c[hands] >= f.min_hands and c[hands] > 0}
    t = [(p, *(sum(c[at[x]] for x in parts) for _, parts in _stat_parts())) for p, c in kept.items()]
    units: dict[tuple[Any, ...], int] = {}
    monies: dict[tuple[Any, ...], list[int]] = {}
    for r in rows:
        if r[0] not in kept:
            continue
        key = (r[0], r[3], r[4], r[5])
        units[key] = units.get(key, 0) + (r[net] or 0)
        m = monies.setdefault((r[0], r[1], r[2]), [0] * len(MONEY_COLUMNS))
        m[0] += r[6 + hands] or 0
        for k in range(1, len(MONEY_COLUMNS)):
            m[k] += r[money + k - 1] or 0
    exact = rate_numerators([(*key, v) for key, v in units.items()])
    return t, exact, [(*key, *m) for key, m in monies.items() if m[0] > 0]


def totals_scope(f: Filters) -> tuple[str, list[Any]]:
    """The rows of ``player_totals h`` that count: the filters' hands (:func:`hands_where`), of ``f.players`` when named."""
    where, params = hands_where(f, hours=True)
    if f.players:
        who, names = _one_of("h.player", list(f.players))
        where, params = f"{where} AND {who}", params + names
    return where, params


def compute_on(
    con: duckdb.DuckDBPyConnection, filters: Filters | None = None, db: Path | None = None, *, from_seats: bool = False,
    derived: frozenset[str] | None = None, known: bool = False,
) -> StatsResult:
    """Every statistic for every player (or ``filters.players``) on an open connection.

    Summed from ``player_totals`` where it counts exactly the stored hands
    (:func:`~hhtool.store.totals.current`), else from the seats;
    ``from_seats``: from the seats always (the reference the totals are
    held to; a Parquet dataset has no totals and always is).  ``derived``:
    the derived tables known current (:func:`~hhtool.store.totals.current_tables`; None: look).
    ``known``: ``filters.players`` were found by :func:`check_players` already
    (the server keeps that answer: a name once in stays; the check is a pass
    over ``player_totals``, 6 ms of a cold page).
    """
    f = filters or Filters()
    totals = not from_seats and current(con, PLAYER_TOTALS, derived)
    if not known:
        check_players(con, f.players, totals)
    if totals:  # the sums kept at import (hhtool.store.totals): a few rows a player, the same figures
        t, exact, m = _from_totals(con, f)
    else:
        hand_where, hand_params, seat_where, seat_params = scope(f)
        # the placeholders in the order each query has them: hs, (rk,) sp, HAVING
        t = con.execute(stats_sql(hand_where, seat_where), hand_params + seat_params + [f.min_hands]).fetchall()
        exact = rate_numerators(con.execute(rate_units_sql(hand_where, seat_where), hand_params + seat_params).fetchall())
        m = con.execute(
            money_sql(hand_where, seat_where, bool(f.players)),
            hand_params + seat_params + seat_params + seat_params + [f.min_hands],  # hs, rk, sm, the HAVING's seats
        ).fetchall()
    return _result(t, exact, m, f, db)


STREET_COLUMNS = tuple(f"{c}_{st}" for st in STREETS for c in ("aggr", "calls", "folds", "ftb_n", "ftb_d"))
"""The per-street sums of :func:`stats_sql`'s rows: :func:`street_aggression`'s, not the table's."""

MONEY_COLUMNS = ("hands", *(name for name, _ in MONEY_COUNTERS), "rake")
"""The money rows' sums after their player, currency and unit: :func:`money_sql`'s columns, :func:`_from_totals`' rows."""


def _result(
    rows: list[tuple[Any, ...]], exact: dict[str, dict[str, Fraction]], money: list[tuple[Any, ...]], f: Filters, db: Path | None
) -> StatsResult:
    """The :class:`StatsResult` of the statistics' rows (a player and :func:`_stat_parts`' columns, as :func:`stats_sql`
    gives them), the win rates' numerators and the money rows (player, currency, unit, :data:`MONEY_COLUMNS`).

    Built in Python, a row a player (a page's one): the frames once, with
    their types given, rather than a frame's operations one after the
    other, each a fixed cost of a fraction of a millisecond.
    """
    import polars as pl

    names = ["player", *(name for name, _ in _stat_parts())]
    rows = sorted(rows, key=lambda r: name_key(str(r[0])))
    table: dict[str, list[Any]] = {name: [r[i] for r in rows] for i, name in enumerate(names) if name not in STREET_COLUMNS}
    table.update(with_rates(table["player"], {name: table[name] for _, (_, name) in RATES.items()}, exact))
    schema: dict[str, Any] = {name: pl.String if name == "player" else pl.Int64 for name in names if name not in STREET_COLUMNS}
    schema.update({name: pl.String if name.endswith("_exact") else pl.Float64 for name in table if name not in schema})
    column = {name: i for i, name in enumerate(names)}
    return StatsResult(
        table=pl.DataFrame(table, schema=schema),
        by_street=street_aggression([{name: r[column[name]] for name in ("player", *STREET_COLUMNS)} for r in rows]),
        money=pl.DataFrame(
            {name: [r[i] for r in money] for i, name in enumerate(("player", "currency", "unit", *MONEY_COLUMNS))},
            schema={"player": pl.String, "currency": pl.String, "unit": pl.String, "hands": pl.Int64, **dict.fromkeys(MONEY_COLUMNS[1:], pl.Int128)},
        ),
        filters=f,
        db=db,
    )


def with_rates(players: list[str], hands: dict[str, list[int]], exact: dict[str, dict[str, Fraction]]) -> dict[str, list[Any]]:
    """Each win rate's columns: its numerator (``bb_n``; exact, ``bb_n_exact``) and the rate per 100 hands (``bb100``,
    None without a hand), of ``players`` with the hands each rate is over (``hands["bb_d"]`` …)."""
    columns: dict[str, list[Any]] = {}
    for key, (n, d) in RATES.items():
        nums = [exact.get(p, {}).get(n, Fraction(0)) for p in players]
        columns[n] = [float(v) for v in nums]
        columns[f"{n}_exact"] = [f"{v.numerator}/{v.denominator}" for v in nums]
        columns[key] = [float(v * 100 / h) if h else None for v, h in zip(nums, (int(x) for x in hands[d]))]
    return columns


def by_name(t: pl.DataFrame, *then: str) -> pl.DataFrame:
    """Rows in the order a person expects the names (:func:`name_key`), then by the columns ``then``."""
    import polars as pl

    if t.height == 0:
        return t
    names = t["player"].unique().to_list()
    rank = {name: i for i, name in enumerate(sorted((str(n) for n in names), key=name_key))}
    key = pl.col("player").replace_strict(rank, return_dtype=pl.Int64)
    return t.with_columns(_by_name=key).sort(["_by_name", *then]).drop("_by_name")


def currency_rank(c: Currency) -> tuple[int, str]:
    return ({"EUR": 0, "USD": 1, "GBP": 2, "chips": 9}.get(c.code, 5), c.code)


class UnknownPlayerError(StoreError):
    """A ``--player`` that has no hand in the database (a usage error), with the names it may have meant."""


def check_players(con: duckdb.DuckDBPyConnection, names: tuple[str, ...], totals: bool | None = None) -> None:
    """Raise :class:`UnknownPlayerError` for a name with no seat in the database: "did you mean 'alice'?".

    A misspelt name would otherwise give an empty table, or a report with
    nothing in it, that looks like an answer.  ``totals``: whether
    ``player_totals`` is current (None: look); a name with a hand dealt in
    is found there, a few rows, and only the others are looked for among
    every seat (a name never dealt in is still a player of the database).
    """
    if not names:
        return
    if totals is None:
        totals = current(con, PLAYER_TOTALS)
    known: set[str] = set()
    if totals:
        known = {str(r[0]) for r in con.execute(
            f"SELECT DISTINCT player FROM {PLAYER_TOTALS.name} WHERE hands > 0 AND list_contains(?::VARCHAR[], player)", [list(names)]
        ).fetchall()}
    rest = [n for n in names if n not in known]
    if rest:
        known |= {str(r[0]) for r in con.execute("SELECT DISTINCT player FROM seats WHERE list_contains(?::VARCHAR[], player)", [rest]).fetchall()}
    missing = [n for n in names if n not in known]
    if not missing:
        return
    import difflib

    everyone = [str(r[0]) for r in con.execute("SELECT DISTINCT player FROM seats").fetchall()]
    folded = {name_key(p)[0]: p for p in everyone}
    parts = []
    for name in missing:
        close = difflib.get_close_matches(name_key(name)[0], list(folded), n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(repr(folded[c]) for c in close)}?" if close else ""
        parts.append(f"no player {name!r} in this database{hint}")
    raise UnknownPlayerError("; ".join(parts))


def exact_sums(df: pl.DataFrame, columns: tuple[str, ...]) -> pl.DataFrame:
    """``columns`` (HUGEINT sums, which reach polars as Decimal(38, 0)) as Int128: exact, and ``int`` in Python.

    The statistics' sums of money are HUGEINT in DuckDB, Int128 in polars.
    Why not BIGINT: one value fits a BIGINT (``docs/schema.md``, "Bounds"),
    but a sum over many hands need not, and a database written before the
    bounds may hold values up to 2**63 already; DuckDB sums BIGINT into
    HUGEINT exactly, and a cast back to BIGINT failed the whole statistics.
    """
    import polars as pl

    return df.with_columns(pl.col(c).cast(pl.Int128) for c in columns)


def big_bet_sums(df: pl.DataFrame, keys: list[str], sums: list[str]) -> pl.DataFrame:
    """Rows per ``keys`` and ``big_bet`` folded into one row per ``keys``, in the order they first come: ``sums`` added, and ``big_bets`` the exact sum of each row's ``net`` over its ``big_bet`` (a :class:`~fractions.Fraction`).

    Why not ``sum(net / big_bet)`` in SQL: a sum of doubles, whose last
    digits depend on the order the engine adds the rows in (a report of the
    same hands must be the same file whether it reads ``--db`` or
    ``--parquet``), and a half-even rounding to two decimals needs the
    exact value.  A big bet of 0 adds nothing (no such hand is stored).
    """
    import polars as pl

    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for r in df.iter_rows(named=True):
        row = out.get(key := tuple(r[k] for k in keys))
        if row is None:
            row = out[key] = {**{k: r[k] for k in keys}, **{c: 0 for c in sums}, "big_bets": Fraction(0)}
        for c in sums:
            row[c] += int(r[c])
        if r["big_bet"]:
            row["big_bets"] += Fraction(int(r["net"]), int(r["big_bet"]))
    rows = list(out.values())
    columns = [pl.Series(c, [r[c] for r in rows], dtype=df.schema[c]) for c in (*keys, *sums)]
    return pl.DataFrame([*columns, pl.Series("big_bets", [r["big_bets"] for r in rows], dtype=pl.Object)])


def compute(db: str | Path, filters: Filters | None = None) -> StatsResult:
    """Every statistic for every player (or ``filters.players``) on a read-only connection."""
    con = connect(db, read_only=True)
    try:
        return compute_on(con, filters, db if isinstance(db, Path) else Path(db))
    finally:
        con.close()


def street_aggression(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """Per player and street: bets+raises, calls, folds, AF and AFq (None without opportunity).

    ``rows`` hold the per-street sums of :func:`stats_sql`, one a player, in the order of the names.
    """
    import polars as pl

    if not rows:
        return pl.DataFrame(schema={"player": pl.Utf8, "street": pl.Utf8})
    out: dict[str, list[Any]] = {k: [] for k in ("player", "street", "bets_raises", "calls", "folds", "fold_to_bet_n", "fold_to_bet_d", "af", "afq")}
    for r in rows:
        for st in sorted(STREETS):
            br, calls, folds = r[f"aggr_{st}"], r[f"calls_{st}"], r[f"folds_{st}"]
            total = br + calls + folds
            for k, v in (("player", r["player"]), ("street", st), ("bets_raises", br), ("calls", calls), ("folds", folds),
                         ("fold_to_bet_n", r[f"ftb_n_{st}"]), ("fold_to_bet_d", r[f"ftb_d_{st}"]),
                         ("af", br / calls if calls > 0 else None), ("afq", br / total if total > 0 else None)):
                out[k].append(v)
    counts = dict.fromkeys(("bets_raises", "calls", "folds", "fold_to_bet_n", "fold_to_bet_d"), pl.Int64)
    return pl.DataFrame(out, schema={"player": pl.String, "street": pl.String, **counts, "af": pl.Float64, "afq": pl.Float64})


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
        who, names = _one_of("h.player", players)
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
    where, params = totals_scope(Filters(**{**f.__dict__, "players": tuple(players)}))
    rows = con.execute(
        f"SELECT h.player, h.currency, h.unit FROM {PLAYER_TOTALS.name} h WHERE {where} GROUP BY ALL HAVING sum(h.hands) > 0 ORDER BY ALL",
        params,
    ).fetchall()
    return None if len(rows) > most else [(str(p), c, u) for p, c, u in rows]


def _one_of(column: str, names: list[str]) -> tuple[str, list[Any]]:
    """``column`` is one of ``names``: a list of values DuckDB compares with each row group's least and greatest name
    (a table in the order of the players reads the named ones' row groups only), or a list parameter for many."""
    if len(names) <= 64:
        return f"{column} IN ({', '.join('?' for _ in names) or 'NULL'})", list(names)
    return f"list_contains(?::VARCHAR[], {column})", [list(names)]


def sessions(per_hand_df: pl.DataFrame, gap_minutes: int = 30) -> pl.DataFrame:
    """Per player and currency: a new session after ``gap_minutes`` without a hand.  Start, end, hands, net, big bets.

    A player's euro hands and dollar hands are sessions apart (a session's
    net is one money); big bets are rounded to two decimals.  The walk is
    :func:`hhtool.stats.series.session_list`'s, which the player's page
    runs on its arrays; this is it over a frame of :func:`load_per_hand`.
    """
    import polars as pl

    from hhtool.stats.series import frame_series, session_list

    if per_hand_df.height == 0:
        return pl.DataFrame(schema={"player": pl.Utf8, "session": pl.Int64})
    rows = session_list(frame_series(per_hand_df).in_time_order(), gap_minutes)
    when = per_hand_df.schema["started_at"]
    columns: dict[str, tuple[Any, list[Any]]] = {
        "player": (pl.String, [r.player for r in rows]),
        "currency": (pl.String, [r.currency for r in rows]),
        "unit": (pl.String, [r.unit for r in rows]),
        "session": (pl.Int64, [r.session for r in rows]),
        "start": (when, [r.start for r in rows]),
        "end": (when, [r.end for r in rows]),
        "hands": (pl.UInt32, [r.hands for r in rows]),
        "net": (pl.Int128, [r.net for r in rows]),
        "big_bets": (pl.Float64, [r.big_bets for r in rows]),
    }
    return pl.DataFrame([pl.Series(name, values, dtype=dtype) for name, (dtype, values) in columns.items()])
