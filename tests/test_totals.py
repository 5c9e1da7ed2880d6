"""The tables derived from the seats at import (``player_totals``, ``player_hands``) against the seats themselves.

Hands of every profile and structure, with faults, imported in several
batches and several runs, with duplicates, conflicts and hands that do not
parse; then every statistic under many filters, once from the totals and
once from the seats, and each player's hands (the graph's and the sessions'
rows) both ways: the same frames.  And the table's life: built when it
is missing, of another version or out of step with the hands; rolled back
with a batch that fails; compacted.
"""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Callable
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from hhtool.simulate import make_config, simulate_text
from hhtool.stats.compute import Filters, compute_on, load_per_hand, sessions
from hhtool.stats.series import player_series, session_list
from hhtool.store import totals
from hhtool.store.db import connect
from hhtool.store.importer import import_paths
from tests.storegen import broken, hand

# (profile, structure, players, italian options, faults, seed, hands, site)
GAMES = [
    ("classic", "fixed", 6, None, 0.2, 31, 70, "Vela"),
    ("stellapoker", "pot", 5, None, 0.2, 32, 60, "StellaPoker"),
    ("italian", "no", 8, "wild=9", 0.0, 33, 50, "Vela"),
    ("classic", "no", 4, None, 0.0, 34, 50, "Piccolo"),
]


def _write_games(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for k, (rules, structure, players, options, faults, seed, n, site) in enumerate(GAMES):
        config = make_config(rules=rules, structure=structure, players=players, italian_options=options, seed=seed, faults=faults, site=site)
        text, _ = simulate_text(config, n)
        (folder / f"g{k}.txt").write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three import runs in batches of 7 hands: new hands, the same again with conflicts and failures, more hands."""
    tmp = tmp_path_factory.mktemp("totals")
    db = tmp / "t.duckdb"
    first = tmp / "first"
    _write_games(first)
    assert import_paths([str(first)], db, workers=0, batch_hands=7, derived=True).stored > 200
    again = tmp / "again"
    again.mkdir()
    for k in range(len(GAMES)):  # the same hands from another file (another hash): every one a duplicate
        (again / f"copy{k}.txt").write_text((first / f"g{k}.txt").read_text(encoding="utf-8") + "\n", encoding="utf-8")
    (again / "more.txt").write_text(
        "\n".join([hand("T-1"), hand("T-2"), broken("T-3"), hand("T-1").replace("Table 'Vela 1'", "Table 'Vela 2'")]),
        encoding="utf-8",
    )
    summary = import_paths([str(again)], db, workers=0, batch_hands=7, derived=True)
    assert summary.duplicates > 200 and summary.conflicts >= 1 and summary.failed >= 1 and summary.stored == 2
    return db


def _filters(con: duckdb.DuckDBPyConnection) -> list[Filters]:
    """Filters of every kind, with values the hands have (and a few they do not)."""
    players = [r[0] for r in con.execute("SELECT player FROM seats GROUP BY player ORDER BY count(*) DESC, player").fetchall()]
    first, last = con.execute("SELECT min(started_at), max(started_at) FROM hands").fetchone()  # type: ignore[misc]
    day = first.astimezone(dt.timezone.utc).date()
    end = last.astimezone(dt.timezone.utc).date()
    stakes = con.execute("SELECT small_bet, big_bet, unit FROM hands GROUP BY ALL ORDER BY count(*) DESC LIMIT 1").fetchone()
    assert stakes is not None
    small, big = ((f"{stakes[0] / 100:.2f}", f"{stakes[1] / 100:.2f}") if stakes[2] == "cent" else (str(stakes[0]), str(stakes[1])))
    return [
        Filters(),
        Filters(players=(players[0],)),
        Filters(players=(players[0], players[-1])),
        Filters(sites=("Vela",)),
        Filters(sites=("StellaPoker", "Piccolo"), min_hands=20),
        Filters(profiles=("italian",)),
        Filters(structures=("pot", "no")),
        Filters(max_seats=(6,)),
        Filters(stakes=((small, big),)),
        Filters(stakes=(("1.00", "2.00"), ("200", "400"))),
        Filters(date_from=day, date_to=day),
        Filters(date_from=day, day_start_hour=7),
        Filters(date_to=end, day_start_hour=23, players=(players[1],)),
        Filters(date_from=end + dt.timedelta(days=1)),
        Filters(min_hands=100),
        Filters(players=(players[2],), sites=("Vela",), structures=("fixed",), date_from=day, day_start_hour=5),
    ]


def _current(con: duckdb.DuckDBPyConnection) -> bool:
    return all(totals.current(con, t) for t in totals.DERIVED)


def _same(con: duckdb.DuckDBPyConnection, f: Filters) -> None:
    a = compute_on(con, f)
    b = compute_on(con, f, from_seats=True)
    assert_frame_equal(a.table, b.table)
    assert_frame_equal(a.by_street, b.by_street)
    assert_frame_equal(a.money.sort("player", "currency", "unit"), b.money.sort("player", "currency", "unit"))
    for who in ([*f.players] or a.players()[:3]):  # the graph's and the sessions' rows of a player
        order = ["started_at", "hand_key"]
        mine = load_per_hand(con, f, [who]).sort(order)
        assert_frame_equal(mine, load_per_hand(con, f, [who], from_seats=True).sort(order))
        assert_frame_equal(sessions(mine), sessions(load_per_hand(con, f, [who], from_seats=True)))
        # the player's page reads them as arrays: the same hands in the same order from either, the same sessions as the frame's
        kept, seats = player_series(con, f, who), player_series(con, f, who, from_seats=True)
        assert len(kept) == mine.height
        for column in ("hand_key", "started_at", "net", "showdown", "big_bets"):
            assert np.array_equal(getattr(kept, column), getattr(seats, column), equal_nan=column == "big_bets"), column
        assert [kept.groups[g] for g in kept.group] == [seats.groups[g] for g in seats.group]
        assert kept.hand_key.tolist() == mine["hand_key"].to_list()
        assert session_list(kept) == session_list(seats)
        frame = sessions(mine)
        assert [(s.session, s.start, s.end, s.hands, s.net, s.big_bets) for s in session_list(kept)] == (
            [] if frame.height == 0 else list(frame.select("session", "start", "end", "hands", "net", "big_bets").iter_rows())
        )


def test_the_totals_give_the_statistics_of_the_seats(imported: Path) -> None:
    con = connect(imported, read_only=True)
    try:
        assert _current(con)
        rows = con.execute(f"SELECT count(*), count(DISTINCT player) FROM {totals.PLAYER_TOTALS.name}").fetchone()
        assert rows is not None and rows[1] > 5
        checked = 0
        for f in _filters(con):
            _same(con, f)
            checked += compute_on(con, f).table.height
        assert checked > 30  # the filters kept players: the frames compared were not all empty
    finally:
        con.close()


def test_the_kept_rows_are_the_sums_of_every_seat(imported: Path) -> None:
    """Appended a batch at a time, the rows still sum, key by key, to a build from every seat."""
    con = connect(imported, read_only=True)
    try:
        kept = pl.DataFrame(con.sql(f"SELECT * FROM ({totals.PLAYER_TOTALS.compacted}) ORDER BY ALL"))
        sql, params = totals.totals_select()
        fresh = pl.DataFrame(con.sql(f"SELECT * FROM ({sql}) ORDER BY ALL", params=params))
        assert kept.height > 50
        assert_frame_equal(kept, fresh)
        # each player's hands: the rows of a build from every seat, in the order of the players for those compacted
        sql, params = totals.PLAYER_HANDS.select(None)
        fresh_hands = pl.DataFrame(con.sql(sql, params=params))
        kept_hands = pl.DataFrame(con.sql(f"SELECT * FROM {totals.PLAYER_HANDS.name} ORDER BY {totals.HANDS_ORDER}"))
        assert kept_hands.height == con.execute("SELECT count(*) FROM seats WHERE dealt_in").fetchone()[0]  # type: ignore[index]
        assert_frame_equal(kept_hands, fresh_hands)
        allin = {r[0] for r in con.execute(f"SELECT hand_key FROM {totals.ALLIN_HANDS.name}").fetchall()}
        assert allin and allin == {r[0] for r in con.execute("SELECT DISTINCT hand_key FROM actions WHERE all_in").fetchall()}
        # the rake of every pot is in some player's row
        rake = con.execute("SELECT sum(rake) FROM pots").fetchone()
        assert rake is not None and 0 < int(con.execute(f"SELECT sum(rake) FROM {totals.PLAYER_TOTALS.name}").fetchone()[0]) <= int(rake[0])  # type: ignore[index]
    finally:
        con.close()


def _copy(db: Path, tmp: Path) -> Path:
    out = tmp / "copy.duckdb"
    shutil.copy(db, out)
    return out


def test_a_database_without_them_reads_the_seats_then_gains_them(imported: Path, tmp_path: Path) -> None:
    db = _copy(imported, tmp_path)
    con = duckdb.connect(str(db))  # as an earlier hhtool left it: no table, no meta rows
    for t in totals.DERIVED:
        con.execute(f"DROP TABLE {t.name}")
    con.execute(f"DROP TABLE {totals.STATE}")
    con.close()
    con = connect(db, read_only=True)
    try:
        assert not _current(con)
        seats = compute_on(con, Filters())  # read from the seats: the same figures
    finally:
        con.close()
    connect(db).close()  # opened for writing by another command: left to the server
    con = connect(db, read_only=True)
    try:
        assert not _current(con)
    finally:
        con.close()
    connect(db, derived=True).close()  # opened by the server: built
    con = connect(db, read_only=True)
    try:
        assert _current(con)
        assert_frame_equal(compute_on(con, Filters()).table, seats.table)
    finally:
        con.close()


def test_another_version_or_hands_added_around_them_build_them_again(imported: Path, tmp_path: Path) -> None:
    db = _copy(imported, tmp_path)
    con = duckdb.connect(str(db))
    con.execute(f"UPDATE {totals.STATE} SET version = '0' WHERE name = ?", [totals.PLAYER_TOTALS.name])
    con.close()
    con = connect(db, derived=True)
    assert _current(con)
    # a hand copied in by SQL, past the writer (as bench/stats.py's copies are): out of step, so not read
    top = int(con.execute("SELECT max(hand_key) FROM hands").fetchone()[0])  # type: ignore[index]
    con.execute(f"INSERT INTO hands SELECT * REPLACE (hand_key + {top} AS hand_key, 'copy-' || hand_id AS hand_id) FROM hands WHERE hand_key = 1")
    con.execute(f"INSERT INTO seats SELECT * REPLACE (hand_key + {top} AS hand_key) FROM seats WHERE hand_key = 1")
    con.execute(f"INSERT INTO pots SELECT * REPLACE (hand_key + {top} AS hand_key) FROM pots WHERE hand_key = 1")
    assert not _current(con)
    _same(con, Filters())  # from the seats, both ways
    con.close()
    con = connect(db, derived=True)
    try:
        assert _current(con)
        _same(con, Filters())
    finally:
        con.close()


def test_a_batch_that_fails_takes_its_totals_with_it(imported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The totals are added in the batch's transaction: a batch that fails after them leaves neither hands nor totals."""
    db = _copy(imported, tmp_path)
    src = tmp_path / "new"
    src.mkdir()
    (src / "n.txt").write_text("\n".join(hand(f"N-{i}") for i in range(5)), encoding="utf-8")
    real = totals.add_derived

    def add_then_fail(con: duckdb.DuckDBPyConnection, first: int, last: int) -> None:
        real(con, first, last)
        raise RuntimeError("the disk went away")

    monkeypatch.setattr("hhtool.store.writer.add_derived", add_then_fail)
    with pytest.raises(RuntimeError):
        import_paths([str(src)], db, workers=0, derived=True)
    monkeypatch.undo()
    con = connect(db, read_only=True)
    try:
        assert _current(con)
        assert con.execute("SELECT count(*) FROM hands WHERE hand_id LIKE 'N-%'").fetchone() == (0,)
        _same(con, Filters())
    finally:
        con.close()
    assert import_paths([str(src)], db, workers=0, derived=True).stored == 5
    con = connect(db, read_only=True)
    try:
        assert _current(con)
        _same(con, Filters(players=("bob",)))
    finally:
        con.close()


def test_appended_rows_are_compacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(totals, "COMPACT_SLACK", 0)
    src = tmp_path / "hh"
    (src).mkdir()
    (src / "a.txt").write_text("\n".join(hand(f"C-{i}") for i in range(40)), encoding="utf-8")
    db = tmp_path / "c.duckdb"
    assert import_paths([str(src)], db, workers=0, batch_hands=3, derived=True).stored == 40
    con = connect(db, read_only=True)
    try:
        rows, keys = con.execute(f"SELECT count(*), count(DISTINCT ({', '.join(totals.DIMENSION_NAMES)})) FROM {totals.PLAYER_TOTALS.name}").fetchone()  # type: ignore[misc]
        assert rows <= 2 * keys + 3 * 4  # compacted along the way: never more than twice the keys and one batch's rows
        compacted = con.execute(f"SELECT compacted FROM {totals.STATE} WHERE name = ?", [totals.PLAYER_TOTALS.name]).fetchone()
        assert compacted is not None and int(compacted[0]) >= keys
        # each player's hands: as many rows as seats dealt in, those of the last compaction in the order of the players
        (done,) = con.execute(f"SELECT compacted FROM {totals.STATE} WHERE name = ?", [totals.PLAYER_HANDS.name]).fetchone()  # type: ignore[misc]
        order = [tuple(r) for r in con.execute(f"SELECT player, started_at, hand_key FROM {totals.PLAYER_HANDS.name}").fetchall()]
        assert len(order) == 160 and 80 <= done <= 160 and order[:done] == sorted(order[:done])
        _same(con, Filters())
        assert compute_on(con, Filters(players=("bob",))).row("bob")["hands"] == 40
    finally:
        con.close()


def test_a_players_hands_list_is_the_same_from_their_hands(imported: Path) -> None:
    """``/hands?player=...`` from ``player_hands``: the rows, their order and the count of the hands joined to the seats."""
    from hhtool.web.hands import STAT_SEATS, hand_page
    from hhtool.web.params import hand_query

    con = connect(imported, read_only=True)
    try:
        players = [r[0] for r in con.execute("SELECT player FROM seats GROUP BY player ORDER BY count(*) DESC LIMIT 3").fetchall()]
        day = con.execute("SELECT min(started_at) FROM hands").fetchone()[0].astimezone(dt.timezone.utc).date()  # type: ignore[index]
        queries = [[("player", players[0]), ("limit", "7")]]
        queries += [[("player", players[0]), ("stat", key), ("limit", "500")] + ([("taken", t)] if t else []) for key in STAT_SEATS for t in ("", "1", "0")]
        queries += [
            [("player", players[1]), ("sort", sort), ("order", order), ("limit", "9"), ("offset", "4")]
            for sort in ("time", "pot", "net") for order in ("asc", "desc")
        ]
        queries += [[("allin", a), ("showdown", sd), ("limit", "500")] for a in ("1", "0") for sd in ("1", "0")]  # no player: allin_hands
        queries += [
            [("player", players[1]), ("verdict", "disputed"), ("verdict", "invalid")],
            [("player", players[2]), ("showdown", "1"), ("allin", "0"), ("pot_min", "2")],
            [("player", players[2]), ("allin", "1"), ("pot_max", "30")],
            [("player", players[0]), ("player", players[1]), ("site", "Vela"), ("from", day.isoformat()), ("day_start", "3")],
            [("player", players[0]), ("structure", "no"), ("seats", "8"), ("stat", "vpip"), ("taken", "1")],
        ]
        seen = 0
        for items in queries:
            q = hand_query(items, STAT_SEATS)
            fast, slow = hand_page(con, q), hand_page(con, q, from_seats=True)
            assert (fast.total, fast.rows) == (slow.total, slow.rows), items
            seen += len(fast.rows)
        assert seen > 1000
    finally:
        con.close()


def test_an_import_without_them_leaves_them_behind_and_the_server_catches_them_up(imported: Path, tmp_path: Path) -> None:
    """``hhtool import`` (no ``derived``) adds hands and not their totals: the readers use the seats (the same
    figures); a server's open adds the rows of just those hands, in one step, equal to a build from nothing."""
    db = _copy(imported, tmp_path)
    src = tmp_path / "later"
    src.mkdir()
    (src / "l.txt").write_text("\n".join(hand(f"L-{i}") for i in range(12)), encoding="utf-8")
    assert import_paths([str(src)], db, workers=0, batch_hands=5).stored == 12
    con = connect(db, read_only=True)
    try:
        assert not _current(con)
        _same(con, Filters())
        before = {t.name: con.execute(f"SELECT upto FROM {totals.STATE} WHERE name = ?", [t.name]).fetchone() for t in totals.DERIVED}
    finally:
        con.close()
    con = connect(db, derived=True)
    try:
        assert _current(con)
        top = con.execute("SELECT max(hand_key) FROM hands").fetchone()
        for t in totals.DERIVED:
            upto = con.execute(f"SELECT upto FROM {totals.STATE} WHERE name = ?", [t.name]).fetchone()
            assert before[t.name] is not None and before[t.name] != upto == top  # caught up from where it was
            kept = sorted(tuple(r) for r in con.execute(t.compacted).fetchall())  # appended rows summed as a compaction would
            totals.rebuild(con, t)
            assert kept == sorted(tuple(r) for r in con.execute(t.compacted).fetchall()), t.name
        _same(con, Filters(players=("bob",)))
    finally:
        con.close()


class _ImportsBetween:
    """A cursor that, after its first question about the monies, lets an import commit hands of another money (on a cursor of its own)."""

    def __init__(self, cur: duckdb.DuckDBPyConnection, commit: Callable[[], None]) -> None:
        self._cur, self._commit, self.fired = cur, commit, False

    def execute(self, sql: str, params: object = None) -> duckdb.DuckDBPyConnection:
        out = self._cur.execute(sql, params)
        if not self.fired and "currency" in sql and "DISTINCT" in sql:
            self.fired = True
            self._commit()
        return out

    def __getattr__(self, name: str) -> object:
        return getattr(self._cur, name)


def test_a_players_hands_are_read_from_one_state_while_an_import_commits(tmp_path: Path) -> None:
    """Hands of a new money committed between the graph's two questions (its monies, then its hands) are not drawn on another's line.

    The import is the real one (the live import's path: ``import_files`` on
    a cursor of the same connection), committing while the page's walk is
    between its statements; the walk sees the state it started in, every
    row under its own money.  Both paths: ``player_hands`` (dollars come in)
    and the seats (pounds come in).  And inside a transaction of the
    caller's, the walk reads in it and leaves it open.
    """
    from hhtool.store.importer import import_files
    from hhtool.store.sources import Todo, collect_units
    from hhtool.store.summary import ImportSummary

    (tmp_path / "eur").mkdir()
    (tmp_path / "eur" / "e.txt").write_text("\n".join(hand(f"E-{i}") for i in range(6)), encoding="utf-8")
    for sign, name in (("$", "usd"), ("£", "gbp")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "h.txt").write_text("\n".join(hand(f"{name}-{i}").replace("€", sign) for i in range(4)), encoding="utf-8")
    db = tmp_path / "t.duckdb"
    assert import_paths([str(tmp_path / "eur")], db, workers=0, derived=True).stored == 6
    con = connect(db, derived=True)
    try:
        writer = con.cursor()

        def committing(folder: str) -> Callable[[], None]:
            def commit() -> None:
                units = collect_units([tmp_path / folder])
                summary = ImportSummary()
                import_files(Todo(units, set(), summary).states, writer, summary, total=sum(u.content_size() for u in units), workers=0,
                             derived=True)
                assert summary.stored == 4

            return commit

        f = Filters(players=("alice",))
        for from_seats, folder, signs in ((False, "usd", ["$", "€"]), (True, "gbp", ["$", "£", "€"])):
            reader = _ImportsBetween(con.cursor(), committing(folder))
            before = player_series(reader, f, "alice", from_seats=from_seats)  # type: ignore[arg-type]
            assert reader.fired
            money = dict(con.execute("SELECT hand_key, currency FROM hands").fetchall())
            assert sorted(set(money.values())) == signs  # the new money is stored now
            drawn = [(before.groups[g][1], money[int(k)]) for g, k in zip(before.group, before.hand_key)]
            assert len(drawn) == 6 + 4 * from_seats and all(line == stored for line, stored in drawn), drawn
            after = player_series(con.cursor(), f, "alice", from_seats=from_seats)
            assert len(after) == 6 + 4 * len(signs[1:]) and sorted(str(c) for _, c, _ in after.groups) == signs
        inside = con.cursor()
        inside.execute("BEGIN TRANSACTION")
        assert len(player_series(inside, f, "alice")) == 14
        inside.execute("SELECT 1").fetchall()
        inside.execute("COMMIT")  # still the caller's to end
    finally:
        con.close()
