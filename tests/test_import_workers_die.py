"""A worker process that dies (``kill -9``, the out-of-memory killer) costs the import time, never hands.

Issue 38's second break: after a worker was killed, the pool was broken
for good -- ``hhtool import`` stopped with ``BrokenProcessPool`` and the
live import went idle with thousands of hands missing until a restart.
These tests kill real worker processes in the middle of real imports and
count what is in the DuckDB file afterwards.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from pathlib import Path

import duckdb

from hhtool.store.db import connect
from hhtool.store.importer import import_paths
from hhtool.store.live import LiveImport
from tests.storegen import write_files

FILES, HANDS_PER_FILE = 6, 1500
"""About 11 MB: a dozen chunks of a megabyte for two workers, seconds of work."""


def _kill_a_worker() -> bool:
    """``kill -9`` one of this process's worker processes (the import's pool); False if there is none."""
    for child in multiprocessing.active_children():
        if child.pid is not None:
            os.kill(child.pid, signal.SIGKILL)
            return True
    return False


def _stored(db: Path) -> tuple[int, int]:
    with duckdb.connect(str(db), read_only=True) as c:
        row = c.execute("SELECT count(*), count(DISTINCT hand_id) FROM hands").fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def test_hhtool_import_loses_no_hand_when_workers_are_killed(tmp_path: Path) -> None:
    good, _ = write_files(tmp_path / "in", FILES, HANDS_PER_FILE)
    kills: list[int] = []

    def progress(done: int, total: int, hands: int) -> None:
        # twice, a few chunks apart: each time in the middle of the import, with chunks in the workers' hands
        if (hands > 1000 and not kills) or (hands > 4000 and len(kills) == 1):
            if _kill_a_worker():
                kills.append(hands)

    summary = import_paths([tmp_path / "in"], tmp_path / "h.duckdb", workers=2, progress=progress)
    assert len(kills) == 2
    assert summary.worker_restarts >= 2 and not summary.interrupted
    assert (summary.stored, summary.duplicates, summary.failed, summary.imported) == (good, 0, 0, FILES), summary.text()
    assert "a worker process died" in summary.text()
    assert _stored(tmp_path / "h.duckdb") == (good, good)


def test_a_worker_that_dies_between_two_chunks_handed_out_loses_nothing(tmp_path: Path) -> None:
    """The death is seen by the pool before the next chunk is handed to it: that hand-over is refused, not fatal."""
    good, _ = write_files(tmp_path / "in", 2, HANDS_PER_FILE)
    kills: list[int] = []

    def progress(done: int, total: int, hands: int) -> None:
        # called between taking a result and handing out the next chunk: the pool is broken by then
        if hands > 500 and not kills and _kill_a_worker():
            kills.append(hands)
            time.sleep(1.0)

    summary = import_paths([tmp_path / "in"], tmp_path / "h.duckdb", workers=2, progress=progress, chunk_bytes=64 * 1024)
    assert kills and summary.worker_restarts >= 1
    assert (summary.stored, summary.duplicates, summary.failed) == (good, 0, 0), summary.text()
    assert _stored(tmp_path / "h.duckdb") == (good, good)


def test_the_live_import_rebuilds_its_workers_and_reads_their_chunks_again(tmp_path: Path) -> None:
    folder = tmp_path / "watch"
    folder.mkdir()
    db = tmp_path / "h.duckdb"
    con = connect(db)
    try:
        with LiveImport(con, [folder], workers=2) as live:
            good, _ = write_files(tmp_path / "staged", FILES, HANDS_PER_FILE)
            (tmp_path / "staged").rename(folder / "in")  # every file at once: one run, its workers busy for seconds

            def killer() -> None:
                # a kill may land on the pool of a run that is ending (nothing left to lose): kill until one cost a restart
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and live.status().worker_restarts == 0:
                    if 1000 < live.status().hands_read < good - 2000:
                        _kill_a_worker()
                        time.sleep(0.3)
                    time.sleep(0.01)

            t = threading.Thread(target=killer)
            t.start()
            t.join()
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and live.status().hands_stored < good:
                time.sleep(0.1)
            status = live.status()
        assert status.worker_restarts >= 1
        assert (status.hands_stored, status.duplicates, status.failed) == (good, 0, 0)
        assert any("worker process died" in e for e in status.errors)
    finally:
        con.close()
    assert _stored(db) == (good, good)
