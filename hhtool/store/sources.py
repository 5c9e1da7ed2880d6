"""The import's sources: which files to read, their content hashes, and their bytes in chunks of whole hands.

What a path names (:func:`collect_units`: folders walked, globs expanded,
``.zip`` members, ``.gz`` content), which of those files are new
(:class:`Todo`: a file whose content hash is already imported is passed
by), and what the workers get (:func:`tasks`: each file cut into chunks of
about a megabyte at blank lines, :func:`read_chunks`, so that no hand is
split).  A file may also be read from a byte offset on (:class:`FileState`'s
``start``): the live import (:mod:`hhtool.store.live`) reads a growing file
from where its last import stopped.
"""

from __future__ import annotations

import hashlib
import re
import time
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from hhtool.history.archives import ARCHIVE_ERRORS, unreadable_reason
from hhtool.history.files import NoSuchPath, Unit, find_units
from hhtool.store.summary import ImportSummary
from hhtool.store.worker import ChunkTask

if TYPE_CHECKING:
    from hhtool.history.reader import Unread

CHUNK_BYTES = 1 << 20
"""Target size of a chunk of a file sent to a worker."""


ImportPathError = NoSuchPath
"""A path that does not exist or matches nothing (a usage error): the walk's own error, under the import's name."""


def collect_units(paths: Iterable[str | Path], exclude: Iterable[str | Path] = (), summary: ImportSummary | None = None) -> list[Unit]:
    """Every file to import, once each, in a stable order (:func:`hhtool.history.files.find_units`).

    What is skipped goes into ``summary``: a loop, a FIFO, a device, a
    socket or a virtual file system in ``skipped``, a folder or an archive
    that cannot be read in ``unreadable``, a zip member read under a safe
    name in ``renamed``.
    """
    found = find_units(paths, exclude)
    report = summary if summary is not None else ImportSummary()
    report.skipped.extend(found.skipped)
    report.unreadable.extend(f"{path}: {why}" for path, why in found.unreadable)
    report.renamed.extend(found.renamed)
    return found.units


HAND_HEADER = re.compile(rb"(?:^|\n)(?:\xef\xbb\xbf)?[^\s]+ Hand #[A-Za-z0-9-]+: Telesina ")
"""The start of a hand (FORMAT.md's header), in bytes: a file without one holds no hand."""
TAIL_BYTES = 64
"""Bytes kept of the end of what :func:`digest` read."""


@dataclass(slots=True)
class Digest:
    """What one read of a stream found: its bytes, whether it holds a hand header, its line ends (if counted), its last bytes."""

    size: int = 0
    has_hand: bool = False
    lines: int = 0
    tail: bytes = b""


def digest(stream: IO[bytes] | ByteRange, h: hashlib._Hash, *, count_lines: bool = False) -> Digest:
    """Feed ``stream`` to the hash ``h``, noting whether it holds a hand header (and counting its lines).

    The header test rides on the read the hash needs anyway, so telling
    hand histories from the other files of a folder costs nothing more.
    """
    found = Digest()
    tail = b""
    while True:
        data = stream.read(CHUNK_BYTES)
        if not data:
            break
        h.update(data)
        found.size += len(data)
        if count_lines:
            found.lines += data.count(b"\n")
        if not found.has_hand:
            found.has_hand = HAND_HEADER.search(tail + data) is not None
        tail = data[-256:] if len(data) >= 256 else (tail + data)[-256:]
    found.tail = tail[-TAIL_BYTES:]
    return found


def content_hash(unit: Unit) -> tuple[str, int, bool]:
    """SHA-256 (hex) and size of the unit's content, and whether it holds a hand header."""
    h = hashlib.sha256()
    try:
        with unit.open() as f:
            found = digest(f, h)
    except ARCHIVE_ERRORS as e:  # an OSError with a plain message, so that the file is skipped and named
        raise OSError(unreadable_reason(e)) from e
    return h.hexdigest(), found.size, found.has_hand


_HEADER_LINE = re.compile(rb"\n(?=[^\s]+ Hand #)")
_HAND_END = re.compile(rb"\n(?=[ \t\f\v\r]*\n|\S+ Hand #[A-Za-z0-9-]+: Telesina )")
"""Where a hand ends as the reader sees it: the line end before a blank line or a header (= ``reader._HEADER_START``)."""
_CUT_WINDOW = 1 << 16
"""Bytes at a chunk's end where :func:`cut_point` looks for the last blank line before it looks in the whole chunk."""
_LOOK_BACK = 1 << 14
"""Bytes kept back while counting an over-long hand: a hand end found must lie wholly in what was read."""

Chunk = tuple[bytes, int, "Unread | None"]
"""A piece of a file: its bytes, the lines before them, and what followed them that was counted, not read."""


def cut_point(buf: bytes) -> int:
    """Where to cut ``buf`` so that no hand is split: after the last blank line, else before the last header.

    The blank lines are looked for in the last :data:`_CUT_WINDOW` bytes
    first: a chunk's last blank line is nearly always in its last hand, and
    a search for the line end a file does not use (``\n\r\n`` in a file of
    ``\n`` lines) otherwise reads the whole megabyte for nothing.  The last
    occurrence in the window is the last in ``buf``, so the cut is the same.
    """
    for lo in ((len(buf) - _CUT_WINDOW, 0) if len(buf) > _CUT_WINDOW else (0,)):
        a = buf.rfind(b"\n\n", lo)
        b = buf.rfind(b"\n\r\n", lo)
        if a >= 0 or b >= 0:
            return max(a + 2 if a >= 0 else 0, b + 3 if b >= 0 else 0)
    return last_header(buf)


def last_header(buf: bytes) -> int:
    """Where the last header line of ``buf`` after its first line starts (0 if none)."""
    last = 0
    for m in _HEADER_LINE.finditer(buf):
        last = m.start() + 1
    return last


def open_tail(data: bytes) -> int | None:
    """Where the last hand of ``data`` (the end of a file) starts, if nothing after it says that it is complete; else None.

    A hand is complete once a blank line follows it; the last hand of a
    file without one may be a hand still being written (a poker client
    appending line by line, a copy in progress).  Whether it parsed or
    not, a later read of the grown file starts there again
    (``files.open_from``, docs/live.md), so that its rest is read with it,
    never as junk after it.
    """
    body = len(data.rstrip())
    if not body or data.count(b"\n", body) >= 2:
        return None  # nothing but white space, or a blank line after the last hand
    return cut_point(data[:body])


def open_from(size: int, last: bytes, unread: Unread | None) -> int | None:
    """``files.open_from`` of a plain file of ``size`` bytes whose last chunk (:func:`read_chunks`) is ``last``.

    The byte where its last hand starts if no blank line follows it
    (:func:`open_tail`); None for an over-long last hand (``unread``: it
    fails on its size, whatever follows).  The DuckDB and the Spark
    imports both record it so.
    """
    if unread is not None:
        return None
    tail = open_tail(last)
    return None if tail is None else size - len(last) + tail


def read_chunks(stream: IO[bytes] | ByteRange, chunk_bytes: int = CHUNK_BYTES) -> Iterator[Chunk]:
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
        cut = cut_point(buf)
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


@dataclass(slots=True)
class FileState:
    """A file being read: its content hash and size once read to ``size``, what of it to read, and its counts.

    ``start``: the byte where reading begins (0, or where the last import
    of a growing file stopped), ``lines`` the lines before it, ``cp1252``
    whether the part before it was not UTF-8; ``hands`` and ``failed``
    count from what the earlier imports stored.  ``sha256`` and ``size``
    are those of the file's first ``size`` bytes: what its ``files`` row says.
    """

    unit: Unit
    sha256: str
    size: int
    start: int = 0
    lines: int = 0
    chunks: int = 0  # submitted
    last_submitted: bool = False
    hands: int = 0
    failed: int = 0
    cp1252: bool = False
    open_from: int | None = None  # where a last hand that may still grow starts (``files.open_from``)
    judge_tail: bool = True  # :func:`tasks` sets ``open_from`` from the last chunk (the live import decides it itself)


@dataclass(slots=True)
class Todo:
    """The files of an import, hashed one at a time as the import reaches them."""

    units: list[Unit]
    known: set[str]  # content hashes already imported (or met earlier in this run)
    summary: ImportSummary

    def states(self, skipped: Callable[[int], None]) -> Iterator[FileState]:
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
            if not has_hand:  # named, and read all the same: its lines are junk, and the command says so (exit 1, as parse)
                summary.no_hand.append(unit.path)
            if sha in self.known:
                summary.unchanged += 1
                skipped(size)
                continue
            self.known.add(sha)  # the same content twice in one run: once
            summary.bytes += size
            yield FileState(unit, sha, size)


def tasks(
    states: Iterable[FileState], chunk_bytes: int = CHUNK_BYTES, unreadable: list[str] | None = None
) -> Iterator[tuple[ChunkTask, FileState, bool]]:
    """Each file's chunks (of about ``chunk_bytes``) as the workers' tasks: ``(task, its file, whether it is the file's last)``.

    A file read from ``start`` on is read up to ``size`` (what its hash
    covers; the live import leaves a hand still being written for later),
    its first chunk numbered 1, so that the worker does not take it for the
    file's start; its lines are counted on from ``lines``.

    A file that cannot be read to its end since it was hashed (gone, an
    archive changed or past a bound) is said in ``unreadable`` ("path:
    why") and the next file read; its chunks sent already are stored, and
    since its last never was, it has no ``files`` row: the next import
    reads it again (its hands in already are duplicates).  Without
    ``unreadable`` the error is raised.
    """
    for number, state in enumerate(states):
        try:
            yield from _file_tasks(number, state, chunk_bytes)
        except ARCHIVE_ERRORS as e:
            if unreadable is None:
                raise
            unreadable.append(f"{state.unit.path}: {unreadable_reason(e)} (since it was hashed; read again by the next import)")


def _file_tasks(number: int, state: FileState, chunk_bytes: int) -> Iterator[tuple[ChunkTask, FileState, bool]]:
    """One file's part of :func:`tasks`."""
    cp1252 = state.cp1252
    first = 1 if state.start else 0
    with state.unit.open() as opened:
        stream = ByteRange(opened, state.start, state.size)  # what the hash covers, should the file have grown since
        for index, ((data, lines, unread), last) in enumerate(_lookahead(read_chunks(stream, chunk_bytes)), first):
            task = ChunkTask(number, index, state.unit.path, data, state.lines + lines, cp1252, unread)
            if not cp1252:
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    cp1252 = True  # the reader switches within this chunk; later chunks start switched
            state.chunks += 1
            state.last_submitted = last
            if last and state.judge_tail:  # a plain file's: an archive's content does not grow
                plain = state.unit.member is None and state.unit.fs_path.suffix != ".gz"
                state.open_from = open_from(state.size, data, unread) if plain else None
            yield task, state, last


def _lookahead(it: Iterator[Chunk]) -> Iterator[tuple[Chunk, bool]]:
    prev = next(it, None)
    while prev is not None:
        nxt = next(it, None)
        yield prev, nxt is None
        prev = nxt


class ByteRange:
    """The bytes ``start`` to ``end`` of a file opened for reading: what :func:`read_chunks` reads of a growing file."""

    def __init__(self, stream: IO[bytes], start: int, end: int) -> None:
        self.stream = stream
        if start:
            stream.seek(start)
        self.left = end - start

    def read(self, n: int = -1) -> bytes:
        if self.left <= 0:
            return b""
        data = self.stream.read(self.left if n < 0 else min(n, self.left))
        self.left -= len(data)
        return data
