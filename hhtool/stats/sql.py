"""The statistics' SQL: one query over the seats, or one over ``player_totals``, each player's counts, win rates and money.

Every flag is decided per hand and player, as ``docs/stats.md`` defines
them, when the hand is imported (:mod:`hhtool.store.flags`, stored on the
``seats`` rows), and summed per player here inside DuckDB: only the
per-player totals travel to Python, a few rows a player.  The counts are
:data:`~hhtool.store.totals.SEAT_COUNTERS`, the very SQL that fills
``player_totals``, so the two ways of summing cannot count apart.  What
the rows become is :mod:`hhtool.stats.result`'s; which query runs,
:func:`hhtool.stats.compute.compute_on`'s.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from hhtool.stats.definitions import RATE_UNITS
from hhtool.stats.filters import Filters, totals_scope
from hhtool.store.flags import CHECK_RAISE_STREETS, RATIO_FLAGS, RERAISE_STREETS, STREETS
from hhtool.store.totals import MONEY_COUNTERS, OLD_VELA_SQL, PLAYER_TOTALS, RAKE_SHARE_SQL, SEAT_COUNTERS

if TYPE_CHECKING:
    import duckdb


STREET_COLUMNS = tuple(f"{c}_{st}" for st in STREETS for c in ("aggr", "calls", "folds", "ftb_n", "ftb_d"))
"""The per-street sums of :func:`stats_sql`'s rows: :func:`~hhtool.stats.result.street_aggression`'s, not the table's."""

MONEY_COLUMNS = ("hands", *(name for name, _ in MONEY_COUNTERS), "rake")
"""The money rows' sums after their player, currency and unit: :func:`money_sql`'s columns, :func:`from_totals`' rows."""


def stat_parts() -> list[tuple[str, tuple[str, ...]]]:
    """Each column of the statistics' table, in :func:`stats_sql`'s order, as the counts
    (:data:`~hhtool.store.totals.SEAT_COUNTERS`) it adds up: most are one count, a few another's or a sum of some."""
    direct = {name for name, _ in SEAT_COUNTERS}
    derived: dict[str, tuple[str, ...]] = {
        **{f"saw_{st}_d": ("hands",) for st in STREETS[1:-1]},  # of hands dealt in (the vela's: those whose rules have one)
        **{f"{key}_{end}": tuple(f"{key}_{st}_{end}" for st in streets)
           for key, streets in (("reraise", RERAISE_STREETS), ("check_raise", CHECK_RAISE_STREETS)) for end in ("n", "d")},
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
        *(f"{key}_{end}" for key in ("reraise", *(f"reraise_{st}" for st in RERAISE_STREETS), "check_raise",
                                     *(f"check_raise_{st}" for st in CHECK_RAISE_STREETS), "cbet", "cbet_fold") for end in ("n", "d")),
    ]
    assert direct <= set(order) and set(order) == direct | set(derived)
    return [(name, (name,) if name in direct else derived[name]) for name in order]


def _stat_columns() -> list[str]:
    """The statistics' columns from their counts in SQL, as :func:`stats_sql` gives them."""
    return [name if parts == (name,) else f"({' + '.join(parts)})::BIGINT AS {name}" for name, parts in stat_parts()]


def stats_sql(hand_where: str, seat_where: str) -> str:
    """The one query behind :func:`~hhtool.stats.compute.compute`: a row per player, every statistic's actions and opportunities.

    Every flag of docs/stats.md was decided per hand and player when the
    hand was imported (:mod:`hhtool.store.flags`, stored on ``seats``), so
    a statistic is a sum over the seats in scope: one pass over one table,
    joined to the hands only for the filters and the win rates' units
    (net over the big bet, the big blind, the ante, each over the hands
    that have one).  The counts are :data:`~hhtool.store.totals.SEAT_COUNTERS`,
    the ones ``player_totals`` keeps summed (:func:`totals_sql`).
    Money per currency is :func:`money_sql`'s.  A row per account (player
    and site: docs/stats.md, "Players and accounts"), every one in scope:
    :func:`by_keys` adds a person's and keeps those with ``min_hands``.
    Placeholders, in order: ``hand_where``'s, ``seat_where``'s.
    """
    counts = ", ".join(f"({sql})::BIGINT AS {name}" for name, sql in SEAT_COUNTERS)
    return f"""
    WITH hs AS (
        SELECT h.hand_key, h.site, h.big_bet, h.big_blind, h.ante, {OLD_VELA_SQL}
        FROM hands h WHERE {hand_where}
    ),
    sp AS (
        SELECT s.player, hs.site, {counts}
        FROM seats s JOIN hs USING (hand_key)
        WHERE {seat_where}
        GROUP BY s.player, hs.site
    )
    SELECT player, site, {', '.join(_stat_columns())}
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
        SELECT h.hand_key, h.site, h.big_bet, h.big_blind, h.ante
        FROM hands h WHERE {hand_where}
    )
    SELECT s.player, hs.site, hs.big_bet, hs.big_blind, hs.ante, sum(s.net)::HUGEINT AS net
    FROM seats s JOIN hs USING (hand_key)
    WHERE {seat_where}
    GROUP BY s.player, hs.site, hs.big_bet, hs.big_blind, hs.ante
    """


def rate_numerators(rows: list[tuple[Any, ...]]) -> dict[tuple[str, str], dict[str, Fraction]]:
    """Each account's win rates' numerators (``bb_n``, ``bl_n``, ``an_n``: net in units of the forced bet), exact;
    ``rows`` as :func:`rate_units_sql` gives them (player, site, the forced bets, the net)."""
    out: dict[tuple[str, str], dict[str, Fraction]] = {}
    for row in rows:
        mine = out.setdefault((str(row[1]), str(row[0])), {key: Fraction(0) for key in RATE_UNITS})
        for key, column in RATE_UNITS.items():
            unit = row[column + 1]
            if unit is not None and unit > 0:
                mine[key] += Fraction(int(row[5]), int(unit))
    return out


def money_sql(hand_where: str, seat_where: str, named: str = "TRUE") -> str:
    """Each player's money per currency: exact sums in minor units, never one currency added to another.

    Sums are HUGEINT (128 bits): no stored amount can make them overflow.
    ``allin_net`` sums the all-in adjusted nets (a row imported before the
    column counts its ``net``), ``luck`` the nets less them (docs/stats.md).
    The rake a player paid is each pot's rake shared among its winners in
    proportion to their shares, rounded half up to the minor unit per pot,
    in integers (a double would lose cents on large pots).
    A row per account and money (player, site, currency, unit), every one
    in scope (:func:`by_keys` adds a person's).  ``named``: the pot
    winners that count, a condition on ``x.player`` and ``x.site``.
    Placeholders: ``hand_where``'s, ``named``'s, ``seat_where``'s.
    """
    player_cond = named
    money = ", ".join(f"{sql} AS {name}" for name, sql in MONEY_COUNTERS)
    return f"""
    WITH hs AS (SELECT h.hand_key, h.site, h.currency, h.unit FROM hands h WHERE {hand_where}),
    out AS (SELECT s.hand_key, s.player FROM seats s JOIN hs USING (hand_key) WHERE NOT s.dealt_in),
    rk AS (
        SELECT player, site, currency, unit, sum(share)::HUGEINT AS rake
        FROM (
            SELECT p.hand_key, hs.site, hs.currency, hs.unit, u.w AS player, {RAKE_SHARE_SQL} AS share
            FROM pots p JOIN hs USING (hand_key), LATERAL (SELECT unnest(p.winners) AS w, unnest(p.shares) AS s) u
        ) x
        ANTI JOIN out ON out.hand_key = x.hand_key AND out.player = x.player
        WHERE {player_cond}
        GROUP BY ALL
    ),
    sm AS (
        SELECT s.player, hs.site, hs.currency, hs.unit, count(*) AS hands, {money}
        FROM seats s JOIN hs USING (hand_key)
        WHERE {seat_where}
        GROUP BY ALL
    )
    SELECT sm.*, coalesce(rk.rake, 0)::HUGEINT AS rake
    FROM sm LEFT JOIN rk USING (player, site, currency, unit)
    """


def totals_sql(where: str) -> str:
    """Every count and money sum of ``player_totals h`` in scope, a row per player, money and forced bets: what
    :func:`stats_sql`, :func:`rate_units_sql` and :func:`money_sql` give from the seats, from these few rows
    (:func:`from_totals`).  Placeholders: ``where``'s."""
    counts = ", ".join(f"sum(h.{name})::BIGINT AS {name}" for name, _ in SEAT_COUNTERS)
    money = ", ".join(f"sum(h.{name})::HUGEINT AS {name}" for name, _ in (*MONEY_COUNTERS, ("rake", "")))
    return f"""
    SELECT h.player, h.site, h.currency, h.unit, h.big_bet, h.big_blind, h.ante, {counts}, {money}
    FROM {PLAYER_TOTALS.name} h
    WHERE {where}
    GROUP BY ALL
    """


Rows = tuple[list[tuple[Any, ...]], dict[tuple[str, str], dict[str, Fraction]], list[tuple[Any, ...]]]
"""The statistics' rows (player, site, :func:`stat_parts`' columns), the win rates' exact numerators per account
((site, player)) and the money rows (player, site, currency, unit, :data:`MONEY_COLUMNS`): an account each."""


def from_totals(con: duckdb.DuckDBPyConnection, f: Filters) -> Rows:
    """The statistics' rows (before their win rates), the win rates' exact numerators and the money rows, from ``player_totals``,
    an account each (:func:`by_keys` makes them a row's key each).

    One query (:func:`totals_sql`), its rows added up here three ways: per
    account (the counts, as :func:`stats_sql` words them), per account and
    forced bets (the nets the win rates divide), per account and money.
    The rows are few (a player's are one per money and forced bets: five
    for the benchmark's busiest), so they are added in Python: a frame's
    group-bys and filters cost a player's page 8 ms of fixed overhead for
    a few additions.  A sum of none of a column's values is 0, as the
    seats' are.
    """
    where, params = totals_scope(f)
    rows = con.execute(totals_sql(where), params).fetchall()
    # a row: player, site, currency, unit, big_bet, big_blind, ante, the counts, the money sums and the rake
    counts = len(SEAT_COUNTERS)
    at = {name: i for i, (name, _) in enumerate(SEAT_COUNTERS)}
    hands, money = at["hands"], 7 + counts
    net = money + MONEY_COLUMNS.index("net") - 1
    per: dict[tuple[str, str], list[int]] = {}
    for r in rows:
        a = (r[0], r[1])
        got = per.get(a)
        if got is None:
            per[a] = [v or 0 for v in r[7 : 7 + counts]]
        else:
            per[a] = [x + (v or 0) for x, v in zip(got, r[7 : 7 + counts])]
    kept = {a: c for a, c in per.items() if c[hands] > 0}
    t = [(p, s, *(sum(c[at[x]] for x in parts) for _, parts in stat_parts())) for (p, s), c in kept.items()]
    units: dict[tuple[Any, ...], int] = {}
    monies: dict[tuple[Any, ...], list[int]] = {}
    for r in rows:
        if (r[0], r[1]) not in kept:
            continue
        key = (r[0], r[1], r[4], r[5], r[6])
        units[key] = units.get(key, 0) + (r[net] or 0)
        m = monies.setdefault((r[0], r[1], r[2], r[3]), [0] * len(MONEY_COLUMNS))
        m[0] += r[7 + hands] or 0
        for k in range(1, len(MONEY_COLUMNS)):
            m[k] += r[money + k - 1] or 0
    exact = rate_numerators([(*key, v) for key, v in units.items()])
    return t, exact, [(*key, *m) for key, m in monies.items() if m[0] > 0]


def by_keys(
    rows: Rows, keys: dict[tuple[str, str], list[str]], min_hands: int
) -> tuple[tuple[list[tuple[Any, ...]], dict[str, dict[str, Fraction]], list[tuple[Any, ...]]], dict[str, tuple[tuple[str, str], ...]]]:
    """The accounts' rows (:data:`Rows`) added up per row key (``keys``: each account's, :func:`hhtool.stats.accounts.keys_of`),
    the keys with fewer than ``min_hands`` hands left out; and each key's accounts.

    Every count and money sum is a sum over seats, so a person's is the sum
    of their accounts' (a hand two of their accounts played counts twice,
    as two seats).  Added in Python: a few rows an account.
    """
    t, exact, money = rows
    summed: dict[str, list[int]] = {}
    members: dict[str, list[tuple[str, str]]] = {}
    for r in t:
        a = (str(r[1]), str(r[0]))
        for key in keys.get(a, ()):
            got = summed.get(key)
            summed[key] = list(r[2:]) if got is None else [x + y for x, y in zip(got, r[2:])]
            members.setdefault(key, []).append(a)
    kept = {k: v for k, v in summed.items() if v[0] >= min_hands and v[0] > 0}
    out_t = [(k, *v) for k, v in kept.items()]
    out_exact: dict[str, dict[str, Fraction]] = {}
    for a, nums in exact.items():
        for key in keys.get(a, ()):
            if key in kept:
                mine = out_exact.setdefault(key, {n: Fraction(0) for n in nums})
                for n, v in nums.items():
                    mine[n] = mine.get(n, Fraction(0)) + v
    monies: dict[tuple[Any, ...], list[int]] = {}
    for r in money:
        for key in keys.get((str(r[1]), str(r[0])), ()):
            if key in kept:
                got = monies.get((key, r[2], r[3]))
                monies[(key, r[2], r[3])] = list(r[4:]) if got is None else [x + y for x, y in zip(got, r[4:])]
    out_m = [(*k, *v) for k, v in monies.items()]
    return (out_t, out_exact, out_m), {k: tuple(sorted(set(members[k]))) for k in kept}
