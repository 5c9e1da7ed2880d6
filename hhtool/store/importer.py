"""``hhtool import``: hand-history files into the DuckDB database, fast, exactly once, nothing lost.

The pipeline::

    paths -> files (folders walked, globs expanded, .zip members, .gz)
          -> hashed (a file whose content is already imported is skipped)
          -> chunks of about a megabyte, cut at blank lines
          -> worker processes (all cores): parse + replay -> polars frames
          -> one writer (this process): batches through Arrow into DuckDB

Exactly once, nothing lost, whatever moment the import is stopped at:

* every batch is one transaction: the hands, their rows, failures,
  conflicts, and the ``files`` row of every file whose *last* chunk is in
  the batch -- so a ``files`` row means the whole file is in;
* a hand is inserted only if ``(site, hand_id)`` is not already stored
  (``hands`` has that primary key as a safety net); the same id with the
  same text is a duplicate, with another text a conflict, kept once in
  ``conflicts``; a failed hand is kept once by the hash of its text;
* so a rerun after ``kill -9`` re-reads the files not yet recorded, finds
  the hands already committed as duplicates, and stores the rest.
"""

from __future__ import annotations

import gzip
import hashlib
import lzma
import os
import re
import signal
import sys
import time
import zipfile
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, BinaryIO, TextIO, cast

from hhtool.history.files import Finder, NoSuchPath, check_regular, display, safe_member_name
from hhtool.store.worker import ChunkResult, ChunkTask, process_chunk

if TYPE_CHECKING:
    import duckdb
    import polars as pl

    from hhtool.history.reader import Unread

CHUNK_BYTES = 1 << 20
"""Target size of a chunk of a file sent to a worker."""
BATCH_HANDS = 10_000
"""Hands per writer transaction (at most; also committed every :data:`BATCH_SECONDS`)."""
BATCH_SECONDS = 5.0
WRITER_QUEUE = 12
"""Chunk results waiting for the writer thread (about 10,000 hands, 30 MB of frames)."""
IN_PROCESS_BYTES = 512 << 10
"""Below this much input, parse in this process: starting workers costs more than it saves."""
CHECKPOINT_MIN = 64 << 20
CHECKPOINT_MAX = 256 << 20
CHECKPOINT_PER_HAND = 1 << 10


def checkpoint_threshold(hands: int) -> int:
    """Bytes of log after which DuckDB checkpoints (writes the committed rows into the file), for a database of ``hands``.

    A checkpoint's cost grows with the database (at the default 16 MB a
    million-hand database spent 184 µs a hand in COMMIT, at 256 MB 42), so
    the threshold grows with it, from 64 MB to 256 MB (reached at 256,000
    hands).  Small at first because the last checkpoint is the tail of an
    import, when the workers have nothing left to do: at 100,000 hands,
    256 MB left all of it to the end (3 s with a core idle), 64 MB a
    quarter.  The memory stays under 1 GB (docs/performance.md).
    """
    return max(CHECKPOINT_MIN, min(CHECKPOINT_MAX, hands * CHECKPOINT_PER_HAND))


class ImportPathError(Exception):
    """A path that does not exist or matches nothing (a usage error)."""


# ------------------------------------------------------------------ files


@dataclass(frozen=True, slots=True)
class Unit:
    """One file to import: a plain file, a ``.gz`` file or a member of a ``.zip``."""

    path: str  # files.path
    fs_path: Path
    member: str | None = None  # zip member name
    named: bool = True  # named by the user (a path or a glob match), not found inside a folder or an archive
    member_size: int = 0  # a zip member's size, from the archive's directory

    def open(self) -> IO[bytes]:
        # checked again at the open: a FIFO put in the file's place since it was found would hang the read
        check_regular(self.fs_path)
        if self.member is None:
            if self.fs_path.suffix == ".gz":
                return cast(BinaryIO, gzip.open(self.fs_path, "rb"))
            return open(self.fs_path, "rb")
        archive = zipfile.ZipFile(self.fs_path)
        member = archive.open(self.member)
        if self.member.endswith(".gz"):
            return cast(BinaryIO, gzip.GzipFile(fileobj=member, mode="rb"))
        return member

    def mtime(self) -> datetime:
        return datetime.fromtimestamp(self.fs_path.stat().st_mtime, tz=timezone.utc)

    def content_size(self) -> int:
        """Bytes of content, known without reading it (for the progress bar and the choice of workers).

        A ``.gz`` file's trailer holds its size modulo 4 GiB; a zip member's
        is in the archive's directory (for a ``.gz`` member, its compressed
        size).  0 for a file that cannot be read: reading it fails later,
        with the error.
        """
        if self.member is not None:
            return self.member_size
        try:
            check_regular(self.fs_path)
            if self.fs_path.suffix == ".gz":
                with open(self.fs_path, "rb") as f:
                    f.seek(-4, os.SEEK_END)
                    return int.from_bytes(f.read(4), "little")
            return self.fs_path.stat().st_size
        except OSError:
            return 0


ARCHIVE_ERRORS = (OSError, EOFError, zipfile.BadZipFile, zlib.error, lzma.LZMAError, ValueError, NotImplementedError, RuntimeError)
"""What reading a damaged, truncated or unsupported archive raises (:mod:`zipfile` raises all of these on garbage;
``RuntimeError``: an encrypted member)."""


def collect_units(paths: Iterable[str | Path], exclude: Iterable[str | Path] = (), summary: ImportSummary | None = None) -> list[Unit]:
    """Every file to import, once each, in a stable order.

    A path is a file, a folder (walked recursively, hidden entries
    skipped) or a glob (``**`` recurses); ``.zip`` archives contribute
    their members, ``.gz`` files their content.  ``exclude``: files never
    to read (the database itself, its write-ahead log).  Links are
    followed within bounds and only regular files read (:mod:`hhtool.history.files`);
    what is skipped goes into ``summary``: a loop, a FIFO, a device or a
    socket in ``skipped``, a folder or an archive that cannot be read in
    ``unreadable``, a zip member read under a safe name in ``renamed``.
    """
    finder = Finder()
    for p in paths:
        try:
            finder.add(str(p))
        except NoSuchPath as e:
            raise ImportPathError(str(e)) from None
    report = summary if summary is not None else ImportSummary()
    units: list[Unit] = []
    seen: set[str] = {str(Path(x).resolve()) for x in exclude}
    for key, named in finder.files:  # real paths: the same file through two links is read once
        if key in seen:
            continue
        seen.add(key)
        fs = Path(key)
        if fs.suffix.lower() == ".zip":
            units.extend(_members(fs, display(key), finder.unreadable, report.renamed))
        else:
            units.append(Unit(display(key), fs, named=named))
    # shown absolute, as the files are; not resolved (a loop cannot be)
    report.skipped.extend((display(os.path.abspath(path)), why) for path, why in finder.skipped.items())
    report.unreadable.extend(f"{display(os.path.abspath(path))}: {why}" for path, why in finder.unreadable.items())
    return units


def _members(fs: Path, key: str, unreadable: dict[str, str], renamed: list[tuple[str, str, str]]) -> list[Unit]:
    """The members of the zip archive ``fs`` to read; a damaged archive or member is recorded in ``unreadable``.

    A member with an unsafe name (absolute, ``..`` parts, backslashes) is
    read -- members are never extracted, so reading it is harmless -- under
    the safe name of :func:`~hhtool.history.files.safe_member_name`, and recorded in
    ``renamed`` as (the path it is shown and stored as, the name in the archive, why it is unsafe).
    """
    try:
        check_regular(fs)
        with zipfile.ZipFile(fs) as archive:
            infos = [i for i in archive.infolist() if not i.is_dir()]
    except ARCHIVE_ERRORS as e:
        unreadable[key] = f"not a readable zip archive ({e or type(e).__name__})"
        return []
    units: list[Unit] = []
    used: set[str] = set()
    for info in sorted(infos, key=lambda i: i.filename):
        name, unsafe = safe_member_name(info.filename)
        if Path(name).name.startswith("."):
            continue
        if name in used:  # two names made the same: the archive's index keeps them apart
            name = f"{name}#{infos.index(info) + 1}"
        used.add(name)
        path = f"{key}!{name}"
        if info.flag_bits & 0x1:
            unreadable[path] = "an encrypted zip member (a password is needed): not read"
            continue
        if unsafe is not None:
            renamed.append((path, info.filename, unsafe))
        units.append(Unit(path, fs, info.filename, named=False, member_size=info.file_size))
    return units


_HAND_HEADER = re.compile(rb"(?:^|\n)(?:\xef\xbb\xbf)?[^\s]+ Hand #[A-Za-z0-9-]+: Telesina ")
"""The start of a hand (FORMAT.md's header), in bytes: a file without one holds no hand."""


def content_hash(unit: Unit) -> tuple[str, int, bool]:
    """SHA-256 (hex) and size of the unit's content, and whether it holds a hand header.

    The header test rides on the read the hash needs anyway, so telling
    hand histories from the other files of a folder costs nothing more.
    """
    h = hashlib.sha256()
    size = 0
    found = False
    tail = b""
    try:
        with unit.open() as f:
            while True:
                data = f.read(CHUNK_BYTES)
                if not data:
                    break
                h.update(data)
                size += len(data)
                if not found:
                    found = _HAND_HEADER.search(tail + data) is not None
                    tail = data[-256:]
    except ARCHIVE_ERRORS as e:  # an OSError with a plain message, so that the file is skipped and named
        raise OSError(unreadable_reason(e)) from e
    return h.hexdigest(), size, found


def unreadable_reason(e: BaseException) -> str:
    """Why a file could not be read, in words: the system's ("Permission denied"; the path is shown beside it), or the archive's."""
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return f"damaged, truncated or of an unsupported kind ({e or type(e).__name__})"


_HEADER_LINE = re.compile(rb"\n(?=[^\s]+ Hand #)")
_HAND_END = re.compile(rb"\n(?=[ \t\f\v\r]*\n|\S+ Hand #[A-Za-z0-9-]+: Telesina )")
"""Where a hand ends as the reader sees it: the line end before a blank line or a header (= ``reader._HEADER_START``)."""
_LOOK_BACK = 1 << 14
"""Bytes kept back while counting an over-long hand: a hand end found must lie wholly in what was read."""

Chunk = tuple[bytes, int, "Unread | None"]
"""A piece of a file: its bytes, the lines before them, and what followed them that was counted, not read."""


def _cut(buf: bytes) -> int:
    """Where to cut ``buf`` so that no hand is split: after the last blank line, else before the last header."""
    a = buf.rfind(b"\n\n")
    b = buf.rfind(b"\n\r\n")
    if a >= 0 or b >= 0:
        return max(a + 2 if a >= 0 else 0, b + 3 if b >= 0 else 0)
    last = 0
    for m in _HEADER_LINE.finditer(buf):
        last = m.start() + 1
    return last


def read_chunks(stream: IO[bytes], chunk_bytes: int = CHUNK_BYTES) -> Iterator[Chunk]:
    """The stream in pieces of whole hands: ``(bytes, lines before them, None)``; at least one piece.

    Memory stays bounded whatever the stream holds: a hand is at most
    :data:`~hhtool.history.bounds.MAX_HAND_CHARS` characters, so a stretch of
    ``chunk_bytes`` plus four bytes a character of that with no place to
    cut is a hand (or junk) over the bound.  Its first part is sent, and the
    rest of it, up to where the next hand may start, is counted as it is
    read, never held: ``(first part, lines before it, Unread)``, so that the
    worker reports the hand's true size, as :func:`hhtool.history.reader.read_file` does.
    """
    from hhtool.history.bounds import MAX_CHAR_BYTES, MAX_HAND_CHARS, MAX_LINE_CHARS
    from hhtool.history.reader import Tally, char_start

    head_bytes = MAX_CHAR_BYTES * (MAX_HAND_CHARS + MAX_LINE_CHARS)  # holds all that the reader keeps of a hand
    buf = b""
    lines = 0
    emitted = False
    eof = False
    while not eof:
        data = stream.read(chunk_bytes)
        if not data:
            break
        buf = buf + data if buf else data
        if len(buf) < chunk_bytes:
            continue
        cut = _cut(buf)
        if cut > 0:
            piece = buf[:cut]
            buf = buf[cut:]
            yield piece, lines, None
            emitted = True
            lines += piece.count(b"\n")
            continue
        if len(buf) <= head_bytes + chunk_bytes:
            continue
        # One hand (or junk) from buf's start, over the bound: send its first part, count the rest.
        keep = char_start(buf, head_bytes)
        while buf[keep - 1] in b"\r\n":  # the first part ends inside a line (buf has no blank line)
            keep -= 1
        head = buf[:keep]
        tally = Tally()
        todo = buf[keep:]
        while True:
            m = _HAND_END.search(todo)
            if m is not None:
                tally.add(todo[: m.start() + 1])
                buf = todo[m.start() + 1 :]
                break
            safe = max(0, len(todo) - _LOOK_BACK)
            tally.add(todo[:safe])
            data = stream.read(chunk_bytes)
            if not data:
                tally.add(todo[safe:])
                buf = b""
                eof = True
                break
            todo = todo[safe:] + data
        yield head, lines, tally.unread()
        emitted = True
        lines += head.count(b"\n") + tally.newlines
    if buf or not emitted:
        yield buf, lines, None


# ------------------------------------------------------------------ summary

SHOWN_SKIPS = 20
"""Skipped paths listed one a line in the text summary; the others are counted (``--json`` lists all)."""


@dataclass(slots=True)
class ImportSummary:
    files: int = 0  # files found
    imported: int = 0  # files read to the end this run
    unchanged: int = 0  # skipped: content already imported
    hands: int = 0  # hand records read (parsed and failed)
    stored: int = 0
    duplicates: int = 0
    conflicts: int = 0
    conflicts_new: int = 0
    failed: int = 0  # hands that did not parse
    failed_new: int = 0  # ... stored this run (the others were already in `failed`)
    replay_errors: int = 0
    junk_lines: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)  # of the hands stored this run
    cp1252_files: list[str] = field(default_factory=list)
    not_histories: list[str] = field(default_factory=list)  # files found in folders or archives with no hand
    unreadable: list[str] = field(default_factory=list)  # "path: error" of each file that could not be read (skipped)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why): not read, nothing lost (a loop, a FIFO, a device...)
    renamed: list[tuple[str, str, str]] = field(default_factory=list)  # zip members with unsafe names: (path read as, name, why)
    bytes: int = 0
    seconds: float = 0.0
    hash_seconds: float = 0.0  # reading every file once for its hash
    writer_seconds: float = 0.0  # in the writer's transactions
    interrupted: bool = False

    @property
    def ok(self) -> bool:
        """Nothing failed to parse or replay, no file was unreadable, and no conflict."""
        return not (self.failed or self.conflicts or self.replay_errors or self.unreadable)

    def text(self, *, raw: bool = False) -> str:
        """The summary as lines for a terminal; file names (which may come from an archive) escaped unless ``raw``."""
        from hhtool.textsafe import term

        rate = self.hands / self.seconds if self.seconds > 0 else 0.0
        verdicts = ", ".join(f"{n:,} {v}" for v, n in sorted(self.verdicts.items())) or "none"
        lines = [
            f"files: {self.files:,} ({self.imported:,} imported, {self.unchanged:,} unchanged and skipped"
            + (f", {len(self.not_histories):,} without any hand and skipped)" if self.not_histories else ")"),
            f"hands: {self.hands:,} read, {self.stored:,} stored, {self.duplicates:,} duplicates, "
            f"{self.conflicts:,} conflicts, {self.failed:,} failed",
            f"verdicts of the hands stored: {verdicts}",
            f"time: {self.seconds:.1f} s ({rate:,.0f} hands/s)",
        ]
        if self.replay_errors:
            lines.append(f"replay errors: {self.replay_errors:,} (stored with verdict 'error'; please report them)")
        if self.junk_lines:
            lines.append(f"junk lines outside any hand, skipped: {self.junk_lines:,}")
        for f in self.unreadable:
            lines.append(f"error: cannot read {f}; skipped (its hands are not imported)")
        for path, why in self.skipped[:SHOWN_SKIPS]:
            lines.append(f"skipped {path}: {why}")
        if len(self.skipped) > SHOWN_SKIPS:
            lines.append(f"skipped {len(self.skipped) - SHOWN_SKIPS:,} more paths (--json lists them all)")
        for path, name, why in self.renamed:
            lines.append(f"note: {path}: read from the zip member {name!r}, an unsafe name ({why}); members are never extracted")
        for f in self.cp1252_files:
            lines.append(f"warning: {f}: not UTF-8; read as Windows-1252")
        if self.not_histories:
            shown = ", ".join(Path(p).name for p in self.not_histories[:5])
            more = f" and {len(self.not_histories) - 5:,} more" if len(self.not_histories) > 5 else ""
            lines.append(f"skipped, no hand in them: {shown}{more}")
        if self.interrupted:
            lines.append("interrupted: everything above is committed; run the same command again to finish")
        return "\n".join(lines if raw else map(term, lines))


# ------------------------------------------------------------------ progress


class Progress:
    """A one-line progress bar on a terminal; nothing otherwise."""

    def __init__(self, total_bytes: int, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = max(total_bytes, 1)
        self.start = time.monotonic()
        self.last = 0.0

    def update(self, done_bytes: int, hands: int, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self.last < 0.2:
            return
        self.last = now
        frac = min(done_bytes / self.total, 1.0)
        width = 30
        bar = "#" * int(frac * width)
        elapsed = now - self.start
        rate = hands / elapsed if elapsed > 0 else 0.0
        self.stream.write(f"\r[{bar:<{width}}] {frac:4.0%}  {hands:,} hands  {rate:,.0f} hands/s ")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r\033[K")
            self.stream.flush()


# ------------------------------------------------------------------ the writer


class _Arrow:
    """A polars frame as an Arrow C stream for DuckDB (no pyarrow needed)."""

    def __init__(self, df: pl.DataFrame) -> None:
        self.df = df

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self.df.__arrow_c_stream__(requested_schema)


@dataclass(slots=True)
class _UnitState:
    unit: Unit
    sha256: str
    size: int
    chunks: int = 0  # submitted
    last_submitted: bool = False
    hands: int = 0
    failed: int = 0
    cp1252: bool = False


class Writer:
    """The single writer: batches of worker results into DuckDB, one transaction each."""

    def __init__(self, con: duckdb.DuckDBPyConnection, summary: ImportSummary, batch_hands: int = BATCH_HANDS) -> None:
        self.con = con
        self.batch_hands = batch_hands
        self.summary = summary
        row = con.execute("SELECT coalesce(max(hand_key), 0) FROM hands").fetchone()
        self.next_key = int(row[0]) + 1 if row else 1
        self.threshold = 0
        self._tune_checkpoints()
        self.pending: list[ChunkResult] = []
        self.pending_hands = 0
        self.done_units: list[_UnitState] = []
        self.last_commit = time.monotonic()

    def add(self, result: ChunkResult, finished: _UnitState | None) -> None:
        self.pending.append(result)
        self.pending_hands += result.hands + result.failed
        if finished is not None:
            self.done_units.append(finished)
        if self.pending_hands >= self.batch_hands or time.monotonic() - self.last_commit >= BATCH_SECONDS:
            self.flush()

    def _tune_checkpoints(self) -> None:
        threshold = checkpoint_threshold(self.next_key - 1)
        if threshold != self.threshold:
            self.con.execute(f"SET checkpoint_threshold = '{threshold}B'")
            self.threshold = threshold

    def _register(self, name: str, df: pl.DataFrame) -> None:
        self.con.register(name, _Arrow(df))

    def flush(self) -> None:
        import polars as pl

        if not self.pending and not self.done_units:
            return
        t0 = time.monotonic()
        results, units = self.pending, self.done_units
        frames: dict[str, list[pl.DataFrame]] = {}
        offset = 0
        for r in results:
            n = r.frames["hands"].height
            for name, df in r.frames.items():
                if df.height:
                    if offset and name != "failed":
                        df = df.with_columns(pl.col("local") + offset)
                    frames.setdefault(name, []).append(df)
            offset += n
        merged = {name: pl.concat(dfs, rechunk=False) for name, dfs in frames.items()}
        con = self.con
        con.execute("BEGIN TRANSACTION")
        try:
            stored, verdicts = self._insert_hands(merged)
            self._insert_failed(merged.get("failed"))
            for u in units:
                con.execute(
                    "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, now(), ?, ?, ?)",
                    [u.unit.path, u.sha256, u.size, u.unit.mtime(), "cp1252" if u.cp1252 else "utf-8", u.hands, u.failed],
                )
            con.execute("COMMIT")
        except BaseException:
            try:
                con.execute("ROLLBACK")
            except Exception:  # pragma: no cover - the connection is gone
                pass
            raise
        finally:
            for name in ("b_keys", "b_conf", "b_all", "b_failed", *(f"b_{t}" for t in ("hands", "seats", "actions", "cards", "pots", "findings"))):
                try:
                    con.unregister(name)
                except Exception:
                    pass
        self.next_key += stored
        self._tune_checkpoints()
        s = self.summary
        s.stored += stored
        for v, n in verdicts.items():
            s.verdicts[v] = s.verdicts.get(v, 0) + n
        s.imported += len(units)
        self.pending = []
        self.done_units = []
        self.pending_hands = 0
        self.last_commit = time.monotonic()
        s.writer_seconds += self.last_commit - t0

    def _insert_hands(self, merged: dict[str, pl.DataFrame]) -> tuple[int, dict[str, int]]:
        import polars as pl

        hands = merged.get("hands")
        if hands is None or not hands.height:
            return 0, {}
        con = self.con
        keys = hands.select("local", "site", "hand_id", "text_hash")
        self._register("b_keys", keys)
        existing = dict(
            con.execute(
                "SELECT b.local, h.text_hash FROM b_keys b JOIN hands h ON h.site = b.site AND h.hand_id = b.hand_id"
            ).fetchall()
        )
        known_conflicts = {
            r[0]
            for r in con.execute(
                "SELECT b.local FROM b_keys b JOIN conflicts c "
                "ON c.site = b.site AND c.hand_id = b.hand_id AND c.text_hash = b.text_hash"
            ).fetchall()
        }
        new_locals: list[int] = []
        conflict_locals: list[int] = []
        batch_first: dict[tuple[str, str], int] = {}  # (site, id) -> text hash of the first in this batch
        batch_conflicts: set[tuple[str, str, int]] = set()
        s = self.summary
        verdicts: dict[str, int] = {}
        verdict_col = hands.get_column("verdict").to_list()
        for local, site, hand_id, th in keys.iter_rows():
            old = existing.get(local)
            if old is None:
                old = batch_first.get((site, hand_id))
            if old is None:
                batch_first[(site, hand_id)] = th
                new_locals.append(local)
                v = verdict_col[local]
                verdicts[v] = verdicts.get(v, 0) + 1
            elif old == th:
                s.duplicates += 1
            else:
                s.conflicts += 1
                key = (site, hand_id, th)
                if local not in known_conflicts and key not in batch_conflicts:
                    batch_conflicts.add(key)
                    conflict_locals.append(local)
        if new_locals:
            n = len(new_locals)
            every = n == hands.height  # the usual case: every hand of the batch is new, hand_key = first + local
            new = pl.DataFrame(
                {"local": new_locals, "hand_key": range(self.next_key, self.next_key + n)},
                schema={"local": pl.Int32, "hand_key": pl.Int64},
            )

            def keyed(df: pl.DataFrame) -> pl.DataFrame:
                """The rows of the new hands, numbered by ``hand_key`` (in polars: DuckDB then only appends)."""
                if every:
                    return df.with_columns(hand_key=pl.col("local").cast(pl.Int64) + self.next_key).drop("local")
                return df.join(new, on="local", how="inner", maintain_order="left").drop("local")

            for table in ("hands", "seats", "actions", "cards", "pots", "findings"):
                df = hands if table == "hands" else merged.get(table)
                if df is None or not df.height:
                    continue
                self._register(f"b_{table}", keyed(df))
                con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM b_{table}")
        if conflict_locals:
            self._register("b_conf", pl.DataFrame({"local": conflict_locals}, schema={"local": pl.Int32}))
            self._register("b_all", hands)
            con.execute(
                "INSERT INTO conflicts BY NAME SELECT b.site, b.hand_id, b.text_hash, b.file, b.first_line, b.raw_text, "
                "now() AS imported_at FROM b_all b JOIN b_conf USING (local)"
            )
            s.conflicts_new += len(conflict_locals)
        return len(new_locals), verdicts

    def _insert_failed(self, failed: pl.DataFrame | None) -> None:
        if failed is None or not failed.height:
            return
        self._register("b_failed", failed.unique(subset="raw_hash", keep="first", maintain_order=True))
        before = self.con.execute("SELECT count(*) FROM failed").fetchone()
        self.con.execute(
            "INSERT INTO failed BY NAME SELECT f.*, now() AS imported_at FROM b_failed f "
            "WHERE NOT EXISTS (SELECT 1 FROM failed x WHERE x.raw_hash = f.raw_hash)"
        )
        after = self.con.execute("SELECT count(*) FROM failed").fetchone()
        if before is not None and after is not None:
            self.summary.failed_new += int(after[0]) - int(before[0])


# ------------------------------------------------------------------ the import


def _init_worker(parent: int) -> None:
    """Workers leave Ctrl-C to the writer, which stops them, and exit when the writer is gone.

    A writer killed with ``kill -9`` cannot stop its workers, and they do
    not notice on their own (they wait on a queue): a thread checks every
    half second that the parent is still theirs.
    """
    import threading

    import polars  # noqa: F401  - first: its own SIGINT handler (see import_paths) is then replaced

    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="hhtool-parent-watch", daemon=True).start()


def _lookahead(it: Iterator[Chunk]) -> Iterator[tuple[Chunk, bool]]:
    prev = next(it, None)
    while prev is not None:
        nxt = next(it, None)
        yield prev, nxt is None
        prev = nxt


def import_paths(
    paths: Iterable[str | Path],
    db: str | Path,
    *,
    workers: int | None = None,
    progress: Progress | None = None,
    memory_limit: str | None = "256MB",
    batch_hands: int = BATCH_HANDS,
    on_start: Callable[[int, int], None] | None = None,
) -> ImportSummary:
    """Import every hand under ``paths`` into the database ``db``.

    ``workers``: processes that parse and replay (default: one per core;
    0 parses in this process); ``batch_hands``: hands per transaction; ``on_start(files, bytes)``:
    called once with the files found and their size before any is read.  Raises :class:`ImportPathError` for a bad
    path and :class:`~hhtool.store.db.StoreError` for a database that
    cannot be opened, is not hhtool's, is damaged or cannot be written (a
    full disk: what was committed stays, and the same import run again
    finishes it).  ``KeyboardInterrupt`` stops after rolling back the
    batch in progress; the summary then says ``interrupted``.
    """
    from hhtool.store.db import database_errors

    # DuckDB's errors about the file (a damaged block, a full disk, a read-only folder), raised by the
    # writer (its thread's, handed over) or by the last checkpoint at close, in words (StoreError)
    with database_errors(db, writing=True):
        return _import_paths(paths, db, workers=workers, progress=progress, memory_limit=memory_limit, batch_hands=batch_hands, on_start=on_start)


def _import_paths(
    paths: Iterable[str | Path],
    db: str | Path,
    *,
    workers: int | None,
    progress: Progress | None,
    memory_limit: str | None,
    batch_hands: int,
    on_start: Callable[[int, int], None] | None,
) -> ImportSummary:
    from hhtool.store.db import connect

    started = time.monotonic()
    dbp = Path(db)
    summary = ImportSummary()
    units = collect_units(paths, exclude=[dbp, dbp.with_name(dbp.name + ".wal")], summary=summary)
    summary.files = len(units)
    con = connect(db, memory_limit=memory_limit)
    previous: object = None
    try:
        known = {r[0] for r in con.execute("SELECT sha256 FROM files").fetchall()}
        # Each file is hashed when its turn comes (_tasks), not all before the first chunk: the workers
        # start at once instead of after a pass over every file (3.9 s for 1.4 GB, one core busy).
        total = sum(u.content_size() for u in units)
        if on_start is not None:
            on_start(len(units), total)
        if progress is None:
            progress = Progress(total, enabled=False)
        progress.total = max(total, 1)
        progress.start = time.monotonic()
        if workers is None:
            workers = 0 if total < IN_PROCESS_BYTES else (os.cpu_count() or 1)
        writer = Writer(con, summary, batch_hands)
        # polars, when first imported, puts its own SIGINT handler in place, and a Ctrl-C then raises
        # KeyboardInterrupt in whatever thread runs polars code -- the process pool's, unpickling a
        # chunk's frames, which breaks the pool.  Imported first, its handler is replaced by ours.
        import polars  # noqa: F401

        previous = _defer_interrupts(con if workers > 0 else None)
        try:
            _run(_Todo(units, known, summary), writer, summary, progress, workers)
        except KeyboardInterrupt:
            summary.interrupted = True
        except Exception as e:
            if not _is_interrupt(e):
                raise
            summary.interrupted = True  # Ctrl-C reached DuckDB in the middle of a statement
        finally:
            progress.close()
    finally:
        try:
            con.close()  # its last checkpoint: a Ctrl-C meanwhile still only sets the flag (or interrupts DuckDB)
        finally:
            _restore_interrupts(previous)
    summary.seconds = time.monotonic() - started
    return summary


_INTERRUPTED = [False]


def _defer_interrupts(threaded: duckdb.DuckDBPyConnection | None = None) -> object:
    """Ctrl-C sets a flag that the import checks between chunks, at a point where no
    DuckDB statement is running; a second Ctrl-C stops at once.  Returns the old handler.

    With the writer in its own thread (``threaded``: its connection), the second Ctrl-C
    interrupts the writer's statement (its transaction rolls back) instead of raising in
    the main thread, where it could land anywhere, the process pool's shutdown included.
    """
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    _INTERRUPTED[0] = False

    def handler(signum: int, frame: object) -> None:
        if not _INTERRUPTED[0]:
            _INTERRUPTED[0] = True
        elif threaded is not None:
            try:
                threaded.interrupt()
            except Exception:  # closed already (the import is ending): nothing left to interrupt
                pass
        else:
            raise KeyboardInterrupt

    return signal.signal(signal.SIGINT, handler)


def _restore_interrupts(previous: object) -> None:
    if previous is not None:
        signal.signal(signal.SIGINT, previous)  # type: ignore[arg-type]


def _check_interrupt() -> None:
    if _INTERRUPTED[0]:
        raise KeyboardInterrupt


def _is_interrupt(e: BaseException) -> bool:
    import duckdb

    text = str(e).lower()
    # DuckDB wraps a Ctrl-C that lands while it reads a registered frame in its own error types
    return isinstance(e, duckdb.InterruptException) or "keyboardinterrupt" in text or (
        isinstance(e, (RuntimeError, duckdb.Error)) and "interrupted" in text
    )


@dataclass(slots=True)
class _Todo:
    """The files of an import, hashed one at a time as the import reaches them."""

    units: list[Unit]
    known: set[str]  # content hashes already imported (or met earlier in this run)
    summary: ImportSummary

    def states(self, skipped: Callable[[int], None]) -> Iterator[_UnitState]:
        """The files to read, in order; the others (unchanged, or no hand in them) counted and passed by."""
        summary = self.summary
        for unit in self.units:
            t0 = time.monotonic()
            try:
                sha, size, has_hand = content_hash(unit)
            except (OSError, zipfile.BadZipFile, EOFError, zlib.error) as e:
                # a truncated .gz, a damaged zip member, a file gone or unreadable: the others go on (exit 1)
                summary.unreadable.append(f"{unit.path}: {e}")
                continue
            summary.hash_seconds += time.monotonic() - t0
            if not has_hand and not unit.named:
                # a README or a manifest beside the histories; a file the user named is read whatever it holds
                summary.not_histories.append(unit.path)
                skipped(size)
                continue
            if sha in self.known:
                summary.unchanged += 1
                skipped(size)
                continue
            self.known.add(sha)  # the same content twice in one run: once
            summary.bytes += size
            yield _UnitState(unit, sha, size)


def _tasks(todo: _Todo, skipped: Callable[[int], None]) -> Iterator[tuple[ChunkTask, _UnitState, bool]]:
    for number, state in enumerate(todo.states(skipped)):
        cp1252 = False
        with state.unit.open() as stream:
            for index, ((data, lines, unread), last) in enumerate(_lookahead(read_chunks(stream))):
                task = ChunkTask(number, index, state.unit.path, data, lines, cp1252, unread)
                if not cp1252:
                    try:
                        data.decode("utf-8")
                    except UnicodeDecodeError:
                        cp1252 = True  # the reader switches within this chunk; later chunks start switched
                state.chunks += 1
                state.last_submitted = last
                yield task, state, last


def _run(todo: _Todo, writer: Writer, summary: ImportSummary, progress: Progress, workers: int) -> None:
    done_bytes = 0

    def skipped(size: int) -> None:
        nonlocal done_bytes
        done_bytes += size
        progress.update(done_bytes, summary.hands)

    def consume(
        result: ChunkResult, state: _UnitState, last: bool, size: int, write: Callable[[ChunkResult, _UnitState | None], None] = writer.add
    ) -> None:
        nonlocal done_bytes
        state.hands += result.hands + result.failed
        state.failed += result.failed
        state.cp1252 = state.cp1252 or result.cp1252
        summary.hands += result.hands + result.failed
        summary.failed += result.failed
        summary.junk_lines += result.junk_lines
        summary.replay_errors += result.replay_errors
        if last and state.cp1252:
            summary.cp1252_files.append(state.unit.path)
        _check_interrupt()
        write(result, state if last else None)
        done_bytes += size
        progress.update(done_bytes, summary.hands)
        _check_interrupt()

    if workers <= 0:
        for task, state, last in _tasks(todo, skipped):
            consume(process_chunk(task), state, last, len(task.data))
        writer.flush()
        return

    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"), initializer=_init_worker, initargs=(os.getpid(),))
    inflight: deque[tuple[Future[ChunkResult], _UnitState, bool, int]] = deque()
    # Chunks given to the workers and not yet returned: enough that they go on while the writer commits
    # (a batch takes about a second; two chunks each, as before, left a core idle for part of it).
    limit = 6 * workers + 2
    thread = _WriterThread(writer)
    try:
        for task, state, last in _tasks(todo, skipped):
            while len(inflight) >= limit:
                fut, st, ls, size = inflight.popleft()
                consume(fut.result(), st, ls, size, thread.hand_over)
            inflight.append((pool.submit(process_chunk, task), state, last, len(task.data)))
        while inflight:
            fut, st, ls, size = inflight.popleft()
            consume(fut.result(), st, ls, size, thread.hand_over)
        thread.finish()
    except BaseException:
        try:
            thread.abandon()
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


class _WriterThread:
    """The writer in a thread of its own, so that handing chunks to the workers never waits for a commit.

    A commit takes about a second, a checkpoint several (DuckDB releases
    the interpreter meanwhile); with the writer in the thread that also
    feeds the workers, they ran out of work during both.  Results wait in
    a bounded queue (:data:`WRITER_QUEUE`: memory stays bounded).  The
    writer thread alone uses the connection until :meth:`finish` or
    :meth:`abandon` returns, and both return only once it has ended
    (``done``, an event: a ``Thread.join`` that a Ctrl-C interrupts can
    report a running thread as ended).
    """

    def __init__(self, writer: Writer) -> None:
        import queue
        import threading

        self.writer = writer
        self.queue: queue.Queue[tuple[ChunkResult, _UnitState | None] | None] = queue.Queue(maxsize=WRITER_QUEUE)
        self.failure: BaseException | None = None
        self.dropping = threading.Event()  # stop writing: drop what is queued (an interrupt, or an error)
        self.done = threading.Event()  # the thread has ended: the connection is the main thread's again
        self.thread = threading.Thread(target=self._run, name="hhtool-writer", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            while True:
                item = self.queue.get()
                if item is None or self._stopping():
                    break
                self.writer.add(*item)
            if not self._stopping():
                self.writer.flush()
        except BaseException as e:  # handed to the main thread by hand_over/finish
            self.failure = e
            self.dropping.set()
        finally:
            self.done.set()

    def _stopping(self) -> bool:
        """Dropping, or Ctrl-C was pressed: the main thread sees it too and stops the import."""
        return self.dropping.is_set() or _INTERRUPTED[0]

    def hand_over(self, result: ChunkResult, finished: _UnitState | None) -> None:
        self._put((result, finished))

    def _put(self, item: tuple[ChunkResult, _UnitState | None] | None) -> None:
        import queue

        while True:
            if self.failure is not None:
                raise self.failure
            _check_interrupt()
            try:
                self.queue.put(item, timeout=0.2)
                return
            except queue.Full:
                pass

    def finish(self) -> None:
        """Write what is queued and the last batch; raise what the writer raised (or a Ctrl-C meanwhile)."""
        self._put(None)
        while not self.done.wait(0.2):
            _check_interrupt()
        _check_interrupt()  # the writer stopped early for it
        if self.failure is not None:
            raise self.failure

    def abandon(self) -> None:
        """Stop after the transaction in progress, dropping what is queued; return once the thread has ended.

        A further Ctrl-C meanwhile interrupts that transaction (it rolls
        back) and is raised once the thread has ended, never before.
        """
        import queue

        self.dropping.set()
        interrupted = False
        while not self.done.is_set():
            try:
                while True:  # empty the queue, so that the thread, if it waits for an item, gets the end
                    try:
                        self.queue.get_nowait()
                    except queue.Empty:
                        break
                try:
                    self.queue.put_nowait(None)
                except queue.Full:
                    pass
                self.done.wait(0.2)
            except KeyboardInterrupt:
                interrupted = True
                self.writer.con.interrupt()
        if interrupted:
            raise KeyboardInterrupt


def summary_dict(s: ImportSummary) -> dict[str, Any]:
    """The summary as plain data (for ``--json`` and tests)."""
    return {
        "files": s.files,
        "imported": s.imported,
        "unchanged": s.unchanged,
        "hands": s.hands,
        "stored": s.stored,
        "duplicates": s.duplicates,
        "conflicts": s.conflicts,
        "failed": s.failed,
        "failed_new": s.failed_new,
        "replay_errors": s.replay_errors,
        "junk_lines": s.junk_lines,
        "verdicts": dict(s.verdicts),
        "seconds": round(s.seconds, 3),
        "hash_seconds": round(s.hash_seconds, 3),
        "writer_seconds": round(s.writer_seconds, 3),
        "bytes": s.bytes,
        "interrupted": s.interrupted,
        "not_histories": list(s.not_histories),
        "unreadable": list(s.unreadable),
        "skipped": [{"path": p, "reason": why} for p, why in s.skipped],
        "renamed": [{"path": p, "member": name, "reason": why} for p, name, why in s.renamed],
    }
