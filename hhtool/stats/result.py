"""The statistics' result: each player's counts, win rates and money as frames, made once from the query's few rows.

Apart from the SQL (:mod:`hhtool.stats.sql`) because the rows come from
either of two queries, over the seats or over ``player_totals``, and must
make the same result; and because what readers ask of a result (a
player's row, their money per currency, their hands) is its own, not the
query's.  A statistic with no opportunity is ``None`` and shows as ``-``.

The ready figures (:func:`to_rows`: each ratio as a number beside its
counts, money per ISO currency code in minor units) are made here too,
since :meth:`StatsResult.row` and :meth:`StatsResult.figures` give them;
the CSV and JSON of :mod:`hhtool.stats.render` write the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hhtool.history.currency import Currency, Rates, currency_of
from hhtool.stats.definitions import MONEY_KEYS, RATES, RATIO_KINDS, STATS, Ratio, StatDef
from hhtool.stats.filters import Filters
from hhtool.stats.order import currency_rank, name_key
from hhtool.stats.per_hand import load_per_hand
from hhtool.stats.playtime import hours, per_hour
from hhtool.stats.sql import MONEY_COLUMNS, STREET_COLUMNS, stat_parts
from hhtool.store.db import connect
from hhtool.store.flags import STREETS

if TYPE_CHECKING:
    import polars as pl


@dataclass
class StatsResult:
    """Per-player totals (``table``), their money per currency (``money``) and per-street aggression (``by_street``).

    ``table`` has a row per player, in the order a person expects names
    (:func:`~hhtool.stats.order.name_key`), with the counts each figure is
    made of (``vpip_n``, ``vpip_d``; the frame the report and the server
    read); ``money`` a row per player and currency (``currency`` its ISO
    code, ``EUR``, ``USD``, ``XXX``, or ``chips``) with the exact sums in
    minor units (``net``, ``sd_net``, ``nsd_net``, ``rake``): amounts of
    different currencies are never added.  :meth:`figures` gives the
    ready figures, a row per player, as ``hhtool stats --format csv`` writes
    them; :meth:`row` one player's.

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
    left_out: int | None = None  # hands the verdicts filter left out (None: not counted); docs/stats.md, "Verdicts"
    accounts: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    """Each row's accounts, (site, name) each: one for an account's row, a person's several (docs/stats.md, "Players and accounts")."""
    play_time: pl.DataFrame | None = None  # sessions and time played per player and money, when asked (hhtool.stats.playtime)

    def accounts_of(self, players: list[str]) -> list[tuple[str, str]]:
        """The accounts of the rows ``players`` (each key's, :attr:`accounts`), every one once."""
        return list(dict.fromkeys(a for p in players for a in self.accounts.get(p, ())))

    def play_of(self, player: str) -> dict[Currency, tuple[int, int]] | None:
        """The player's (sessions, microseconds played) per currency, euro first; None where the time was not computed
        (:func:`~hhtool.stats.compute.compute` with ``play_time``), an empty dict for a player without a session."""
        if self.play_time is None:
            return None
        return dict(sorted(self._play_rows.get(player, {}).items(), key=lambda kv: currency_rank(kv[0])))

    @cached_property
    def _play_rows(self) -> dict[str, dict[Currency, tuple[int, int]]]:
        """:attr:`play_time`'s rows per player, read once (two signs of one ISO code, none and ``XXX``, are one money)."""
        out: dict[str, dict[Currency, tuple[int, int]]] = {}
        if self.play_time is not None:
            for p, code, unit, n, us in self.play_time.select("player", "currency", "unit", "sessions", "played_us").iter_rows():
                mine = out.setdefault(str(p), {})
                cur = currency_of(code, unit)
                was = mine.get(cur, (0, 0))
                mine[cur] = (was[0] + int(n), was[1] + int(us))
        return out

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
        """``player``'s figures: their row of :meth:`figures` (``vpip`` a number, ``vpip_actions``, ``net_EUR_cents`` ...)
        and of ``table`` (the counts it is made of, ``vpip_n``, ``vpip_d``); :class:`KeyError` for a name not in the result."""
        got = self._rows.get(player)
        if got is None:
            raise KeyError(player)
        return {**got, **self._figure_rows[player]}

    def figures(self, rates: Rates | None = None) -> pl.DataFrame:
        """The ready figures, a row per player in the result's order: what ``hhtool stats --format csv`` writes, as a frame.

        ``player``, ``hands``; each ratio statistic ``KEY`` (a percentage,
        0 to 100, or a plain ratio for ``af``) as a float, its exact fraction
        rounded half to even to four decimals, None where there was no
        opportunity, with ``KEY_actions`` and ``KEY_opportunities`` beside
        it; each win rate with ``KEY_hands``; per currency (ISO code)
        ``hands_EUR`` and each money statistic in integer minor units,
        ``net_EUR_cents``, ``net_chips_chips``; with ``rates``, the
        converted sums ``net_in_EUR_cents`` (docs/stats.md, "Machine
        outputs"; docs/python.md).
        """
        import polars as pl

        rows = list(self._figure_rows.values()) if rates is None else to_rows(self, rates)
        schema = figure_schema(self, rows[0] if rows else None, rates)
        return pl.DataFrame([list(r.values()) for r in rows], schema=schema, orient="row")

    @cached_property
    def _figure_rows(self) -> dict[str, dict[str, Any]]:
        """Each player's row of :meth:`figures` (without rates), made once: :meth:`row` is asked a dozen times a page."""
        return {str(r["player"]): r for r in to_rows(self)}

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
            return with_codes(load_per_hand(con, self.filters, self.players(), self.accounts))
        finally:
            con.close()


def make_result(
    rows: list[tuple[Any, ...]], exact: dict[str, dict[str, Fraction]], money: list[tuple[Any, ...]], f: Filters, db: Path | None,
    accounts: dict[str, tuple[tuple[str, str], ...]] | None = None,
) -> StatsResult:
    """The :class:`StatsResult` of the statistics' rows (a player and :func:`~hhtool.stats.sql.stat_parts`' columns,
    as :func:`~hhtool.stats.sql.stats_sql` gives them), the win rates' numerators and the money rows (player,
    currency, unit, :data:`~hhtool.stats.sql.MONEY_COLUMNS`), a row key each; ``accounts``: each key's accounts
    (the table's ``site``: an account's site, None for a person's several).

    Built in Python, a row a player (a page's one): the frames once, with
    their types given, rather than a frame's operations one after the
    other, each a fixed cost of a fraction of a millisecond.
    """
    import polars as pl

    names = ["player", *(name for name, _ in stat_parts())]
    rows = sorted(rows, key=lambda r: name_key(str(r[0])))
    table: dict[str, list[Any]] = {name: [r[i] for r in rows] for i, name in enumerate(names) if name not in STREET_COLUMNS}
    members = accounts or {}
    sites = [_site(p, members.get(p, ())) for p in table["player"]]
    table = {"player": table["player"], "site": sites, **{k: v for k, v in table.items() if k != "player"}}
    table.update(with_rates(table["player"], {name: table[name] for _, (_, name) in RATES.items()}, exact))
    schema: dict[str, Any] = {"player": pl.String, "site": pl.String}
    schema.update({name: pl.Int64 for name in names if name not in STREET_COLUMNS and name != "player"})
    schema.update({name: pl.String if name.endswith("_exact") else pl.Float64 for name in table if name not in schema})
    column = {name: i for i, name in enumerate(names)}
    return StatsResult(
        table=pl.DataFrame(table, schema=schema),
        by_street=street_aggression([{name: r[column[name]] for name in ("player", *STREET_COLUMNS)} for r in rows]),
        money=pl.DataFrame(
            {name: [currency_of(r[1], r[2]).code if i == 1 else r[i] for r in money] for i, name in enumerate(("player", "currency", "unit", *MONEY_COLUMNS))},
            schema={"player": pl.String, "currency": pl.String, "unit": pl.String, "hands": pl.Int64, **dict.fromkeys(MONEY_COLUMNS[1:], pl.Int128)},
        ),
        filters=f,
        db=db,
        accounts=members,
    )


def _site(key: str, accounts: tuple[tuple[str, str], ...]) -> str | None:
    """The site of the row ``key``: its account's; None for a person's row (their accounts, even one)."""
    if len(accounts) == 1 and key in (accounts[0][1], f"{accounts[0][1]}@{accounts[0][0]}"):
        return accounts[0][0]
    return None


def with_codes(t: pl.DataFrame) -> pl.DataFrame:
    """``t`` with its ``currency`` (the hands' sign, ``$``) as the ISO code (``USD``; ``chips`` for a chip hand), as the library names a money."""
    import polars as pl

    if t.height == 0:
        return t
    pairs = t.select("currency", "unit").unique().rows()
    code: pl.Expr = pl.lit(None, pl.String)
    for sign, unit in pairs:
        here = (pl.col("currency").is_null() if sign is None else pl.col("currency") == sign) & (
            pl.col("unit").is_null() if unit is None else pl.col("unit") == unit
        )
        code = pl.when(here).then(pl.lit(currency_of(sign, unit).code)).otherwise(code)
    return t.with_columns(currency=code)


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


def street_aggression(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """Per player and street: bets+raises, calls, folds, AF and AFq (None without opportunity).

    ``rows`` hold the per-street sums of :func:`~hhtool.stats.sql.stats_sql`, one a player, in the order of the names.
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


def exact_value(s: StatDef, row: dict[str, Any]) -> Fraction | None:
    """A ratio statistic or a win rate of one player row, exactly; None without opportunity (docs/stats.md, "Figures").

    A ratio is its integer count of actions over its count of
    opportunities (x 100 for a percentage), divided once; a win rate the
    exact net in forced bets (``bb_n_exact``) x 100 over its hands.  Every
    figure shown or written is this fraction rounded by :func:`hhtool.stats.render.rounded`, so
    the same hands give the same text whichever engine summed them.
    """
    if s.kind == "rate":
        n_key, d_key = RATES[s.key]
        hands = int(row[d_key])
        return None if hands == 0 else Fraction(row[f"{n_key}_exact"]) * 100 / hands
    n, d = row[f"{s.key}_n"], int(row[f"{s.key}_d"])
    if d == 0:
        return None
    return Fraction(int(n), d) * (100 if s.kind == "pct" else 1)


def converted(result: StatsResult, player: str, key: str, rates: Rates) -> tuple[Decimal | None, list[Currency]]:
    """``key`` (a money statistic) of ``player`` summed in the target currency, and the currencies it includes.

    Only currencies with a rate convert; the others (and chips) are left out
    of the sum and keep their own figures.
    """
    total: Decimal | None = None
    used = []
    for cur, figures in result.money_of(player).items():
        value = rates.convert(figures[key], cur)
        if value is not None:
            total = value if total is None else total + value
            used.append(cur)
    return total, used


def to_rows(result: StatsResult, rates: Rates | None = None) -> list[dict[str, Any]]:
    """One flat dict per player for CSV: numbers as numbers, None without opportunity, money in minor units per currency."""
    currencies = result.currencies()
    rows = []
    for r in result.table.to_dicts():
        player = str(r["player"])
        out: dict[str, Any] = {"player": player, "hands": int(r["hands"])}
        figures = result.money_of(player)
        played = result.play_of(player)
        # the time played's columns come after every other (the CSV's columns before them are as they were)
        tail: dict[str, Any] = {} if played is None else play_totals(r, played)
        for cur in currencies:
            mine = figures.get(cur)
            out[f"hands_{cur.code}"] = mine["hands"] if mine else 0
            for key in MONEY_KEYS:
                out[f"{key}_{cur.code}_{cur.minor_name}"] = mine[key] if mine else 0
            if played is not None:
                n, us = played.get(cur, (0, 0))
                tail[f"sessions_{cur.code}"] = n
                tail[f"hours_at_{cur.code}_tables"] = float(round(hours(us), 4)) if n else None
                rate = per_hour(mine["net"], us) if mine and n else None
                # money in whole minor units, as every *_cents column: the rate rounded half to even to the cent
                tail[f"net_per_hour_{cur.code}_{cur.minor_name}"] = None if rate is None else round(rate)
        if rates is not None:
            for key in MONEY_KEYS:
                total, _ = converted(result, player, key, rates)
                out[f"{key}_in_{rates.target.code}_cents"] = None if total is None else int(total.quantize(Decimal(1)))
            if played is not None:
                rate = converted_per_hour(result, player, rates)
                tail[f"net_per_hour_in_{rates.target.code}_cents"] = None if rate is None else round(rate)
        for s in STATS:
            if s.kind in RATIO_KINDS or s.kind == "rate":
                v = exact_value(s, r)
                out[s.key] = None if v is None else float(round(v, 4))  # rounded half to even on the fraction
            if s.kind in RATIO_KINDS:
                out[f"{s.key}_actions"] = r[f"{s.key}_n"]
                out[f"{s.key}_opportunities"] = int(r[f"{s.key}_d"])
            elif s.kind == "rate":
                out[f"{s.key}_hands"] = int(r[RATES[s.key][1]])
        out.update(tail)
        rows.append(out)
    return rows


def play_totals(row: dict[str, Any], played: dict[Currency, tuple[int, int]]) -> dict[str, Any]:
    """The currency-free figures of time played (docs/stats.md, "Time played"): sessions, hours played, the average
    session in hours and big bets per hour, each rounded half to even to four decimals; None without a session."""
    n = sum(v[0] for v in played.values())
    us = sum(v[1] for v in played.values())
    bb = per_hour(Fraction(row["bb_n_exact"]), us) if int(row["bb_d"]) else None
    return {
        "sessions": n,
        "hours_played": float(round(hours(us), 4)) if n else None,
        "avg_session_hours": float(round(hours(us) / n, 4)) if n else None,
        "bb_per_hour": None if bb is None or not n else float(round(bb, 4)),
    }


def converted_per_hour(result: StatsResult, player: str, rates: Rates) -> Fraction | None:
    """The net converted to the target (:func:`converted`) per hour of the sessions in the currencies it adds; None without."""
    total, used = converted(result, player, "net", rates)
    played = result.play_of(player) or {}
    us = sum(played.get(c, (0, 0))[1] for c in used)
    return None if total is None or us == 0 else per_hour(Fraction(total), us)


def figure_schema(result: StatsResult, row: dict[str, Any] | None, rates: Rates | None = None) -> dict[str, Any]:
    """The polars types of :func:`to_rows`' columns (those of ``row``, else the columns every table has):
    the name a string, a ratio or win rate a float, money an exact 128-bit integer (as DuckDB sums it), a count an integer."""
    import polars as pl

    money = {f"{key}_{cur.code}_{cur.minor_name}" for cur in result.currencies() for key in MONEY_KEYS}
    if rates is not None:
        money |= {f"{key}_in_{rates.target.code}_cents" for key in MONEY_KEYS}
    floats = {s.key for s in STATS if s.kind in RATIO_KINDS or s.kind == "rate"} | set(PLAY_FLOATS)
    floats |= {f"hours_at_{cur.code}_tables" for cur in result.currencies()}
    names = list(row) if row is not None else base_columns(result.play_time is not None)
    return {n: pl.String if n == "player" else pl.Float64 if n in floats else pl.Int128 if n in money else pl.Int64 for n in names}


PLAY_FLOATS = ("hours_played", "avg_session_hours", "bb_per_hour")
"""The currency-free figures of time played that are numbers with decimals (``sessions`` is a count)."""


def base_columns(play_time: bool = False) -> list[str]:
    """The columns every CSV has, whatever the currencies in it (those add ``hands_CODE`` and ``KEY_CODE_UNIT``);
    ``play_time``: with the time played's (docs/stats.md, "Time played")."""
    columns = ["player", "hands"]
    for s in STATS:
        if s.kind in RATIO_KINDS:
            columns += [s.key, f"{s.key}_actions", f"{s.key}_opportunities"]
        elif s.kind == "rate":
            columns += [s.key, f"{s.key}_hands"]
    return columns + (["sessions", *PLAY_FLOATS] if play_time else [])
