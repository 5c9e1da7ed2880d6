"""The import as a library: its progress callback and its cancel signal, on a real DuckDB file."""

from __future__ import annotations

import threading
from pathlib import Path

import duckdb
import pytest

from hhtool.store.cancel import Cancel
from hhtool.store.importer import import_paths
from tests.storegen import write_files


def _ids(db: Path) -> list[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return [r[0] for r in con.execute("SELECT hand_id FROM hands").fetchall()]
    finally:
        con.close()


def test_progress_is_called_with_bytes_and_hands(tmp_path: Path) -> None:
    good, _ = write_files(tmp_path / "in", files=3, hands_per_file=40)
    total = sum(p.stat().st_size for p in (tmp_path / "in").iterdir())
    calls: list[tuple[int, int, int]] = []
    summary = import_paths([tmp_path / "in"], tmp_path / "h.duckdb", workers=0, progress=lambda *a: calls.append(a))
    assert summary.stored == good and not summary.interrupted
    assert calls[0] == (0, total, 0)  # once at the start
    assert calls[-1] == (total, total, good)  # and after the last chunk: all of it
    assert all(c[1] == total for c in calls)
    assert [c[0] for c in calls] == sorted(c[0] for c in calls) and [c[2] for c in calls] == sorted(c[2] for c in calls)


@pytest.mark.parametrize("workers", [0, 2])
def test_cancel_midway_keeps_what_is_committed_and_a_rerun_stores_exactly_the_rest(tmp_path: Path, workers: int) -> None:
    """Cancelled once three batches of eight are committed: the summary says interrupted, the hands committed stay,
    and the same import run again stores exactly the others, each once.

    The cancel is tied to a commit (``on_commit``), not to the hands read: with workers, the writer's thread
    commits behind the reading, and a cancel after some hands read could come before any batch was in."""
    good, _ = write_files(tmp_path / "in", files=8, hands_per_file=50)  # a file a chunk, a chunk a batch
    db = tmp_path / "h.duckdb"
    cancel = threading.Event()
    commits: list[int] = []

    def on_commit(stored: int) -> None:
        commits.append(stored)
        if stored >= 150:
            cancel.set()

    first = import_paths([tmp_path / "in"], db, workers=workers, batch_hands=50, on_commit=on_commit, cancel=cancel)
    assert first.interrupted
    partial = _ids(db)
    assert commits and commits[-1] == first.stored == len(partial)  # nothing committed after the cancel
    assert 150 <= len(partial) < good
    assert "interrupted: everything above is committed" in first.text()
    rest = import_paths([tmp_path / "in"], db, workers=workers, batch_hands=50)
    assert not rest.interrupted and rest.stored == good - len(partial)
    ids = _ids(db)
    assert len(ids) == len(set(ids)) == good
    assert set(partial) <= set(ids)


def test_a_cancel_set_before_the_start_stores_nothing_and_loses_nothing(tmp_path: Path) -> None:
    good, _ = write_files(tmp_path / "in", files=2, hands_per_file=10)
    db = tmp_path / "h.duckdb"
    cancel = Cancel()
    cancel.set()
    assert import_paths([tmp_path / "in"], db, workers=0, cancel=cancel).interrupted
    assert _ids(db) == []
    assert not cancel.abort()  # no writer thread to interrupt: the caller would raise in its own thread
    assert import_paths([tmp_path / "in"], db, workers=0).stored == good
