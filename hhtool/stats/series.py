"""Hands one by one as numpy arrays: what the winnings graph's lines and the sessions follow.

The statistics are sums (:mod:`hhtool.stats.compute`); the graph and the
sessions are not: they walk a player's hands in time order.  A player's
page does that for up to every hand of theirs (442,050 of the benchmark's
million for the busiest), so the hands travel from DuckDB as a few Arrow
columns of numbers (the money as the index of a (player, currency, unit)
group, not as strings a row), and the walks are a few passes of numpy over
them: running sums, the gaps between hands, sums between the gaps.  The
report's sessions are the same walk over its frame (:func:`frame_series`,
through :func:`sessions`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from hhtool.stats.filters import Filters, hands_where, scope
from hhtool.stats.order import name_key
from hhtool.store.totals import PLAYER_HANDS, PLAYER_TOTALS, current

if TYPE_CHECKING:
    import duckdb
    import numpy as np
    import polars as pl

NO_TIME = -(2**63)
"""``started_at`` of a hand whose start is not known: before every other (as a sort puts a null first)."""

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


@dataclass(frozen=True, slots=True)
class HandSeries:
    """Hands a row each (a hand and a player), in time order (``started_at``, then ``hand_key``).

    ``group`` numbers each row's (player, currency, unit) in ``groups``:
    a session never spans two of them.  ``started_at`` is microseconds
    since 1970 UTC (:data:`NO_TIME` where not known); ``net`` the hand's
    net in its minor unit; ``big_bet`` the hand's big bet (0 where none);
    ``big_bets`` the net over the hand's big bet
    (NaN without one).
    """

    hand_key: np.ndarray[Any, Any]
    started_at: np.ndarray[Any, Any]
    group: np.ndarray[Any, Any]
    groups: list[tuple[str, str | None, str | None]]
    net: np.ndarray[Any, Any]
    showdown: np.ndarray[Any, Any]
    big_bets: np.ndarray[Any, Any]
    big_bet: np.ndarray[Any, Any]

    def __len__(self) -> int:
        return len(self.hand_key)

    def in_time_order(self) -> HandSeries:
        """These rows sorted by ``started_at`` then ``hand_key``: themselves when they are already (a look, not a sort).

        ``player_hands`` gives a player's rows in that order but for the
        rows appended since it was last compacted.
        """
        import numpy as np

        t, k = self.started_at, self.hand_key
        if len(t) < 2 or bool(np.all((t[1:] > t[:-1]) | ((t[1:] == t[:-1]) & (k[1:] > k[:-1])))):
            return self
        order = np.lexsort((k, t))
        return HandSeries(k[order], t[order], self.group[order], self.groups, self.net[order], self.showdown[order], self.big_bets[order],
                          self.big_bet[order])


_COLUMNS = (
    "{s}.hand_key", "coalesce(epoch_us({h}.started_at), " + str(NO_TIME) + ") AS started_at", "{s}.net",
    "coalesce({s}.went_to_showdown, FALSE) AS went_to_showdown", "{s}.net / {h}.big_bet AS big_bets",
    "{h}.big_bet",
)


def player_series(
    con: duckdb.DuckDBPyConnection, f: Filters, player: str, *, from_seats: bool = False, derived: frozenset[str] | None = None
) -> HandSeries:
    """``player``'s hands in scope of ``f``, in time order: from ``player_hands`` where it holds exactly the stored hands
    (their own rows, a few row groups), else (and with ``from_seats``) from the seats joined to the hands.

    Numbers only: the monies of the player's hands are read first (a few
    rows), and each hand's is their index, not two strings a row (which
    cost more than every other column together).  ``derived``: the derived
    tables known current (:func:`~hhtool.store.totals.current_tables`;
    None: look).  The same rows either way (``tests/test_totals.py``).
    """
    from hhtool.store.db import snapshot

    with snapshot(con):  # the monies and the hands of one state: a hand committed between them has a money they know
        return _player_series(con, f, player, from_seats=from_seats, derived=derived)


def _player_series(con: duckdb.DuckDBPyConnection, f: Filters, player: str, *, from_seats: bool, derived: frozenset[str] | None) -> HandSeries:
    from dataclasses import replace

    from hhtool.stats.accounts import accounts_where, picks_of, resolve

    # the row's accounts: a person's, NAME@SITE's, a bare name's (docs/stats.md, "Players and accounts")
    if f.resolved is not None and f.players == (player,):
        wanted = f.resolved
    else:
        wanted = resolve(con, (player,), current(con, PLAYER_TOTALS, derived))[0]
    picks: list[tuple[str | None, str]] = list(dict.fromkeys((s, n) for _, s, n in wanted)) or picks_of([player])
    if f.players:
        f = replace(f, resolved=wanted if f.players == (player,) else f.resolved)
    monies_sql = None
    if not from_seats and set(f.players) <= {player} and current(con, PLAYER_HANDS, derived):
        where, params = hands_where(f)
        who, names = accounts_where("h.player", "h.site", picks)
        body, s = f"FROM {PLAYER_HANDS.name} h WHERE {where} AND {who}", "h"
        params = [*params, *names]
        if current(con, PLAYER_TOTALS, derived):
            # every money of the player, from their totals (a few rows, not a pass over their hands: 8 ms of a page of
            # 442,050); one in no hand in scope numbers no row, and has no session
            monies_sql = (f"SELECT DISTINCT h.currency, h.unit FROM {PLAYER_TOTALS.name} h WHERE {who} ORDER BY ALL", names)
    else:
        hand_where, hand_params, seat_where, seat_params = scope(f, picks)
        body, s = f"FROM seats s JOIN hands h USING (hand_key) WHERE {hand_where} AND {seat_where}", "s"
        params = hand_params + seat_params
    sql, ps = monies_sql or (f"SELECT DISTINCT h.currency, h.unit {body} ORDER BY ALL", params)
    monies = [(c, u) for c, u in con.execute(sql, ps).fetchall()]
    group, group_params = money_index(monies)
    table = con.sql(f"SELECT {_select(s, 'h')}, {group} AS money {body}", params=[*group_params, *params]).to_arrow_table()
    return arrow_series(table, table.column("money"), [(player, c, u) for c, u in monies]).in_time_order()


def money_index(monies: list[tuple[str | None, str | None]]) -> tuple[str, list[Any]]:
    """SQL of a row of ``hands h`` (or ``player_hands h``) that numbers its money in ``monies``, and its parameters;
    every row's money is one of ``monies``.

    Compared a row at a time, the strings cost: two comparisons of two
    columns a money took 5 ms of the 442,050 hands of a page.  So one money
    is a constant; monies of different currencies (the usual case: chips,
    euros, dollars) are told apart by the currency alone, the one without a
    comparison (the currency that is NULL, or else the last) being what no
    other is; only monies that share a currency compare both columns.
    """
    if len(monies) <= 1:
        return "0", []
    currencies = [c for c, _ in monies]
    if len(set(currencies)) == len(currencies):
        rest = currencies.index(None) if None in currencies else len(monies) - 1
        whens = [(i, c) for i, c in enumerate(currencies) if i != rest]
        return f"CASE h.currency {' '.join(f'WHEN ? THEN {i}' for i, _ in whens)} ELSE {rest} END", [c for _, c in whens]
    which = " ".join(f"WHEN h.currency IS NOT DISTINCT FROM ? AND h.unit IS NOT DISTINCT FROM ? THEN {i}" for i in range(len(monies)))
    return f"CASE {which} END", [v for m in monies for v in m]


def _select(s: str, h: str) -> str:
    return ", ".join(c.format(s=s, h=h) for c in _COLUMNS)


def arrow_series(table: Any, group: Any, groups: list[tuple[str, str | None, str | None]]) -> HandSeries:
    """The rows of :data:`_COLUMNS` (an Arrow table) as arrays, ``group`` (a column) each row's index in ``groups``."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    def numbers(column: Any, dtype: Any, fill: Any) -> np.ndarray[Any, Any]:
        if column.null_count:
            column = pc.fill_null(column, pa.scalar(fill, column.type))
        return np.asarray(column.to_numpy(), dtype=dtype)

    return HandSeries(
        hand_key=numbers(table.column("hand_key"), np.int64, 0),
        started_at=numbers(table.column("started_at"), np.int64, NO_TIME),
        group=numbers(group, np.int64, 0),
        groups=groups,
        net=numbers(table.column("net"), np.int64, 0),
        showdown=numbers(table.column("went_to_showdown"), bool, False),
        big_bets=numbers(table.column("big_bets"), np.float64, float("nan")),
        big_bet=numbers(table.column("big_bet"), np.int64, 0),
    )


def frame_series(per_hand: pl.DataFrame) -> HandSeries:
    """The rows of :func:`hhtool.stats.per_hand.load_per_hand`'s frame as :class:`HandSeries` (in the frame's order)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import polars as pl

    cols = [pl.col(c).cast(pl.String) for c in ("player", "currency", "unit")]
    # a row's (player, currency, unit) as one string, a null apart from an empty string, numbered by a dictionary (C, not Python)
    key = per_hand.select(pl.concat_str([*(c.fill_null("") for c in cols), *(c.is_null().cast(pl.String) for c in cols[1:])], separator="\x00"))
    who = pc.dictionary_encode(pc.cast(key.to_series().to_arrow(), pa.large_string()))
    groups = []
    for text in who.dictionary.to_pylist():
        player, currency, unit, c_null, u_null = str(text).split("\x00")
        groups.append((player, None if c_null == "true" else currency, None if u_null == "true" else unit))
    d = per_hand.select(
        pl.col("hand_key").cast(pl.Int64),
        pl.col("started_at").dt.epoch("us").fill_null(NO_TIME).alias("started_at"),
        pl.col("net").cast(pl.Int64).fill_null(0),
        pl.col("went_to_showdown").fill_null(False),
        pl.col("big_bets").cast(pl.Float64),
        pl.col("big_bet").cast(pl.Int64).fill_null(0),
    )
    return arrow_series(d.to_arrow(), who.indices, groups)


def running_lines(big_bets: np.ndarray[Any, Any], showdown: np.ndarray[Any, Any]) -> list[tuple[str, np.ndarray[Any, Any]]]:
    """The winnings graph's running totals in big bets: showdown, non-showdown (net less showdown), net.

    A hand without a big bet adds nothing (NaN as 0).  The report draws
    these (and its all-in adjusted line); the player's page these three.
    """
    import numpy as np

    from hhtool.stats.points import finite

    step = finite(big_bets)
    net = np.cumsum(step)
    sd = np.cumsum(np.where(showdown, step, 0.0))
    return [("showdown", sd), ("non-showdown", net - sd), ("net", net)]


@dataclass(frozen=True, slots=True)
class Session:
    """One session: a (player, currency, unit)'s hands with no gap over the limit between two; money exact."""

    player: str
    currency: str | None
    unit: str | None
    session: int  # its number among the player's sessions in that money, from 1
    start: dt.datetime | None
    end: dt.datetime | None
    hands: int
    net: int
    big_bets: float  # to two decimals


def session_list(s: HandSeries, gap_minutes: int = 30) -> list[Session]:
    """The sessions of ``s`` (in time order): a new one after ``gap_minutes`` without a hand of the same player and money.

    In the order a person reads them: by name (:func:`name_key`), then
    start, then number.  A hand of no known start joins the session it
    comes in and sets neither end.  Big bets are the exact sum of each
    hand's net over its big bet, rounded half to even to two decimals.
    Nets are summed exactly: in 64 bits
    where no sum can overflow (an amount is at most 10^12, docs/schema.md
    "Bounds", so always but for absurd values), else as Python integers.
    """
    import numpy as np

    out = []
    for g in range(len(s.groups)):
        player, currency, unit = s.groups[g]
        if len(s.groups) == 1:
            out += _sessions(player, currency, unit, s.started_at, s.net, s.big_bet, gap_minutes)
            continue
        # a few monies: a mask each, not a sort; take, not [rows], a third of the time
        rows = np.flatnonzero(s.group == g)
        out += _sessions(player, currency, unit, s.started_at.take(rows), s.net.take(rows), s.big_bet.take(rows), gap_minutes)
    out.sort(key=lambda x: (name_key(x.player), x.start is not None, x.start or EPOCH, x.session))
    return out


def sessions(per_hand_df: pl.DataFrame, gap_minutes: int = 30) -> pl.DataFrame:
    """Per player and currency: a new session after ``gap_minutes`` without a hand.  Start, end, hands, net, big bets.

    A player's euro hands and dollar hands are sessions apart (a session's
    net is one money); big bets are rounded to two decimals.  The walk is
    :func:`session_list`'s, which the player's page runs on its arrays;
    this is it over a frame of :func:`hhtool.stats.per_hand.load_per_hand`
    (:func:`frame_series`).
    """
    import polars as pl

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


def _sessions(
    player: str, currency: str | None, unit: str | None, t: np.ndarray[Any, Any], net: np.ndarray[Any, Any], big_bet: np.ndarray[Any, Any],
    gap_minutes: int,
) -> list[Session]:
    """The sessions of one player's hands in one money (``t`` in time order)."""
    import numpy as np

    n = len(t)
    if n == 0:
        return []
    gap = gap_minutes * 60_000_000
    new = np.ones(n, dtype=bool)
    if t[0] != NO_TIME:  # every start known (in time order, an unknown one comes first): a session's first and last are its ends
        np.greater(np.diff(t), gap, out=new[1:])
        first = np.flatnonzero(new)
        last = np.append(first[1:], n) - 1
        start, end = t[first], t[last]
    else:
        known = t != NO_TIME
        new[1:] = ((t[1:] - t[:-1]) > gap) & known[1:] & known[:-1]
        first = np.flatnonzero(new)
        last = np.append(first[1:], n) - 1
        start = np.minimum.reduceat(np.where(known, t, np.iinfo(np.int64).max), first)
        end = np.maximum.reduceat(np.where(known, t, NO_TIME), first)
    nets = _sums(net, first, last)
    big = _big_bets(net, big_bet, first, last, nets)

    def when(us: int) -> dt.datetime | None:
        return None if us in (NO_TIME, np.iinfo(np.int64).max) else EPOCH + dt.timedelta(microseconds=us)

    return [
        Session(player, currency, unit, i + 1, when(int(start[i])), when(int(end[i])), int(last[i] - first[i] + 1), nets[i],
                float(round(big[i], 2)))
        for i in range(len(first))
    ]


def _big_bets(
    net: np.ndarray[Any, Any], big_bet: np.ndarray[Any, Any], first: np.ndarray[Any, Any], last: np.ndarray[Any, Any], nets: list[int]
) -> list[Fraction]:
    """Each session's (``first[i]`` .. ``last[i]``; ``nets`` their nets) big bets exactly: per size of the big bet, the
    session's nets summed in integers, then each sum over its size as a fraction.

    Why not doubles: a sum of them can land either side of a half cent,
    which the rounding to two decimals shows.  A pass over the hands per
    size but the last, whose sums are the nets less the others' (a player
    at two stakes at once, whose sizes alternate hand by hand, has two);
    a big bet of 0 adds nothing.
    """
    import numpy as np

    # the sizes: the least and the greatest, or (more than two) the values where the size changes, which hold every one
    sizes = [int(big_bet.min()), int(big_bet.max())]
    if sizes[0] == sizes[1]:
        sizes = sizes[:1]
    elif np.count_nonzero(big_bet == sizes[0]) + np.count_nonzero(big_bet == sizes[1]) < len(big_bet):
        sizes = np.unique(big_bet[np.flatnonzero(np.concatenate([[True], big_bet[1:] != big_bet[:-1]]))]).tolist()
    if len(sizes) == 1:  # one size (one stake): the nets' sums over it
        return [Fraction(v, sizes[0]) for v in nets] if sizes[0] > 0 else [Fraction(0)] * len(first)
    fits = _fits(net)
    big, rest = [Fraction(0)] * len(first), nets  # rest: the nets of the sizes not added yet
    for size in sizes:
        if size == sizes[-1]:
            sums = rest
        else:
            sums = _sums(np.where(big_bet == size, net, 0), first, last, fits)
            rest = [r - v for r, v in zip(rest, sums)]
        if size > 0:
            big = [b + Fraction(v, size) for b, v in zip(big, sums)]
    return big


def _fits(values: np.ndarray[Any, Any]) -> bool:
    """Whether no sum of some of ``values`` (64-bit integers) can overflow 64 bits: always but for absurd amounts
    (one is at most 10^12, docs/schema.md "Bounds")."""
    return len(values) == 0 or max(int(values.max()), -int(values.min())) < 2**63 // len(values)


def _sums(values: np.ndarray[Any, Any], first: np.ndarray[Any, Any], last: np.ndarray[Any, Any], fits: bool | None = None) -> list[int]:
    """Each stretch ``first[i]`` .. ``last[i]`` of ``values`` summed exactly: in 64 bits where no sum can overflow, else as
    Python's integers.  ``fits``: :func:`_fits` of ``values`` (or of values they are some of), known (None: look)."""
    import numpy as np

    if _fits(values) if fits is None else fits:
        return [int(v) for v in np.add.reduceat(values, first)]
    return [sum(int(v) for v in values[a : b + 1]) for a, b in zip(first, last)]
