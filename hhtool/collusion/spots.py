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

from typing import TYPE_CHECKING, Any

from hhtool.stats.filters import Filters, hands_where

if TYPE_CHECKING:
    import duckdb
    import polars as pl

AGGRESSIVE = ("bet", "raise", "complete")
"""The actions that put a bet in: what the aggression signal counts."""
DECISIONS = ("bet", "raise", "complete", "call", "check", "fold")
"""Voluntary actions: forced bets (antes, blinds, the bring-in) and returned bets are no decision."""


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
    """A temporary table ``ih`` of the hands the filters select (``hand_key``, ``site``, ``bb``, ``dealt``), on this connection.

    ``dealt``: the seats dealt in, counted once here for the passes that need
    it (NULL for a hand without one).
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


def flows_sql() -> str:
    """Per hand and ordered pair (a < b by name) dealt in together: a's and b's net and the money from a to b, in big bets.

    The money a player lost in a hand went to the hand's winners in
    proportion to what each won: flow(x->y) = loss(x) * win(y) / wins; the
    flow from a to b is flow(a->b) - flow(b->a).
    """
    return """
    WITH s AS (
        SELECT s.hand_key, ih.site, s.player, s.net / ih.bb AS net, ih.bb
        FROM seats s JOIN ih USING (hand_key) WHERE s.dealt_in
    ), w AS (
        SELECT hand_key, sum(greatest(net, 0)) AS wins FROM s GROUP BY hand_key
    ), sw AS (
        SELECT s.*, w.wins FROM s JOIN w USING (hand_key)
    )
    SELECT x.hand_key, x.site, x.player AS a, y.player AS b, x.net AS net_a, y.net AS net_b,
        CASE WHEN x.wins > 0 THEN (greatest(-x.net, 0) * greatest(y.net, 0) - greatest(-y.net, 0) * greatest(x.net, 0)) / x.wins
             ELSE 0 END AS flow
    FROM sw x JOIN sw y ON x.hand_key = y.hand_key AND x.player < y.player
    """


def pair_hands(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per pair (site, a < b): hands together, the sum of the flow a->b and of its square, the nets' sums (big bets)."""
    return frame(
        con, f"""
        SELECT site, a, b, count(*) AS together, sum(flow) AS flow, sum(flow * flow) AS flow2, sum(abs(flow)) AS vol,
            sum(net_a) AS net_a, sum(net_b) AS net_b
        FROM ({flows_sql()}) GROUP BY site, a, b ORDER BY site, a, b
        """
    )


def player_flows(ph: pl.DataFrame) -> pl.DataFrame:
    """Per player: the flow received from every opponent summed over (opponent, hand), how many such terms, and their volume.

    From :func:`pair_hands`' sums (a pair's flow is the sum of its hands'),
    not a second pass over the hands.
    """
    import polars as pl

    cols = ["site", "player", "recv", "terms", "vol"]
    if ph.height == 0:
        return pl.DataFrame(schema={"site": pl.String, "player": pl.String, "recv": pl.Float64, "terms": pl.Int64, "vol": pl.Float64})
    sides = pl.concat([
        ph.select("site", pl.col("b").alias("player"), pl.col("flow").cast(pl.Float64).alias("recv"), pl.col("together").alias("terms"),
                  pl.col("vol").cast(pl.Float64)),
        ph.select("site", pl.col("a").alias("player"), (-pl.col("flow").cast(pl.Float64)).alias("recv"), pl.col("together").alias("terms"),
                  pl.col("vol").cast(pl.Float64)),
    ])
    return sides.group_by("site", "player").agg(pl.col("recv").sum(), pl.col("terms").sum(), pl.col("vol").sum()).select(cols) \
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


def _decisions_sql() -> str:
    """Every voluntary decision with its context: players still in before it, the bet it faces and who made it.

    One window over the hand's actions in order; the players dealt in are
    ``ih.dealt`` (:func:`scoped_hands`), counted once.
    """
    return f"""
    WITH aw AS (
        SELECT a.hand_key, ih.site, a.seq, a.line, a.street, a.player, a.kind, a.all_in, ih.dealt,
            count(*) FILTER (WHERE a.kind = 'fold') OVER w_before AS folded_before,
            -- the last bet before it in the hand, kept when on this street (one window, one sort: the streets follow seq)
            last_value(CASE WHEN a.kind IN ('bet', 'raise', 'complete', 'bring_in') THEN {{'street': a.street, 'player': a.player}} END
                IGNORE NULLS) OVER w_before AS last_bet
        FROM actions a JOIN ih USING (hand_key) WHERE ih.dealt IS NOT NULL
        WINDOW w_before AS (PARTITION BY a.hand_key ORDER BY a.seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
    )
    SELECT hand_key, site, seq, line, street, player, kind, all_in, CAST(folded_before AS SMALLINT) AS folded_before,
        CASE WHEN last_bet.street = street THEN last_bet.player END AS bettor, CAST(dealt - folded_before AS SMALLINT) AS players_in,
        CAST(CASE street WHEN '2nd' THEN 1 WHEN '3rd' THEN 2 WHEN '4th' THEN 3 ELSE 4 END AS SMALLINT) AS lvl
    FROM aw WHERE kind IN ({', '.join(repr(k) for k in DECISIONS)})
    """


def decisions(con: duckdb.DuckDBPyConnection) -> None:
    """A temporary table ``idec`` of every decision with its context (:func:`_decisions_sql`) and, heads-up, the opponent.

    ``lvl``: the street as the quick reads number it (``iq.lvl``: 1 = 2nd ..
    4 = 5th and the vela).  The opponent of a heads-up decision is the
    player dealt in, not the decider, who had not folded before it: read
    from each hand's roster (its players dealt in and when each folded),
    joined to the heads-up decisions only, not every seat to every decision.
    """
    con.execute("DROP TABLE IF EXISTS idec")
    con.execute(
        f"""
        CREATE TEMP TABLE idec AS
        WITH dd AS MATERIALIZED ({_decisions_sql()}),
        folds AS (SELECT hand_key, player, min(seq) AS fold_seq FROM dd WHERE kind = 'fold' GROUP BY hand_key, player),
        roster AS (
            SELECT s.hand_key, list({{'p': s.player, 'f': f.fold_seq}}) AS r
            FROM seats s JOIN ih USING (hand_key) LEFT JOIN folds f ON f.hand_key = s.hand_key AND f.player = s.player
            WHERE s.dealt_in GROUP BY s.hand_key
        ), hu AS (
            SELECT dd.*, list_transform(list_filter(r.r, lambda x: x.p <> dd.player AND (x.f IS NULL OR x.f > dd.seq)), lambda x: x.p) AS opps
            FROM dd JOIN roster r USING (hand_key) WHERE dd.players_in = 2
        )
        SELECT hand_key, site, seq, line, street, player, kind, all_in, folded_before, bettor, players_in, lvl, NULL::VARCHAR AS opponent
        FROM dd WHERE players_in IS DISTINCT FROM 2
        UNION ALL
        SELECT hand_key, site, seq, line, street, player, kind, all_in, folded_before, bettor, players_in, lvl,
            unnest(CASE WHEN len(opps) = 0 THEN [NULL::VARCHAR] ELSE opps END) AS opponent
        FROM hu
        UNION ALL  -- (a heads-up decision of a hand without a roster: no opponent, as a join would leave it)
        SELECT hand_key, site, seq, line, street, player, kind, all_in, folded_before, bettor, players_in, lvl, NULL
        FROM dd WHERE players_in = 2 AND hand_key NOT IN (SELECT hand_key FROM roster)
        """
    )


def heads_up(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per (site, player, opponent, spot): heads-up decisions and how many put a bet in; the spot is the street, facing a bet or not.

    A decision heads-up (two players left) where a bet or raise was
    possible: a check or a bet with no bet to face, a call, fold or raise
    facing one.  All-in decisions are left out (no bet was possible after).
    """
    return frame(
        con, f"""
        SELECT site, player, opponent, street || CASE WHEN kind IN ('call', 'raise') THEN ' facing a bet' ELSE '' END AS spot,
            count(*) AS n, count(*) FILTER (WHERE kind IN ({', '.join(repr(k) for k in AGGRESSIVE)})) AS aggr
        FROM idec WHERE opponent IS NOT NULL AND NOT coalesce(all_in, FALSE) AND kind <> 'fold'
        GROUP BY ALL ORDER BY ALL
        """
    )


def facing(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every decision facing a bet (a call, fold, raise or completion) with who made the bet it faces, one row each."""
    return frame(
        con, """
        SELECT hand_key, site, seq, line, street, player, kind, bettor, players_in, opponent
        FROM idec WHERE kind IN ('call', 'fold', 'raise', 'complete') AND bettor IS NOT NULL AND bettor <> player
        ORDER BY hand_key, seq
        """
    )


def passive_spots(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Heads-up decisions where a bet or raise was possible (not all-in), one row each: what the pricing of passivity reads."""
    return frame(
        con, """
        SELECT hand_key, site, seq, line, street, player, kind, bettor, players_in, opponent
        FROM idec WHERE opponent IS NOT NULL AND NOT coalesce(all_in, FALSE) AND kind <> 'fold'
        ORDER BY hand_key, seq
        """
    )


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
    """Temporary tables ``icards`` (the players' cards read: ``s`` the street 1..4, ``r`` the rank), ``iread`` and ``iq``: each player's read of its cards at each street.

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
    Both from one aggregation of the cards per (hand, player, rank) with a
    count per level, not every card repeated at each level it is known.
    """
    con.execute("DROP TABLE IF EXISTS icards")
    # the players' cards of the hands read, once
    con.execute(
        """
        CREATE TEMP TABLE icards AS
        SELECT hand_key, player, up, CAST(CASE street WHEN '3rd' THEN 2 WHEN '4th' THEN 3 WHEN '5th' THEN 4 ELSE 1 END AS SMALLINT) AS s,
            CAST(strpos('23456789TJQKA', card[1]) + 1 AS SMALLINT) AS r
        FROM cards JOIN ih USING (hand_key) WHERE player IS NOT NULL
        """
    )
    levels = range(1, 6)
    counts = ", ".join(f"count(*) FILTER (WHERE s <= {k}) AS n{k}, count(*) FILTER (WHERE up AND s <= {k}) AS u{k}" for k in levels)
    per = ", ".join(
        f"sum(n{k}) AS c{k}, max(n{k}) AS m{k}, count(*) FILTER (WHERE n{k} >= 2) AS g{k}, arg_max(r, n{k} * 16 + r) AS t{k}, "
        f"max(u{k}) AS um{k}, count(*) FILTER (WHERE u{k} >= 2) AS ug{k}"
        for k in levels
    )
    con.execute("DROP TABLE IF EXISTS iread")
    con.execute(
        f"""
        CREATE TEMP TABLE iread AS
        WITH c AS (
            SELECT hand_key, player, up, s, r FROM icards
            UNION ALL  -- the vela, everyone's card from its street on
            SELECT p.hand_key, p.player, TRUE, 5, strpos('23456789TJQKA', v.card[1]) + 1
            FROM (SELECT DISTINCT hand_key, player FROM icards) p JOIN cards v ON v.hand_key = p.hand_key AND v.player IS NULL
        ), rc AS (
            SELECT hand_key, player, r, {counts} FROM c GROUP BY hand_key, player, r
        ), w AS MATERIALIZED (
            SELECT hand_key, player, {per} FROM rc GROUP BY hand_key, player
        )
        {" UNION ALL ".join(
            f"SELECT hand_key, player, CAST({k} AS SMALLINT) AS lvl, CAST(c{k} AS SMALLINT) AS cards, "
            f"CAST(CASE WHEN c{k} < {k + 1 if k < 5 else 6} THEN NULL ELSE {_read_category(f'm{k}', f'g{k}')} END AS SMALLINT) AS cat, "
            f"CASE WHEN c{k} < {k + 1 if k < 5 else 6} THEN NULL ELSE t{k} END AS top, "
            f"CAST({_read_category(f'um{k}', f'ug{k}')} AS SMALLINT) AS vcat FROM w WHERE c{k} > 0"
            for k in levels)}
        """
    )
    con.execute("DROP TABLE IF EXISTS iq")
    con.execute(
        "CREATE TEMP TABLE iq AS SELECT hand_key, player, lvl, cards, cat, CAST(top AS SMALLINT) AS top FROM iread "
        "WHERE lvl <= 4 AND cards = lvl + 1"
    )


def _read_category(mx: str, groups: str) -> str:
    """The read's category from the largest group ``mx`` and the number of groups of two or more ``groups``."""
    return (f"CASE WHEN {mx} >= 4 THEN 7 WHEN {mx} = 3 THEN CASE WHEN {groups} >= 2 THEN 5 ELSE 3 END "
            f"WHEN {mx} = 2 THEN CASE WHEN {groups} >= 2 THEN 2 ELSE 1 END ELSE 0 END")


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
        con,
        """
        WITH d AS (  -- the decisions that can be a candidate: facing another's bet, or heads up (not a fold)
            SELECT i.hand_key, i.site, i.seq, i.line, i.street, i.lvl, i.player, i.kind, i.opponent, i.all_in,
                CASE WHEN i.kind IN ('call', 'fold', 'raise', 'complete') AND i.bettor IS NOT NULL AND i.bettor <> i.player
                     THEN i.bettor END AS faced
            FROM idec i WHERE i.street <> '2nd'
        ), r AS (  -- every read of a hand at a level, in one list: one join on integers, not three on the players' names
            SELECT hand_key, lvl, list({'p': player, 'q': cat * 16 + top, 'c': cat}) AS reads FROM iq WHERE lvl >= 2 GROUP BY hand_key, lvl
        ), dr AS (
            SELECT d.*, list_filter(r.reads, lambda x: x.p = d.player)[1] AS m, list_filter(r.reads, lambda x: x.p = d.faced)[1] AS f,
                list_filter(r.reads, lambda x: x.p = d.opponent)[1] AS o
            FROM d JOIN r USING (hand_key, lvl) WHERE d.faced IS NOT NULL OR (d.opponent IS NOT NULL AND d.kind <> 'fold')
        ), x AS (
            SELECT hand_key, site, seq, line, street, lvl, player, kind, faced, opponent, all_in,
                m.q AS me, m.c AS my_cat, f.q AS vs_faced, f.c AS faced_cat, o.q AS vs_opp, o.c AS opp_cat
            FROM dr WHERE m IS NOT NULL
        )
        SELECT hand_key, site, seq, line, street, lvl, player, kind, 'strong' AS what, faced AS against FROM x
            WHERE kind = 'fold' AND faced IS NOT NULL AND my_cat >= 1 AND me >= vs_faced
        UNION ALL
        SELECT hand_key, site, seq, line, street, lvl, player, kind, 'hopeless', faced FROM x
            WHERE kind IN ('call', 'raise', 'complete') AND faced IS NOT NULL AND my_cat < faced_cat
        UNION ALL
        SELECT hand_key, site, seq, line, street, lvl, player, kind, 'hopeless', opponent FROM x
            WHERE kind = 'bet' AND opponent IS NOT NULL AND my_cat < opp_cat
        UNION ALL
        SELECT hand_key, site, seq, line, street, lvl, player, kind, 'best', opponent FROM x
            WHERE opponent IS NOT NULL AND kind <> 'fold' AND NOT coalesce(all_in, FALSE) AND me > vs_opp
        ORDER BY hand_key, seq
        """,
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
        con,
        """
        WITH d AS (
            SELECT i.*, CASE WHEN i.kind IN ('call', 'fold', 'raise', 'complete') AND i.bettor IS NOT NULL AND i.bettor <> i.player
                     THEN i.bettor END AS faced
            FROM idec i WHERE i.street <> '2nd'
        )
        SELECT site, player, faced AS against, street, 'strong' AS what, count(*) AS n FROM d
            WHERE kind = 'fold' AND faced IS NOT NULL GROUP BY ALL
        UNION ALL
        SELECT site, player, faced, street, 'hopeless', count(*) FROM d
            WHERE kind IN ('call', 'raise', 'complete') AND faced IS NOT NULL GROUP BY ALL
        UNION ALL
        SELECT site, player, opponent, street, 'hopeless', count(*) FROM d
            WHERE kind = 'bet' AND opponent IS NOT NULL GROUP BY ALL
        ORDER BY ALL
        """,
    )


def calls_into(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per (site, player, bettor, street): decisions facing that player's bet (a call, raise or fold), and the folds."""
    return frame(
        con,
        """
        SELECT site, player, bettor, street, count(*) AS n, count(*) FILTER (WHERE kind = 'fold') AS folds
        FROM idec WHERE kind IN ('call', 'fold', 'raise', 'complete') AND bettor IS NOT NULL AND bettor <> player
        GROUP BY ALL ORDER BY ALL
        """,
    )


STREET_LEVEL = "CASE {s} WHEN '2nd' THEN 1 WHEN '3rd' THEN 2 WHEN '4th' THEN 3 WHEN '5th' THEN 4 ELSE 5 END"
"""A street's level in ``iread``: 1 = 2nd .. 4 = 5th, 5 the vela's street (the five cards and the vela)."""


def read_strata(con: duckdb.DuckDBPyConnection) -> None:
    """Temporary tables ``iros`` (who else is in each hand at each street, and what each shows) and ``istr`` (every decision's stratum).

    After :func:`quick_reads`.  ``iros``: per (hand, ``lvl``) one list of
    the players dealt in with a read there (``iread``): ``p`` the player,
    ``f`` the seq of its fold (NULL: never folded), ``v`` its face-up
    category, ``c`` its quick read's category (``iq``; NULL where a card is
    unknown).  A decision reads its opponents still in from it with one
    join on (hand, level), not a join of every decision with every seat
    (the strata and the hidden-cards test both read it).

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
    """
    con.execute("DROP TABLE IF EXISTS iros")
    con.execute(
        """
        CREATE TEMP TABLE iros AS
        WITH folds AS (SELECT hand_key, player, min(seq) AS fold_seq FROM idec WHERE kind = 'fold' GROUP BY ALL)
        SELECT v.hand_key, v.lvl,
            list({'p': v.player, 'f': f.fold_seq, 'v': v.vcat, 'c': CASE WHEN v.lvl <= 4 AND v.cards = v.lvl + 1 THEN v.cat END}) AS r
        FROM iread v JOIN seats s ON s.hand_key = v.hand_key AND s.player = v.player AND s.dealt_in
        LEFT JOIN folds f ON f.hand_key = v.hand_key AND f.player = v.player
        GROUP BY v.hand_key, v.lvl
        """
    )
    con.execute("DROP TABLE IF EXISTS istr")
    con.execute(
        f"""
        CREATE TEMP TABLE istr AS
        WITH d0 AS (
            SELECT i.* EXCLUDE (lvl), {STREET_LEVEL.format(s='i.street')} AS lvl,
                count(*) FILTER (WHERE i.kind IN ('bet', 'raise', 'complete')) OVER w AS bets,
                count(*) FILTER (WHERE i.kind IN ('bet', 'raise', 'complete') AND NOT coalesce(i.all_in, FALSE)) OVER w AS bets_in
            FROM idec i
            WINDOW w AS (PARTITION BY i.hand_key, i.street ORDER BY i.seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
        ), d AS (
            SELECT hand_key, site, seq, street, player, kind, players_in, lvl, bets, bets_in,
                (kind IN ('call', 'fold', 'raise', 'complete') AND bettor IS NOT NULL AND bettor <> player) AS facing,
                CASE WHEN kind IN ('call', 'fold', 'raise', 'complete') AND bettor IS NOT NULL AND bettor <> player THEN bettor
                     ELSE opponent END AS against,
                bettor IS NOT NULL AND bettor <> player AS faced
            FROM d0 WHERE NOT coalesce(all_in, FALSE)
        ), ds AS (  -- the best category showing among the others still in
            SELECT d.*, list_max(list_transform(list_filter(o.r, lambda x: x.p <> d.player AND (x.f IS NULL OR x.f > d.seq)),
                                                lambda x: x.v)) AS shown
            FROM d LEFT JOIN iros o ON o.hand_key = d.hand_key AND o.lvl = d.lvl
        )
        SELECT d.hand_key, d.site, d.player, coalesce(d.against, '') AS against, d.kind, d.facing,
            CASE WHEN d.facing THEN 'F' ELSE '-' END || CASE WHEN d.players_in = 2 THEN 'H' ELSE 'M' END || d.street || least(d.bets, 4)
            || ':' || coalesce(CAST(least(m.cat, 3) AS VARCHAR)
                || CASE WHEN m.top >= 12 THEN 'h' WHEN m.top >= 10 THEN 'm' ELSE 'l' END
                || CASE WHEN d.shown > m.cat THEN '<' ELSE '' END, '?') AS stratum,
            d.seq, d.street, CAST(d.lvl AS SMALLINT) AS lvl, d.players_in = 2 AS hu, d.faced, CAST(least(d.bets_in, 2) AS SMALLINT) AS bets2
        FROM ds d LEFT JOIN iread m ON m.hand_key = d.hand_key AND m.player = d.player AND m.lvl = d.lvl
        """
    )


def strata(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per (site, player, against, stratum) of :func:`read_strata`'s decisions: all of them, the folds, the bets and raises.

    ``against`` is the empty string for a decision against nobody in
    particular (a first bet into two or more): such decisions count in
    the player's baseline only.
    """
    return frame(
        con,
        """
        SELECT site, player, against, stratum, count(*) AS n, count(*) FILTER (WHERE kind = 'fold') AS folds,
            count(*) FILTER (WHERE kind IN ('bet', 'raise', 'complete')) AS aggr
        FROM istr GROUP BY ALL ORDER BY ALL
        """,
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
        con,
        """
        SELECT i.site, i.player, i.against, i.stratum, i.hand_key, i.kind, i.facing
        FROM istr i JOIN inamed USING (site, player, against)
        WHERE i.facing OR i.kind NOT IN ('fold', 'bet', 'raise', 'complete')
        ORDER BY i.site, i.player, i.against, i.hand_key, i.stratum, i.kind
        """,
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
    a fold facing a bet, a check with none to face.  The stratum is what
    the decider sees: the street, facing a bet or not, the bets and
    raises already made on the street (0, 1, 2 or more), heads-up or
    not, its own category and whether its main rank is a jack or higher.
    ``hands``: the hand keys of the passive decisions, where a beater is
    named.  Reads ``istr`` and ``iros`` (:func:`read_strata`) and ``iq`` (:func:`quick_reads`).
    """
    return frame(
        con,
        """
        WITH dm AS (
            SELECT i.hand_key, i.site, i.seq, i.street, i.player, i.kind, i.hu, i.lvl, i.faced AS facing, i.bets2 AS bets,
                m.cat AS my_cat, m.top >= 11 AS high
            FROM istr i JOIN iq m ON m.hand_key = i.hand_key AND m.player = i.player AND m.lvl = i.lvl
            WHERE i.street IN ('2nd', '3rd', '4th', '5th')
        ), o AS (  -- each opponent still in at the decision with a quick read: its category (c) and its up cards' (v)
            SELECT dm.*, list_filter(r.r, lambda x: x.p <> dm.player AND (x.f IS NULL OR x.f > dm.seq) AND x.c IS NOT NULL) AS opp
            FROM dm LEFT JOIN iros r ON r.hand_key = dm.hand_key AND r.lvl = dm.lvl
        ), ds AS (
            SELECT *, list_transform(list_filter(opp, lambda x: x.c > my_cat), lambda x: x.p) AS beaters,
                coalesce(list_bool_or(list_transform(opp, lambda x: x.v > my_cat)), FALSE) AS seen
            FROM o
        ), u AS (
            SELECT hand_key, site, player, street, facing, bets, hu, my_cat, high,
                (facing AND kind = 'fold') OR (NOT facing AND kind = 'check') AS passive,
                unnest(CASE WHEN beaters IS NULL OR len(beaters) = 0 THEN [''] ELSE beaters END) AS beater
            FROM ds WHERE NOT seen
        )
        SELECT site, player, beater, street, facing, bets, hu, my_cat, high, count(*) AS n, count(*) FILTER (WHERE passive) AS passive,
            list(hand_key) FILTER (WHERE passive AND beater <> '') AS hands
        FROM u GROUP BY ALL ORDER BY site, player, beater, street, facing, bets, hu, my_cat, high
        """,
    )
