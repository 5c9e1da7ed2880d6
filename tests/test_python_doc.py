"""docs/python.md, the library's guide: every example in it runs, and gives what the page says (issue 41)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_every_example_of_the_python_guide_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guide builds its own database from ``sample_histories/`` in a temporary folder: run from the project's folder."""
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("HHTOOL_DB", raising=False)
    failures, tried = doctest.testfile(str(ROOT / "docs" / "python.md"), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert tried >= 25, "the guide lost its examples"
    assert failures == 0


def test_query_reads_the_default_database_and_a_parquet_export_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``hhtool.query`` finds the database as the commands do (``$HHTOOL_DB``) and reads an exported dataset the same."""
    from hhtool import import_paths, query
    from hhtool.store.query import export_parquet
    from tests.sample_paths import SAMPLES

    db = tmp_path / "hands.duckdb"
    assert import_paths([str(SAMPLES / "000_format_example.txt")], db, workers=0).ok
    export_parquet(db, tmp_path / "pq")
    monkeypatch.setenv("HHTOOL_DB", str(db))
    sql = "SELECT player, net FROM seats ORDER BY player"
    want = [("alice", -510), ("bob", 580), ("carol", -10), ("dave", -110)]
    assert query(sql).rows() == query(sql, parquet=tmp_path / "pq").rows() == want
    with pytest.raises(ValueError, match="not both"):
        query(sql, db, parquet=tmp_path / "pq")
