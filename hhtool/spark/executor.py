"""The executors' half of the Spark import: files' bytes in, rows of the tables out, in Arrow batches.

Spark calls these functions through ``mapInArrow`` on its executors, so
they run the very code of the DuckDB import:

1. :func:`pieces`: each file (a local one found by the DuckDB import's
   walk and read here, as its workers read it; one Spark's ``binaryFile``
   read: path, time, bytes) is decompressed (``.gz``, the members of a ``.zip``), hashed,
   and cut at blank lines into pieces of whole hands by the import's own
   chunker (:func:`hhtool.store.importer.read_chunks`);
2. :func:`chunks`: each piece goes through the import's worker function
   (:func:`hhtool.store.worker.process_chunk`: split into hands, parse,
   replay, rows), its frames kept as Arrow IPC, one column per table,
   and its hands' keys (what deciding new, duplicate or conflict takes) as
   a list column the JVM reads without another pass of Python;
3. :func:`table_rows`, :func:`failed_rows`: the
   tables' rows out of those frames once the driver has decided which
   hands are new and given them their ``hand_key``.

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

from hhtool.history.files import ARCHIVE_ERRORS, ENCRYPTED, open_regular, unreadable_reason, zip_members
from hhtool.store.sources import HAND_HEADER, read_chunks
from hhtool.store.schema import FAILED, HAND_TABLES, HANDS, TableSpec
from hhtool.spark.tables import PARTITION, arrow_schema, output_columns

if TYPE_CHECKING:
    import polars as pl
    import pyarrow as pa

FRAME_TABLES: tuple[str, ...] = ("hands", "seats", "actions", "cards", "pots", "findings", "failed")
"""The worker's frames, each kept in a chunk row as Arrow IPC (column ``t_<table>``)."""

PIECE_COLUMNS: list[tuple[str, str]] = [
    ("file", "VARCHAR"), ("sha256", "VARCHAR"), ("size", "BIGINT"), ("mtime", "TIMESTAMPTZ"),
    ("chunk", "INTEGER"), ("data", "BINARY"), ("lines", "BIGINT"), ("cp1252", "BOOLEAN"), ("unread", "BINARY"),
    ("status", "VARCHAR"), ("message", "VARCHAR"),
]
"""A piece of a file (``chunk`` 0, 1, ...), or one row (``chunk`` -1) for a file with a ``status``:
``unchanged`` (its content is committed already), ``no_hand`` (found in a folder, no hand in it),
``unreadable`` (``message`` says why)."""

CHUNK_COLUMNS: list[tuple[str, str]] = [
    ("file", "VARCHAR"), ("sha256", "VARCHAR"), ("size", "BIGINT"), ("mtime", "TIMESTAMPTZ"), ("chunk", "INTEGER"),
    ("status", "VARCHAR"), ("message", "VARCHAR"),
    ("hands", "INTEGER"), ("failed", "INTEGER"), ("junk_lines", "INTEGER"), ("replay_errors", "INTEGER"), ("cp1252", "BOOLEAN"),
    *((f"t_{t}", "BINARY") for t in FRAME_TABLES),
]
"""What the worker made of a piece: its counts and its frames (the status rows pass through)."""

KEY_FIELDS: list[tuple[str, str]] = [
    ("local", "INTEGER"), ("site", "VARCHAR"), ("hand_id", "VARCHAR"), ("text_hash", "BIGINT"), ("first_line", "INTEGER"), ("verdict", "VARCHAR"),
]
"""A hand's key: what deciding new, duplicate or conflict takes (``local``: its place in the chunk).  A chunk row's
``keys`` column is the list of its hands' keys, in order (:func:`chunk_schema`)."""

RANGE_COLUMNS: list[tuple[str, str]] = [("lo", "INTEGER"), ("n", "INTEGER"), ("key", "BIGINT")]
"""A run of a chunk's new hands: the ``n`` hands from ``local`` ``lo`` on are new, and the first one's ``hand_key`` is ``key``."""

FAILED_COLUMNS: list[tuple[str, str]] = [(c.name, c.sql) for c in FAILED.columns if c.name != "imported_at"]


def _arrow(columns: list[tuple[str, str]]) -> pa.Schema:
    import pyarrow as pa

    from hhtool.spark.tables import arrow_type

    return pa.schema([(n, pa.binary() if t == "BINARY" else arrow_type(t)) for n, t in columns])


def chunk_schema() -> pa.Schema:
    """The Arrow schema of :func:`chunks`' rows: :data:`CHUNK_COLUMNS`, and ``keys``, a list of :data:`KEY_FIELDS` structs."""
    import pyarrow as pa

    return _arrow(CHUNK_COLUMNS).append(pa.field("keys", pa.list_(pa.struct(list(_arrow(KEY_FIELDS))))))


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
                    rows.extend(_file_pieces(base, data))
            if rows:
                yield pa.RecordBatch.from_pylist(rows, schema=schema)


def _read_local(path: str) -> tuple[bytes, datetime]:
    """A local file's bytes and modification time, opened as the DuckDB import opens it (regular files only, never blocking)."""
    with open_regular(Path(path)) as f:
        mtime = datetime.fromtimestamp(os.fstat(f.fileno()).st_mtime, tz=timezone.utc)
        return f.read(), mtime


def _file_pieces(base: dict[str, Any], data: bytes) -> Iterator[dict[str, Any]]:
    """A file's pieces as the DuckDB import cuts them; a piece after the first bytes not UTF-8 starts in Windows-1252."""
    cp1252 = False
    for index, (piece, lines, unread) in enumerate(read_chunks(io.BytesIO(data))):
        yield {**base, "chunk": index, "data": piece, "lines": lines, "cp1252": cp1252,
               "unread": None if unread is None else pickle.dumps(unread)}
        if not cp1252:
            try:
                piece.decode("utf-8")
            except UnicodeDecodeError:
                cp1252 = True


def chunks(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Pieces through the DuckDB import's worker function, :func:`~hhtool.store.worker.process_chunk` (:func:`chunk_schema`)."""
    import pyarrow as pa

    from hhtool.store.worker import ChunkTask, process_chunk

    schema = chunk_schema()
    base = pa.schema([schema.field(n) for n, _ in CHUNK_COLUMNS])
    key_type = schema.field("keys").type
    key_names = [n for n, _ in KEY_FIELDS]
    for batch in batches:
        out: list[dict[str, Any]] = []
        keys: list[pa.Table | None] = []
        for row in batch.to_pylist():
            keep = {k: row[k] for k in ("file", "sha256", "size", "mtime", "chunk", "status", "message")}
            if row["data"] is None:
                out.append(keep)
                keys.append(None)
                continue
            unread = None if row["unread"] is None else pickle.loads(row["unread"])
            task = ChunkTask(0, row["chunk"], row["file"], row["data"], row["lines"], row["cp1252"], unread)
            result = process_chunk(task)
            keep.update(
                hands=result.hands, failed=result.failed, junk_lines=result.junk_lines,
                replay_errors=result.replay_errors, cp1252=result.cp1252 or row["cp1252"],
            )
            dated = _dated(result.frames)
            for name in FRAME_TABLES:
                df = dated.get(name)
                keep[f"t_{name}"] = _ipc(df) if df is not None and df.height else None
            out.append(keep)
            hands = dated.get("hands")
            keys.append(hands.select(key_names).to_arrow() if hands is not None and hands.height else None)
        if out:
            yield pa.RecordBatch.from_pylist(out, schema=base).append_column(schema.field("keys"), _key_lists(keys, key_type))


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


def table_rows(batches: Iterable[pa.RecordBatch], table: str, imported_at: datetime | None = None) -> Iterator[pa.RecordBatch]:
    """A hand table's rows (or ``conflicts``') out of chunk rows joined with the driver's decision.

    Each input row holds a chunk's frame of ``table`` (``frame``, its rows
    dated already) and ``new``, the runs of the chunk's new hands
    (:data:`RANGE_COLUMNS`: most chunks have one, every hand); for
    ``conflicts``, ``conflicts``: the locals of the hands kept as conflicts.
    """
    import polars as pl

    if table == "conflicts":
        from hhtool.store.schema import CONFLICTS

        columns = [(c.name, c.sql) for c in CONFLICTS.columns]
    else:
        columns = output_columns(_spec(table))
    schema = arrow_schema(columns)
    names = [n for n, _ in columns]
    for batch in batches:
        for row in batch.to_pylist():
            if row["frame"] is None:
                continue
            df = _frame(row["frame"])
            if table == "conflicts":
                if not row["conflicts"]:
                    continue
                df = df.filter(pl.col("local").is_in(row["conflicts"])).with_columns(
                    imported_at=pl.lit(imported_at, pl.Datetime("us", "UTC"))
                )
            else:
                if not row["new"]:
                    continue
                local = pl.col("local")
                runs = [
                    df.filter(local.is_between(r["lo"], r["lo"] + r["n"] - 1)).with_columns(hand_key=local.cast(pl.Int64) + (r["key"] - r["lo"]))
                    for r in row["new"]
                ]
                df = runs[0] if len(runs) == 1 else pl.concat(runs)
            yield from df.select(names).to_arrow().cast(schema).to_batches()


def _spec(table: str) -> TableSpec:
    for spec in (HANDS, *HAND_TABLES):
        if spec.name == table:
            return spec
    raise KeyError(table)


def failed_rows(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``(t_failed)`` into ``failed``'s rows, without ``imported_at`` (the driver's, when it keeps them)."""
    schema = _arrow(FAILED_COLUMNS)
    names = [n for n, _ in FAILED_COLUMNS]
    for batch in batches:
        for row in batch.to_pylist():
            if row["t_failed"] is not None:
                yield from _frame(row["t_failed"]).select(names).to_arrow().cast(schema).to_batches()
