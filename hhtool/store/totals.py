"""Tables derived from the seats and kept by the import beside them: each player's totals and each player's hands.

A statistic is a sum over the player's seats (:mod:`hhtool.store.flags`
decided every flag at import), and a sum of sums is the sum: so the seats
are summed once more at import, per player and per everything a filter of
``hhtool stats`` can select -- site, profile, structure, table size,
stakes (with the forced bets the win rates divide by), currency -- and per
UTC hour the hand started in (``from``/``to`` with ``--day-start H`` are
ranges of whole UTC hours): :data:`PLAYER_TOTALS`.  A player's statistics
under any filter are then a sum over a few thousand rows instead of
hundreds of thousands of seats.  What is not a sum -- the winnings graph
and the sessions, which follow a player's hands one by one -- reads
:data:`PLAYER_HANDS`: each player's hands with the few columns they need,
kept in the order of the players, so that one player's hands are a few
row groups of one table, not a pass over every seat joined to every hand
(docs/serve.md, "Speed and memory").

Kept in step with the hands: the writer adds a batch's rows to both in
the transaction that adds its hands (:func:`add_derived`, once for the
transaction's hands, just before its commit), so that a crash
or a cancel never leaves one without the other; the table ``derived``
says which version of each table this is and up to which hand key it
holds.
Wherever those do not match the hands (a database written before the
tables, or hands inserted some other way) the table is built again from
the seats when the database is opened for writing (:func:`ensure_derived`),
and the readers use the seats meanwhile (:func:`current`).

Rows are appended a batch at a time: a key of the totals (player,
dimensions, hour) may have several rows, which every reader sums; a
batch's hands come after the table's ordered rows.  When the appended
rows outgrow the table as last compacted, it is compacted (the totals one
row a key, both in the order of the players) in the same transaction.

The tables are derived: not among :data:`hhtool.store.schema.TABLES`,
not exported to Parquet, not written by the Spark import; ``--parquet``
reads the seats.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hhtool.store.flags import CHECK_RAISE_STREETS, RATIO_FLAGS, RERAISE_STREETS, STREETS
from hhtool.store.schema import Column

if TYPE_CHECKING:
    import duckdb

COMPACT_SLACK = 50_000
"""Rows a table may gain past twice its rows at the last compaction before it is compacted again."""

DIMENSIONS: tuple[Column, ...] = (
    Column("player", "VARCHAR", "the player (a dealt-in seat's, or a pot winner's for the rake)"),
    Column("site", "VARCHAR", "`hands.site`"),
    Column("profile", "VARCHAR", "`hands.profile`"),
    Column("structure", "VARCHAR", "`hands.structure`"),
    Column("max_seats", "TINYINT", "`hands.max_seats`"),
    Column("currency", "VARCHAR", "`hands.currency`"),
    Column("unit", "VARCHAR", "`hands.unit`"),
    Column("small_bet", "BIGINT", "`hands.small_bet`"),
    Column("big_bet", "BIGINT", "`hands.big_bet`"),
    Column("ante", "BIGINT", "`hands.ante`"),
    Column("big_blind", "BIGINT", "`hands.big_blind`"),
    Column("verdict", "VARCHAR", "`hands.verdict`"),
    Column("hour", "BIGINT", "the UTC hour the hand started in: hours since 1970-01-01 00:00 UTC"),
)
"""What a row is the totals of: a player, the hands' facts a filter selects by, and the hour."""

OLD_VELA_SQL = "(h.profile = 'classic' OR coalesce(h.vela_at_start, FALSE)) AS vela_rules"
"""The hands' row's ``vela_rules`` (``hs``): whether the hand's built-in profile has a vela, for a seat imported before
``seats.saw_vela_opp`` (NULL there; a room's own rules are not known from the row)."""

HOUR_SQL = "floor(epoch_ms(h.started_at) / 3600000.0)::BIGINT"
"""``hands h``'s :data:`DIMENSIONS` ``hour`` (a double division of whole milliseconds: exact on the hour, never rounded up to it)."""


def _seat_counters() -> tuple[tuple[str, str], ...]:
    """Every count the statistics sum (``docs/stats.md``), as an aggregate over ``seats s`` joined to ``hs`` (the hands' row)."""
    out = [
        ("hands", "count(*)"),
        ("bb_d", "count_if(coalesce(hs.big_bet, 0) > 0)"),
        ("bl_d", "count_if(coalesce(hs.big_blind, 0) > 0)"),
        ("an_d", "count_if(coalesce(hs.ante, 0) > 0)"),
        *((f"saw_{st}_n", f"count_if(s.saw_{st})") for st in STREETS[1:]),
        ("saw_vela_d", "count_if(coalesce(s.saw_vela_opp, hs.vela_rules))"),
        ("wtsd_n", "count_if(s.saw_3rd AND s.went_to_showdown)"),
        ("wsd_n", "count_if(s.won_at_showdown)"),
        ("wsd_d", "count_if(s.went_to_showdown)"),
        ("wwsf_n", "count_if(s.saw_3rd AND s.collected > 0)"),
    ]
    for key in RATIO_FLAGS:
        out += [(f"{key}_n", f"count_if(s.{key})"), (f"{key}_d", f"count_if(s.{key}_opp)")]
    for key in (*(f"reraise_{st}" for st in RERAISE_STREETS), *(f"check_raise_{st}" for st in CHECK_RAISE_STREETS), "cbet", "cbet_fold"):
        # NULL before the column: none (count_if of nothing but NULLs is NULL, not 0)
        out += [(f"{key}_n", f"coalesce(count_if(s.{key}), 0)"), (f"{key}_d", f"coalesce(count_if(s.{key}_opp), 0)")]
    aggr, calls, folds = (" + ".join(f"s.{c}_{st}" for st in STREETS) for c in ("bets", "calls", "folds"))
    out += [
        ("af_n", f"coalesce(sum({aggr}), 0)"),
        ("af_d", f"coalesce(sum({calls}), 0)"),
        ("afq_d", f"coalesce(sum({aggr} + {calls} + {folds}), 0)"),
    ]
    for st in STREETS:
        out += [
            (f"aggr_{st}", f"sum(s.bets_{st})"),
            (f"calls_{st}", f"sum(s.calls_{st})"),
            (f"folds_{st}", f"sum(s.folds_{st})"),
            (f"ftb_n_{st}", f"count_if(s.fold_to_bet_{st})"),
            (f"ftb_d_{st}", f"count_if(s.fold_to_bet_{st}_opp)"),
        ]
    return tuple(out)


SEAT_COUNTERS: tuple[tuple[str, str], ...] = _seat_counters()
"""(name, aggregate over ``seats s JOIN hs``): the counts of :func:`hhtool.stats.sql.stats_sql`, the same SQL for the
seats and for this table, so the two cannot count apart."""

MONEY_COUNTERS: tuple[tuple[str, str], ...] = (
    ("net", "coalesce(sum(s.net::HUGEINT), 0)"),
    ("sd_net", "coalesce(sum(s.net::HUGEINT) FILTER (WHERE s.went_to_showdown), 0)"),
    ("nsd_net", "coalesce(sum(s.net::HUGEINT) FILTER (WHERE s.went_to_showdown IS NOT TRUE), 0)"),
    ("allin_net", "coalesce(sum(coalesce(s.allin_net, s.net)::HUGEINT), 0)"),
    ("luck", "coalesce(sum((s.net - coalesce(s.allin_net, s.net))::HUGEINT), 0)"),
)
"""(name, aggregate over ``seats s``): each player's money sums per currency (HUGEINT: exact), as :func:`hhtool.stats.sql.money_sql` sums them."""

RAKE_SHARE_SQL = "(p.rake::HUGEINT * u.s * 2 + list_sum(p.shares)) // NULLIF(2 * list_sum(p.shares), 0)"
"""A winner's share of a pot's rake (``pots p``, ``u.s`` their share of it): in proportion, rounded half up to the minor unit, in integers."""

COLUMNS: tuple[Column, ...] = (
    *DIMENSIONS,
    *(Column(name, "BIGINT", "a count of docs/stats.md: seats, actions or opportunities") for name, _ in SEAT_COUNTERS),
    *(Column(name, "HUGEINT", "a money sum of docs/stats.md, in minor units") for name, _ in MONEY_COUNTERS),
    Column("rake", "HUGEINT", "the rake the player paid: each pot's rake shared among its winners (`docs/stats.md`)"),
)
DIMENSION_NAMES: tuple[str, ...] = tuple(c.name for c in DIMENSIONS)


def totals_select(lo: int | None = None) -> tuple[str, list[Any]]:
    """The totals of every hand with ``hand_key >= lo`` (all without ``lo``), a row per key, and the query's parameters.

    The money and the rake follow :func:`hhtool.stats.sql.money_sql`:
    the seats dealt in, and the rake of every pot's winner who was not a
    seat left out of the hand.
    """
    if lo is None:
        h_cond = s_cond = p_cond = "TRUE"
        params: list[Any] = []
    else:
        h_cond, s_cond, p_cond = "h.hand_key >= ?", "s.hand_key >= ?", "p.hand_key >= ?"
        params = [lo, lo, lo, lo]  # hs, out, the seats, the pots
    dims = DIMENSION_NAMES[1:]
    counters = ", ".join(f"{sql} AS {name}" for name, sql in (*SEAT_COUNTERS, *MONEY_COUNTERS))
    zeros = ", ".join(f"0 AS {name}" for name, _ in (*SEAT_COUNTERS, *MONEY_COUNTERS))
    sums = _sums(COLUMNS[len(DIMENSIONS):])
    sql = f"""
    WITH hs AS (
        SELECT h.hand_key, {', '.join(f'h.{d}' for d in dims[:-1])}, {HOUR_SQL} AS hour, {OLD_VELA_SQL}
        FROM hands h WHERE {h_cond}
    ),
    out AS (SELECT s.hand_key, s.player FROM seats s JOIN hs USING (hand_key) WHERE NOT s.dealt_in AND {s_cond}),
    parts AS (
        SELECT s.player, {', '.join(f'hs.{d}' for d in dims)}, {counters}, 0::HUGEINT AS rake
        FROM seats s JOIN hs USING (hand_key)
        WHERE s.dealt_in AND {s_cond}
        GROUP BY ALL
        UNION ALL BY NAME
        SELECT x.player, {', '.join(f'x.{d}' for d in dims)}, {zeros}, sum(x.share)::HUGEINT AS rake
        FROM (
            SELECT p.hand_key, {', '.join(f'hs.{d}' for d in dims)}, u.w AS player, {RAKE_SHARE_SQL} AS share
            FROM pots p JOIN hs USING (hand_key), LATERAL (SELECT unnest(p.winners) AS w, unnest(p.shares) AS s) u
            WHERE {p_cond}
        ) x
        ANTI JOIN out ON out.hand_key = x.hand_key AND out.player = x.player
        GROUP BY ALL
    )
    SELECT {', '.join(DIMENSION_NAMES)}, {sums}
    FROM parts
    GROUP BY ALL
    ORDER BY player, hour
    """
    return sql, params


def _any(column: str) -> str:
    return "(" + " OR ".join(f"s.{column}_{st}" for st in STREETS) + ")"


def _stat_seats() -> dict[str, tuple[str, str]]:
    """Each statistic of ``docs/stats.md``: (its opportunity, the action taken) as conditions on the player's ``seats s`` row.

    The ones counted once a hand (VPIP .. won when saw 3rd) give exactly
    the hands the figure counts; fold to a bet, AF and AFq count decisions,
    several in a hand, so their lists are the hands with at least one.
    """
    out = {"hands": ("TRUE", "TRUE")}
    out.update({key: (f"s.{key}_opp", f"s.{key}") for key in RATIO_FLAGS})
    out.update({f"saw_{st}": ("TRUE", f"s.saw_{st}") for st in STREETS[1:-1]})
    out["saw_vela"] = ("coalesce(s.saw_vela_opp, TRUE)", "s.saw_vela")  # a row imported before the column: as it was
    bets, calls, folds = (" + ".join(f"s.{c}_{st}" for st in STREETS) for c in ("bets", "calls", "folds"))
    out.update(
        {
            "af": (f"({calls}) > 0", f"({calls}) > 0 AND ({bets}) > 0"),
            "afq": (f"({bets} + {calls} + {folds}) > 0", f"({bets}) > 0"),
            "fold_to_bet": ("(" + " OR ".join(f"s.fold_to_bet_{st}_opp" for st in STREETS) + ")", _any("fold_to_bet")),
            "wtsd": ("s.saw_3rd", "s.saw_3rd AND s.went_to_showdown"),
            "wsd": ("s.went_to_showdown", "s.won_at_showdown"),
            "wwsf": ("s.saw_3rd", "s.saw_3rd AND s.collected > 0"),
        }
    )
    for key, streets in (("reraise", RERAISE_STREETS), ("check_raise", CHECK_RAISE_STREETS)):
        out[key] = ("(" + " OR ".join(f"s.{key}_{st}_opp" for st in streets) + ")", "(" + " OR ".join(f"s.{key}_{st}" for st in streets) + ")")
        out.update({f"{key}_{st}": (f"s.{key}_{st}_opp", f"s.{key}_{st}") for st in streets})
    out.update({key: (f"s.{key}_opp", f"s.{key}") for key in ("cbet", "cbet_fold")})
    return out


STAT_SEATS: dict[str, tuple[str, str]] = _stat_seats()
assert 2 * len(STAT_SEATS) <= 63  # player_hands.stats: two bits a statistic in a BIGINT
"""The hands behind each statistic (the hands list's ``stat``, ``taken``): conditions on ``seats s``; ``player_hands``
keeps each seat's answers to them as bits (:func:`stat_bits_condition`)."""


def _stat_bits_sql() -> str:
    """Each seat's answers to :data:`STAT_SEATS` as one number: bit ``2k`` the ``k``-th statistic's opportunity, ``2k + 1`` its action."""
    terms = []
    for k, (opportunity, action) in enumerate(STAT_SEATS.values()):
        terms.append(f"(CASE WHEN coalesce({opportunity}, FALSE) THEN {1 << (2 * k)} ELSE 0 END)")
        terms.append(f"(CASE WHEN coalesce({action}, FALSE) THEN {1 << (2 * k + 1)} ELSE 0 END)")
    return "(" + " + ".join(terms) + ")::BIGINT"


def stat_bits_condition(stat: str, taken: bool | None, column: str = "h.stats") -> str:
    """The hands list's ``stat`` (and ``taken``) on ``player_hands``' bits: the opportunity's bit, and the action's set or not.

    As on the seats: the opportunity must hold (a NULL one does not), and
    the action hold (``taken``) or not hold, NULL counting as not.
    """
    k = list(STAT_SEATS).index(stat)
    opp, act = 1 << (2 * k), 1 << (2 * k + 1)
    if taken is None:
        return f"({column} & {opp}) <> 0"
    return f"({column} & {opp | act}) = {opp | (act if taken else 0)}"


def hands_select(lo: int | None = None) -> tuple[str, list[Any]]:
    """The :data:`PLAYER_HANDS` rows of every hand with ``hand_key >= lo`` (all without ``lo``), in their order, and the parameters."""
    cond, params = ("TRUE", []) if lo is None else ("h.hand_key >= ? AND s.hand_key >= ?", [lo, lo])
    a_cond, a_params = ("TRUE", []) if lo is None else ("a.hand_key >= ?", [lo])
    side = {**{c.name: f"h.{c.name}" for c in HANDS_COLUMNS}, **{n: f"s.{n}" for n in ("player", "net", "allin_net", "went_to_showdown")},
            "all_in": "ai.hand_key IS NOT NULL", "stats": _stat_bits_sql()}
    sql = f"""
    SELECT {', '.join(f'{side[c.name]} AS {c.name}' for c in HANDS_COLUMNS)}
    FROM seats s JOIN hands h USING (hand_key)
    LEFT JOIN (SELECT DISTINCT a.hand_key FROM actions a WHERE a.all_in AND {a_cond}) ai ON ai.hand_key = h.hand_key
    WHERE s.dealt_in AND {cond}
    ORDER BY {HANDS_ORDER}
    """
    return sql, a_params + params


HANDS_COLUMNS: tuple[Column, ...] = (
    Column("player", "VARCHAR", "the player, dealt in"),
    Column("started_at", "TIMESTAMPTZ", "`hands.started_at`"),
    Column("hand_key", "BIGINT", "the hand"),
    *(c for c in DIMENSIONS[1:-1] if c.name not in ("ante", "big_blind", "verdict")),
    Column("net", "BIGINT", "`seats.net`"),
    Column("allin_net", "BIGINT", "`seats.allin_net`"),
    Column("went_to_showdown", "BOOLEAN", "`seats.went_to_showdown`"),
    Column("total_pot", "BIGINT", "`hands.total_pot`"),
    Column("showdown", "BOOLEAN", "`hands.showdown`"),
    Column("verdict", "VARCHAR", "`hands.verdict`"),
    Column("all_in", "BOOLEAN", "someone was all-in in the hand (an action line with `and is all-in`)"),
    Column("stats", "BIGINT", "the seat's answer to each statistic's list: bit 2k its opportunity, 2k + 1 its action (`hhtool/store/totals.py`, `STAT_SEATS`)"),
)
HANDS_ORDER = "player, started_at, hand_key"


@dataclass(frozen=True, slots=True)
class Derived:
    """A table derived from the seats: its columns, the rows of the hands from a key on, and how it is compacted."""

    name: str
    version: str  # a change to its columns or their meaning builds it again from the seats
    columns: tuple[Column, ...]
    select: Callable[[int | None], tuple[str, list[Any]]]
    compacted: str  # the table's rows as one compacted, ordered SELECT over itself

    def ddl(self) -> str:
        cols = ",\n".join(f"    {c.name} {c.sql}" for c in self.columns)
        return f"CREATE TABLE {self.name} (\n{cols}\n)"


def _sums(columns: tuple[Column, ...]) -> str:
    return ", ".join(f"sum({c.name})::{c.sql} AS {c.name}" for c in columns)


PLAYER_TOTALS = Derived(
    "player_totals",
    "2",  # 2: the verdict a dimension; the vela's opportunity, the re-raise, check-raise and continuation bet counted
    COLUMNS,
    totals_select,
    f"SELECT {', '.join(DIMENSION_NAMES)}, {_sums(COLUMNS[len(DIMENSIONS):])} FROM player_totals GROUP BY ALL ORDER BY player, hour",
)
PLAYER_HANDS = Derived(
    "player_hands",
    "1-" + hashlib.sha256(_stat_bits_sql().encode()).hexdigest()[:12],  # another statistics' list: built again
    HANDS_COLUMNS,
    hands_select,
    f"SELECT * FROM player_hands ORDER BY {HANDS_ORDER}",
)


def allin_select(lo: int | None = None) -> tuple[str, list[Any]]:
    """The :data:`ALLIN_HANDS` rows of every hand with ``hand_key >= lo`` (all without ``lo``), and the parameters."""
    cond, params = ("TRUE", []) if lo is None else ("a.hand_key >= ?", [lo])
    return f"SELECT DISTINCT a.hand_key FROM actions a WHERE a.all_in AND {cond} ORDER BY a.hand_key", params


ALLIN_HANDS = Derived(
    "allin_hands",
    "1",
    (Column("hand_key", "BIGINT", "a hand in which someone was all-in (an action line with `and is all-in`)"),),
    allin_select,
    "SELECT * FROM allin_hands ORDER BY hand_key",
)
"""The hands with an all-in, for the hands list's ``allin``: a few rows a hand at most, not a pass over every action line."""
DERIVED: tuple[Derived, ...] = (PLAYER_TOTALS, PLAYER_HANDS, ALLIN_HANDS)


STATE = "derived"
"""Each derived table's version, the largest ``hand_key`` it holds (another value than the hands' largest: out of step)
and its rows when it was last built or compacted."""
STATE_DDL = f"CREATE TABLE IF NOT EXISTS {STATE} (name VARCHAR PRIMARY KEY, version VARCHAR, upto BIGINT, compacted BIGINT)"


def _record(con: duckdb.DuckDBPyConnection, table: Derived, upto: int, compacted: int) -> None:
    con.execute(STATE_DDL)
    con.execute(f"INSERT OR REPLACE INTO {STATE} VALUES (?, ?, ?, ?)", [table.name, table.version, upto, compacted])


def _one(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[Any, ...]:
    """The one row of ``sql``, fetched to the end (DuckDB refuses other work on a connection with a result left open)."""
    (row,) = con.execute(sql).fetchall()
    return tuple(row)


def _rows(con: duckdb.DuckDBPyConnection, table: Derived) -> int:
    return int(_one(con, f"SELECT count(*) FROM {table.name}")[0])


def _states(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, int, int, int]]:
    """Each derived table there is, by name: (its version, the hand key it holds up to, its rows when compacted, the
    hands' largest key), read in one statement; empty without the state table."""
    import duckdb

    try:
        rows = con.execute(
            f"SELECT name, version, upto, compacted, (SELECT coalesce(max(hand_key), 0) FROM hands) FROM {STATE} "
            "WHERE name IN (SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main')"
        ).fetchall()
    except duckdb.CatalogException:  # no state table (a database written before them, a Parquet dataset's views)
        return {}
    return {str(r[0]): (str(r[1]), int(r[2]), int(r[3]), int(r[4])) for r in rows}


def current(con: duckdb.DuckDBPyConnection, table: Derived, known: frozenset[str] | None = None) -> bool:
    """Whether ``table`` holds exactly the stored hands, in this version (else its readers use the seats).

    False for a Parquet dataset (its views have no such table) and for a
    database written before the table or changed around it.  ``known``:
    :func:`current_tables`' answer, asked once for a page's queries (the
    server asks it once for each count of hands stored), instead of a
    look at the state and the hands' largest key for each.
    """
    return table.name in (current_tables(con) if known is None else known)


def current_tables(con: duckdb.DuckDBPyConnection) -> frozenset[str]:
    """The names of the derived tables that hold exactly the stored hands, in their version: one statement for all."""
    versions = {t.name: t.version for t in DERIVED}
    return frozenset(name for name, (version, upto, _, last) in _states(con).items() if versions.get(name) == version and upto == last)


def _rebuild_within(con: duckdb.DuckDBPyConnection, table: Derived) -> None:
    """``table`` made again from every seat, with its state, inside a transaction already open."""
    con.execute(f"DROP TABLE IF EXISTS {table.name}")
    con.execute(table.ddl())
    sql, params = table.select(None)
    con.execute(f"INSERT INTO {table.name} BY NAME {sql}", params)
    _record(con, table, int(_one(con, "SELECT coalesce(max(hand_key), 0) FROM hands")[0]), _rows(con, table))


def rebuild(con: duckdb.DuckDBPyConnection, table: Derived) -> None:
    """``table`` made again from every seat, in one transaction with its state."""
    con.execute("BEGIN TRANSACTION")
    try:
        _rebuild_within(con, table)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def ensure_derived(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Bring every derived table up to the stored hands; the names of those changed.

    A table of this version behind the hands (``hhtool import`` adds hands
    without them) gains the rows of the hands after it, in one transaction;
    one missing, of another version or ahead of the hands is built whole.
    """
    changed = []
    states = _states(con)  # each table's own, unchanged by the others' catching up
    for table in DERIVED:
        state = states.get(table.name)
        if state is not None and state[0] == table.version and state[1] == state[3]:
            continue
        if state is not None and state[0] == table.version and state[1] < state[3]:
            con.execute("BEGIN TRANSACTION")
            try:
                add_one(con, table, state, state[1] + 1, state[3])
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
        else:
            rebuild(con, table)
        changed.append(table.name)
    return changed


def add_derived(con: duckdb.DuckDBPyConnection, first: int, last: int) -> None:
    """The rows of the hands ``first`` .. ``last`` (keys just inserted) in every derived table, within the caller's transaction.

    Appended, then the table compacted when it has grown past twice its
    rows at the last compaction (and :data:`COMPACT_SLACK`).  A table out
    of step (the database was changed around it) is built whole instead,
    so that it never holds some hands and not others.  The three tables'
    states are read in one statement (:func:`_states`).
    """
    states = _states(con)
    for table in DERIVED:
        state = states.get(table.name)
        if state is None or state[0] != table.version or state[1] != first - 1:
            _rebuild_within(con, table)
            continue
        add_one(con, table, state, first, last)


def add_one(con: duckdb.DuckDBPyConnection, table: Derived, state: tuple[str, int, int, int], first: int, last: int) -> None:
    """The rows of the hands ``first`` .. ``last`` appended to ``table`` (holding the hands before ``first``), compacted when it has doubled."""
    sql, params = table.select(first)
    con.execute(f"INSERT INTO {table.name} BY NAME {sql}", params)
    rows = _rows(con, table)
    if rows > 2 * state[2] + COMPACT_SLACK:
        _compact(con, table, last)
    else:
        _record(con, table, last, state[2])


def _compact(con: duckdb.DuckDBPyConnection, table: Derived, upto: int) -> None:
    """``table`` rewritten as its compacted, ordered rows (within the caller's transaction).

    One statement, which writes the rows once: through a temporary table
    and back (a copy, a delete and an insert) it took 1.4 s of CPU in the
    live import of 100,000 hands, 0.9 this way (docs/performance.md,
    "Serving").  The compacted SELECT keeps every column and its type.
    """
    con.execute(f"CREATE OR REPLACE TABLE {table.name} AS {table.compacted}")
    _record(con, table, upto, _rows(con, table))
