"""The live import: folders watched, every hand written into them stored within about a second of its end.

For ``hhtool serve --watch DIR``: a :class:`LiveImport` watches folders
with :mod:`watchfiles` and, in a thread of the calling process, runs the
same import as ``hhtool import`` (the same sources, workers and writer,
:func:`hhtool.store.importer.import_files`) on a DuckDB connection it is
given -- its own cursor of it, so that whoever holds the connection reads
through other cursors meanwhile and sees each batch once it is committed.

What is read, and when (docs/live.md):

* a plain file is read from where the last import of it stopped: its
  ``files`` row says how many bytes are in (``size``) and their hash, so
  a file that grows is neither read again from the start nor taken for a
  new file; a file whose first ``size`` bytes are no longer those (it was
  rewritten) is read again whole, and its hands already stored count as
  duplicates, never twice;
* a hand is read once it is complete: a blank line follows it, or the
  file has not changed for ``settle`` seconds (a last hand with no blank
  line after it); a hand still being written waits;
* a ``.gz`` file or a ``.zip`` archive is read whole, once it has not
  changed for ``settle`` seconds, and skipped if its content is already in;
* hidden files and folders, the database and its log are never read, and a
  file without a hand header (a README) is passed by until it has one.

:meth:`LiveImport.status` is a snapshot for pages to show: files pending,
the file being read, hands stored, errors.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from hhtool.game.room import NO_ROOMS, Rooms
from hhtool.history.files import Unit
from hhtool.store.cancel import Cancel
from hhtool.store.sources import CHUNK_BYTES, TAIL_BYTES, ByteRange, Digest, FileState, ImportPathError, Todo, collect_units, cut_point, digest, last_header
from hhtool.store.summary import ImportSummary
from hhtool.store.writer import BATCH_HANDS

if TYPE_CHECKING:
    import duckdb

SETTLE_SECONDS = 1.0
"""A file unchanged this long has its last hand read with no blank line after it, if that hand is whole (it parses)."""
INCOMPLETE_SECONDS = 30.0
"""A file unchanged this long has its last hand read even if it does not parse (stored in ``failed``, read again if it grows)."""
RETRY_SECONDS = (2.0, 60.0)
"""After a failed run (a database error, workers dying again and again), its files are read again after the first
figure, then after twice as long each time, up to the second."""
TICK_SECONDS = 0.1
"""How often files waiting to settle are looked at again when nothing changes."""
MAX_ERRORS = 50
"""Errors kept in the status (the latest)."""


@dataclass(frozen=True, slots=True)
class LiveStatus:
    """A snapshot of a live import, for a page to show (all counts since :meth:`LiveImport.start`)."""

    running: bool
    folders: tuple[str, ...]
    pending: int  # files and folders to look at: changed since they were looked at, or waiting
    waiting: int  # files whose last hand is still being written (no blank line after it, changed < settle s ago)
    current: str | None  # the file being read now
    files: int  # files read (wholly or their new part) and recorded in ``files``
    hands_read: int
    hands_stored: int
    duplicates: int
    conflicts: int
    failed: int  # hands that did not parse (stored in ``failed``)
    imports: int  # import runs done
    last_import: datetime | None  # when the last run ended
    errors: tuple[str, ...]  # the latest problems, oldest first: a file that cannot be read, a database error
    worker_restarts: int = 0  # times the worker processes were started again after one died (their chunks read again)
    retrying: int = 0  # files to be read again after a run that failed (each with its own delay)
    incomplete: int = 0  # files whose last hand, unchanged for INCOMPLETE_SECONDS, did not parse: read again when they grow
    stale: tuple[str, ...] = ()  # stored hands audited under other rules than the room files give now, in words (found at the start)


@dataclass(frozen=True, slots=True)
class _Open:
    """A last hand that may still grow (``files.open_from``): where it starts, and the lines and hand records before it."""

    at: int
    lines: int
    hands: int
    failed: int


@dataclass(slots=True)
class _Track:
    """What is in of a plain file: its first ``offset`` bytes (``lines`` lines), whose hash ``hasher`` holds.

    ``open``: where a last hand that may still grow starts; the next read
    of the file starts there rather than at ``offset``.
    """

    offset: int
    lines: int
    hasher: hashlib._Hash
    tail: bytes  # its last bytes before ``offset``: a file rewritten in place is told from one that grew
    cp1252: bool = False
    hands: int = 0
    failed: int = 0
    open: _Open | None = None


@dataclass(frozen=True, slots=True)
class _Tail:
    """What the last hand of a file, with no blank line after it yet, holds: whether it is whole, and its records."""

    whole: bool
    hands: int  # hand records (parsed and failed) in it
    failed: int


@dataclass(slots=True)
class _Counts:
    """What the runs so far did (the status adds the run in progress)."""

    files: int = 0
    hands_read: int = 0
    hands_stored: int = 0
    duplicates: int = 0
    conflicts: int = 0
    failed: int = 0
    imports: int = 0
    last_import: datetime | None = None
    errors: list[str] = field(default_factory=list)
    worker_restarts: int = 0


class LiveImport:
    """Watch ``folders`` and store every hand written into them, on ``con`` (see the module's docstring).

    ``workers``: as :func:`~hhtool.store.importer.import_paths`'s (default:
    none for a few new hands, one per core for a big first read);
    ``max_workers``: with ``workers`` None, at most this many (``hhtool
    serve``'s 1: each worker holds about 130 MB, and the server's memory
    has a budget; a few new hands are still read in this process); ``nice``:
    the worker processes' nice value at least (``hhtool serve`` lowers them,
    so that its pages answer first while a big folder is read);
    ``settle``: :data:`SETTLE_SECONDS`; ``incomplete_after``:
    :data:`INCOMPLETE_SECONDS`; ``exclude``: files never to read
    (the database's own file and log are always excluded); ``rooms``: the
    room files each hand is replayed under, by its site (as
    :func:`~hhtool.store.importer.import_paths`'s; the stored hands audited
    under other rules than these give are counted once at the start, in
    the status's ``stale``).  Use as a
    context manager, or :meth:`start` and :meth:`stop`::

        with LiveImport(con, ["histories/"]) as live:
            ...
            print(live.status().hands_stored)
    """

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        folders: Iterable[str | Path],
        *,
        workers: int | None = None,
        max_workers: int | None = None,
        settle: float = SETTLE_SECONDS,
        incomplete_after: float = INCOMPLETE_SECONDS,
        batch_hands: int = BATCH_HANDS,
        exclude: Iterable[str | Path] = (),
        force_polling: bool | None = None,
        nice: int = 0,
        rooms: Rooms = NO_ROOMS,
    ) -> None:
        self.con = con
        self.rooms = rooms
        self._stale: tuple[str, ...] = ()
        self.folders = tuple(Path(f).resolve() for f in folders)
        for folder in self.folders:
            if not folder.is_dir():
                raise ImportPathError(f"not a folder: {folder}")
        self.workers = workers
        self.max_workers = max_workers
        self.settle = settle
        self.incomplete_after = max(incomplete_after, settle)
        self.batch_hands = batch_hands
        self.force_polling = force_polling
        self.nice = nice
        self._exclude = {str(Path(x).resolve()) for x in exclude}
        db = _database_path(con)
        if db is not None:
            self._exclude |= {str(db), str(db) + ".wal"}
        self._db = db
        self._cancel = Cancel()
        self._lock = threading.Lock()
        self._pending: set[str] = set()  # real paths of files and folders to look at
        self._waiting = 0  # of them, files left waiting for a hand's end
        self._tracks: dict[str, _Track] = {}  # by files.path
        self._no_hand: dict[str, tuple[int, float]] = {}  # files.path -> (size, mtime) when it held no hand
        self._tails: dict[str, tuple[tuple[int, int, float], _Tail]] = {}  # files.path -> ((start, size, mtime), its last hand)
        self._incomplete: set[str] = set()  # files.path of files whose last hand was stored as failed, open
        self._retry: dict[str, float] = {}  # real path -> when to read it again (after a failed run)
        self._delay: dict[str, float] = {}  # real path -> the delay before its last retry (reset by a run that succeeds)
        self._counts = _Counts()
        self._run: ImportSummary | None = None  # the run in progress
        self._current: str | None = None
        self._thread: threading.Thread | None = None
        self._started = threading.Event()
        self._cursor = con.cursor()  # made here, in the caller's thread, which owns the connection

    # ------------------------------------------------------------ control

    def start(self) -> None:
        """Start watching (in a thread); returns once the watch is in place, so nothing written after is missed."""
        if self._thread is not None:
            raise RuntimeError("this live import was started already")
        self._thread = threading.Thread(target=self._main, name="hhtool-live-import", daemon=True)
        self._thread.start()
        self._started.wait(30)

    def stop(self, timeout: float | None = 60.0) -> None:
        """Stop: an import in progress ends after its transaction (what it committed stays); returns once the thread ended."""
        self._cancel.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def __enter__(self) -> LiveImport:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def status(self) -> LiveStatus:
        """What the live import is doing and has done: a snapshot, safe to take from any thread."""
        with self._lock:
            c = self._counts
            run = self._run
            live = run if run is not None else ImportSummary()
            return LiveStatus(
                running=self._thread is not None and self._thread.is_alive(),
                folders=tuple(str(f) for f in self.folders),
                pending=len(self._pending),
                waiting=self._waiting,
                current=self._current,
                files=c.files,
                hands_read=c.hands_read + live.hands,
                hands_stored=c.hands_stored + live.stored,
                duplicates=c.duplicates + live.duplicates,
                conflicts=c.conflicts + live.conflicts,
                failed=c.failed + live.failed,
                imports=c.imports,
                last_import=c.last_import,
                errors=tuple(c.errors),
                worker_restarts=c.worker_restarts + live.worker_restarts,
                retrying=len(self._retry),
                incomplete=len(self._incomplete),
                stale=self._stale,
            )

    # ------------------------------------------------------------ the thread

    def _main(self) -> None:
        import watchfiles

        cursor = self._cursor
        try:
            watch = watchfiles.watch(
                *self.folders,
                watch_filter=_Filter(self._exclude),
                debounce=300,
                step=50,
                stop_event=self._cancel,
                rust_timeout=int(TICK_SECONDS * 1000),
                yield_on_timeout=True,
                raise_interrupt=False,
                force_polling=self.force_polling,
            )
            first = True
            for changes in watch:  # the watch is in place from its first item on (a timeout's empty set at the latest)
                if first:
                    first = False
                    self._pending.update(str(f) for f in self.folders)  # what was there before
                    self._notice(cursor)
                    self._started.set()
                for change, path in changes:
                    if change == watchfiles.Change.deleted:
                        self._forget(path)
                    else:
                        self._pending.add(path)
                if self._cancel.is_set():
                    break
                try:
                    self._step(cursor)
                except Exception as e:  # a bug of ours or the database's while looking: said, and the watch goes on
                    self._error(f"the live import could not look at the changes ({type(e).__name__}: {e}); it goes on")
                    self._pending.clear()
        except Exception as e:  # the watch itself failed: said in the status, never lost silently
            self._error(f"the live import stopped: {type(e).__name__}: {e}")
        finally:
            self._started.set()
            cursor.close()

    def _notice(self, cursor: duckdb.DuckDBPyConnection) -> None:
        """The stored hands audited under other rules than the rooms give now, in the status (``hhtool import --reaudit`` audits them)."""
        from hhtool.store.rooms import notice_stale
        from hhtool.store.summary import reaudit_hint

        found = ImportSummary()
        try:
            notice_stale(cursor, self.rooms, found)
        except Exception as e:  # a damaged database: the import says so when it writes
            self._error(f"the live import could not compare the room files with the stored hands ({type(e).__name__}: {e})")
            return
        if found.stale:
            hands = sum(n.hands for n in found.stale)
            with self._lock:
                self._stale = (*(n.text() for n in found.stale), f"{hands:,} stored hands audited under other rules than the room files give now: {reaudit_hint(self.rooms.folder)}")

    def _forget(self, path: str) -> None:
        self._pending.discard(path)
        self._retry.pop(path, None)
        self._delay.pop(path, None)
        for known in (self._tracks, self._tails):
            for key in [k for k in known if k == path or k.startswith(path + os.sep)]:
                del known[key]
        self._incomplete = {k for k in self._incomplete if k != path and not k.startswith(path + os.sep)}

    def _error(self, message: str) -> None:
        with self._lock:
            errors = self._counts.errors
            errors.append(message)
            del errors[:-MAX_ERRORS]

    def _step(self, cursor: duckdb.DuckDBPyConnection) -> None:
        """Look at every pending path; import what is ready, in one run; keep pending what is not ready yet."""
        now = time.time()
        for path, when in list(self._retry.items()):
            if when <= now:
                del self._retry[path]
                self._pending.add(path)
        paths = sorted(self._pending)
        if not paths:
            return
        plain: list[tuple[FileState, _Track]] = []
        archives: list[Unit] = []
        waiting: set[str] = set()
        for path in paths:
            for unit in self._units(path):
                try:
                    ready = self._ready(cursor, unit, now)
                except OSError as e:  # gone or unreadable since the change: said; looked at again when it changes
                    self._error(f"cannot read {unit.path}: {e.strerror or e}")
                    continue
                if ready is None:
                    waiting.add(str(unit.fs_path))  # still being written
                elif ready is True:
                    archives.append(unit)
                elif ready is not False:
                    state, after, rest = ready
                    plain.append((state, after))
                    if rest:
                        waiting.add(str(unit.fs_path))  # its last hand is still being written
        with self._lock:
            self._pending = waiting
            self._waiting = len(waiting)
        if plain or archives:
            self._import(cursor, plain, archives)

    def _units(self, path: str) -> list[Unit]:
        """The files to look at for a changed path: itself, a folder's files, an archive's members; never hidden ones."""
        if self._hidden(path) or path in self._exclude:
            return []
        found = ImportSummary()
        try:
            units = collect_units([path], exclude=self._exclude, summary=found)
        except ImportPathError:
            return []  # gone since
        for problem in found.unreadable:
            self._error(f"cannot read {problem}")
        return [replace(u, named=False) for u in units if not self._hidden(str(u.fs_path))]

    def _hidden(self, path: str) -> bool:
        for folder in self.folders:
            try:
                parts = Path(path).relative_to(folder).parts
            except ValueError:
                continue
            return any(p.startswith(".") for p in parts)
        return False

    def _ready(self, cursor: duckdb.DuckDBPyConnection, unit: Unit, now: float) -> tuple[FileState, _Track, bool] | bool | None:
        """What of ``unit`` to read now: True for an archive to read whole, False for nothing new, None for not yet
        (a hand still being written); for a plain file's new part, its state, what is in of it once it is read, and
        whether a hand still being written follows it.

        The new part ends where the last hand known to be whole ends: before
        a blank line or the next hand's header.  The last hand, with neither
        after it, is read once the file has not changed for ``settle``
        seconds if it parses; if it does not (a hand written half, the
        writer pausing), only once the file has not changed for
        ``incomplete_after`` seconds, and then it stays open: when the file
        grows, it is read again from its start (``files.open_from``), and the
        whole hand supersedes its failed row.
        """
        st = unit.fs_path.stat()
        quiet = now - st.st_mtime >= self.settle
        if unit.member is not None or unit.fs_path.suffix.lower() == ".gz":
            return True if quiet else None
        path = unit.path
        size = st.st_size
        if self._no_hand.get(path) == (size, st.st_mtime):
            return False
        track = self._tracks.get(path)
        if track is not None and not _grew(unit, track, size):
            track = None  # rewritten in place: read again whole (its hands already in are duplicates)
        if track is None:
            row = cursor.execute("SELECT sha256, size, epoch(mtime), encoding, hands, failed, open_from FROM files WHERE path = ?", [path]).fetchone()
            if row is not None and row[1] == size and abs(float(row[2]) - st.st_mtime) < 1e-3:
                if row[6] is not None:
                    self._incomplete.add(path)
                return False  # in, as it is (its track is made if it grows)
            track = _resume(unit, size, row)
        if size == track.offset:
            self._tracks[path] = track
            return False
        opened = track.open
        start = opened.at if opened is not None else track.offset
        end = _complete_end(unit, start, size)
        open_at: _Open | None = None
        if quiet and end < size:
            tail = self._tail(unit, end, size, st.st_mtime)
            if tail.whole:
                end = size
            elif now - st.st_mtime >= self.incomplete_after:  # given up on for now: stored as failed, open
                with unit.open() as f:
                    f.seek(start)
                    before = f.read(end - start).count(b"\n")
                base = opened if opened is not None else _Open(track.offset, track.lines, track.hands, track.failed)
                open_at = _Open(end, base.lines + before, -tail.hands, -tail.failed)  # the counts: made absolute below
                end = size
        if end <= track.offset:
            return None
        hasher = track.hasher.copy()
        with unit.open() as f:
            found = digest(ByteRange(f, track.offset, end), hasher, count_lines=True)
        if found.size != end - track.offset:
            return None  # cut short under us: looked at again
        if track.offset == 0 and not found.has_hand:
            if not quiet:
                return None  # a header may be on its way
            self._no_hand[path] = (size, st.st_mtime)
            return False
        sha = hasher.hexdigest()
        after = _Track(end, track.lines + found.lines, hasher, (track.tail + found.tail)[-TAIL_BYTES:], track.cp1252, track.hands, track.failed, open_at)
        if track.offset == 0 and cursor.execute("SELECT 1 FROM files WHERE sha256 = ? AND path <> ?", [sha, path]).fetchone():
            self._tracks[path] = after  # a copy of a file already in: nothing to read, its growth will be
            return False
        if opened is not None:
            state = FileState(unit, sha, end, start=opened.at, lines=opened.lines, cp1252=track.cp1252, hands=opened.hands, failed=opened.failed)
        else:
            state = FileState(unit, sha, end, start=track.offset, lines=track.lines, cp1252=track.cp1252, hands=track.hands, failed=track.failed)
        state.judge_tail = False
        state.open_from = open_at.at if open_at is not None else None
        return state, after, end < size

    def _tail(self, unit: Unit, start: int, size: int, mtime: float) -> _Tail:
        """The last hand of a file, from ``start`` to its end: parsed once for each size and time the file has."""
        key = (start, size, mtime)
        known = self._tails.get(unit.path)
        if known is not None and known[0] == key:
            return known[1]
        with unit.open() as f:
            f.seek(start)
            data = f.read(size - start)
        tail = _judge_tail(data) if len(data) == size - start else _Tail(False, 0, 0)
        self._tails[unit.path] = (key, tail)
        return tail

    def _import(self, cursor: duckdb.DuckDBPyConnection, plain: list[tuple[FileState, _Track]], archives: list[Unit]) -> None:
        """One import run over what is ready, as ``hhtool import`` runs (the same workers and writer)."""
        from hhtool.store.importer import import_files, worker_count

        summary = ImportSummary(files=len(plain) + len(archives))
        with self._lock:
            self._run = summary
        known: set[str] = set()
        if archives:
            known = {r[0] for r in cursor.execute("SELECT sha256 FROM files").fetchall()}
        total = sum(st.size - st.start for st, _ in plain) + sum(u.content_size() for u in archives)
        summary.bytes = sum(st.size - st.start for st, _ in plain)

        def states(skipped: Callable[[int], None]) -> Iterator[FileState]:
            for st in itertools.chain((st for st, _ in plain), Todo(archives, known, summary).states(skipped)):
                with self._lock:
                    self._current = st.unit.path
                yield st

        ok = False
        try:
            workers = self.workers
            if workers is None and self.max_workers is not None:
                workers = min(worker_count(total), self.max_workers)
            with _one_thread(cursor, worker_count(max(total, 1), workers) > 0):  # the processes import_files starts
                import_files(
                    states, cursor, summary, total=total, workers=workers, cancel=self._cancel, batch_hands=self.batch_hands, nice=self.nice,
                    derived=True, rooms=self.rooms,
                )
            ok = not summary.interrupted
        except Exception as e:  # a full disk, a damaged database, workers dying again and again: said, and read again later
            self._error(_database_error(self._db, e))
            self._again([str(st.unit.fs_path) for st, _ in plain] + [str(u.fs_path) for u in archives])
        for problem in summary.unreadable:
            self._error(f"cannot read {problem}")
        if summary.worker_restarts:
            self._error(
                f"an import worker process died {summary.worker_restarts} time(s) (killed, or out of memory): "
                "new workers were started and read its chunks again; nothing was lost"
            )
        with self._lock:
            c = self._counts
            c.files += summary.imported
            c.hands_read += summary.hands
            c.hands_stored += summary.stored
            c.duplicates += summary.duplicates
            c.conflicts += summary.conflicts
            c.failed += summary.failed
            c.worker_restarts += summary.worker_restarts
            c.imports += 1
            c.last_import = datetime.now(timezone.utc)
            self._current = None
            self._run = None
        for st, after in plain:
            path = st.unit.path
            self._tails.pop(path, None)
            if ok and not st.last_submitted:  # it could not be read to its end (gone, unreadable): nothing of it is recorded
                self._again([str(st.unit.fs_path)])
                self._tracks.pop(path, None)
            elif ok:
                after.hands, after.failed, after.cp1252 = st.hands, st.failed, st.cp1252
                if after.open is not None:  # its counts were the last hand's, negative: now those before it
                    after.open = replace(after.open, hands=st.hands + after.open.hands, failed=st.failed + after.open.failed)
                    self._incomplete.add(path)
                else:
                    self._incomplete.discard(path)
                self._tracks[path] = after
                self._delay.pop(str(st.unit.fs_path), None)
            else:
                self._tracks.pop(path, None)  # made again from its files row
        if ok:
            for u in archives:
                self._delay.pop(str(u.fs_path), None)

    def _again(self, paths: list[str]) -> None:
        """Read ``paths`` again after a delay that doubles with each failed run (:data:`RETRY_SECONDS`)."""
        first, most = RETRY_SECONDS
        when = time.time()
        for path in paths:
            delay = min(most, self._delay.get(path, first / 2) * 2)
            self._delay[path] = delay
            self._retry[path] = when + delay


def _resume(unit: Unit, size: int, row: tuple[object, ...] | None) -> _Track:
    """Where reading a plain file goes on: after what its ``files`` row says is in, if its first bytes are still those.

    A row with ``open_from`` goes on from there: the last hand, read before
    it was seen whole, is read again with what the file gained since.
    """
    if row is not None:
        sha, done, _, encoding, hands, failed, open_from = row
        if isinstance(done, int) and done <= size:
            hasher = hashlib.sha256()
            opened: _Open | None = None
            with unit.open() as f:
                if isinstance(open_from, int) and 0 <= open_from < done:
                    head = digest(ByteRange(f, 0, open_from), hasher, count_lines=True)
                    f.seek(open_from)
                    last = f.read(done - open_from)
                    hasher.update(last)
                    tail = _judge_tail(last)
                    found = Digest(head.size + len(last), head.has_hand, head.lines + last.count(b"\n"), (head.tail + last)[-TAIL_BYTES:])
                    opened = _Open(open_from, head.lines, int(hands or 0) - tail.hands, int(failed or 0) - tail.failed)  # type: ignore[call-overload]
                else:
                    found = digest(ByteRange(f, 0, done), hasher, count_lines=True)
            if found.size == done and hasher.hexdigest() == sha:
                return _Track(done, found.lines, hasher, found.tail, encoding == "cp1252", int(hands or 0), int(failed or 0), opened)  # type: ignore[call-overload]
    return _Track(0, 0, hashlib.sha256(), b"")


def _judge_tail(data: bytes) -> _Tail:
    """Whether the last hand of a file (``data``: from the end of the hand before it to the file's end) is whole.

    Whole: nothing but white space, or one or more hands that parse, the
    last line ended.  A hand cut anywhere -- before its summary, in the
    middle of a line or a character, in its header -- fails one of these.
    """
    from hhtool.history.errors import ErrorRecord
    from hhtool.history.reader import Skipped, read_stream

    if not data.strip():
        return _Tail(True, 0, 0)
    hands = failed = junk = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a Windows-1252 tail: the import says so when it reads it
        for record in read_stream([data]):
            if isinstance(record, Skipped):
                junk += 1
            else:
                hands += 1
                failed += isinstance(record, ErrorRecord)
    return _Tail(hands > 0 and not failed and not junk and data.endswith(b"\n"), hands, failed)


def _grew(unit: Unit, track: _Track, size: int) -> bool:
    """Whether the file still starts with what is in of it: no smaller, and the same bytes before ``track.offset``."""
    if size < track.offset:
        return False
    if not track.tail:
        return True
    with unit.open() as f:
        f.seek(track.offset - len(track.tail))
        return f.read(len(track.tail)) == track.tail


def _complete_end(unit: Unit, start: int, size: int) -> int:
    """Where the last hand known to be whole ends, after ``start``: at the last blank line or before the last header (else ``start``).

    Whichever of the two comes later: a hand is whole once a blank line or
    the next hand's header follows it, so what comes after is at most one
    hand still being written.  Read backwards a megabyte at a time from
    the end: the search ends at the first window holding either.
    """
    with unit.open() as f:
        hi = size
        while hi > start:
            lo = max(start, hi - CHUNK_BYTES)
            f.seek(lo)
            window = f.read(hi - lo)
            cut = cut_point(window)
            cut += last_header(window[cut:])  # a header after the last blank line: the hand before it is whole
            if cut > 0:
                return lo + cut
            if lo == start:
                break
            hi = lo + 2  # windows overlap: a blank line across two of them is found
    return start


@contextlib.contextmanager
def _one_thread(cursor: duckdb.DuckDBPyConnection, workers: bool) -> Iterator[None]:
    """DuckDB on one thread while a run's worker processes parse (``workers``), as ``hhtool import`` runs it; its threads as they were after.

    The server's DuckDB keeps a thread a core for its pages, and the
    writer's statements (the inserts from the frames, the derived tables'
    upkeep, the checkpoints) then ran on a second thread beside the worker
    process, the cores being taken by the worker and the writer anyway:
    the server process took 8.7 s of CPU for 100,000 hands, 7.4 s on one
    thread (medians of three, docs/performance.md, "Serving").  The setting is the database's:
    a page answered meanwhile runs on its own request's thread alone, at
    most its CPU time (under 100 ms for each page, "Serving"), and pages
    still run side by side on their own threads.  Not for a run of a few
    new hands parsed in this process (no workers): the pages keep their
    threads then.
    """
    if not workers:
        yield
        return
    (before,) = cursor.execute("SELECT current_setting('threads')").fetchone() or (None,)
    cursor.execute("SET threads = 1")
    try:
        yield
    finally:
        try:
            cursor.execute(f"SET threads = {int(before)}" if before is not None else "RESET threads")
        except Exception:  # a failing connection: the run's error says so; its next run sets them again
            pass


def _database_path(con: duckdb.DuckDBPyConnection) -> Path | None:
    """The file of the connection's database (None in memory)."""
    row = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchone()
    return Path(row[0]).resolve() if row and row[0] else None


def _database_error(db: Path | None, e: Exception) -> str:
    """The words for an error of the import's run: DuckDB's about the file as :mod:`hhtool.store.db` says them."""
    from hhtool.store.db import store_error

    known = store_error(db, e, writing=True) if db is not None else None
    text = str(known) if known is not None else f"{type(e).__name__}: {e}"
    return f"the import stopped: {text}; its files are read again when they change, or at the next start"


class _Filter:
    """watchfiles' default filter (editor and VCS files) without the database's own files."""

    def __init__(self, exclude: set[str]) -> None:
        from watchfiles import DefaultFilter

        self.default = DefaultFilter()
        self.exclude = exclude

    def __call__(self, change: object, path: str) -> bool:
        return path not in self.exclude and self.default(change, path)  # type: ignore[arg-type]
