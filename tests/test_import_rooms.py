"""Room files in the database: the import records the room and its rules, notices a room changed since, and re-audits.

Real DuckDB files, real room files, hands from ``hhtool simulate``: the
site ``Vela`` (euros, raked as the simulator rakes: 5 % from 3rd street,
in steps of €0.05, capped at €1.25) and ``Tavolo`` (play chips, which no
room governs).  The room that states the simulator's rake audits every
hand ``ok``; the same room at 10 % finds each raked hand ``rake_under``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from hhtool.cli import app
from hhtool.game.room import NO_ROOMS, Rooms, load_rooms
from hhtool.store.db import connect
from hhtool.store.importer import import_paths
from hhtool.store.schema import HAND_TABLES, TABLES
from hhtool.store.schema import HANDS as HANDS_SPEC
from hhtool.store.summary import REAUDIT_HINT, summary_dict

runner = CliRunner()

ROOM = """\
[room]
name = "Circolo Vela"
sites = ["Vela"]
base = "classic"

[rules]
cap_heads_up = {cap}

[rake]
percent = {percent}
step = "0.05"
cap = "1.25"
from_street = "3rd"
"""
HANDS = 120


@pytest.fixture(scope="module")
def histories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Simulated hands of two sites: ``Vela`` (classic, euros) and ``Tavolo`` (play chips)."""
    from hhtool.simulate import write_simulation
    from hhtool.simulate.config import make_config

    root = tmp_path_factory.mktemp("rooms-in")
    write_simulation(make_config(rules="classic", seed=11, site="Vela"), HANDS, root / "vela.txt")
    write_simulation(make_config(rules="classic", seed=12, site="Tavolo"), 40, root / "tavolo.txt")
    return root


def _rooms(folder: Path, *, percent: int = 5, cap: bool = False) -> Rooms:
    """The folder with the one room file (written anew), read."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vela.toml").write_text(ROOM.format(percent=percent, cap="true" if cap else "false"), encoding="utf-8")
    return load_rooms(folder, required=True)


def _dump(db: Path, *, skip: tuple[str, ...] = ()) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows in a canonical order, ``hand_key`` as the ``(site, hand_id)`` it points at, without the times of the import."""
    con = connect(db, read_only=True)
    out = {}
    try:
        for spec in TABLES:
            if spec.name in skip:
                continue
            cols = [c.name for c in spec.columns if c.name not in ("hand_key", "imported_at")]
            select = ", ".join(f"t.{c}" for c in cols)
            if spec in HAND_TABLES:
                sql = f"SELECT h.site, h.hand_id, {select} FROM {spec.name} t JOIN hands h USING (hand_key) ORDER BY ALL"
            else:
                sql = f"SELECT {select} FROM {spec.name} t ORDER BY ALL"
            out[spec.name] = con.execute(sql).fetchall()
    finally:
        con.close()
    return out


def _assert_same(a: dict[str, list[tuple[Any, ...]]], b: dict[str, list[tuple[Any, ...]]]) -> None:
    assert a.keys() == b.keys()
    for name in a:
        assert len(a[name]) == len(b[name]), name
        for x, y in zip(a[name], b[name]):
            assert x == y, (name, x, y)


def _rows(db: Path, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def test_an_import_with_a_room_records_the_room_and_its_rules(histories: Path, tmp_path: Path) -> None:
    rooms = _rooms(tmp_path / "rooms")
    (room,) = rooms.rooms
    db = tmp_path / "h.duckdb"
    summary = import_paths([histories], db, workers=0, rooms=rooms)
    assert summary.stored == HANDS + 40 and summary.verdicts == {"ok": HANDS + 40}
    assert not summary.stale and summary.rooms == [f"Circolo Vela ({room.source})"]
    assert _rows(db, "SELECT site, room, rules_digest, count(*) FROM hands GROUP BY ALL ORDER BY ALL") == [
        ("Tavolo", None, None, 40),  # play chips: no room names the site
        ("Vela", "Circolo Vela", room.digest, HANDS),
    ]
    ((name, digest, base, sites, rules, source),) = _rows(db, "SELECT name, digest, base, sites, rules, source FROM rooms")
    assert (name, digest, base, sites, source) == ("Circolo Vela", room.digest, "classic", ["Vela"], room.source)
    assert json.loads(rules) == room.canonical() and hashlib.sha256(rules.encode()).hexdigest()[:16] == room.digest
    assert _rows(db, "SELECT count(*) FROM rooms WHERE imported_at IS NOT NULL") == [(1,)]
    # the same files again: nothing new, nothing stale, no second row
    again = import_paths([histories], db, workers=0, rooms=rooms)
    assert (again.stored, again.unchanged, again.stale) == (0, 2, [])
    assert _rows(db, "SELECT count(*) FROM rooms") == [(1,)]


def test_without_rooms_the_tables_are_those_of_an_import_under_the_profiles(histories: Path, tmp_path: Path) -> None:
    """No room: the two columns NULL and ``rooms`` empty.  A room that changes nothing (its base, no rake) stores the same rows but those."""
    plain, same = tmp_path / "plain.duckdb", tmp_path / "same.duckdb"
    summary = import_paths([histories], plain, workers=0)
    assert summary.rooms == [] and summary.stale == []
    assert _rows(plain, "SELECT count(*) FROM hands WHERE room IS NULL AND rules_digest IS NULL") == [(HANDS + 40,)]
    assert _rows(plain, "SELECT count(*) FROM rooms") == [(0,)]
    folder = tmp_path / "rooms"
    folder.mkdir()
    (folder / "vela.toml").write_text('[room]\nname = "Vela as classic"\nsites = ["Vela"]\nbase = "classic"\n', encoding="utf-8")
    import_paths([histories], same, workers=0, rooms=load_rooms(folder, required=True))
    assert _rows(same, "SELECT count(*) FROM hands WHERE room = 'Vela as classic'") == [(HANDS,)]
    a, b = _dump(plain, skip=("rooms",)), _dump(same, skip=("rooms",))
    strip = [c.name for c in HANDS_SPEC.columns if c.name not in ("hand_key", "imported_at")].index("room")
    a["hands"] = [r[:strip] for r in a["hands"]]
    b["hands"] = [r[:strip] for r in b["hands"]]
    _assert_same(a, b)


def test_a_changed_room_is_noticed_by_the_next_import_and_nothing_changes(histories: Path, tmp_path: Path) -> None:
    folder = tmp_path / "rooms"
    db = tmp_path / "h.duckdb"
    import_paths([histories], db, workers=0, rooms=_rooms(folder))
    before = _dump(db)
    changed = _rooms(folder, percent=10, cap=True)
    summary = import_paths([histories], db, workers=0, rooms=changed)
    assert summary.stored == 0 and summary.unchanged == 2
    (notice,) = summary.stale
    assert (notice.kind, notice.room, notice.hands, notice.sites) == ("changed", "Circolo Vela", HANDS, ("Vela (classic)",))
    assert notice.changes == ("cap_heads_up false → true", "rake percent 5 → 10")
    text = summary.text()
    assert "room 'Circolo Vela'" in text and "cap_heads_up false → true; rake percent 5 → 10" in text
    hint = f"run hhtool import --reaudit --rooms {folder} to audit them again"  # the same rooms as this import's
    assert text.endswith(f"note: {HANDS} stored hands audited under other rules than the room files give now: {hint}")
    as_json = summary_dict(summary)
    assert as_json["stale_hands"] == HANDS and as_json["stale"][0]["changes"] == list(notice.changes)
    assert _dump(db) == before  # said, not done
    # a new hand of the site is stored under the room as it is now; the old ones are still the ones to re-audit
    extra = tmp_path / "more"
    extra.mkdir()
    from hhtool.simulate import write_simulation
    from hhtool.simulate.config import make_config

    write_simulation(make_config(rules="classic", seed=99, site="Vela"), 5, extra / "more.txt")
    more = import_paths([extra], db, workers=0, rooms=changed)
    assert more.stored == 5 and [n.hands for n in more.stale] == [HANDS]
    assert _rows(db, "SELECT rules_digest, count(*) FROM hands WHERE site = 'Vela' GROUP BY ALL ORDER BY 2") == [
        (changed.rooms[0].digest, 5), (before["rooms"][0][1], HANDS)
    ]


def test_reaudit_replays_the_stale_hands_as_an_import_under_the_room_now_would(histories: Path, tmp_path: Path) -> None:
    folder = tmp_path / "rooms"
    db, fresh = tmp_path / "h.duckdb", tmp_path / "fresh.duckdb"
    first = _rooms(folder)
    import_paths([histories], db, workers=0, rooms=first)
    old_digest = first.rooms[0].digest
    changed = _rooms(folder, percent=10)
    summary = import_paths([], db, workers=0, rooms=changed, reaudit=True)
    raked = _rows(db, "SELECT count(*) FROM hands WHERE site = 'Vela' AND verdict = 'disputed'")[0][0]
    assert 0 < raked < HANDS  # some hands end before 3rd street: no rake, still ok
    assert summary.reaudited == HANDS and summary.verdict_changes == {"ok → disputed": raked} and summary.stale == []
    assert f"verdicts changed: ok → disputed: {raked}" in summary.text()
    assert _rows(db, "SELECT verdict, rules_digest, count(*) FROM hands WHERE site = 'Vela' GROUP BY ALL ORDER BY ALL") == [
        ("disputed", changed.rooms[0].digest, raked), ("ok", changed.rooms[0].digest, HANDS - raked)
    ]
    assert _rows(db, "SELECT DISTINCT code FROM findings") == [("rake_under",)]
    assert _rows(db, "SELECT digest FROM rooms ORDER BY imported_at") == [(old_digest,), (changed.rooms[0].digest,)]
    # everything the replay made of the hands is what an import under the changed room makes of them
    import_paths([histories], fresh, workers=0, rooms=changed)
    _assert_same(_dump(db, skip=("rooms",)), _dump(fresh, skip=("rooms",)))
    assert _dump(fresh)["rooms"] == [r for r in _dump(db)["rooms"] if r[1] == changed.rooms[0].digest]
    # a second re-audit finds nothing to do, and changes nothing
    before = _dump(db)
    again = import_paths([], db, workers=0, rooms=changed, reaudit=True)
    assert (again.reaudited, again.verdict_changes, again.stale) == (0, {}, [])
    assert "re-audited under the rooms of now: 0 stored hands; verdicts changed: none" in again.text()
    assert _dump(db) == before


def test_reaudit_in_worker_processes_gives_the_same_rows(histories: Path, tmp_path: Path) -> None:
    folder = tmp_path / "rooms"
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    first = _rooms(folder)
    import_paths([histories], a, workers=0, rooms=first)
    import_paths([histories], b, workers=2, rooms=first)  # the workers get the rooms from the pool's initializer
    _assert_same(_dump(a), _dump(b))
    changed = _rooms(folder, percent=10, cap=True)
    sa = import_paths([], a, workers=0, rooms=changed, reaudit=True, batch_hands=50)
    sb = import_paths([], b, workers=2, rooms=changed, reaudit=True, batch_hands=50)
    assert sa.reaudited == sb.reaudited == HANDS and sa.verdict_changes == sb.verdict_changes
    _assert_same(_dump(a), _dump(b))


def test_a_reaudit_stopped_midway_keeps_its_committed_batches_and_the_same_command_finishes(
    histories: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As if killed after its first transaction: each batch is whole or absent, and the next run does the rest, once."""
    import hhtool.store.rooms as store_rooms

    folder = tmp_path / "rooms"
    db, fresh = tmp_path / "h.duckdb", tmp_path / "fresh.duckdb"
    import_paths([histories], db, workers=0, rooms=_rooms(folder))
    changed = _rooms(folder, percent=10)
    write = store_rooms.write_reaudit
    calls: list[int] = []

    def dies_after_one(*args: Any, **kwargs: Any) -> None:
        if calls:
            raise KeyboardInterrupt  # the process stopped here: the batch in progress never committed
        calls.append(1)
        write(*args, **kwargs)

    monkeypatch.setattr(store_rooms, "write_reaudit", dies_after_one)
    stopped = import_paths([], db, workers=0, rooms=changed, reaudit=True, batch_hands=30)
    assert stopped.interrupted and stopped.reaudited == 30
    assert _rows(db, "SELECT count(*) FROM hands WHERE rules_digest = ?", [changed.rooms[0].digest]) == [(30,)]
    monkeypatch.setattr(store_rooms, "write_reaudit", write)
    finished = import_paths([], db, workers=0, rooms=changed, reaudit=True, batch_hands=30)
    assert finished.reaudited == HANDS - 30 and not finished.stale
    import_paths([histories], fresh, workers=0, rooms=changed)
    _assert_same(_dump(db, skip=("rooms",)), _dump(fresh, skip=("rooms",)))


def test_a_room_file_removed_or_added_is_noticed_and_reaudit_follows_it(histories: Path, tmp_path: Path) -> None:
    folder = tmp_path / "rooms"
    db, plain = tmp_path / "h.duckdb", tmp_path / "plain.duckdb"
    rooms = _rooms(folder, percent=10)
    import_paths([histories], db, workers=0, rooms=rooms)
    (folder / "vela.toml").unlink()
    gone = import_paths([], db, workers=0, rooms=load_rooms(folder, required=True))
    (notice,) = gone.stale
    assert (notice.kind, notice.room, notice.source, notice.hands) == ("gone", "Circolo Vela", None, HANDS)
    assert "no room file governs Vela (classic) any more" in gone.text()
    # without any rooms at all (no folder): the same
    bare = import_paths([], db, workers=0)
    assert [n.kind for n in bare.stale] == ["gone"] and bare.text().endswith(REAUDIT_HINT)
    back = import_paths([], db, workers=0, rooms=NO_ROOMS, reaudit=True)
    assert back.reaudited == HANDS and set(back.verdict_changes) == {"disputed → ok"}
    import_paths([histories], plain, workers=0)
    _assert_same(_dump(db, skip=("rooms",)), _dump(plain, skip=("rooms",)))
    # the room's file back: it now governs hands audited without one
    rooms = _rooms(folder)
    governed = import_paths([], db, workers=0, rooms=rooms)
    assert [(n.kind, n.room, n.hands, n.sites) for n in governed.stale] == [("governed", "Circolo Vela", HANDS, ("Vela (classic)",))]
    assert import_paths([], db, workers=0, rooms=rooms, reaudit=True).reaudited == HANDS
    # another room for the site: the hands audited under the first are now its
    (folder / "vela.toml").write_text(ROOM.format(percent=5, cap="false").replace("Circolo Vela", "Vela Club"), encoding="utf-8")
    moved = import_paths([], db, workers=0, rooms=load_rooms(folder, required=True))
    assert [(n.kind, n.room, n.was, n.hands) for n in moved.stale] == [("moved", "Vela Club", "Circolo Vela", HANDS)]


def test_the_derived_tables_are_built_again_after_a_reaudit(histories: Path, tmp_path: Path) -> None:
    from hhtool.store.totals import current_tables

    folder = tmp_path / "rooms"
    db = tmp_path / "h.duckdb"
    import_paths([histories], db, workers=0, rooms=_rooms(folder))
    connect(db, derived=True).close()  # hhtool serve's opening: the players' totals and hands built
    import_paths([], db, workers=0, rooms=_rooms(folder, percent=10), reaudit=True)
    con = connect(db, read_only=True)
    try:
        assert current_tables(con) == frozenset()  # out of step: their readers use the seats
    finally:
        con.close()
    con = connect(db, derived=True)
    try:
        assert len(current_tables(con)) == 3
        assert con.execute("SELECT count(*) FROM player_hands p JOIN hands h USING (hand_key) WHERE p.verdict <> h.verdict").fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM player_hands WHERE verdict = 'disputed'").fetchone()[0] > 0  # type: ignore[index]
    finally:
        con.close()


def test_an_older_database_gains_the_columns_and_the_table(histories: Path, tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    import_paths([histories / "tavolo.txt"], db, workers=0)
    con = duckdb.connect(str(db))
    con.execute("DROP TABLE rooms")
    con.execute("ALTER TABLE hands DROP COLUMN rules_digest")
    con.execute("ALTER TABLE hands DROP COLUMN room")
    con.close()
    con = connect(db, read_only=True)  # read: opened for writing once first, then read
    try:
        assert con.execute("SELECT count(*), count(room) FROM hands").fetchone() == (40, 0)
        assert con.execute("SELECT count(*) FROM rooms").fetchone() == (0,)
    finally:
        con.close()
    summary = import_paths([histories / "vela.txt"], db, workers=0, rooms=_rooms(tmp_path / "rooms"))
    assert summary.stored == HANDS and _rows(db, "SELECT count(*) FROM rooms") == [(1,)]


def test_the_live_import_replays_under_the_rooms_and_notices_a_changed_one(histories: Path, tmp_path: Path) -> None:
    import shutil
    import time

    from hhtool.store.live import LiveImport

    folder, watch = tmp_path / "rooms", tmp_path / "watch"
    watch.mkdir()
    db = tmp_path / "h.duckdb"
    import_paths([histories], db, workers=0, rooms=_rooms(folder))
    changed = _rooms(folder, percent=10)
    con = connect(db, derived=True)  # as hhtool serve opens it
    try:
        shutil.copy(histories / "vela.txt", watch / "copy.txt")  # the same content: nothing new
        with LiveImport(con, [watch], workers=0, settle=0.2, rooms=changed) as live:
            status = live.status()
            assert len(status.stale) == 2 and "rake percent 5 → 10" in status.stale[0]
            assert status.stale[1].endswith(f"run hhtool import --reaudit --rooms {folder} to audit them again")
            from hhtool.simulate import write_simulation
            from hhtool.simulate.config import make_config

            write_simulation(make_config(rules="classic", seed=31, site="Vela"), 6, watch / "new.txt")
            deadline = time.monotonic() + 30
            while live.status().hands_stored < 6 and time.monotonic() < deadline:
                time.sleep(0.05)
        cur = con.cursor()
        rows = cur.execute("SELECT rules_digest, count(*) FROM hands WHERE site = 'Vela' GROUP BY ALL ORDER BY 2").fetchall()
        cur.close()
    finally:
        con.close()
    assert rows[0] == (changed.rooms[0].digest, 6) and rows[1][1] == HANDS


# ------------------------------------------------------------------ the command


@pytest.fixture
def no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No rooms folder of the user's: ``--rooms`` alone decides."""
    monkeypatch.delenv("HHTOOL_ROOMS", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    yield


def test_the_command_records_notices_and_reaudits(histories: Path, tmp_path: Path, no_config: None) -> None:
    folder = tmp_path / "rooms"
    db = tmp_path / "h.duckdb"
    _rooms(folder)
    first = runner.invoke(app, ["import", str(histories), "--db", str(db), "--rooms", str(folder)])
    assert first.exit_code == 0, first.output
    _rooms(folder, percent=10)
    noticed = runner.invoke(app, ["import", str(histories), "--db", str(db), "--rooms", str(folder)])
    assert noticed.exit_code == 0, noticed.output
    assert "rake percent 5 → 10" in noticed.output and noticed.output.rstrip().endswith(f"--reaudit --rooms {folder} to audit them again")
    env = runner.invoke(app, ["import", str(histories), "--db", str(db)], env={"HHTOOL_ROOMS": str(folder)})  # the default folder
    assert env.exit_code == 0 and env.output.rstrip().endswith(REAUDIT_HINT), env.output
    done = runner.invoke(app, ["import", "--reaudit", "--db", str(db), "--rooms", str(folder), "--json"])
    assert done.exit_code == 0, done.output
    out = json.loads(done.output)
    assert out["reaudited"] == HANDS and list(out["verdict_changes"]) == ["ok → disputed"] and out["stale"] == []
    text = runner.invoke(app, ["import", "--reaudit", "--db", str(db), "--rooms", str(folder)])
    assert text.exit_code == 0 and "re-audited under the rooms of now: 0 stored hands" in text.output
    # the default folder: $HHTOOL_ROOMS
    env = runner.invoke(app, ["import", str(histories), "--db", str(db)], env={"HHTOOL_ROOMS": str(folder)})
    assert env.exit_code == 0 and "note:" not in env.output, env.output
    bare = runner.invoke(app, ["import", "--db", str(db)])
    assert bare.exit_code == 2 and "--reaudit" in bare.output


def test_a_bad_room_folder_is_a_usage_error_and_the_database_is_untouched(histories: Path, tmp_path: Path, no_config: None) -> None:
    folder = tmp_path / "rooms"
    db = tmp_path / "h.duckdb"
    _rooms(folder)
    assert runner.invoke(app, ["import", str(histories / "tavolo.txt"), "--db", str(db), "--rooms", str(folder)]).exit_code == 0
    before = _dump(db)
    (folder / "bad.toml").write_text('[room]\nname = "Bad"\nsites = ["Other"]\nbase = "classic"\n\n[rules]\ncap_bet = 3\n\n[rake]\npercent = "lots"\n', encoding="utf-8")
    bad = runner.invoke(app, ["import", str(histories), "--db", str(db), "--rooms", str(folder)])
    assert bad.exit_code == 2, bad.output
    assert "2 problems" in bad.output and "bad.toml:7" in bad.output and "cap_bets" in bad.output and "bad.toml:10" in bad.output
    assert _dump(db) == before
    missing = runner.invoke(app, ["import", str(histories), "--db", str(tmp_path / "new.duckdb"), "--rooms", str(tmp_path / "nowhere")])
    assert missing.exit_code == 2 and "no such folder" in missing.output
    assert not (tmp_path / "new.duckdb").exists()
    reaudit = runner.invoke(app, ["import", "--reaudit", "--db", str(db), "--rooms", str(folder)])
    assert reaudit.exit_code == 2 and _dump(db) == before
    env = runner.invoke(app, ["import", str(histories), "--db", str(db)], env={"HHTOOL_ROOMS": str(tmp_path / "nowhere")})
    assert env.exit_code == 2 and _dump(db) == before
    # the other importing commands: refused before they serve or start Spark
    served = runner.invoke(app, ["serve", "--db", str(db), "--watch", str(histories), "--port", "0", "--rooms", str(folder)])
    assert served.exit_code == 2 and "bad.toml:7" in served.output, served.output
    lake = tmp_path / "lake"
    spark = runner.invoke(app, ["spark-import", str(histories), "--out", str(lake), "--rooms", str(folder)])
    assert spark.exit_code == 2 and "bad.toml:7" in spark.output and not lake.exists(), spark.output
    assert _dump(db) == before
