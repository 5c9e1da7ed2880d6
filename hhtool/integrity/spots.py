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
    """The rows of ``sql`` as a polars frame, its columns named as the query names them."""
    import polars as pl

    cur = con.execute(sql, params or [])
    names = [d[0] for d in cur.description or ()]
    rows = cur.fetchall()
    return pl.DataFrame(rows, schema=names, orient="row", infer_schema_length=None)


def scoped_hands(con: duckdb.DuckDBPyConnection, f: Filters) -> None:
    """A temporary view ``ih`` of the hands the filters select (``hand_key``, ``site``, ``bb``), on this connection."""
    where, params = hands_where(f)
    # a view cannot hold parameters: a temporary table of the keys (a few MB for a million hands)
    con.execute("DROP TABLE IF EXISTS ih")
    con.execute(
        "CREATE TEMP TABLE ih AS SELECT h.hand_key, h.site, "
        "CAST(CASE WHEN coalesce(h.big_bet, 0) > 0 THEN h.big_bet ELSE 1 END AS DOUBLE) AS bb, h.table_name, h.started_at "
        f"FROM hands h WHERE {where}",
        params,
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
        SELECT site, a, b, count(*) AS together, sum(flow) AS flow, sum(flow * flow) AS flow2,
            sum(net_a) AS net_a, sum(net_b) AS net_b
        FROM ({flows_sql()}) GROUP BY site, a, b
        """
    )


def player_flows(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per player: hands, the flow received from every opponent summed over (opponent, hand) and how many such terms."""
    return frame(
        con, f"""
        WITH f AS ({flows_sql()})
        SELECT site, player, sum(recv) AS recv, count(*) AS terms FROM (
            SELECT site, b AS player, flow AS recv FROM f
            UNION ALL SELECT site, a AS player, -flow AS recv FROM f
        ) GROUP BY site, player
        """
    )


def traffic(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per site and player: the hands dealt in; and per site the sum over hands of k(k-1), k the players dealt in."""
    return frame(
        con, """
        SELECT ih.site, s.player, count(*) AS hands, sum(d.k - 1) AS seats_beside
        FROM seats s JOIN ih USING (hand_key)
        JOIN (SELECT hand_key, count(*) AS k FROM seats WHERE dealt_in AND hand_key IN (SELECT hand_key FROM ih) GROUP BY hand_key) d
            USING (hand_key)
        WHERE s.dealt_in GROUP BY ih.site, s.player
        """
    )


def _decisions_sql() -> str:
    """Every voluntary decision with its context: players still in before it, the bet it faces and who made it."""
    return f"""
    WITH a AS (
        SELECT a.hand_key, ih.site, a.seq, a.line, a.street, a.player, a.kind, a.all_in,
            count(*) FILTER (WHERE a.kind = 'fold') OVER w_before AS folded_before,
            last_value(CASE WHEN a.kind IN ('bet', 'raise', 'complete', 'bring_in') THEN a.player END IGNORE NULLS)
                OVER (PARTITION BY a.hand_key, a.street ORDER BY a.seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS bettor
        FROM actions a JOIN ih USING (hand_key)
        WINDOW w_before AS (PARTITION BY a.hand_key ORDER BY a.seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
    ), d AS (SELECT hand_key, count(*) AS dealt FROM seats WHERE dealt_in AND hand_key IN (SELECT hand_key FROM ih) GROUP BY hand_key)
    SELECT a.*, d.dealt - a.folded_before AS players_in FROM a JOIN d USING (hand_key)
    WHERE a.kind IN ({', '.join(repr(k) for k in DECISIONS)})
    """


def decisions(con: duckdb.DuckDBPyConnection) -> None:
    """A temporary table ``idec`` of every decision with its context (:func:`_decisions_sql`) and, heads-up, the opponent."""
    con.execute("DROP TABLE IF EXISTS idec")
    con.execute(
        f"""
        CREATE TEMP TABLE idec AS
        WITH dd AS ({_decisions_sql()}),
        folds AS (SELECT hand_key, player, min(seq) AS fold_seq FROM actions
                  WHERE kind = 'fold' AND hand_key IN (SELECT hand_key FROM ih) GROUP BY hand_key, player),
        hu AS (
            SELECT dd.hand_key, dd.seq, s.player AS opponent
            FROM dd JOIN seats s ON s.hand_key = dd.hand_key AND s.dealt_in AND s.player <> dd.player
            LEFT JOIN folds f ON f.hand_key = s.hand_key AND f.player = s.player
            WHERE dd.players_in = 2 AND (f.fold_seq IS NULL OR f.fold_seq > dd.seq)
        )
        SELECT dd.*, hu.opponent FROM dd LEFT JOIN hu USING (hand_key, seq)
        """
    )


def heads_up(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per (site, player, opponent, street): heads-up decisions not facing a bet or facing one, and how many put a bet in.

    A decision heads-up (two players left) where a bet or raise was
    possible: a check or a bet with no bet to face, a call, fold or raise
    facing one.  All-in decisions are left out (no bet was possible after).
    """
    return frame(
        con, f"""
        SELECT site, player, opponent, street, count(*) AS n,
            count(*) FILTER (WHERE kind IN ({', '.join(repr(k) for k in AGGRESSIVE)})) AS aggr
        FROM idec WHERE opponent IS NOT NULL AND NOT coalesce(all_in, FALSE) AND kind <> 'fold'
        GROUP BY site, player, opponent, street
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
