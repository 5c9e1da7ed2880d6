"""The live import's DuckDB threads: one while its worker processes parse (as ``hhtool import``), the server's again after."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from hhtool.store.db import connect
from hhtool.store.live import LiveImport
from tests.storegen import hand
from tests.test_live_import import _count, poll


def _threads(con: duckdb.DuckDBPyConnection) -> int:
    cur = con.cursor()
    try:
        row = cur.execute("SELECT current_setting('threads')").fetchone()
        assert row is not None
        return int(row[0])
    finally:
        cur.close()


@pytest.mark.parametrize(("workers", "during"), [(1, 1), (0, 3)])
def test_one_thread_while_workers_parse_and_the_threads_back_after(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int, during: int) -> None:
    """A run with worker processes writes on one DuckDB thread; one parsed in the server's process keeps its threads; both end as they began."""
    import hhtool.store.importer as importer

    real = importer.import_files
    seen: list[int] = []

    def recording(states: object, con: duckdb.DuckDBPyConnection, *args: object, **kwargs: object) -> None:
        seen.append(_threads(con))
        real(states, con, *args, **{**kwargs, "workers": 0})  # type: ignore[arg-type]  # the hands stored here: the setting is what is tested

    monkeypatch.setattr(importer, "import_files", recording)
    con = connect(tmp_path / "h.duckdb")
    try:
        con.execute("SET threads = 3")
        folder = tmp_path / "watch"
        folder.mkdir()
        (folder / "a.txt").write_text("\n\n".join(hand(f"T-{i}") for i in range(20)) + "\n\n", encoding="utf-8")
        with LiveImport(con, [folder], workers=workers):
            poll(_count(con), 20)
        assert seen and all(n == during for n in seen)
        assert _threads(con) == 3
    finally:
        con.close()
