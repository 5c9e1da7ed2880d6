"""Player statistics over the hand database: counts of actions over counts of opportunities.

Every flag is decided per hand and player, as ``docs/stats.md`` defines
them, when the hand is imported (:mod:`hhtool.store.flags`, stored on the
``seats`` rows), and summed per player here inside DuckDB, in one query
(:func:`stats_sql`); only the per-player totals travel to Python (polars,
through Arrow).  A statistic with no opportunity is ``None`` and shows
as ``-``.
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
        import polars as pl

        out: dict[Currency, dict[str, int]] = {}
        for r in self.money.filter(pl.col("player") == player).to_dicts():
            out[currency_of(r["currency"], r["unit"])] = {k: int(r[k]) for k in ("hands", *MONEY_KEYS)}
        return dict(sorted(out.items(), key=lambda kv: currency_rank(kv[0])))

    def players(self) -> list[str]:
        return [str(p) for p in self.table["player"].to_list()]

    def row(self, player: str) -> dict[str, Any]:
        import polars as pl

        rows = self.table.filter(pl.col("player") == player).to_dicts()
        if not rows:
            raise KeyError(player)
        return rows[0]

    def ratio(self, player: str, key: str) -> Ratio:
        r = self.row(player)
        return Ratio(float(r[f"{key}_n"]), int(r[f"{key}_d"]))

    @cached_property
    def per_hand(self) -> pl.DataFrame:
        """hand_key, player, started_at, net, went_to_showdown, big_bets, allin_big_bets of every hand of ``players()``."""
        if self.db is None:
            raise ValueError("this result has no database to read its hands from")
        con = connect(self.db, read_only=True)
        try:
            return load_per_hand(con, self.filters, self.players())
        finally:
            con.close()


def _where(f: Filters) -> tuple[str, list[Any]]:
    """A WHERE clause on ``hands h`` with placeholders, and its parameters."""
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
    if f.date_from is not None:
        parts.append("h.started_at >= ?")
        params.append(_day_start(f.date_from, f.day_start_hour))
    if f.date_to is not None:
        parts.append("h.started_at < ?")
        params.append(_day_start(f.date_to + dt.timedelta(days=1), f.day_start_hour))
    return (" AND ".join(parts) or "TRUE"), params


def _day_start(day: dt.date, hour: int) -> dt.datetime:
    """When ``day`` starts, for days that start at ``hour`` UTC."""
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc) + dt.timedelta(hours=hour)


def scope(f: Filters, players: list[str] | None = None) -> tuple[str, list[Any], str, list[Any]]:
    """The hands and seats that count: a condition on ``hands h`` and its parameters, one on ``seats s`` and its.

    ``f.players`` (named by the user, usually few) narrows the hands read
    to theirs; ``players`` (the ones a result kept) narrows only the seats.
    """
    where, params = _where(f)
    if f.players:
        where += " AND h.hand_key IN (SELECT hand_key FROM seats WHERE dealt_in AND list_contains(?::VARCHAR[], player))"
        params = params + [list(f.players)]
    names = list(f.players) if players is None else players
    if players is None and not names:
        return where, params, "s.dealt_in", []
    return where, params, "s.dealt_in AND list_contains(?::VARCHAR[], s.player)", [names]


def stats_sql(hand_where: str, seat_where: str) -> str:
    """The one query behind :func:`compute`: a row per player, every statistic's actions and opportunities.

    Every flag of docs/stats.md was decided per hand and player when the
    hand was imported (:mod:`hhtool.store.flags`, stored on ``seats``), so
    a statistic is a sum over the seats in scope: one pass over one table,
    joined to the hands only for the filters and the win rates' units
    (net over the big bet, the big blind, the ante, each over the hands
    that have one).  Money per currency is :func:`money_sql`'s.
    Placeholders, in order: ``hand_where``'s, ``seat_where``'s, ``min_hands``.
    """

    def street_sum(column: str) -> str:
        return " + ".join(f"s.{column}_{st}" for st in STREETS)

    ratio_cols = []
    for key in RATIO_FLAGS:
        ratio_cols += [f"count_if(s.{key})::BIGINT AS {key}_n", f"count_if(s.{key}_opp)::BIGINT AS {key}_d"]
    per_street = []
    for st in STREETS:
        per_street += [
            f"sum(s.bets_{st})::BIGINT AS aggr_{st}",
            f"sum(s.calls_{st})::BIGINT AS calls_{st}",
            f"sum(s.folds_{st})::BIGINT AS folds_{st}",
            f"count_if(s.fold_to_bet_{st})::BIGINT AS ftb_n_{st}",
            f"count_if(s.fold_to_bet_{st}_opp)::BIGINT AS ftb_d_{st}",
        ]
    aggr, calls, folds = street_sum("bets"), street_sum("calls"), street_sum("folds")
    per_seat = [
        "s.player",
        "count(*) AS hands",
        "count_if(coalesce(hs.big_bet, 0) > 0)::BIGINT AS bb_d",
        "count_if(coalesce(hs.big_blind, 0) > 0)::BIGINT AS bl_d",
        "count_if(coalesce(hs.ante, 0) > 0)::BIGINT AS an_d",
        *(f"count_if(s.saw_{st})::BIGINT AS saw_{st}_n" for st in STREETS[1:]),
        *(f"count(*) AS saw_{st}_d" for st in STREETS[1:]),
        "count_if(s.saw_3rd AND s.went_to_showdown)::BIGINT AS wtsd_n",
        "count_if(s.saw_3rd)::BIGINT AS wtsd_d",
        "count_if(s.won_at_showdown)::BIGINT AS wsd_n",
        "count_if(s.went_to_showdown)::BIGINT AS wsd_d",
        "count_if(s.saw_3rd AND s.collected > 0)::BIGINT AS wwsf_n",
        "count_if(s.saw_3rd)::BIGINT AS wwsf_d",
        *ratio_cols,
        f"({' + '.join(f'count_if(s.fold_to_bet_{st})' for st in STREETS)})::BIGINT AS fold_to_bet_n",
        f"({' + '.join(f'count_if(s.fold_to_bet_{st}_opp)' for st in STREETS)})::BIGINT AS fold_to_bet_d",
        f"coalesce(sum({aggr}), 0)::BIGINT AS af_n",
        f"coalesce(sum({calls}), 0)::BIGINT AS af_d",
        f"coalesce(sum({aggr} + {calls} + {folds}), 0)::BIGINT AS afq_d",
        *per_street,
    ]
    return f"""
    WITH hs AS (
        SELECT h.hand_key, h.big_bet, h.big_blind, h.ante
        FROM hands h WHERE {hand_where}
    ),
    sp AS (
        SELECT {', '.join(per_seat)}
        FROM seats s JOIN hs USING (hand_key)
        WHERE {seat_where}
        GROUP BY s.player
        HAVING count(*) >= ?
    )
    SELECT sp.*, sp.af_n AS afq_n
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
    return f"""
    WITH hs AS (SELECT h.hand_key, h.currency, h.unit FROM hands h WHERE {hand_where}),
    out AS (SELECT s.hand_key, s.player FROM seats s JOIN hs USING (hand_key) WHERE NOT s.dealt_in),
    rk AS (
        SELECT player, currency, unit, sum(share)::HUGEINT AS rake
        FROM (
            SELECT p.hand_key, hs.currency, hs.unit, u.w AS player,
                   (p.rake::HUGEINT * u.s * 2 + list_sum(p.shares)) // NULLIF(2 * list_sum(p.shares), 0) AS share
            FROM pots p JOIN hs USING (hand_key), LATERAL (SELECT unnest(p.winners) AS w, unnest(p.shares) AS s) u
        ) x
        ANTI JOIN out ON out.hand_key = x.hand_key AND out.player = x.player
        WHERE {player_cond}
        GROUP BY ALL
    ),
    sm AS (
        SELECT s.player, hs.currency, hs.unit, count(*) AS hands,
               coalesce(sum(s.net::HUGEINT), 0) AS net,
               coalesce(sum(s.net::HUGEINT) FILTER (WHERE s.went_to_showdown), 0) AS sd_net,
               coalesce(sum(s.net::HUGEINT) FILTER (WHERE s.went_to_showdown IS NOT TRUE), 0) AS nsd_net,
               coalesce(sum(coalesce(s.allin_net, s.net)::HUGEINT), 0) AS allin_net,
               coalesce(sum((s.net - coalesce(s.allin_net, s.net))::HUGEINT), 0) AS luck
        FROM seats s JOIN hs USING (hand_key)
        WHERE {seat_where}
        GROUP BY ALL
    )
    SELECT sm.*, coalesce(rk.rake, 0)::HUGEINT AS rake
    FROM sm LEFT JOIN rk USING (player, currency, unit)
    WHERE sm.player IN (SELECT s.player FROM seats s JOIN hs USING (hand_key) WHERE {seat_where} GROUP BY s.player HAVING count(*) >= ?)
    """


def compute_on(con: duckdb.DuckDBPyConnection, filters: Filters | None = None, db: Path | None = None) -> StatsResult:
    """Every statistic for every player (or ``filters.players``) on an open connection."""
    import polars as pl

    f = filters or Filters()
    check_players(con, f.players)
    hand_where, hand_params, seat_where, seat_params = scope(f)
    # the placeholders in the order each query has them: hs, (rk,) sp, HAVING
    t = pl.DataFrame(con.sql(stats_sql(hand_where, seat_where), params=hand_params + seat_params + [f.min_hands]))
    exact = rate_numerators(con.execute(rate_units_sql(hand_where, seat_where), hand_params + seat_params).fetchall())
    t = by_name(with_rates(t, exact))
    m = pl.DataFrame(
        con.sql(
            money_sql(hand_where, seat_where, bool(f.players)),
            params=hand_params + seat_params + seat_params + seat_params + [f.min_hands],  # hs, rk, sm, the HAVING's seats
        )
    )
    m = exact_sums(m, MONEY_KEYS)
    street_cols = [f"{c}_{st}" for st in STREETS for c in ("aggr", "calls", "folds", "ftb_n", "ftb_d")]
    return StatsResult(table=t.drop(street_cols), by_street=street_aggression(t), money=m, filters=f, db=db)


def with_rates(t: pl.DataFrame, exact: dict[str, dict[str, Fraction]]) -> pl.DataFrame:
    """``t`` with each win rate: its numerator (``bb_n``; exact, ``bb_n_exact``) and the rate per 100 hands (``bb100``, None without a hand)."""
    import polars as pl

    players = [str(p) for p in t["player"].to_list()]
    columns: list[pl.Series] = []
    for key, (n, d) in RATES.items():
        nums = [exact.get(p, {}).get(n, Fraction(0)) for p in players]
        hands = [int(x) for x in t[d].to_list()]
        columns += [
            pl.Series(n, [float(v) for v in nums], pl.Float64),
            pl.Series(f"{n}_exact", [f"{v.numerator}/{v.denominator}" for v in nums], pl.String),
            pl.Series(key, [float(v * 100 / h) if h else None for v, h in zip(nums, hands)], pl.Float64),
        ]
    return t.with_columns(columns)


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


def check_players(con: duckdb.DuckDBPyConnection, names: tuple[str, ...]) -> None:
    """Raise :class:`UnknownPlayerError` for a name with no seat in the database: "did you mean 'alice'?".

    A misspelt name would otherwise give an empty table, or a report with
    nothing in it, that looks like an answer.
    """
    if not names:
        return
    known = {str(r[0]) for r in con.execute("SELECT DISTINCT player FROM seats WHERE list_contains(?::VARCHAR[], player)", [list(names)]).fetchall()}
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


def street_aggression(table: pl.DataFrame) -> pl.DataFrame:
    """Per player and street: bets+raises, calls, folds, AF and AFq (None without opportunity).

    ``table`` holds the per-street sums of :func:`stats_sql`, one row per player.
    """
    import polars as pl

    if table.height == 0:
        return pl.DataFrame(schema={"player": pl.Utf8, "street": pl.Utf8})
    out = pl.concat(
        table.select(
            "player",
            street=pl.lit(st),
            bets_raises=pl.col(f"aggr_{st}"),
            calls=pl.col(f"calls_{st}"),
            folds=pl.col(f"folds_{st}"),
            fold_to_bet_n=pl.col(f"ftb_n_{st}"),
            fold_to_bet_d=pl.col(f"ftb_d_{st}"),
        )
        for st in STREETS
    )
    total = pl.col("bets_raises") + pl.col("calls") + pl.col("folds")
    return out.with_columns(
        af=pl.when(pl.col("calls") > 0).then(pl.col("bets_raises") / pl.col("calls")),
        afq=pl.when(total > 0).then(pl.col("bets_raises") / total),
    ).pipe(by_name, "street")


def load_per_hand(con: duckdb.DuckDBPyConnection, f: Filters, players: list[str]) -> pl.DataFrame:
    """One row per hand and player of ``players`` in scope: the money of the hand, in no particular order.

    ``net`` is in the hand's minor unit of its ``currency``/``unit``;
    ``big_bets`` is net over the hand's big bet (the winnings graph's unit),
    ``allin_big_bets`` the all-in adjusted net over it (docs/stats.md).
    """
    import polars as pl

    hand_where, hand_params, seat_where, seat_params = scope(f, players)
    return pl.DataFrame(
        con.sql(
            f"""
            SELECT s.hand_key, s.player, h.started_at, h.currency, h.unit, s.net, s.went_to_showdown,
                   s.net / h.big_bet AS big_bets, coalesce(s.allin_net, s.net) / h.big_bet AS allin_big_bets
            FROM seats s JOIN hands h USING (hand_key)
            WHERE {hand_where} AND {seat_where}
            """,
            params=hand_params + seat_params,
        )
    )


def sessions(per_hand_df: pl.DataFrame, gap_minutes: int = 30) -> pl.DataFrame:
    """Per player and currency: a new session after ``gap_minutes`` without a hand.  Start, end, hands, net, big bets.

    A player's euro hands and dollar hands are sessions apart (a session's
    net is one money); big bets are rounded to two decimals.
    """
    import polars as pl

    if per_hand_df.height == 0:
        return pl.DataFrame(schema={"player": pl.Utf8, "session": pl.Int64})
    # in time order (a sort on numbers, cheaper than one on the name first); each player's hands keep that
    # order, and the windows per player key on a number for the name (a categorical's code)
    who = pl.concat_str(pl.col("player"), pl.lit("\x00"), pl.col("currency").fill_null(""), pl.col("unit").fill_null(""))
    d = per_hand_df.sort(["started_at", "hand_key"]).with_columns(who=who.cast(pl.Categorical).to_physical())
    d = d.with_columns(gap=(pl.col("started_at").diff().over("who") > pl.duration(minutes=gap_minutes)).fill_null(False))
    d = d.with_columns(session=pl.col("gap").cast(pl.Int64).cum_sum().over("who") + 1)
    return (
        d.group_by(["player", "currency", "unit", "session"])
        .agg(
            pl.col("started_at").min().alias("start"),
            pl.col("started_at").max().alias("end"),
            pl.len().alias("hands"),
            pl.col("net").cast(pl.Int128).sum().alias("net"),
            pl.col("big_bets").sum().round(2).alias("big_bets"),
        )
        .pipe(by_name, "start", "session")
    )
