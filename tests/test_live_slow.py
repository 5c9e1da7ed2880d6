"""Hands written slowly: a writer that pauses in the middle of a hand loses nothing, live or in ``hhtool import``.

Issue 38's first break: a hand written half, a pause longer than the live
import's settle time, then the rest -- the hand was stored in ``failed``
("the hand ends before its SUMMARY"), its rest skipped as junk, and the
file marked complete, so nothing ever stored it.  Each test writes real
files into a watched folder and reads the real DuckDB file back.  The
times are the live import's own, made short (``settle``,
``incomplete_after``) so that the waits are tenths of a second.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from hhtool.store.db import connect
from hhtool.store.importer import import_paths
from hhtool.store.live import LiveImport
from tests.storegen import hand
from tests.test_live_import import poll as _poll

SETTLE = 0.2
INCOMPLETE = 1.0


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> Callable[[], list[tuple[Any, ...]]]:
    def read() -> list[tuple[Any, ...]]:
        cur = con.cursor()
        try:
            return cur.execute(sql).fetchall()
        finally:
            cur.close()

    return read


def _one(con: duckdb.DuckDBPyConnection, sql: str) -> Callable[[], object]:
    rows = _rows(con, sql)
    return lambda: rows()[0][0]


def _append(path: Path, data: bytes) -> None:
    with open(path, "ab") as f:
        f.write(data)


def _pieces(text: str, *marks: str) -> list[bytes]:
    """``text`` as UTF-8 cut just before the last of each of ``marks`` (inside a character: given as ``"€|"``)."""
    data = text.encode()
    cuts = []
    for mark in marks:
        if mark.endswith("|"):  # inside the character: one byte of it in each piece
            cuts.append(data.rindex(mark[:-1].encode()) + 1)
        else:
            cuts.append(data.rindex(mark.encode()))
    cuts = sorted(cuts)
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]


@pytest.fixture
def con(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    c = connect(tmp_path / "h.duckdb")
    yield c
    c.close()


def _live(con: duckdb.DuckDBPyConnection, folder: Path) -> LiveImport:
    return LiveImport(con, [folder], settle=SETTLE, incomplete_after=INCOMPLETE)


def test_a_hand_written_in_pieces_with_pauses_longer_than_the_settle_time_is_stored_whole(tmp_path: Path, con: duckdb.DuckDBPyConnection) -> None:
    """The probe's reproducer: hands each written in three pieces, paused between them longer than ``settle``."""
    folder = tmp_path / "watch"
    folder.mkdir()
    path = folder / "table.txt"
    path.write_bytes(b"")
    texts = [hand(f"P-{i}") for i in range(3)]
    with _live(con, folder) as live:
        for i, text in enumerate(texts):
            # cut in the summary, in the middle of a line, and (the second hand) inside the € of an amount
            marks = ("*** 4th STREET", "€|") if i == 1 else ("*** 4th STREET", "Seat 3: carol folded")
            for piece in _pieces(("\n" if i else "") + text + "\n", *marks):
                _append(path, piece)
                time.sleep(SETTLE * 3)  # past settle: the old import judged the hand then
        _poll(_one(con, "SELECT count(*) FROM hands"), 3)
        _poll(lambda: live.status().waiting, 0)
    assert _rows(con, "SELECT count(*) FROM failed")() == [(0,)]
    stored = dict(_rows(con, "SELECT hand_id, raw_text FROM hands")())
    assert stored == {f"P-{i}": texts[i] for i in range(3)}


def test_a_hand_given_up_on_is_failed_then_stored_whole_when_completed_even_after_a_restart(tmp_path: Path, con: duckdb.DuckDBPyConnection) -> None:
    """Past ``incomplete_after`` the half hand is failed (it may be all there will ever be); its completion supersedes the row."""
    folder = tmp_path / "watch"
    folder.mkdir()
    path = folder / "table.txt"
    first, rest = _pieces(hand("Q-0") + "\n\n" + hand("Q-1"), "*** 5th STREET")
    tail = b"\n" + hand("Q-2").encode()
    path.write_bytes(first)
    failed = _one(con, "SELECT count(*) FROM failed")
    with _live(con, folder) as live:
        _poll(failed, 1)  # Q-1, half written, given up on after INCOMPLETE
        _poll(lambda: live.status().incomplete, 1)
        assert _rows(con, "SELECT hand_id FROM hands")() == [("Q-0",)]
        assert _rows(con, "SELECT open_from FROM files")() == [(first.index(b"Vela Hand #Q-1"),)]
    _append(path, rest + tail)  # completed while nothing watched, and a hand after it
    with _live(con, folder) as live:
        _poll(_one(con, "SELECT count(*) FROM hands"), 3)
        _poll(failed, 0)
        _poll(lambda: (live.status().waiting, live.status().incomplete), (0, 0))
    assert sorted(_rows(con, "SELECT hand_id FROM hands")()) == [("Q-0",), ("Q-1",), ("Q-2",)]
    assert _rows(con, "SELECT open_from, hands, failed, size FROM files")() == [(None, 3, 0, path.stat().st_size)]
    lines = dict(_rows(con, "SELECT hand_id, first_line FROM hands")())
    text = path.read_text(encoding="utf-8").split("\n")
    assert all(text[line - 1].startswith(f"Vela Hand #{hid}:") for hid, line in lines.items())


def test_a_header_written_half_waits_for_its_rest(tmp_path: Path, con: duckdb.DuckDBPyConnection) -> None:
    """A pause inside the next hand's header: the hand before it is stored, the half header is no junk."""
    folder = tmp_path / "watch"
    folder.mkdir()
    path = folder / "table.txt"
    second = hand("R-1")
    path.write_bytes((hand("R-0") + "\n").encode() + second.encode()[:9])  # "Vela Hand" of the next header
    hands = _one(con, "SELECT count(*) FROM hands")
    with _live(con, folder) as live:
        _poll(hands, 1)
        time.sleep(INCOMPLETE * 1.5)  # given up on: the half header is kept open
        _append(path, second.encode()[9:] + b"\n")
        _poll(hands, 2)
        _poll(lambda: live.status().waiting, 0)
    assert _rows(con, "SELECT count(*) FROM failed")() == [(0,)]
    assert _rows(con, "SELECT raw_text FROM hands WHERE hand_id = 'R-1'")() == [(second,)]


def _half_imported(tmp_path: Path, prefix: str, mark: str) -> tuple[Path, Path, bytes, Path]:
    """A file of two hands, the second written up to ``mark``, imported by ``hhtool import``: (folder, file, rest, db)."""
    folder = tmp_path / "histories"
    folder.mkdir()
    path = folder / "table.txt"
    first, rest = _pieces(hand(f"{prefix}-0") + "\n\n" + hand(f"{prefix}-1") + "\n", mark)
    path.write_bytes(first)
    db = tmp_path / "h.duckdb"
    one = import_paths([folder], db, workers=0)
    assert (one.stored, one.failed) == (1, 1)
    with duckdb.connect(str(db), read_only=True) as c:  # the half hand's start, kept as the file's open end
        assert c.execute("SELECT open_from FROM files").fetchall() == [(first.rindex(f"Vela Hand #{prefix}-1".encode()),)]
    return folder, path, rest, db


def test_hhtool_import_of_a_file_whose_failed_tail_was_completed_imports_the_rest(tmp_path: Path) -> None:
    """``hhtool import`` of a file being written stores its half hand as failed; once the file is whole, the rest."""
    folder, path, rest, db = _half_imported(tmp_path, "I", "*** SUMMARY")
    _append(path, rest)
    two = import_paths([folder], db, workers=0)
    assert (two.stored, two.duplicates, two.failed, two.superseded) == (1, 1, 0, 1), two.text()
    with duckdb.connect(str(db), read_only=True) as c:
        assert c.execute("SELECT count(*) FROM failed").fetchone() == (0,)
        assert sorted(c.execute("SELECT hand_id FROM hands").fetchall()) == [("I-0",), ("I-1",)]
        assert c.execute("SELECT open_from FROM files").fetchall() == [(None,)]  # a blank line after its last hand now


def test_the_live_import_goes_on_from_the_half_hand_hhtool_import_left(tmp_path: Path) -> None:
    """A file imported by ``hhtool import`` while its last hand was half written, then watched as it is completed."""
    folder, path, rest, db = _half_imported(tmp_path, "J", "*** 3rd STREET")
    c = connect(db)
    try:
        with _live(c, folder) as live:
            _poll(lambda: live.status().imports, 0, timeout=1)
            _append(path, rest)
            _poll(_one(c, "SELECT count(*) FROM hands"), 2)
            _poll(_one(c, "SELECT count(*) FROM failed"), 0)
            _poll(lambda: live.status().waiting, 0)
        assert live.status().errors == ()
        assert _rows(c, "SELECT raw_text FROM hands WHERE hand_id = 'J-1'")() == [(hand("J-1"),)]
    finally:
        c.close()


def test_a_hand_given_up_on_inside_a_character_leaves_the_file_utf8(tmp_path: Path, con: duckdb.DuckDBPyConnection) -> None:
    """Cut inside a `€` and given up on: the cut character is no sign of Windows-1252; the hands after it read as written."""
    folder = tmp_path / "watch"
    folder.mkdir()
    path = folder / "table.txt"
    first = hand("U-1").replace("alice", "Zoë")
    second = hand("U-2").replace("bob", "Jürgen")
    cut = first.encode().index("€".encode()) + 1
    path.write_bytes(first.encode()[:cut])
    failed = _one(con, "SELECT count(*) FROM failed")
    with _live(con, folder) as live:
        _poll(failed, 1)
        _append(path, first.encode()[cut:] + b"\n" + second.encode())
        _poll(_one(con, "SELECT count(*) FROM hands"), 2)
        _poll(failed, 0)
        _poll(lambda: live.status().waiting, 0)
    assert dict(_rows(con, "SELECT hand_id, raw_text FROM hands")()) == {"U-1": first, "U-2": second}
    assert _rows(con, "SELECT encoding FROM files")() == [("utf-8",)]
