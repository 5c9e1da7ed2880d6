"""What the report shows, as data: every section's rows and frames, read through one read-only connection.

Each section asks DuckDB for what it shows, not for the hands: the
statistics (:func:`~hhtool.stats.compute.compute_on`), the showdowns and
the starting cards (sums over the seats, whose categories and cards the
import wrote), the results by game, the disputed hands.  Only the winnings
graph and the sessions need every hand of every player
(:func:`~hhtool.stats.per_hand.load_per_hand`, a few columns), and the
graph keeps at most :data:`~hhtool.stats.points.MAX_POINTS` points a line.
Apart from the HTML (:mod:`hhtool.stats.report`) so that what the report
says can be read, and tested, without drawing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hhtool.stats.compute import compute_on
from hhtool.stats.filters import Filters, scope
from hhtool.stats.order import by_name
from hhtool.stats.per_hand import key_picks, labelled, load_per_hand
from hhtool.stats.points import line_points
from hhtool.stats.result import StatsResult
from hhtool.stats.series import running_lines, sessions
from hhtool.store.rooms import stored_room
from hhtool.store.db import StoreError, connect

if TYPE_CHECKING:
    import duckdb
    import polars as pl

MAX_REPLAYERS = 200
"""Disputed and invalid hands the report embeds a replayer for: the most recent, so the file stays a few megabytes (the rest are counted)."""


class EmptyReportError(StoreError):
    """No hand matches the filters: a report would say nothing (the CLI exits 1 and writes no file)."""


@dataclass(frozen=True, slots=True)
class ReportData:
    """Everything the report shows, in the order of its sections: the HTML is drawn from this alone.

    ``players`` are the result's, in the order of the names; ``per_hand``
    one row per hand and player (:func:`~hhtool.stats.per_hand.load_per_hand`);
    ``replays`` the hands a replayer is embedded for, of ``disputed`` in all;
    ``gap_minutes`` the gap that starts a new session.
    """

    filters: Filters
    gap_minutes: int
    result: StatsResult
    players: list[str]
    per_hand: pl.DataFrame
    games: pl.DataFrame
    showdowns: pl.DataFrame
    starting: pl.DataFrame
    sessions: pl.DataFrame
    audit: list[tuple[Any, ...]]
    replays: list[tuple[Any, ...]]
    disputed: int
    rooms: list[tuple[str | None, str | None, int]]  # (room, its file, hands): whose rules the hands in scope were audited under
    # with a tag filter, the study list (:func:`study_rows`): the tagged hands in the order played, and how many in all
    study: list[StudyHand] | None = None
    studied: int = 0


@dataclass(frozen=True, slots=True)
class StudyHand:
    """A hand of the study list: where it is, its tags and note, and what its replayer is drawn from."""

    site: str
    hand_id: str
    started_at: Any
    verdict: str
    tags: tuple[str, ...]
    note: str
    file: str
    first_line: int
    raw_text: str
    room: Any  # the Room it was audited under, None for RULES.md's profile


def report_data(db: str | Path, filters: Filters | None = None, *, gap_minutes: int = 30) -> ReportData:
    """Every section's data on one read-only connection; :class:`EmptyReportError` when no hand matches the filters.

    The statistics come first: with no player in scope, nothing else is asked of the database.
    """
    f = filters or Filters()
    con = connect(db, read_only=True)
    try:
        result = compute_on(con, f, db if isinstance(db, Path) else Path(db))
        players = result.players()
        if not players:
            raise EmptyReportError("no hands match the filters: no report written" + ("" if f == Filters() else f" ({filters_text(f)})"))
        f = result.filters  # the players' accounts found (docs/stats.md, "Players and accounts")
        every = not f.players and f.min_hands <= 1  # every account in scope is a row: no condition on the accounts
        per_hand = load_per_hand(con, f, players, result.accounts, every=every)
        cats = showdown_categories(con, f, players, result.accounts, every=every)
        start = starting_cards(con, f, players, result.accounts, every=every)
        games = results_by_game(con, f, players, result.accounts, every=every)
        audit = audit_rows(con, f)
        to_replay, disputed_total = replay_rows(con, f)
        rooms = rooms_covered(con, f)
        study, studied = study_rows(con, f) if f.tags else (None, 0)
    finally:
        con.close()
    return ReportData(
        filters=f, gap_minutes=gap_minutes, result=result, players=players, per_hand=per_hand, games=games,
        showdowns=cats, starting=start, sessions=sessions(per_hand, gap_minutes), audit=audit, replays=to_replay,
        disputed=disputed_total, rooms=rooms, study=study, studied=studied,
    )


def big_bet_lines(d: pl.DataFrame) -> list[tuple[str, list[int], list[float]]]:
    """(name, hand numbers, running big bets) of each line of one player's graph, ``d`` the player's hands in time order.

    Each line keeps its own points (:func:`~hhtool.stats.points.line_points`:
    its extremes and biggest hands among at most :data:`~hhtool.stats.points.MAX_POINTS`).
    """
    import numpy as np

    lines = running_lines(d["big_bets"].to_numpy(), d["went_to_showdown"].fill_null(False).to_numpy())
    lines.append(("all-in adjusted", np.cumsum(np.nan_to_num(d["allin_big_bets"].to_numpy(), nan=0.0))))
    out = []
    for name, y in lines:
        keep = line_points(y)
        out.append((name, [i + 1 for i in keep], y[keep].tolist()))
    return out


def showdown_categories(
    con: duckdb.DuckDBPyConnection, filters: Filters, players: list[str], accounts: dict[str, tuple[tuple[str, str], ...]] | None = None,
    every: bool = False,
) -> pl.DataFrame:
    """Per player, hand category shown at showdown and currency: times shown, times won something, net, big bets.

    A player *showed* when the summary says so (``seats.outcome`` won or
    lost at a showdown) and their five cards are known; the category is
    what those five and the vela make under the hand's own rules, as the
    replay ranked them at import (``seats.shown_category``).  ``players``
    are row keys, ``accounts`` theirs (a person's rows are their accounts').
    """
    import polars as pl

    from hhtool.game.evaluate import CATEGORY_LABELS

    picks = key_picks(players, accounts)
    hand_where, hand_params, seat_where, seat_params = scope(filters, None if every else [p for ps in picks.values() for p in ps])
    order = ", ".join(f"'{label}'" for label in CATEGORY_LABELS)  # constants of ours, never input
    return exact_sums(pl.DataFrame(
        con.sql(
            f"""
            SELECT * FROM (
                SELECT s.player, h.site, s.shown_category AS category, h.currency, h.unit, h.big_bet, count(*)::BIGINT AS shown,
                       count_if(s.won_at_showdown)::BIGINT AS won, coalesce(sum(s.net::HUGEINT), 0) AS net
                FROM seats s JOIN hands h USING (hand_key)
                WHERE {hand_where} AND {seat_where} AND s.went_to_showdown AND s.outcome IN ('won', 'lost')
                      AND s.shown_category IS NOT NULL
                GROUP BY s.player, h.site, s.shown_category, h.currency, h.unit, h.big_bet
            )
            ORDER BY player, list_position([{order}], category) DESC, currency, unit
            """,
            params=hand_params + seat_params,
        )
    ), ("net",)).pipe(labelled, picks).pipe(big_bet_sums, ["player", "category", "currency", "unit"], ["shown", "won", "net"]).pipe(by_name)


def starting_cards(
    con: duckdb.DuckDBPyConnection, filters: Filters, players: list[str], accounts: dict[str, tuple[tuple[str, str], ...]] | None = None,
    every: bool = False,
) -> pl.DataFrame:
    """Per hole rank and door rank: hands and net won in big bets (hands whose hole card is known).

    A player's 2nd-street cards are one face down (the hole card) and one
    up (the door card); both are known in own histories and audit views
    (``seats.hole_card``, ``seats.door_card``, written at import).
    """
    import polars as pl

    hand_where, hand_params, seat_where, seat_params = scope(filters, None if every else [p for ps in key_picks(players, accounts).values() for p in ps])
    return exact_sums(pl.DataFrame(
        con.sql(
            f"""
            SELECT left(s.hole_card, 1) AS hole, left(s.door_card, 1) AS door, h.big_bet,
                   count(*)::BIGINT AS hands, coalesce(sum(s.net::HUGEINT), 0) AS net
            FROM seats s JOIN hands h USING (hand_key)
            WHERE {hand_where} AND {seat_where} AND s.hole_card IS NOT NULL
            GROUP BY ALL
            ORDER BY hole, door
            """,
            params=hand_params + seat_params,
        )
    ), ("net",)).pipe(big_bet_sums, ["hole", "door"], ["hands"])


def audit_rows(con: duckdb.DuckDBPyConnection, filters: Filters) -> list[tuple[Any, ...]]:
    """(site, hand id, started, verdict, code, line, message, file) of every disputed, invalid or error hand (2,000 at most)."""
    hand_where, hand_params, _, _ = scope(filters)
    rows = con.execute(
        f"""
        SELECT h.site, h.hand_id, h.started_at, h.verdict, f.code, f.line, f.message, h.file
        FROM hands h LEFT JOIN findings f ON f.hand_key = h.hand_key AND f.severity = 'error'
        WHERE h.verdict IN ('disputed', 'invalid', 'error') AND {hand_where}
        ORDER BY h.started_at, h.hand_key, f.seq
        LIMIT 2000
        """,
        hand_params,
    ).fetchall()
    return [tuple(r) for r in rows]


def rooms_covered(con: duckdb.DuckDBPyConnection, filters: Filters) -> list[tuple[str | None, str | None, int]]:
    """(room, its file, hands) of the hands in scope, by the rules they were audited under (room None: RULES.md's profiles), most hands first."""
    hand_where, hand_params, _, _ = scope(filters)
    rows = con.execute(
        f"""
        SELECT h.room, (SELECT any_value(r.source) FROM rooms r WHERE r.name = h.room AND r.digest = h.rules_digest) AS source, count(*) AS n
        FROM hands h WHERE {hand_where}
        GROUP BY h.room, h.rules_digest
        ORDER BY n DESC, h.room NULLS LAST
        """,
        hand_params,
    ).fetchall()
    return [(r[0], r[1], int(r[2])) for r in rows]


def replay_rows(con: duckdb.DuckDBPyConnection, filters: Filters, most: int | None = None) -> tuple[list[tuple[Any, ...]], int]:
    """(site, hand id, verdict, file, first line, raw text, the room it was audited under) of the ``most`` (:data:`MAX_REPLAYERS`) most
    recent disputed or invalid hands, and how many there are in all."""
    most = MAX_REPLAYERS if most is None else most
    hand_where, hand_params, _, _ = scope(filters)
    where = f"h.verdict IN ('disputed', 'invalid') AND {hand_where}"
    count = con.execute(f"SELECT count(*) FROM hands h WHERE {where}", hand_params).fetchone()
    rows = con.execute(
        f"""
        SELECT h.site, h.hand_id, h.verdict, h.file, h.first_line, h.raw_text, h.room, h.rules_digest
        FROM hands h WHERE {where}
        ORDER BY h.started_at DESC, h.hand_key DESC
        LIMIT ?
        """,
        [*hand_params, most],
    ).fetchall()
    out = [(*r[:6], stored_room(con, {"room": r[6], "rules_digest": r[7]})) for r in rows]
    return out, int(count[0]) if count else 0


def study_rows(con: duckdb.DuckDBPyConnection, filters: Filters, most: int | None = None) -> tuple[list[StudyHand], int]:
    """The hands in scope of ``filters`` (its tags among them), in the order they were played, the ``most``
    (:data:`MAX_REPLAYERS`) first, each with its tags and note; and how many there are in all."""
    most = MAX_REPLAYERS if most is None else most
    hand_where, hand_params, _, _ = scope(filters)
    count = con.execute(f"SELECT count(*) FROM hands h WHERE {hand_where}", hand_params).fetchone()
    rows = con.execute(
        f"""
        SELECT h.site, h.hand_id, h.started_at, h.verdict, h.file, h.first_line, h.raw_text, h.room, h.rules_digest,
               (SELECT n.note FROM hand_notes n WHERE n.site = h.site AND n.hand_id = h.hand_id) AS note,
               (SELECT list(t.tag ORDER BY t.tag) FROM hand_tags t WHERE t.site = h.site AND t.hand_id = h.hand_id) AS tags
        FROM hands h WHERE {hand_where}
        ORDER BY h.started_at, h.hand_key
        LIMIT ?
        """,
        [*hand_params, most],
    ).fetchall()
    out = [
        StudyHand(str(r[0]), str(r[1]), r[2], str(r[3]), tuple(str(t) for t in r[10] or ()), str(r[9] or ""), str(r[4]), int(r[5]), str(r[6]),
                  stored_room(con, {"room": r[7], "rules_digest": r[8]}))
        for r in rows
    ]
    return out, int(count[0]) if count else 0


def results_by_game(
    con: duckdb.DuckDBPyConnection, filters: Filters, players: list[str], accounts: dict[str, tuple[tuple[str, str], ...]] | None = None,
    every: bool = False,
) -> pl.DataFrame:
    """The seats in scope summed by site, stakes, structure, table size and currency: hands and net (exact; over ``big_bet``, the big bets)."""
    import polars as pl

    hand_where, hand_params, seat_where, seat_params = scope(filters, None if every else [p for ps in key_picks(players, accounts).values() for p in ps])
    return exact_sums(pl.DataFrame(
        con.sql(
            f"""
            SELECT h.site, h.small_bet, h.big_bet, h.structure, h.max_seats, h.currency, h.unit,
                   count(*)::BIGINT AS hands, coalesce(sum(s.net::HUGEINT), 0) AS net
            FROM seats s JOIN hands h USING (hand_key)
            WHERE {hand_where} AND {seat_where}
            GROUP BY ALL
            """,
            params=hand_params + seat_params,
        )
    ), ("net",))


def game_results(games: pl.DataFrame, columns: list[str]) -> list[dict[str, Any]]:
    """:func:`results_by_game`'s rows summed by ``columns`` and the money, in the order polars sorts them (nulls
    first): each with its hands, its net (exact), ``big_bets`` and ``bb100`` (big bets per 100 hands; None without a hand)."""
    keys = [*columns, "currency", "unit"]
    groups = {tuple(r[c] for c in keys): r for r in big_bet_sums(games, keys, ["hands", "net"]).to_dicts()}
    out = []
    for key in sorted(groups, key=lambda k: [(v is not None, v) for v in k[:-1]]):  # as polars sorts: nulls first
        r = groups[key]
        out.append({**r, "bb100": r["big_bets"] * 100 / r["hands"] if r["hands"] else None})
    return out


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


def filters_text(f: Filters) -> str:
    """The filters in words: the report's heading says what it covers, and an empty report what matched nothing."""
    bits = []
    for name, v in (("players", f.players), ("sites", f.sites), ("profiles", f.profiles), ("structures", f.structures), ("table sizes", f.max_seats)):
        if v:
            bits.append(f"{name}: {', '.join(map(str, v))}")
    if f.date_from or f.date_to:
        bits.append(f"dates: {f.date_from or '…'} to {f.date_to or '…'}")
    if f.min_hands:
        bits.append(f"at least {f.min_hands} hands")
    if f.tags:
        bits.append(f"hands tagged {' or '.join(f.tags)}")
    return "filters: " + ("; ".join(bits) if bits else "none")
