"""The live import: hands written into a watched folder while it runs, on a real DuckDB file, read back by polling it."""

from __future__ import annotations

import gzip
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pytest

from hhtool.store.db import connect
from hhtool.store.importer import _init_worker, import_paths
from hhtool.store.live import LiveImport
from tests.storegen import broken, hand

WAIT = 30.0
"""The bound of every wait for the database (a hand is in well within 2 s; the bound is for a busy machine)."""


def poll(what: Callable[[], object], expected: object, timeout: float = WAIT) -> None:
    """Poll until ``what()`` is ``expected`` (or the bound passes: then assert it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if what() == expected:
            return
        time.sleep(0.05)
    assert what() == expected


_poll = poll


def _count(con: duckdb.DuckDBPyConnection, sql: str = "SELECT count(*) FROM hands") -> Callable[[], object]:
    def read() -> object:
        cur = con.cursor()  # as the server reads: a cursor of its connection, while the live import writes
        try:
            row = cur.execute(sql).fetchone()
            return row[0] if row else None
        finally:
            cur.close()

    return read


def _append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)


@pytest.fixture
def con(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    c = connect(tmp_path / "h.duckdb")
    yield c
    c.close()


def test_hands_written_while_it_runs_are_stored_exactly_once(tmp_path: Path, con: duckdb.DuckDBPyConnection) -> None:
    folder = tmp_path / "watch"
    folder.mkdir()
    grows = folder / "table_1.txt"
    grows.write_text("\n".join(hand(f"G-{i}") for i in range(3)), encoding="utf-8")  # already there; no blank line at its end
    (folder / "README.md").write_text("notes, no hand\n", encoding="utf-8")
    (folder / ".hidden.txt").write_text(hand("H-0"), encoding="utf-8")
    hands = _count(con)
    with LiveImport(con, [folder]) as live:
        _poll(hands, 3)  # the file that was there, its last hand once it has settled
        # a file that grows in several appends, each hand followed by its blank line
        n = 3
        for k in range(4):
            _append(grows, "\n\n" + "\n".join(hand(f"G-{n + j}") for j in range(2)) + "\n\n")
            n += 2
            _poll(hands, n)
        # a half-written hand: it waits, and is stored whole once its writer ends it
        text = hand(f"G-{n}")
        cut = text.index("*** 3rd STREET")
        _append(grows, text[:cut])
        _poll(lambda: live.status().waiting, 1)  # seen, and left waiting
        _append(grows, text[cut:] + "\n")
        n += 1
        _poll(hands, n)
        # a new file, with a broken hand among good ones
        (folder / "table_2.txt").write_text(hand("N-0") + "\n" + broken("N-1") + "\n" + hand("N-2") + "\n", encoding="utf-8")
        _poll(hands, n + 2)
        _poll(_count(con, "SELECT count(*) FROM failed"), 1)
        # a .gz dropped in, in a new subfolder
        (folder / "old").mkdir()
        with gzip.open(folder / "old" / "archive.txt.gz", "wt", encoding="utf-8") as f:
            f.write("\n".join(hand(f"Z-{i}") for i in range(5)))
        _poll(hands, n + 7)
    status = live.status()
    assert not status.running and status.errors == ()
    assert (status.hands_stored, status.duplicates, status.conflicts, status.failed) == (n + 7, 0, 0, 1)
    cur = con.cursor()
    ids = [r[0] for r in cur.execute("SELECT hand_id FROM hands").fetchall()]
    assert sorted(ids) == sorted([f"G-{i}" for i in range(n)] + ["N-0", "N-2"] + [f"Z-{i}" for i in range(5)])
    assert cur.execute("SELECT count(*) FROM conflicts").fetchone() == (0,)
    # line numbers as a whole read of the file gives them: each hand's header line
    lines = dict(cur.execute("SELECT hand_id, first_line FROM hands WHERE file LIKE '%table_1.txt'").fetchall())
    text_lines = grows.read_text(encoding="utf-8").split("\n")
    assert all(text_lines[line - 1].startswith(f"Vela Hand #{hid}:") for hid, line in lines.items())
    # each file's row says all of it is in: `hhtool import` of the folder finds nothing new
    assert cur.execute("SELECT sum(size) FROM files").fetchone() == (grows.stat().st_size + (folder / "table_2.txt").stat().st_size + len(
        gzip.decompress((folder / "old" / "archive.txt.gz").read_bytes())
    ),)
    cur.close()
    con.close()
    again = import_paths([folder], tmp_path / "h.duckdb", workers=0)
    assert (again.stored, again.duplicates, again.unchanged) == (0, 0, 3), again.text()


def test_a_file_grown_while_nothing_watched_is_read_from_where_it_stopped(tmp_path: Path, con: duckdb.DuckDBPyConnection) -> None:
    folder = tmp_path / "watch"
    folder.mkdir()
    path = folder / "t.txt"
    path.write_text("".join(hand(f"R-{i}") + "\n" for i in range(4)), encoding="utf-8")
    hands = _count(con)
    with LiveImport(con, [folder]):
        _poll(hands, 4)
    _append(path, "".join(hand(f"R-{i}") + "\n" for i in range(4, 7)))
    with LiveImport(con, [folder]) as live:
        _poll(hands, 7)
    status = live.status()
    assert (status.hands_read, status.hands_stored, status.duplicates) == (3, 3, 0)  # the new part only
    # rewritten in place with other hands: read again whole, the hands already in are duplicates, never twice
    path.write_text("".join(hand(f"R-{i}") + "\n" for i in (0, 1, 7)), encoding="utf-8")
    with LiveImport(con, [folder]) as live:
        _poll(hands, 8)
        _poll(lambda: live.status().duplicates, 2)
    assert _count(con, "SELECT count(DISTINCT hand_id) FROM hands")() == 8


def _threads_nice() -> list[int]:
    """The nice value of every thread of this process (Linux keeps one per thread)."""
    return [os.getpriority(os.PRIO_PROCESS, int(tid)) for tid in os.listdir("/proc/self/task")]


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="per-thread nice values are Linux's")
def test_the_workers_of_a_serving_import_give_the_cores_to_the_pages() -> None:
    """``nice``: every thread of a worker process runs at that nice value (the server's import), this process unchanged."""
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    nice = min(19, mine + 7)
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=_init_worker, initargs=(os.getpid(), nice))
    try:
        niceness = pool.submit(_threads_nice).result(timeout=120)
    finally:
        pool.shutdown()
    assert len(niceness) >= 2 and set(niceness) == {nice}  # its main thread and the one that watches the parent
    assert os.getpriority(os.PRIO_PROCESS, 0) == mine


@pytest.mark.parametrize(("max_workers", "big", "small"), [(None, None, None), (1, 1, 0), (0, 0, 0)])
def test_max_workers_bounds_the_workers_of_a_big_read_only(
    tmp_path: Path, con: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch, max_workers: int | None, big: int | None, small: int | None
) -> None:
    """``max_workers`` (``hhtool serve``'s 1): a big folder read by at most that many workers, a few hands in this process as before."""
    import hhtool.store.importer as importer

    real = importer.import_files
    asked: list[int | None] = []

    def recording(*args: object, workers: int | None = None, **kwargs: object) -> None:
        asked.append(workers)
        real(*args, workers=0, **kwargs)  # type: ignore[arg-type]  # the hands stored here: the count asked is what is tested

    monkeypatch.setattr(importer, "import_files", recording)
    folder = tmp_path / "watch"
    folder.mkdir()
    many = "\n\n".join(hand(f"B-{i}") for i in range(800)) + "\n\n"
    assert len(many.encode()) > importer.IN_PROCESS_BYTES  # enough for workers
    (folder / "big.txt").write_text(many, encoding="utf-8")
    with LiveImport(con, [folder], max_workers=max_workers):
        _poll(_count(con), 800)
        (folder / "small.txt").write_text(hand("S-0") + "\n\n", encoding="utf-8")
        _poll(_count(con), 801)
    assert asked == [big, small]
