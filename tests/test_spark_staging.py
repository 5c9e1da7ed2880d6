"""The Spark import's pieces that need no JVM: the executors' Parquet writer, the file systems it opens, the driver's runs."""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path

import polars as pl
import pytest

pytest.importorskip("pyarrow")  # the spark extra's

from hhtool.spark.decide import complement  # noqa: E402
from hhtool.spark.staging import StagedWriter, arrow_filesystem  # noqa: E402
from hhtool.store.schema import FAILED, HANDS, TableSpec  # noqa: E402


def test_complement_gives_the_new_hands_around_the_others() -> None:
    assert complement([], 5) == [(0, 5)]
    assert complement([(0, 5)], 5) == []
    assert complement([(1, 2)], 5) == [(0, 1), (3, 2)]
    assert complement([(0, 1), (4, 1)], 5) == [(1, 3)]
    assert complement([(2, 3)], 5) == [(0, 2)]
    assert complement([], 0) == []


def test_local_uris_open_the_local_file_system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pyarrow import fs

    for uri in (f"file:{tmp_path}", f"file://{tmp_path}", str(tmp_path)):
        filesystem, path = arrow_filesystem(uri)
        assert isinstance(filesystem, fs.LocalFileSystem) and path == str(tmp_path), uri
    monkeypatch.chdir(tmp_path)
    assert arrow_filesystem("lake")[1] == str(tmp_path / "lake")  # a relative folder: the driver's, made absolute


def _rows(spec: TableSpec, n: int, **values: pl.Expr | pl.Series) -> pl.DataFrame:
    """``n`` rows of ``spec`` with every column (NULL but for ``values``), and a column no table has."""
    from hhtool.store.frames import polars_dtype

    df = pl.DataFrame([pl.Series(c.name, [None] * n, dtype=polars_dtype(c.sql)) for c in spec.columns])
    return df.with_columns(**values, extra=pl.lit("not a column of the table"))


def _hands(n: int, days: list[date]) -> pl.DataFrame:
    """``n`` rows of ``hands``, their ``date`` cycling through ``days``."""
    return _rows(
        HANDS, n, hand_key=pl.int_range(1, n + 1, dtype=pl.Int64), hand_id=pl.format("H-{}", pl.int_range(n)),
        date=pl.Series([days[i % len(days)] for i in range(n)]),
    )


def test_staged_writer_writes_a_file_a_table_and_date_with_the_tables_columns(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from hhtool.spark.tables import arrow_schema

    days = [date(2026, 11, 29), date(2026, 11, 30)]
    writer = StagedWriter(f"file:{tmp_path}", "00003-0")
    writer.add("hands", _hands(10, days))
    writer.add("hands", _hands(4, days[:1]))  # a second chunk of the task: the same files
    when = datetime(2026, 12, 1, tzinfo=timezone.utc)
    failed = _rows(FAILED, 2, raw_hash=pl.Series([1, 2], dtype=pl.Int64), imported_at=pl.lit(when, pl.Datetime("us", "UTC")))
    writer.add("failed", failed)
    written = sorted(writer.close())
    assert [(t, n) for t, _, n in written] == [("failed", 2), ("hands", 9), ("hands", 5)]
    assert [p.split("/")[:-1] for _, p, _ in written] == [["failed"], ["hands", "date=2026-11-29"], ["hands", "date=2026-11-30"]]
    assert all(p.rsplit("/", 1)[1].startswith("part-00003-0-") and p.endswith(".parquet") for _, p, _ in written)
    hands = pq.read_table(tmp_path / written[1][1])
    assert hands.schema == arrow_schema([(c.name, c.sql) for c in HANDS.columns])  # the table's columns, no date, no extra
    assert sorted(hands.column("hand_id").to_pylist()) == sorted([f"H-{i}" for i in range(0, 10, 2)] + [f"H-{i}" for i in range(4)])
    assert pq.read_table(tmp_path / written[0][1]).column("imported_at").to_pylist() == [when, when]


def test_an_aborted_writer_reports_nothing(tmp_path: Path) -> None:
    writer = StagedWriter(str(tmp_path), "00000-1")
    writer.add("hands", _hands(3, [date(2026, 11, 29)]))
    writer.abort()
    assert writer.close() == []  # its files are left in staging, never listed for the commit


@pytest.mark.parametrize(
    ("row_group", "buffered", "groups"),
    [
        (4, 100, [[6, 3], [6, 3], [6, 3]]),  # each file writes past 4 rows: after the second chunk, then what is left
        (10, 2, [[6, 3], [6, 3], [9]]),  # 20 rows held by the writer (the third chunk's first date): every file writes
    ],
)
def test_rows_are_written_as_they_come(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, row_group: int, buffered: int, groups: list[list[int]]
) -> None:
    """A file writes a row group once it holds ROW_GROUP rows; every file writes its rows once the writer holds BUFFERED groups' worth."""
    import pyarrow.parquet as pq

    from hhtool.spark import staging

    monkeypatch.setattr(staging, "ROW_GROUP", row_group)
    monkeypatch.setattr(staging, "BUFFERED", buffered)
    days = [date(2026, 11, 29), date(2026, 11, 30), date(2026, 12, 1)]
    writer = StagedWriter(str(tmp_path), "00001-0")
    for _ in range(3):
        writer.add("hands", _hands(9, days))  # a chunk: 3 rows a date
    files = [pq.ParquetFile(tmp_path / p).metadata for _, p, _ in writer.close()]
    assert sorted([m.row_group(k).num_rows for k in range(m.num_row_groups)] for m in files) == groups
