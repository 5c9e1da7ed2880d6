"""The import's worker processes start at once, before the database is opened.

Each worker takes about a third of a second to start (an interpreter, the
worker's modules, the C reader configured): started when the first chunk
was submitted, after the database was opened and the writer made, a core
sat idle meanwhile (docs/performance.md, "The import's stages").  These
tests start real worker processes and look at them.
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from hhtool.store.importer import _Workers, import_paths
from hhtool.store.summary import ImportSummary
from tests.storegen import write_files


def _alive() -> int:
    return sum(1 for p in multiprocessing.active_children() if p.exitcode is None)


def test_the_workers_are_running_when_the_database_has_been_opened(tmp_path: Path) -> None:
    """By ``on_start`` (called once the database is open, before any chunk is read) both workers are up."""
    write_files(tmp_path / "in", 2, 700)
    seen: list[int] = []
    summary = import_paths([tmp_path / "in"], tmp_path / "h.duckdb", workers=2, on_start=lambda files, size: seen.append(_alive()))
    assert seen == [2]
    assert summary.stored > 0 and not summary.interrupted


def test_a_pool_starts_every_worker_at_once() -> None:
    workers = _Workers(2, 0, ImportSummary())
    try:
        assert len(workers._processes()) == 2  # not one at a time, as chunks are submitted
    finally:
        workers.shutdown(wait=True)
