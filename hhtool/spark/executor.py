"""The executors' half of the Spark import: files' bytes in, rows of the tables out, in Arrow batches.

Spark calls these functions through ``mapInArrow`` on its executors, so
they run the very code of the DuckDB import:

1. :func:`pieces`: each file (a local one found by the DuckDB import's
   walk and read here, as its workers read it; one Spark's ``binaryFile``
   read: path, time, bytes) is decompressed (``.gz``, the members of a ``.zip``), hashed,
   and cut at blank lines into pieces of whole hands by the import's own
   chunker (:func:`hhtool.store.sources.read_chunks`);
2. :func:`chunks`: each piece goes through the import's worker function
   (:func:`hhtool.store.worker.process_chunk`: split into hands, parse,
   replay, rows), its frames kept as Arrow IPC, one column per table,
   and its hands' keys (what deciding new, duplicate or conflict takes) as
   a list column the JVM reads without another pass of Python;
3. :func:`write_tables`: once the driver has decided which hands are new
   (and given them their ``hand_key``), which conflicts and failed hands
   are kept, every table's rows out of those frames, written as Parquet
   straight into the run's staging folder (:mod:`hhtool.spark.staging`),
   all tables in one pass; the task returns the list of its files.

A file that cannot be read (a truncated ``.gz``, a damaged ``.zip``) is
one row with its ``status`` and ``message``: the other files go on.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import pickle
import zipfile
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hhtool.game.room import NO_ROOMS, Rooms
from hhtool.history.archives import ARCHIVE_ERRORS, ENCRYPTED, unreadable_reason, zip_members
from hhtool.history.regular import open_regular
from hhtool.store.sources import HAND_HEADER, open_from, read_chunks
from hhtool.store.schema import HAND_TABLES, HANDS
from hhtool.spark.tables import PARTITION

if TYPE_CHECKING:
    import polars as pl
    import pyarrow as pa

FRAME_TABLES: tuple[str, ...] = ("hands", "seats", "actions", "cards", "pots", "findings", "failed")
"""The worker's frames, each kept in a chunk row as Arrow IPC (column ``t_<table>``)."""

PIECE_COLUMNS: list[tuple[str, str]] = [
    ("file", "VARCHAR"), ("sha256", "VARCHAR"), ("size", "BIGINT"), ("mtime", "TIMESTAMPTZ"),
    ("chunk", "INTEGER"), ("data", "BINARY"), ("lines", "BIGINT"), ("cp1252", "BOOLEAN"), ("unread", "BINARY"),
    ("status", "VARCHAR"), ("message", "VARCHAR"), ("open_from", "BIGINT"),
]
"""A piece of a file (``chunk`` 0, 1, ...), or one row (``chunk`` -1) for a file with a ``status``:
``unchanged`` (its content is committed already), ``no_hand`` (found in a folder, no hand in it),
``unreadable`` (``message`` says why).  ``open_from``: on a plain file's last piece, ``files.open_from``."""

CHUNK_COLUMNS: list[tuple[str, str]] = [
    ("file", "VARCHAR"), ("sha256", "VARCHAR"), ("size", "BIGINT"), ("mtime", "TIMESTAMPTZ"), ("chunk", "INTEGER"),
    ("status", "VARCHAR"), ("message", "VARCHAR"), ("open_from", "BIGINT"),
    ("hands", "INTEGER"), ("failed", "INTEGER"), ("junk_lines", "INTEGER"), ("replay_errors", "INTEGER"), ("cp1252", "BOOLEAN"),
    *((f"t_{t}", "BINARY") for t in FRAME_TABLES),
]
"""What the worker made of a piece: its counts and its frames (the status rows pass through)."""

KEY_FIELDS: list[tuple[str, str]] = [
    ("local", "INTEGER"), ("site", "VARCHAR"), ("hand_id", "VARCHAR"), ("text_hash", "BIGINT"), ("first_line", "INTEGER"), ("verdict", "VARCHAR"),
]
"""A hand's key: what deciding new, duplicate or conflict takes (``local``: its place in the chunk).  A chunk row's
``keys`` column is the list of its hands' keys, in order (:func:`chunk_schema`)."""

FAIL_FIELDS: list[tuple[str, str]] = [("index", "INTEGER"), ("raw_hash", "BIGINT"), ("first_line", "INTEGER")]
"""A failed hand's key: its row in the chunk's frame of ``failed``, the hash of its text, its first line.  A chunk
row's ``fails`` column is the list of them, in order (:func:`chunk_schema`)."""

WRITTEN_COLUMNS: list[tuple[str, str]] = [
    ("table", "VARCHAR"), ("path", "VARCHAR"), ("verdict", "VARCHAR"), ("rows", "BIGINT"), ("room", "VARCHAR"), ("digest", "VARCHAR"),
]
"""What a task of :func:`write_tables` returns: a file it wrote (``table``, ``path`` under the staging folder, ``rows``),
how many new hands of a ``verdict`` it wrote (``table`` and ``path`` null), or how many new hands it wrote that were
replayed under a room (``room`` and ``digest``: ``hands.room``, ``hands.rules_digest``; the others null)."""

Decision = tuple[list[tuple[int, int, int]], list[int], list[int]]
"""What the driver decided of a chunk: the runs of its new hands ``(lo, n, key)`` (the ``n`` hands from ``local`` ``lo``
on are new, the first one's ``hand_key`` is ``key``), the ``local`` of each conflict kept, the ``index`` of each
failed hand kept (its row in the chunk's frame of ``failed``)."""


def _arrow(columns: list[tuple[str, str]]) -> pa.Schema:
    import pyarrow as pa

    from hhtool.spark.tables import arrow_type

    return pa.schema([(n, pa.binary() if t == "BINARY" else arrow_type(t)) for n, t in columns])


def chunk_schema() -> pa.Schema:
    """The Arrow schema of :func:`chunks`' rows: :data:`CHUNK_COLUMNS`, ``keys`` (:data:`KEY_FIELDS`) and ``fails`` (:data:`FAIL_FIELDS`), lists of structs."""
    import pyarrow as pa

    return (
        _arrow(CHUNK_COLUMNS)
        .append(pa.field("keys", pa.list_(pa.struct(list(_arrow(KEY_FIELDS))))))
        .append(pa.field("fails", pa.list_(pa.struct(list(_arrow(FAIL_FIELDS))))))
    )


def _key_lists(keys: list[pa.Table | None], type_: pa.ListType) -> pa.ListArray:
    """One list of hand keys a chunk row (an empty one for a status row) from each chunk's table of keys."""
    import pyarrow as pa

    values = type_.value_type
    offsets = [0]
    parts: list[pa.Array] = []
    for table in keys:
        if table is not None:
            parts.append(table.cast(pa.schema(list(values))).to_struct_array().combine_chunks())
        offsets.append(offsets[-1] + (len(table) if table is not None else 0))
    flat = pa.concat_arrays(parts) if parts else pa.array([], type=values)
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), flat, type=type_)


def local_path(path: str) -> str:
    """Spark's ``file:/x/y`` as the DuckDB import stores it (``/x/y``); other schemes (``hdfs://``, ``s3a://``) kept."""
    if path.startswith("file://"):
        return path[len("file://"):]
    if path.startswith("file:"):
        return path[len("file:"):]
    return path


def _units(path: str, content: bytes) -> Iterator[tuple[str, bytes | None, str | None]]:
    """``(files.path, content, error)`` of a file Spark read: itself, its ``.gz`` content, or each member of a ``.zip``."""
    lower = path.lower()
    try:
        if lower.endswith(".zip"):
            yield from _members(path, content)
            return
        if lower.endswith(".gz"):
            yield path, gzip.decompress(content), None
            return
    except ARCHIVE_ERRORS as e:
        yield path, None, unreadable_reason(e)
        return
    yield path, content, None


def _members(path: str, content: bytes) -> Iterator[tuple[str, bytes | None, str | None]]:
    """A zip archive's members as the DuckDB import reads them (:func:`~hhtool.history.files.zip_members`), with their content."""
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        for member in zip_members(archive, path):
            if member.encrypted:
                yield member.path, None, ENCRYPTED
                continue
            try:
                data = archive.read(member.info)
                if member.info.filename.endswith(".gz"):
                    data = gzip.decompress(data)
            except ARCHIVE_ERRORS as e:
                yield member.path, None, unreadable_reason(e)
                continue
            yield member.path, data, None


def pieces(batches: Iterable[pa.RecordBatch], known: frozenset[str], named: frozenset[str]) -> Iterator[pa.RecordBatch]:
    """Files (``path``, ``modificationTime``, ``content``, ``name``) into pieces of whole hands (:data:`PIECE_COLUMNS`).

    A local file (``content`` null) is read here by ``name``, its own name
    in bytes; ``path`` is how it is shown and stored.

    ``known``: content hashes already committed (the file is ``unchanged``,
    not read again); ``named``: the paths the user gave, read whatever they
    hold (a file found in a folder with no hand header in it is ``no_hand``).
    """
    import pyarrow as pa

    schema = _arrow(PIECE_COLUMNS)
    for batch in batches:
        for row in batch.to_pylist():
            rows: list[dict[str, Any]] = []
            mtime: datetime = row["modificationTime"]
            content: bytes | None = row["content"]
            if content is None:  # a local file found by the walk: read here
                try:
                    content, mtime = _read_local(os.fsdecode(row["name"]))
                except OSError as e:
                    rows.append({"file": row["path"], "mtime": None, "chunk": -1, "status": "unreadable", "message": unreadable_reason(e)})
                    yield pa.RecordBatch.from_pylist(rows, schema=schema)
                    continue
            for path, data, error in _units(local_path(row["path"]), content):
                base: dict[str, Any] = {"file": path, "mtime": mtime, "chunk": -1}
                if data is None:
                    rows.append({**base, "status": "unreadable", "message": error})
                    continue
                sha = hashlib.sha256(data).hexdigest()
                base.update(sha256=sha, size=len(data))
                if sha in known:
                    rows.append({**base, "status": "unchanged"})
                elif HAND_HEADER.search(data) is None and path not in named:
                    rows.append({**base, "status": "no_hand"})
                else:
                    rows.extend(_file_pieces(base, data, plain=path == row["path"] and not path.lower().endswith(".gz")))
            if rows:
                yield pa.RecordBatch.from_pylist(rows, schema=schema)


def _read_local(path: str) -> tuple[bytes, datetime]:
    """A local file's bytes and modification time, opened as the DuckDB import opens it (regular files only, never blocking)."""
    with open_regular(Path(path)) as f:
        mtime = datetime.fromtimestamp(os.fstat(f.fileno()).st_mtime, tz=timezone.utc)
        return f.read(), mtime


def _file_pieces(base: dict[str, Any], data: bytes, plain: bool) -> Iterator[dict[str, Any]]:
    """A file's pieces as the DuckDB import cuts them; a piece after the first bytes not UTF-8 starts in Windows-1252.

    The last piece of a plain file carries ``files.open_from``, as the DuckDB import records it.
    """
    cp1252 = False
    pieces = read_chunks(io.BytesIO(data))
    piece, lines, unread = next(pieces)
    for index in range(1 << 62):
        after = next(pieces, None)
        end = open_from(len(data), piece, unread) if after is None and plain else None
        yield {**base, "chunk": index, "data": piece, "lines": lines, "cp1252": cp1252,
               "unread": None if unread is None else pickle.dumps(unread), "open_from": end}
        if not cp1252:
            try:
                piece.decode("utf-8")
            except UnicodeDecodeError:
                cp1252 = True
        if after is None:
            return
        piece, lines, unread = after


def chunks(batches: Iterable[pa.RecordBatch], rooms: Rooms = NO_ROOMS) -> Iterator[pa.RecordBatch]:
    """Pieces through the DuckDB import's worker function, :func:`~hhtool.store.worker.process_chunk` (:func:`chunk_schema`).

    ``rooms``: the room files each hand is replayed under (the run's broadcast, once an executor).
    """
    import pyarrow as pa

    from hhtool.store.worker import ChunkTask, process_chunk

    import polars as pl

    schema = chunk_schema()
    base = pa.schema([schema.field(n) for n, _ in CHUNK_COLUMNS])
    key_type, fail_type = schema.field("keys").type, schema.field("fails").type
    key_names = [n for n, _ in KEY_FIELDS]
    for batch in batches:
        out: list[dict[str, Any]] = []
        keys: list[pa.Table | None] = []
        fails: list[pa.Table | None] = []
        for row in batch.to_pylist():
            keep = {k: row[k] for k in ("file", "sha256", "size", "mtime", "chunk", "status", "message", "open_from")}
            if row["data"] is None:
                out.append(keep)
                keys.append(None)
                fails.append(None)
                continue
            unread = None if row["unread"] is None else pickle.loads(row["unread"])
            task = ChunkTask(0, row["chunk"], row["file"], row["data"], row["lines"], row["cp1252"], unread)
            result = process_chunk(task, rooms)
            keep.update(
                hands=result.hands, failed=result.failed, junk_lines=result.junk_lines,
                replay_errors=result.replay_errors, cp1252=result.cp1252 or row["cp1252"],
            )
            dated = _dated(result.frames)
            for name in FRAME_TABLES:
                df = dated.get(name)
                keep[f"t_{name}"] = _ipc(df) if df is not None and df.height else None
            out.append(keep)
            hands, failed = dated.get("hands"), dated.get("failed")
            keys.append(hands.select(key_names).to_arrow() if hands is not None and hands.height else None)
            fails.append(
                failed.select(pl.int_range(pl.len(), dtype=pl.Int32).alias("index"), "raw_hash", "first_line").to_arrow()
                if failed is not None and failed.height
                else None
            )
        if out:
            yield (
                pa.RecordBatch.from_pylist(out, schema=base)
                .append_column(schema.field("keys"), _key_lists(keys, key_type))
                .append_column(schema.field("fails"), _key_lists(fails, fail_type))
            )


def _dated(frames: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """The hand tables' frames with ``date``, their hand's UTC start date: the partition each row is written to.

    Given here, where the chunk's hands are at hand, the rows need nothing
    but their ``hand_key`` once the driver has decided which hands are new.
    """
    import polars as pl

    hands = frames.get("hands")
    if hands is None or not hands.height:
        return frames
    date = pl.col("started_at").dt.convert_time_zone("UTC").dt.date().alias(PARTITION)
    dates = hands.select("local", date)
    out = dict(frames)
    out["hands"] = hands.with_columns(date)
    for spec in HAND_TABLES:
        df = frames.get(spec.name)
        if df is not None and df.height:
            out[spec.name] = df.join(dates, on="local", how="left", maintain_order="left")
    return out


def _ipc(df: pl.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.write_ipc(buf, compression="lz4")
    return buf.getvalue()


def _frame(data: bytes) -> pl.DataFrame:
    import polars as pl

    return pl.read_ipc(io.BytesIO(data))


def write_tables(
    batches: Iterable[pa.RecordBatch], decisions: dict[tuple[str, int], Decision], stage: str, imported_at: datetime
) -> Iterator[pa.RecordBatch]:
    """Every table's rows of the chunks' frames, as the driver decided, written as Parquet into ``stage`` (:data:`WRITTEN_COLUMNS`).

    Each input row is a chunk's ``file``, ``chunk`` and frames
    (``t_<table>``, the hand tables' rows dated already); ``decisions``
    (:data:`Decision`, by ``(file, chunk)``): its new hands and their
    keys, the conflicts and failed hands it keeps; a chunk not in it
    keeps nothing.  One pass writes every table, one file a table and
    date for the task (:class:`~hhtool.spark.staging.StagedWriter`).
    """
    import polars as pl
    import pyarrow as pa
    from pyspark import TaskContext

    from hhtool.spark.staging import StagedWriter

    task = TaskContext.get()
    out = StagedWriter(stage, f"{task.partitionId():05d}-{task.attemptNumber()}" if task is not None else "local")
    when = pl.lit(imported_at, pl.Datetime("us", "UTC")).alias("imported_at")
    verdicts: dict[str, int] = {}
    governed: dict[tuple[str, str], int] = {}
    try:
        for batch in batches:
            for row in batch.to_pylist():
                decision = decisions.get((row["file"], row["chunk"]))
                if decision is None:
                    continue
                new, conflicts, failed = decision
                if new:
                    for spec in (HANDS, *HAND_TABLES):
                        if row[f"t_{spec.name}"] is not None:
                            df = _keyed(_frame(row[f"t_{spec.name}"]), new)
                            if spec is HANDS:
                                for verdict, n in df.get_column("verdict").value_counts().iter_rows():
                                    verdicts[verdict] = verdicts.get(verdict, 0) + n
                                roomed = df.filter(pl.col("room").is_not_null())
                                if roomed.height:
                                    for room, digest, n in roomed.group_by("room", "rules_digest").len().iter_rows():
                                        governed[(room, digest)] = governed.get((room, digest), 0) + n
                            out.add(spec.name, df)
                if conflicts:
                    out.add("conflicts", _frame(row["t_hands"]).filter(pl.col("local").is_in(conflicts)).with_columns(when))
                if failed:
                    out.add("failed", _frame(row["t_failed"])[failed].with_columns(when))
        written = out.close()
    except BaseException:
        out.abort()
        raise
    rows = [{"table": t, "path": p, "verdict": None, "rows": n} for t, p, n in written]
    rows += [{"table": None, "path": None, "verdict": v, "rows": n} for v, n in verdicts.items()]
    rows += [{"table": None, "path": None, "verdict": None, "rows": n, "room": r, "digest": d} for (r, d), n in governed.items()]
    if rows:
        yield pa.RecordBatch.from_pylist(rows, schema=_arrow(WRITTEN_COLUMNS))


def _keyed(df: pl.DataFrame, new: list[tuple[int, int, int]]) -> pl.DataFrame:
    """The rows of a chunk's new hands, each with its ``hand_key``: ``new`` is their runs ``(lo, n, first key)``."""
    import polars as pl

    local = pl.col("local")
    runs = [df.filter(local.is_between(lo, lo + n - 1)).with_columns(hand_key=local.cast(pl.Int64) + (key - lo)) for lo, n, key in new]
    return runs[0] if len(runs) == 1 else pl.concat(runs)
