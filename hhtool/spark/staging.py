"""A run's Parquet files, written with pyarrow into its staging folder by the Python executors (and the driver, for ``files``).

The Python workers already hold a chunk's rows as Arrow (the worker
function's polars frames), so they write the tables' Parquet files
themselves: the JVM only schedules, and never turns those rows into its
own to encode them again.  Each writer (one a Spark task) opens one file a
``(table, date)`` it has rows for, under
``DIR/_hhtool/staging/run-N/TABLE/date=D/part-<task>-<attempt>-<random>.parquet``
(``TABLE/part-...`` for the unpartitioned tables), buffers the rows into
row groups, and reports the files it closed.  Only the files a task that
succeeded reported are committed (:mod:`hhtool.spark.commit`): a failed or
duplicated attempt's files stay in staging, which no reader reads and the
commit deletes.

The columns and types are :mod:`hhtool.store.schema`'s, as
``hhtool export --parquet`` writes them (the partition column ``date`` in
the folder name, not in the file).  The file system comes from the output
URI (:func:`arrow_filesystem`): local paths, ``hdfs://`` (pyarrow's
libhdfs binding) and ``s3://`` / ``s3a://`` (pyarrow's own S3 client).
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

from hhtool.spark.tables import OUTPUT_TABLES, PARTITION, arrow_schema

if TYPE_CHECKING:
    import polars as pl
    import pyarrow as pa
    import pyarrow.fs as pafs
    import pyarrow.parquet as pq

ROW_GROUP = 122_880
"""Rows buffered a file before they are written as a row group (DuckDB's own row group size)."""

BUFFERED = 4
"""Row groups' worth of rows a writer buffers over all its files at most: then every file writes what it holds
(a task with many dates and tables would otherwise hold a row group of each)."""

_SPECS = {spec.name: spec for spec in OUTPUT_TABLES}


def arrow_filesystem(uri: str) -> tuple[pafs.FileSystem, str]:
    """pyarrow's file system for a folder URI and the path on it: local (``/x``, ``file:/x``), ``hdfs://``, ``s3://``.

    Hadoop's ``s3a://`` (and ``s3n://``) name the same buckets as pyarrow's
    ``s3://``; any other scheme is what :meth:`pyarrow.fs.FileSystem.from_uri` knows.
    """
    from pyarrow import fs

    if uri.startswith("file:"):
        path = uri[len("file://"):] if uri.startswith("file://") else uri[len("file:"):]
        return fs.LocalFileSystem(), path
    if "://" not in uri:
        return fs.LocalFileSystem(), os.path.abspath(uri)
    scheme, rest = uri.split("://", 1)
    if scheme in ("s3a", "s3n"):
        uri = f"s3://{rest}"
    filesystem, path = fs.FileSystem.from_uri(uri)
    return filesystem, path


@dataclass(slots=True)
class _File:
    """One open Parquet file of a (table, date): its writer and the rows not yet written."""

    rel: str
    writer: pq.ParquetWriter
    pending: list[pa.Table] = field(default_factory=list)
    buffered: int = 0
    rows: int = 0

    def flush(self) -> None:
        import pyarrow as pa

        if self.pending:
            self.writer.write_table(pa.concat_tables(self.pending), row_group_size=max(self.buffered, 1))
            self.rows += self.buffered
            self.pending, self.buffered = [], 0


class StagedWriter:
    """Parquet files of a run's tables under its staging folder ``stage`` (a URI): one a ``(table, date)``.

    ``tag`` names the writer in its files' names (a task's partition and
    attempt); a random suffix keeps two writers of one tag apart (a stage
    run again).  :meth:`close` returns what was written; a writer that
    fails is :meth:`abort`-ed, its files left to the staging folder's removal.
    """

    def __init__(self, stage: str, tag: str) -> None:
        self.fs, self.base = arrow_filesystem(stage)
        self.tag = f"{tag}-{uuid.uuid4().hex[:8]}"
        self.open: dict[tuple[str, date | None], _File] = {}
        self.schemas: dict[str, pa.Schema] = {}
        self.buffered = 0

    def _schema(self, table: str) -> pa.Schema:
        schema = self.schemas.get(table)
        if schema is None:
            schema = self.schemas[table] = arrow_schema([(c.name, c.sql) for c in _SPECS[table].columns])
        return schema

    def add(self, table: str, df: pl.DataFrame) -> None:
        """A frame of ``table``'s rows (the hand tables' with ``date``, which picks the file); other columns are dropped."""
        if not df.height:
            return
        names = self._schema(table).names
        if _SPECS[table].partitioned:
            for (day,), part in df.partition_by(PARTITION, as_dict=True, maintain_order=True).items():
                self.add_arrow(table, day, part.select(names).to_arrow())
        else:
            self.add_arrow(table, None, df.select(names).to_arrow())

    def add_arrow(self, table: str, day: date | None, rows: pa.Table) -> None:
        """Rows of ``table`` (its columns, in order) for the partition ``day`` (None: an unpartitioned table)."""
        import pyarrow.parquet as pq

        key = (table, day)
        file = self.open.get(key)
        schema = self._schema(table)
        if file is None:
            folder = f"{table}/{PARTITION}={day.isoformat()}" if day is not None else table
            rel = f"{folder}/part-{self.tag}.parquet"
            self.fs.create_dir(f"{self.base}/{folder}", recursive=True)
            writer = pq.ParquetWriter(f"{self.base}/{rel}", schema, filesystem=self.fs, compression="snappy")
            file = self.open[key] = _File(rel, writer)
        file.pending.append(rows.cast(schema))
        file.buffered += rows.num_rows
        self.buffered += rows.num_rows
        if file.buffered >= ROW_GROUP:
            self.buffered -= file.buffered
            file.flush()
        if self.buffered >= BUFFERED * ROW_GROUP:
            for other in self.open.values():
                other.flush()
            self.buffered = 0

    def close(self) -> list[tuple[str, str, int]]:
        """Write what is buffered, close every file: ``(table, path under the staging folder, rows)`` of each."""
        out = []
        for (table, _), file in self.open.items():
            file.flush()
            file.writer.close()
            out.append((table, file.rel, file.rows))
        self.open.clear()
        return out

    def abort(self) -> None:
        """Close what is open and report nothing: the files stay in staging, never committed."""
        for file in self.open.values():
            try:
                file.writer.close()
            except Exception:  # the error that stopped the writer is the one raised
                pass
        self.open.clear()
