"""The decisions and the hands the screen reads, from the database: a few SQL passes over every pair at once.

Everything here is SQL over the tables of docs/schema.md, aggregated in
DuckDB so that a million hands come back as a few thousand rows: the pairs
of accounts dealt in together and the money between them
(:func:`pair_hands`), each player's figures over every opponent
(:func:`player_flows`), the heads-up decisions with their opponent
(:func:`heads_up`) and the decisions facing a bet with the bettor
(:func:`facing`).  The cards are read only for the hands a priced signal
looks at (:func:`cards_of`).  Every value goes to DuckDB as a parameter.

An account is (site, name): two accounts meet only in a hand of their
site.  Money is in big bets of the hand (``hands.big_bet``), so that hands
of different stakes add up; a hand without a big bet counts 1 a unit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from hhtool.stats.filters import Filters, hands_where

if TYPE_CHECKING:
    import duckdb
    import polars as pl

AGGRESSIVE = ("bet", "raise", "complete")
"""The actions that put a bet in: what the aggression signal counts."""
DECISIONS = ("bet", "raise", "complete", "call", "check", "fold")
"""Voluntary actions: forced bets (antes, blinds) and returned bets are no decision."""
CHOICES = (*DECISIONS, "bring_in")
"""The decisions the passes read: the voluntary actions and the bring-in, which is a choice too: the player who must
open the betting brings in or completes (RULES.md, "The bring-in"), and bringing in is the passive side of that choice,
as a check is where no bet is forced.  Numbered 1..7 in this order (:data:`KIND_NO`)."""


def frame(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> pl.DataFrame:
    """The rows of ``sql`` as a polars frame, its columns named as the query names them, its integers Int64.

    Through Arrow, not Python rows: a quarter of a million candidates come
    back in a second rather than fifteen.
    """
    import warnings

    import polars as pl

    with warnings.catch_warnings():  # the copy it warns of costs less than the relation API, which refuses a connection mid-result
        warnings.filterwarnings("ignore", message="Arrow output on a DB-API result", category=UserWarning)
        df = pl.from_arrow(con.execute(sql, params or []).to_arrow_table())
    assert isinstance(df, pl.DataFrame)
    # as Python rows gave them: integers (and HUGEINT sums, Decimal(38, 0) in Arrow) Int64, other decimals Float64
    casts = [pl.col(n).cast(pl.Int64 if t.is_integer() or (isinstance(t, pl.Decimal) and t.scale == 0) else pl.Float64)
             for n, t in df.schema.items() if (t.is_integer() and t != pl.Int64) or isinstance(t, pl.Decimal)]
    return df.with_columns(casts) if casts else df


def scoped_hands(con: duckdb.DuckDBPyConnection, f: Filters) -> None:
    """Temporary tables ``ih`` of the hands the filters select (``hand_key``, ``site``, ``bb``, ``dealt``) and ``ipl`` of their accounts, on this connection.

    ``dealt``: the seats dealt in, counted once here for the passes that need
    it (NULL for a hand without one).  ``ipl``: each account seated in those
    hands, (``site``, ``player``), with ``pid`` its number, numbered in the
    order of (site, name): the later passes join and group on the number,
    not on the name and the site, and name the accounts only in the few
    rows they return (:func:`decisions`).
    """
    where, params = hands_where(f)
    # a view cannot hold parameters: a temporary table of the keys (a few MB for a million hands)
    con.execute("DROP TABLE IF EXISTS ih")
    con.execute(
        "CREATE TEMP TABLE ih AS SELECT h.hand_key, h.site, "
        "CAST(CASE WHEN coalesce(h.big_bet, 0) > 0 THEN h.big_bet ELSE 1 END AS DOUBLE) AS bb, h.table_name, h.started_at "
        f"FROM hands h WHERE {where}",
        params,
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE ih AS SELECT ih.*, d.dealt FROM ih "
        "LEFT JOIN (SELECT s.hand_key, CAST(count(*) AS SMALLINT) AS dealt FROM seats s JOIN ih USING (hand_key) WHERE s.dealt_in "
        "GROUP BY s.hand_key) d USING (hand_key)"
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE ipl AS SELECT CAST(row_number() OVER (ORDER BY site, player) AS INTEGER) AS pid, site, player "
        "FROM (SELECT DISTINCT ih.site, s.player FROM seats s JOIN ih USING (hand_key) WHERE s.player IS NOT NULL)"
    )


FLOW_GRID: Final = 1 << 20
"""A hand's flow is summed as a whole number of 1/2**20 big bets: integer sums are exact in any order, so two screens of
the same hands give the same figures to the last digit (sums of doubles, added in whatever order DuckDB's threads and
polars' partitions meet them, differed in the sixth decimal).  The rounding is under a millionth of a big bet a hand."""


def flows_sql(ids: bool = False) -> str:
    """Per hand and ordered pair (a < b by name) dealt in together: the money from a to b, in big bets.

    The money a player lost in a hand went to the hand's winners in
    proportion to what each won: flow(x->y) = loss(x) * win(y) / wins; the
    flow from a to b is flow(a->b) - flow(b->a).  Reckoned from the integer
    nets, the hand's winnings summed exactly (``q``: the flow in
    :data:`FLOW_GRID` units, what the sums add).  ``ids``: ``a`` and ``b``
    the accounts' numbers (``ipl``, :func:`scoped_hands`: in a hand, of one
    site, their order is the names'), which the pairs' sums group on.
    """
    player = "p.pid" if ids else "s.player"
    accounts = "LEFT JOIN ipl p ON p.site = ih.site AND p.player = s.player" if ids else ""
    return f"""
    WITH s AS (
        SELECT s.hand_key, ih.site, {player} AS player, s.net, ih.bb
        FROM seats s JOIN ih USING (hand_key) {accounts} WHERE s.dealt_in
    ), w AS (
        SELECT hand_key, sum(greatest(net, 0)) AS wins FROM s GROUP BY hand_key
    ), sw AS (
        SELECT s.*, w.wins FROM s JOIN w USING (hand_key)
    ), f AS (
        SELECT x.hand_key, x.site, x.player AS a, y.player AS b,
            CASE WHEN x.wins > 0
                 THEN (greatest(-x.net, 0)::DOUBLE * greatest(y.net, 0) - greatest(-y.net, 0)::DOUBLE * greatest(x.net, 0)) / (x.wins * x.bb)
                 ELSE 0 END AS flow
        FROM sw x JOIN sw y ON x.hand_key = y.hand_key AND x.player < y.player
    )
    SELECT *, CAST(round(flow * {FLOW_GRID}) AS BIGINT) AS q FROM f
    """


def pair_hands(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per pair (site, a < b): hands together, the sum of the flow a->b, of its square and of its size (big bets).

    Summed as integers (:data:`FLOW_GRID`); ``flow_q`` and ``vol_q`` are the
    flow's and the size's integer sums, which :func:`player_flows` adds up.
    Grouped on the accounts' numbers (:func:`flows_sql` with ``ids``), not
    on the names: the pairs' rows are named at the end.
    """
    g = FLOW_GRID
    return frame(
        con, f"""
        WITH n AS (
            SELECT a, b, count(*) AS together, sum(q) AS sq, sum(abs(q)) AS sa, sum(CAST(q AS HUGEINT) * q) AS s2
            FROM ({flows_sql(ids=True)}) GROUP BY a, b
        )
        SELECT pa.site, pa.player AS a, pb.player AS b, together, CAST(sq AS BIGINT) AS flow_q, CAST(sa AS BIGINT) AS vol_q,
            CAST(sq AS DOUBLE) / {g} AS flow, CAST(s2 AS DOUBLE) / {g * g} AS flow2, CAST(sa AS DOUBLE) / {g} AS vol
        FROM n JOIN ipl pa ON pa.pid = n.a JOIN ipl pb ON pb.pid = n.b ORDER BY pa.site, pa.player, pb.player
        """
    )


def player_flows(ph: pl.DataFrame) -> pl.DataFrame:
    """Per player: the flow received from every opponent summed over (opponent, hand), how many such terms, and their volume.

    From :func:`pair_hands`' integer sums (a pair's flow is the sum of its
    hands'), not a second pass over the hands: exact in any order.
    """
    import polars as pl

    cols = ["site", "player", "recv", "terms", "vol"]
    if ph.height == 0:
        return pl.DataFrame(schema={"site": pl.String, "player": pl.String, "recv": pl.Float64, "terms": pl.Int64, "vol": pl.Float64})
    sides = pl.concat([
        ph.select("site", pl.col("b").alias("player"), pl.col("flow_q").alias("recv"), pl.col("together").alias("terms"), "vol_q"),
        ph.select("site", pl.col("a").alias("player"), (-pl.col("flow_q")).alias("recv"), pl.col("together").alias("terms"), "vol_q"),
    ])
    return sides.group_by("site", "player").agg(pl.col("recv").sum(), pl.col("terms").sum(), pl.col("vol_q").sum()) \
        .select("site", "player", pl.col("recv") / FLOW_GRID, "terms", (pl.col("vol_q") / FLOW_GRID).alias("vol")).select(cols) \
        .sort("site", "player")


def traffic(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per site and player: the hands dealt in; and per site the sum over hands of k(k-1), k the players dealt in."""
    return frame(
        con, """
        SELECT ih.site, s.player, count(*) AS hands, sum(ih.dealt - 1) AS seats_beside
        FROM seats s JOIN ih USING (hand_key)
        WHERE s.dealt_in GROUP BY ih.site, s.player ORDER BY ih.site, s.player
        """
    )


STREETS = ("2nd", "3rd", "4th", "5th", "vela")
"""The betting streets, numbered 1..5 in this order in the temporary tables' ``sn`` columns (:data:`STREET_NO`)."""
STREET_NO = f"CAST(CASE {{s}} {' '.join(f'WHEN {s!r} THEN {i}' for i, s in enumerate(STREETS, 1))} END AS TINYINT)"
"""A street's number (``sn``), 1 = 2nd .. 5 = the vela's."""
KIND_NO = f"CAST(CASE {{k}} {' '.join(f'WHEN {k!r} THEN {i}' for i, k in enumerate(CHOICES, 1))} END AS TINYINT)"
"""A decision's kind's number (``k``): :data:`CHOICES` numbered 1..7 in their order, so that 1..3 put a bet in
(:data:`AGGRESSIVE`), 5 is a check, 6 a fold and 7 a bring-in; NULL for an action that is no decision."""
STREET_OF = f"[{', '.join(repr(s) for s in STREETS)}][{{sn}}]"
"""A street's name from its number: only in the rows a pass returns."""
KIND_OF = f"[{', '.join(repr(k) for k in CHOICES)}][{{k}}]"
"""A kind's name from its number."""
K_AGGR = "{k} <= 3"
"""A bet, raise or completion (:data:`AGGRESSIVE`)."""
K_FACING = "{k} IN (2, 3, 4, 6)"
"""A call, fold, raise or completion: a decision that faces a bet when another made the last one on the street."""


def _decisions_sql() -> str:
    """Every voluntary decision with its context: players still in before it, the bet it faces and who made it.

    One window over the hand's actions in order; the players dealt in are
    ``ih.dealt`` (:func:`scoped_hands`), counted once.  Players by number
    (``pid``, the bettor's ``bid``), street (``sn``) and kind (``k``) by
    number: the window sorts and carries integers only.
    """
    sn = STREET_NO.format(s="a.street")
    bet = "a.kind IN ('bet', 'raise', 'complete')"
    one = "CAST(1 AS HUGEINT)"
    # what the decisions count before them, in one sum: per street (8 bits each) the bets and raises (bits 0..39), those not
    # all-in (40..79); the folds (80..): one window aggregate rather than three
    counted = (f"CASE WHEN a.kind = 'fold' THEN {one} << 80 WHEN {bet} THEN ({one} << (8 * ({sn} - 1))) "
               f"+ CASE WHEN coalesce(a.all_in, FALSE) THEN 0 ELSE {one} << (40 + 8 * ({sn} - 1)) END END")
    return f"""
    WITH aw AS (
        SELECT a.hand_key, a.seq, a.line, {sn} AS sn, p.pid, {KIND_NO.format(k='a.kind')} AS k, a.all_in, ih.dealt,
            sum({counted}) OVER w_before AS before,
            -- the last bet before it in the hand, kept when on this street (one window, one sort: the streets follow seq):
            -- its street and its player in one number
            last_value(CASE WHEN a.kind IN ('bet', 'raise', 'complete', 'bring_in') THEN (CAST({sn} AS BIGINT) << 32) | p.pid END
                IGNORE NULLS) OVER w_before AS last_bet
        FROM actions a JOIN ih USING (hand_key) LEFT JOIN ipl p ON p.site = ih.site AND p.player = a.player
        -- the decisions and the bring-in: the only actions the window counts or names (antes and returned bets are neither)
        WHERE ih.dealt IS NOT NULL AND a.kind IN ({', '.join(repr(k) for k in CHOICES)})
        WINDOW w_before AS (PARTITION BY a.hand_key ORDER BY a.seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
    ), ac AS (
        SELECT * EXCLUDE (before), CAST(coalesce(before >> 80, 0) AS SMALLINT) AS folded_before,
            CAST(coalesce((before >> (8 * (sn - 1))) & 255, 0) AS SMALLINT) AS bets,
            CAST(coalesce((before >> (40 + 8 * (sn - 1))) & 255, 0) AS SMALLINT) AS bets_in
        FROM aw WHERE k IS NOT NULL
    )
    SELECT hand_key, seq, line, sn, pid, k, all_in, folded_before,
        CASE WHEN last_bet >> 32 = sn THEN CAST(last_bet & 4294967295 AS INTEGER) END AS bid,
        CAST(dealt - folded_before AS SMALLINT) AS players_in, CAST(CASE WHEN sn <= 3 THEN sn ELSE 4 END AS SMALLINT) AS lvl,
        bets, bets_in
    FROM ac
    """


def decisions(con: duckdb.DuckDBPyConnection) -> None:
    """Temporary tables ``idec_n`` and ``iseat``, and the view ``idec``: every decision with its context (:func:`_decisions_sql`) and, heads-up, the opponent.

    ``idec_n``: the decisions with the players as numbers (``pid`` the
    decider, ``bid`` the bettor it faces, ``oid`` the opponent heads-up;
    :func:`scoped_hands`' ``ipl``), the street as ``sn`` and the kind as
    ``k`` (:data:`STREETS`, :data:`DECISIONS`): what the later passes
    read.  ``idec``: the same with the names (``site``, ``street``,
    ``player``, ``kind``, ``bettor``, ``opponent``), for the few readers
    that ask for some decisions by name.  ``iseat``: each hand's seats
    dealt in (``hand_key``, ``pid``).

    ``lvl``: the street as the quick reads number it (``iq.lvl``: 1 = 2nd ..
    4 = 5th and the vela).  The opponent of a heads-up decision is the
    player dealt in, not the decider, who had not folded before it: read
    from each hand's roster (its players dealt in and when each folded),
    joined to the heads-up decisions only, not every seat to every decision.
    """
    con.execute("DROP VIEW IF EXISTS idec")
    con.execute(
        "CREATE OR REPLACE TEMP TABLE iseat AS SELECT s.hand_key, p.pid FROM seats s JOIN ih USING (hand_key) "
        "JOIN ipl p ON p.site = ih.site AND p.player = s.player WHERE s.dealt_in"
    )
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE idec_n AS
        WITH dd AS MATERIALIZED ({_decisions_sql()}),
        folds AS (SELECT hand_key, pid, min(seq) AS fold_seq FROM dd WHERE k = 6 GROUP BY hand_key, pid),
        roster AS (
            SELECT s.hand_key, list({{'p': s.pid, 'f': f.fold_seq}}) AS r
            FROM iseat s LEFT JOIN folds f ON f.hand_key = s.hand_key AND f.pid = s.pid
            GROUP BY s.hand_key
        ), hu AS (
            SELECT dd.*, list_transform(list_filter(r.r, lambda x: x.p <> dd.pid AND (x.f IS NULL OR x.f > dd.seq)), lambda x: x.p) AS opps
            FROM dd JOIN roster r USING (hand_key) WHERE dd.players_in = 2
        )
        SELECT hand_key, seq, line, sn, pid, k, all_in, folded_before, bid, players_in, lvl, bets, bets_in, NULL::INTEGER AS oid
        FROM dd WHERE players_in IS DISTINCT FROM 2
        UNION ALL
        SELECT hand_key, seq, line, sn, pid, k, all_in, folded_before, bid, players_in, lvl, bets, bets_in,
            unnest(CASE WHEN len(opps) = 0 THEN [NULL::INTEGER] ELSE opps END) AS oid
        FROM hu
        UNION ALL  -- (a heads-up decision of a hand without a roster: no opponent, as a join would leave it)
        SELECT hand_key, seq, line, sn, pid, k, all_in, folded_before, bid, players_in, lvl, bets, bets_in, NULL
        FROM dd WHERE players_in = 2 AND hand_key NOT IN (SELECT hand_key FROM roster)
        """
    )
    con.execute(
        f"""
        CREATE TEMP VIEW idec AS
        SELECT d.hand_key, p.site, d.seq, d.line, {STREET_OF.format(sn='d.sn')} AS street, p.player, {KIND_OF.format(k='d.k')} AS kind,
            d.all_in, d.folded_before, b.player AS bettor, d.players_in, d.lvl, o.player AS opponent
        FROM idec_n d JOIN ipl p ON p.pid = d.pid LEFT JOIN ipl b ON b.pid = d.bid LEFT JOIN ipl o ON o.pid = d.oid
        """
    )


def _named(sql: str, columns: str, order: str, players: dict[str, str]) -> str:
    """``sql`` (rows with players as numbers) with the names: ``players`` maps each name column to its number column
    (joined to ``ipl``, the site from the first), then ``columns`` selected from ``n`` and the joins, ordered by ``order``."""
    joins = " ".join(f"LEFT JOIN ipl {name} ON {name}.pid = n.{num}" for name, num in players.items())
    return f"SELECT {columns} FROM ({sql}) n {joins} ORDER BY {order}"


def heads_up(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per (site, player, opponent, spot): heads-up decisions and how many put a bet in; the spot is the street, facing a bet or not.

    A decision heads-up (two players left) where a bet or raise was
    possible: a check or a bet with no bet to face, a call, fold or raise
    facing one.  All-in decisions are left out (no bet was possible after).
    """
    return frame(
        con, _named(
            f"""
            SELECT pid, oid, sn, k IN (2, 4) AS fb, count(*) AS n, count(*) FILTER (WHERE {K_AGGR.format(k='k')}) AS aggr
            FROM idec_n WHERE oid IS NOT NULL AND NOT coalesce(all_in, FALSE) AND k <> 6 GROUP BY ALL
            """,
            f"p.site, p.player, o.player AS opponent, {STREET_OF.format(sn='n.sn')} || CASE WHEN n.fb THEN ' facing a bet' ELSE '' END "
            "AS spot, n.n, n.aggr", "ALL", {"p": "pid", "o": "oid"},
        ),
    )


def _one_each(where: str) -> str:
    """The decisions of ``idec_n`` ``where`` holds, one row each, named as :func:`facing` and :func:`passive_spots` return them."""
    return _named(
        f"SELECT hand_key, seq, line, sn, pid, k, bid, players_in, oid FROM idec_n d WHERE {where}",
        f"n.hand_key, p.site, n.seq, n.line, {STREET_OF.format(sn='n.sn')} AS street, p.player, {KIND_OF.format(k='n.k')} AS kind, "
        "b.player AS bettor, n.players_in, o.player AS opponent", "n.hand_key, n.seq", {"p": "pid", "b": "bid", "o": "oid"},
    )


def facing(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every decision facing a bet (a call, fold, raise or completion) with who made the bet it faces, one row each."""
    return frame(con, _one_each(f"{K_FACING.format(k='k')} AND bid IS NOT NULL AND bid <> pid"))


def passive_spots(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Heads-up decisions where a bet or raise was possible (not all-in), one row each: what the pricing of passivity reads."""
    return frame(con, _one_each("oid IS NOT NULL AND NOT coalesce(all_in, FALSE) AND k <> 6"))


def cards_of(con: duckdb.DuckDBPyConnection, keys: list[int]) -> list[tuple[Any, ...]]:
    """The cards of these hands: (hand_key, player or None for the vela, street, card, up), in the order the table has them."""
    if not keys:
        return []
    return con.execute(
        "SELECT hand_key, player, street, card, up FROM cards WHERE list_contains(?::BIGINT[], hand_key) ORDER BY hand_key",
        [keys],
    ).fetchall()


def hand_facts(con: duckdb.DuckDBPyConnection, keys: list[int]) -> list[tuple[Any, ...]]:
    """(hand_key, site, hand_id, text_hash, profile, players dealt in, pot so far unknown) of these hands: the pricing's keys."""
    if not keys:
        return []
    return con.execute(
        "SELECT hand_key, site, hand_id, text_hash, profile, dealt_in, room FROM hands WHERE list_contains(?::BIGINT[], hand_key)",
        [keys],
    ).fetchall()


def quick_reads(con: duckdb.DuckDBPyConnection) -> None:
    """Temporary tables ``iread_w`` and ``iq_n``, each player's read of its cards at each street; the views ``iread``, ``iq`` with the players' names, and ``icards`` (the players' cards read: ``s`` the street 1..4, ``r`` the rank).

    The simulator's bots' read (:func:`hhtool.game.evaluate.quick_category`)
    in SQL: the category from the ranks' counts alone (0 no pair, 1 a pair,
    2 two pair, 3 trips, 5 a full house, 7 quads; straights and flushes
    ignored, wild cards read as their rank) and the rank of the main group,
    as one number ``q = 16 * category + rank`` that orders the reads.

    ``iread``: per (hand, player, ``lvl`` 1 = 2nd .. 4 = 5th, 5 the vela's
    street) ``cards`` (how many known by then), ``cat`` and ``top``, the
    read of every card the player holds by then, the vela added at level 5
    (NULL where a card is unknown, a seat of an own view), and ``vcat`` the
    category of its face-up cards (and the vela) alone: what the others
    see.  ``iq``: the quick read (``cards``, ``cat``, ``top``) at levels
    1..4 only where every card dealt by then is known, the vela left out.
    Both from one aggregation of the cards per (hand, player): per level
    the cards known as one number with a bit per card, OR-ed, the counts
    per rank and the read from its bits (:func:`_read_bits`), not a group
    per rank.  ``iread_w`` holds them one row a (hand, player), a column a
    level (``cards1`` .. ``cards5``, ``cat1``, ``top1``, ``vcat1`` ..; the
    view ``iread`` is its rows by level), and ``iq_n`` the quick reads;
    both with the player's number (``pid``, :func:`scoped_hands`), not its
    name: what the later passes join on.
    """
    for view in ("icards", "iread", "iq"):
        con.execute(f"DROP VIEW IF EXISTS {view}")
    levels = range(1, 6)
    # Each player's cards known by level k as one number with a bit per card: 4 bits a rank (rank r at bits 4 (r - 1) ..,
    # one per suit), so that an OR gathers them (a card is once in a hand); the cards of each rank are counted from it with
    # the bit tricks of a population count (4-bit counts, 0..4), and the read from those counts (:func:`_read_bits`).
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE iread_w AS
        WITH c AS (
            SELECT c.hand_key, p.pid, {_ICARD_LEVEL.format(street='c.street')} AS s, coalesce(c.up, FALSE) AS up, {_CARD_BIT.format(card='c.card')} AS b
            FROM cards c JOIN ih USING (hand_key) JOIN ipl p ON p.site = ih.site AND p.player = c.player
        ), w AS (
            SELECT hand_key, pid, {", ".join(
                f"bit_or(b) FILTER (WHERE s <= {k}) AS a{k}, coalesce(bit_or(b) FILTER (WHERE up AND s <= {k}), 0) AS u{k}" for k in range(1, 5))}
            FROM c GROUP BY hand_key, pid
        ), wv AS (  -- the vela, everyone's card from its street on (level 5)
            SELECT w.*, w.a4 | coalesce(v.b, 0) AS a5, w.u4 | coalesce(v.b, 0) AS u5
            FROM w LEFT JOIN (SELECT hand_key, {_CARD_BIT.format(card='card')} AS b FROM cards WHERE player IS NULL) v USING (hand_key)
        ), x AS (
            SELECT hand_key, pid, {", ".join(f"coalesce(bit_count(a{k}), 0) AS c{k}, {_count_bits(f'a{k}')} AS h{k}, {_count_bits(f'u{k}')} AS hu{k}"
                                             for k in levels)}
            FROM wv
        ), y AS (  -- the ranks held n times or more (:func:`_rank_masks`), once each, for the reads below
            SELECT hand_key, pid, {", ".join(
                f"c{k}, " + ", ".join(f"{e} AS g{k}_{n}" for n, e in _rank_masks(f"h{k}").items()) + ", "
                + ", ".join(f"{e} AS u{k}_{n}" for n, e in _rank_masks(f"hu{k}").items() if n > 1)
                for k in levels)}
            FROM x
        )
        SELECT hand_key, pid, {", ".join(
            f"CAST(c{k} AS TINYINT) AS cards{k}, "
            f"CAST(CASE WHEN c{k} < {k + 1 if k < 5 else 6} THEN NULL ELSE {_read_bits('', f'g{k}_')[0]} END AS TINYINT) AS cat{k}, "
            f"CAST(CASE WHEN c{k} < {k + 1 if k < 5 else 6} THEN NULL ELSE {_read_bits('', f'g{k}_')[1]} END AS TINYINT) AS top{k}, "
            f"CAST({_read_bits('', f'u{k}_')[0]} AS TINYINT) AS vcat{k}"
            for k in levels)}
        FROM y
        """
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE iq_n AS "
        + " UNION ALL ".join(f"SELECT hand_key, pid, CAST({k} AS TINYINT) AS lvl, cards{k} AS cards, cat{k} AS cat, top{k} AS top "
                             f"FROM iread_w WHERE cards{k} = {k + 1}" for k in range(1, 5))
    )
    con.execute(
        f"CREATE TEMP VIEW icards AS SELECT c.hand_key, c.player, c.up, CAST({_ICARD_LEVEL.format(street='c.street')} AS SMALLINT) AS s, "
        "CAST(strpos('23456789TJQKA', c.card[1]) + 1 AS SMALLINT) AS r FROM cards c JOIN ih USING (hand_key) WHERE c.player IS NOT NULL"
    )
    con.execute(
        "CREATE TEMP VIEW iread AS SELECT v.hand_key, p.player, CAST(v.lvl AS SMALLINT) AS lvl, CAST(v.cards AS SMALLINT) AS cards, "
        "CAST(v.cat AS SMALLINT) AS cat, CAST(v.top AS SMALLINT) AS top, CAST(v.vcat AS SMALLINT) AS vcat FROM ("
        + " UNION ALL ".join(f"SELECT hand_key, pid, {k} AS lvl, cards{k} AS cards, cat{k} AS cat, top{k} AS top, vcat{k} AS vcat "
                             f"FROM iread_w WHERE cards{k} > 0" for k in levels)
        + ") v JOIN ipl p USING (pid)"
    )
    con.execute(
        "CREATE TEMP VIEW iq AS SELECT q.hand_key, p.player, CAST(q.lvl AS SMALLINT) AS lvl, CAST(q.cards AS SMALLINT) AS cards, "
        "CAST(q.cat AS SMALLINT) AS cat, CAST(q.top AS SMALLINT) AS top FROM iq_n q JOIN ipl p USING (pid)"
    )


def _read_category(mx: str, groups: str) -> str:
    """The read's category from the largest group ``mx`` and the number of groups of two or more ``groups``."""
    return (f"CASE WHEN {mx} >= 4 THEN 7 WHEN {mx} = 3 THEN CASE WHEN {groups} >= 2 THEN 5 ELSE 3 END "
            f"WHEN {mx} = 2 THEN CASE WHEN {groups} >= 2 THEN 2 ELSE 1 END ELSE 0 END")


_ICARD_LEVEL = "CAST(CASE {street} WHEN '3rd' THEN 2 WHEN '4th' THEN 3 WHEN '5th' THEN 4 ELSE 1 END AS TINYINT)"
"""A player's card's level in the quick reads: the street it was dealt (a card first seen at the showdown counts from 2nd)."""
_CARD_BIT = "(CAST(1 AS BIGINT) << (4 * strpos('23456789TJQKA', {card}[1]) + strpos('cdhs', {card}[2]) - 1))"
"""A card's bit (:func:`quick_reads`): 4 bits a rank, the rank's own ``r - 1`` (``r`` 2 = deuce .. 14 = ace, 1 unknown), one a suit."""
_NIBBLE_LOW = "1229782938247303441"  # 0x1111111111111111: the lowest bit of each 4 bits


def _count_bits(x: str) -> str:
    """The cards of each rank in ``x`` (:data:`_CARD_BIT`'s bits): each 4 bits become their count (0..4), as in a population count."""
    return (f"(({x} - (({x} >> 1) & 6148914691236517205)) & 3689348814741910323) "
            f"+ ((({x} - (({x} >> 1) & 6148914691236517205)) >> 2) & 3689348814741910323)")


def _rank_masks(h: str) -> dict[int, str]:
    """Per n (1..4) the ranks with n cards or more in the counts ``h`` (:func:`_count_bits`), a bit (the lowest of its 4) a rank.

    Per rank the count's bits b2 b1 b0 (0..4): two or more is b1 or b2,
    three or more b2 or (b1 and b0), four b2.
    """
    return {
        1: f"(({h} | ({h} >> 1) | ({h} >> 2)) & {_NIBBLE_LOW})",
        2: f"((({h} >> 1) | ({h} >> 2)) & {_NIBBLE_LOW})",
        3: f"((({h} >> 2) | (({h} >> 1) & {h})) & {_NIBBLE_LOW})",
        4: f"(({h} >> 2) & {_NIBBLE_LOW})",
    }


def _read_bits(h: str, masks: str | None = None) -> tuple[str, str]:
    """(category, main rank) of the counts ``h`` (:func:`_count_bits`): as :func:`_read_category` and the highest rank of the largest group.

    ``masks``: the prefix of columns ``{masks}1`` .. ``{masks}4`` that hold
    :func:`_rank_masks` of ``h`` (each reckoned once, not once a use).
    """
    ge = _rank_masks(h) if masks is None else {n: f"{masks}{n}" for n in range(1, 5)}
    groups = f"bit_count({ge[2]})"
    cat = (f"CASE WHEN {ge[4]} <> 0 THEN 7 WHEN {ge[3]} <> 0 THEN CASE WHEN {groups} >= 2 THEN 5 ELSE 3 END "
           f"WHEN {ge[2]} <> 0 THEN CASE WHEN {groups} >= 2 THEN 2 ELSE 1 END ELSE 0 END")
    # the highest rank whose count is the largest: the top bit of that count's mask, 4 bits a rank (exact in a double: < 2^56)
    top = (f"CAST(floor(log2(CASE WHEN {ge[4]} <> 0 THEN {ge[4]} WHEN {ge[3]} <> 0 THEN {ge[3]} WHEN {ge[2]} <> 0 THEN {ge[2]} "
           f"ELSE {ge[1]} END)) AS INTEGER) // 4 + 1")
    return cat, top


def candidates(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The decisions the pricing may mark, each with the quick reads of the decider and of the player it is against.

    ``what``: ``strong`` a fold facing a bet from 3rd street on, holding a
    pair or better not behind the bettor's read; ``hopeless`` money put in
    (a call or raise facing the bettor, a bet heads up) from 3rd street on,
    a category below the opponent's read; ``best`` a heads-up decision
    from 3rd street on (not a fold), ahead of the opponent's read.
    The rest of the decisions of each kind are counted, not priced
    (:func:`tallies`): they cannot carry the mark.
    """
    return frame(
        con, _named(
            f"""
            WITH d AS (  -- the decisions that can be a candidate: facing another's bet, or heads up (not a fold)
                SELECT i.hand_key, i.seq, i.line, i.sn, i.lvl, i.pid, i.k, i.oid, i.all_in,
                    CASE WHEN {K_FACING.format(k='i.k')} AND i.bid IS NOT NULL AND i.bid <> i.pid THEN i.bid END AS faced
                FROM idec_n i WHERE i.sn <> 1
            ), x AS (  -- the quick reads of the decider, of the bettor it faces and of its opponent heads-up: joins on integers
                SELECT d.hand_key, d.seq, d.line, d.sn, d.lvl, d.pid, d.k, d.faced, d.oid, d.all_in,
                    m.cat * 16 + m.top AS me, m.cat AS my_cat, f.cat * 16 + f.top AS vs_faced, f.cat AS faced_cat,
                    o.cat * 16 + o.top AS vs_opp, o.cat AS opp_cat
                FROM d JOIN iq_n m ON m.hand_key = d.hand_key AND m.lvl = d.lvl AND m.pid = d.pid
                LEFT JOIN iq_n f ON f.hand_key = d.hand_key AND f.lvl = d.lvl AND f.pid = d.faced
                LEFT JOIN iq_n o ON o.hand_key = d.hand_key AND o.lvl = d.lvl AND o.pid = d.oid
                WHERE d.faced IS NOT NULL OR (d.oid IS NOT NULL AND d.k <> 6)
            )
            SELECT hand_key, seq, line, sn, lvl, pid, k, 'strong' AS what, faced AS against FROM x
                WHERE k = 6 AND faced IS NOT NULL AND my_cat >= 1 AND me >= vs_faced
            UNION ALL
            SELECT hand_key, seq, line, sn, lvl, pid, k, 'hopeless', faced FROM x
                WHERE k IN (2, 3, 4) AND faced IS NOT NULL AND my_cat < faced_cat
            UNION ALL
            SELECT hand_key, seq, line, sn, lvl, pid, k, 'hopeless', oid FROM x
                WHERE k = 1 AND oid IS NOT NULL AND my_cat < opp_cat
            UNION ALL
            SELECT hand_key, seq, line, sn, lvl, pid, k, 'best', oid FROM x
                WHERE oid IS NOT NULL AND k <> 6 AND NOT coalesce(all_in, FALSE) AND me > vs_opp
            """,
            f"n.hand_key, p.site, n.seq, n.line, {STREET_OF.format(sn='n.sn')} AS street, n.lvl, p.player, {KIND_OF.format(k='n.k')} AS kind, "
            "n.what, a.player AS against", "n.hand_key, n.seq, n.what, a.player", {"p": "pid", "a": "against"},
        ),
    )


def tallies(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per (site, player, against, street, what): the decisions each priced signal counts, priced or not.

    ``strong``: folds facing a bet (3rd street on); ``hopeless``: money put
    in against a player (calls and raises facing their bet, bets heads up
    into them); ``best``: heads-up decisions (not folds, not all-in) --
    of these only the ones priced at the best hand count, so their rows
    here are the passive ones among those read ahead, for the words.
    """
    return frame(
        con, _named(
            f"""
            WITH d AS (
                SELECT i.pid, i.sn, i.k, i.oid, CASE WHEN {K_FACING.format(k='i.k')} AND i.bid IS NOT NULL AND i.bid <> i.pid
                         THEN i.bid END AS faced
                FROM idec_n i WHERE i.sn <> 1
            )
            SELECT pid, faced AS against, sn, 'strong' AS what, count(*) AS n FROM d
                WHERE k = 6 AND faced IS NOT NULL GROUP BY ALL
            UNION ALL
            SELECT pid, faced, sn, 'hopeless', count(*) FROM d
                WHERE k IN (2, 3, 4) AND faced IS NOT NULL GROUP BY ALL
            UNION ALL
            SELECT pid, oid, sn, 'hopeless', count(*) FROM d
                WHERE k = 1 AND oid IS NOT NULL GROUP BY ALL
            """,
            f"p.site, p.player, a.player AS against, {STREET_OF.format(sn='n.sn')} AS street, n.what, n.n", "ALL", {"p": "pid", "a": "against"},
        ),
    )


def calls_into(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per (site, player, bettor, street): decisions facing that player's bet (a call, raise or fold), and the folds."""
    return frame(
        con, _named(
            f"""
            SELECT pid, bid, sn, count(*) AS n, count(*) FILTER (WHERE k = 6) AS folds
            FROM idec_n WHERE {K_FACING.format(k='k')} AND bid IS NOT NULL AND bid <> pid GROUP BY ALL
            """,
            f"p.site, p.player, b.player AS bettor, {STREET_OF.format(sn='n.sn')} AS street, n.n, n.folds", "ALL", {"p": "pid", "b": "bid"},
        ),
    )


STRATUM_OF = (
    "CASE WHEN {c} // 4096 = 1 THEN 'F' ELSE '-' END || CASE WHEN {c} // 2048 % 2 = 1 THEN 'H' ELSE 'M' END "
    "|| ['2nd', '3rd', '4th', '5th', 'vela'][{c} // 256 % 8] || CAST({c} // 32 % 8 AS VARCHAR) || ':' "
    "|| CASE WHEN {c} % 32 = 0 THEN '?' ELSE CAST(({c} % 32 - 1) // 6 AS VARCHAR) || ['l', 'm', 'h'][({c} % 32 - 1) % 6 // 2 + 1] "
    "|| CASE WHEN ({c} % 32 - 1) % 2 = 1 THEN '<' ELSE '' END END"
)
"""A stratum's words (:func:`read_strata`) from its number ``sc``: only in the rows a pass returns."""


_SEQ0: Final = 32768
"""Added to a fold's ``seq`` (a SMALLINT) in a seat of ``iros`` (:data:`_ROS`): 0 .. 65535, never negative."""
_NEVER: Final = 65536
"""A seat's fold in ``iros`` when it never folded: after every ``seq`` + :data:`_SEQ0`."""
_ROS: Final = {
    "p": "CAST({x} & 4294967295 AS INTEGER)",
    "f": "(({x} >> 32) & 131071)",
    "v": "CAST(({x} >> 49) & 7 AS TINYINT)",
    "q": "(({x} >> 52) & 1 = 1)",
    "m": "CAST(nullif(({x} >> 53) & 15, 0) - 1 AS TINYINT)",
    "t": "CAST(({x} >> 57) & 15 AS TINYINT)",
}
"""A seat of ``iros`` (:func:`read_strata`) as one BIGINT, not a struct (a list of numbers is built and filtered at a
fraction of a list of structs' cost): ``p`` its player's number (bits 0..31), ``f`` its fold's ``seq`` + :data:`_SEQ0`
(32..48; :data:`_NEVER` when it never folded), ``v`` its face-up category (49..51), ``q`` whether its quick read is known
(52: then the quick read's category is the read's), ``m`` its read's category (53..56, stored + 1: NULL where a card is
unknown), ``t`` the read's main rank (57..60).  Each an expression of the seat ``{x}``."""


def read_strata(con: duckdb.DuckDBPyConnection) -> None:
    """Temporary table ``istr_n`` (every decision's stratum) and the view ``istr``, through ``iros`` (who else is in each hand at each street, and what each shows; dropped once read).

    After :func:`quick_reads`.  ``iros``: per (hand, ``lvl``) one list of
    the players dealt in with a read there (``iread``), each one number
    (:data:`_ROS`): the player's number, the seq of its fold (if it
    folded), its face-up category, whether its quick read (``iq``) is
    known, its read's category and main rank (``iread``).  A decision reads
    its opponents still in and its own read from it with one join on
    (hand, level), not a join of every decision with every seat (the
    strata and the hidden-cards test both read it).

    ``istr``: every decision not all-in with what an honest decision
    may depend on and nothing else (docs/integrity.md, "Strata"): facing
    a bet or not, heads-up or not, the street, the bets and raises already
    made on it, the decider's category and main rank, and whether a
    player still in shows a better category than the decider holds; and
    who it is *against*: the bettor faced, or heads-up the opponent; and
    its ``hand_key``, for the hands a lead names (:func:`between_pairs`).
    With, for :func:`hidden_beaten`, ``seq``, ``street``, ``lvl``, ``hu`` (heads-up),
    ``faced`` (a bet by another is the last on the street) and ``bets2``
    (the bets and raises not all-in before it on the street, at most 2).
    ``istr_n`` holds the same with numbers: ``pid``, ``aid`` (against; 0
    for nobody), ``k``, ``sn`` and the stratum as one number ``sc``
    (:data:`STRATUM_OF` spells it): (((facing · 2 + heads-up) · 8 + street)
    · 8 + bets) · 32 + read, the read 0 when unknown, else 1 + 6 · category
    + 2 · rank's class (0 low, 1 ten or jack, 2 queen or higher) + a better
    category shown.
    """
    con.execute("DROP VIEW IF EXISTS istr")
    seat = []
    for k in range(1, 6):
        known = f"CASE WHEN v.cards{k} = {k + 1} THEN 1 ELSE 0 END" if k <= 4 else "0"
        seat.append(
            f"list(CAST(v.pid AS BIGINT) | (CAST(coalesce(f.fold_seq + {_SEQ0}, {_NEVER}) AS BIGINT) << 32) "
            f"| (CAST(v.vcat{k} AS BIGINT) << 49) | (CAST({known} AS BIGINT) << 52) | (CAST(coalesce(v.cat{k} + 1, 0) AS BIGINT) << 53) "
            f"| (CAST(coalesce(v.top{k}, 0) AS BIGINT) << 57)) FILTER (WHERE v.cards{k} > 0) AS r{k}"
        )
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE iros AS
        WITH folds AS (SELECT hand_key, pid, min(seq) AS fold_seq FROM idec_n WHERE k = 6 GROUP BY ALL),
        h AS (  -- one row a hand, a list a level: the seats joined once, not once a level
            SELECT v.hand_key, {", ".join(seat)}
            FROM iread_w v JOIN iseat s ON s.hand_key = v.hand_key AND s.pid = v.pid
            LEFT JOIN folds f ON f.hand_key = v.hand_key AND f.pid = v.pid
            GROUP BY v.hand_key
        )
        {" UNION ALL ".join(f"SELECT hand_key, CAST({k} AS TINYINT) AS lvl, r{k} AS r FROM h WHERE r{k} IS NOT NULL" for k in range(1, 6))}
        """
    )
    p, f, v, q, m = (_ROS[w].format(x="x") for w in ("p", "f", "v", "q", "m"))
    me = {w: _ROS[w].format(x="me") for w in ("q", "m", "t")}
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE istr_n AS
        WITH d AS (
            SELECT hand_key, seq, sn, pid, k, players_in, sn AS lvl, bets, bets_in,
                ({K_FACING.format(k='k')} AND bid IS NOT NULL AND bid <> pid) AS facing,
                CASE WHEN {K_FACING.format(k='k')} AND bid IS NOT NULL AND bid <> pid THEN bid ELSE oid END AS against,
                bid IS NOT NULL AND bid <> pid AS faced
            FROM idec_n WHERE NOT coalesce(all_in, FALSE)
        ), ds AS (  -- the others still in (opp) and the decider's own seat (me), from the hand's list at the street
            SELECT d.*, list_filter(o.r, lambda x: {p} <> d.pid AND ({f} = {_NEVER} OR {f} > d.seq + {_SEQ0})) AS opp,
                list_filter(o.r, lambda x: {p} = d.pid)[1] AS me
            FROM d LEFT JOIN iros o ON o.hand_key = d.hand_key AND o.lvl = d.lvl
        ), dm AS (  -- the decider's read (mm, mt) and quick read (mc)
            SELECT * EXCLUDE (me), {me["m"]} AS mm, CASE WHEN {me["m"]} IS NOT NULL THEN {me["t"]} END AS mt,
                CASE WHEN {me["q"]} THEN {me["m"]} END AS mc
            FROM ds
        ), dq AS (  -- the best category showing among the others still in, and among those with a quick read; the hidden-cards
                    -- test's read (2nd to 5th street)
            SELECT *, list_max(list_transform(opp, lambda x: {v})) AS shown,
                list_max(list_transform(opp, lambda x: CASE WHEN {q} THEN {v} END)) AS shown_q,
                CASE WHEN sn <= 4 THEN mc END AS qcat
            FROM dm
        ), dh AS (
            SELECT *, qcat IS NOT NULL AND NOT coalesce(shown_q > qcat, FALSE) AS hb
            FROM dq
        )
        SELECT d.hand_key, d.pid, CAST(coalesce(d.against, 0) AS INTEGER) AS aid, d.k, d.facing,
            CAST(((((CASE WHEN d.facing THEN 1 ELSE 0 END) * 2 + (CASE WHEN d.players_in = 2 THEN 1 ELSE 0 END)) * 8 + d.sn) * 8
                  + least(d.bets, 4)) * 32
                 + CASE WHEN d.mm IS NULL THEN 0
                        ELSE 1 + 6 * least(d.mm, 3) + 2 * (CASE WHEN d.mt >= 12 THEN 2 WHEN d.mt >= 10 THEN 1 ELSE 0 END)
                             + CASE WHEN d.shown > d.mm THEN 1 ELSE 0 END END AS SMALLINT) AS sc,
            d.seq, d.sn, CAST(d.lvl AS TINYINT) AS lvl, d.players_in = 2 AS hu, d.faced, CAST(least(d.bets_in, 2) AS TINYINT) AS bets2,
            d.hb, CASE WHEN d.hb THEN d.qcat END AS qcat, CASE WHEN d.hb THEN d.mt >= 11 END AS high,
            CASE WHEN d.hb THEN list_transform(list_filter(d.opp, lambda x: CASE WHEN {q} THEN {m} END > d.qcat), lambda x: {p}) END
                AS beaters
        FROM dh d
        """
    )
    con.execute("DROP TABLE iros")  # read by istr_n alone: its lists are the largest of the tables
    con.execute(
        f"""
        CREATE TEMP VIEW istr AS
        SELECT i.hand_key, p.site, p.player, coalesce(a.player, '') AS against, {KIND_OF.format(k='i.k')} AS kind, i.facing,
            {STRATUM_OF.format(c='i.sc')} AS stratum, i.seq, {STREET_OF.format(sn='i.sn')} AS street, CAST(i.lvl AS SMALLINT) AS lvl,
            i.hu, i.faced, CAST(i.bets2 AS SMALLINT) AS bets2
        FROM istr_n i JOIN ipl p ON p.pid = i.pid LEFT JOIN ipl a ON a.pid = i.aid
        """
    )


def strata(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per (site, player, against, stratum) of :func:`read_strata`'s decisions: all of them, the folds, the bets and raises.

    ``against`` is the empty string for a decision against nobody in
    particular (a first bet into two or more): such decisions count in
    the player's baseline only.
    """
    return frame(
        con, _named(
            f"""
            SELECT pid, aid, sc, count(*) AS n, count(*) FILTER (WHERE k = 6) AS folds, count(*) FILTER (WHERE {K_AGGR.format(k='k')}) AS aggr
            FROM istr_n GROUP BY ALL
            """,
            f"p.site, p.player, coalesce(a.player, '') AS against, {STRATUM_OF.format(c='n.sc')} AS stratum, n.n, n.folds, n.aggr", "ALL",
            {"p": "pid", "a": "aid"},
        ),
    )


def between_pairs(con: duckdb.DuckDBPyConnection, pairs: list[tuple[str, str, str]]) -> pl.DataFrame:
    """The decisions of :func:`read_strata` between the two of each of these pairs, either way, that a lead may name.

    One row each: ``site``, ``player``, ``against``, ``stratum``,
    ``hand_key``, ``kind``, ``facing``; of them only those soft play or
    dumping can flag (a check or call, and every decision facing a bet),
    for the few pairs asked (those with a lead to name): the room's
    decisions stay in DuckDB, aggregated by :func:`strata`.
    """
    con.execute("CREATE OR REPLACE TEMP TABLE inamed (site VARCHAR, player VARCHAR, against VARCHAR)")
    if pairs:
        con.executemany("INSERT INTO inamed VALUES (?, ?, ?)", [w for s, a, b in pairs for w in ((s, a, b), (s, b, a))])
    return frame(
        con, _named(
            """
            SELECT i.pid, i.aid, i.sc, i.hand_key, i.k, i.facing
            FROM istr_n i JOIN (SELECT p.pid, a.pid AS aid FROM inamed x JOIN ipl p ON p.site = x.site AND p.player = x.player
                                JOIN ipl a ON a.site = x.site AND a.player = x.against) USING (pid, aid)
            WHERE i.facing OR i.k NOT IN (1, 2, 3, 6)
            """,
            f"p.site, p.player, a.player AS against, {STRATUM_OF.format(c='n.sc')} AS stratum, n.hand_key, {KIND_OF.format(k='n.k')} AS kind, "
            "n.facing", "p.site, p.player, a.player, n.hand_key, stratum, kind", {"p": "pid", "a": "aid"},
        ),
    )


def hidden_beaten(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per (site, player, beater, stratum): decisions with a card to come and how many were passive; the card-sharing test's counts.

    A decision from 2nd to 5th street (not all-in) of a player whom no
    opponent still in beats by its face-up cards (the quick read's
    category of the up cards against the decider's whole read, as the
    bots read the board); ``beater`` is an opponent still in whose whole
    hand, face-down cards included, makes a better category -- the
    decider cannot see that -- or the empty string where none does (a
    decision beaten so by two opponents counts under each).  *Passive*:
    a fold facing a bet, a check or a bring-in (the bring-in player could
    complete) with none to face.  The stratum is what the decider sees:
    the street, facing a bet or not, the bets and
    raises already made on the street (0, 1, 2 or more), heads-up or
    not, its own category and whether its main rank is a jack or higher.
    ``hands``: the hand keys of the passive decisions, where a beater is
    named.  Reads ``istr_n`` alone: :func:`read_strata` reckons each decision's part (``hb``, ``qcat``, ``high``, ``beaters``).
    """
    return frame(
        con, _named(
            """
            WITH u AS (
                SELECT hand_key, pid, sn, faced AS facing, bets2 AS bets, hu, qcat AS my_cat, high,
                    (faced AND k = 6) OR (NOT faced AND k IN (5, 7)) AS passive,
                    unnest(CASE WHEN beaters IS NULL OR len(beaters) = 0 THEN [0] ELSE beaters END) AS beater
                FROM istr_n WHERE hb
            )
            SELECT pid, beater, sn, facing, bets, hu, my_cat, high, count(*) AS n, count(*) FILTER (WHERE passive) AS passive,
                list(hand_key) FILTER (WHERE passive AND beater <> 0) AS hands
            FROM u GROUP BY ALL
            """,
            f"p.site, p.player, coalesce(b.player, '') AS beater, {STREET_OF.format(sn='n.sn')} AS street, n.facing, "
            "CAST(n.bets AS SMALLINT) AS bets, n.hu, CAST(n.my_cat AS SMALLINT) AS my_cat, n.high, n.n, n.passive, n.hands",
            "p.site, p.player, beater, street, n.facing, n.bets, n.hu, n.my_cat, n.high", {"p": "pid", "b": "beater"},
        ),
    )
