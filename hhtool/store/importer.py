"""``hhtool import``: hand-history files into the DuckDB database, fast, exactly once, nothing lost.

The pipeline::

    paths -> files (folders walked, globs expanded, .zip members, .gz)    sources.py
          -> hashed (a file whose content is already imported is skipped)
          -> chunks of about a megabyte, cut at blank lines
          -> worker processes (all cores): parse + replay -> polars frames  worker.py
          -> one writer (its own thread): batches through Arrow into DuckDB writer.py

This module runs it: the workers, the writer's thread, the progress
callback and the cancel signal.  It holds no terminal or process policy:
the caller draws the progress (``progress(bytes done, bytes total, hands)``)
and decides what cancels (``hhtool import`` turns Ctrl-C into the cancel
signal, :mod:`hhtool.cli_progress`).

Exactly once, nothing lost, whatever moment the import is stopped at:

* every batch is one transaction: the hands, their rows, failures,
  conflicts, and the ``files`` row of every file whose *last* chunk is in
  the batch -- so a ``files`` row means the whole file is in;
* a hand is inserted only if ``(site, hand_id)`` is not already stored
  (``hands`` has that primary key as a safety net); the same id with the
  same text is a duplicate, with another text a conflict, kept once in
  ``conflicts``; a failed hand is kept once by the hash of its text;
* so a rerun after a cancel or ``kill -9`` re-reads the files not yet
  recorded, finds the hands already committed as duplicates, and stores the rest.

Given room files (``rooms``, :func:`hhtool.game.room.load_rooms`), each
hand is replayed under the room that governs its site and profile, and the
hand's row records it (:mod:`hhtool.store.rooms`); the import then says
which stored hands were audited under other rules than the rooms give now
(``summary.stale``), and with ``reaudit`` replays those again
(:func:`reaudit_stale`), a batch per transaction, exactly once as well.
"""

from __future__ import annotations

import gc
import os
import signal
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hhtool.game.room import NO_ROOMS, Rooms
from hhtool.store.cancel import Cancel, Cancelled, check
from hhtool.store.sources import CHUNK_BYTES, FileState, ImportPathError, Todo, collect_units, tasks
from hhtool.store.summary import ImportSummary, summary_dict
from hhtool.store.worker import ChunkResult, ChunkTask, StoredHands, pooled, process_chunk, reaudit_chunk, set_pool_rooms
from hhtool.store.writer import BATCH_HANDS, Writer, WriterThread

if TYPE_CHECKING:
    import multiprocessing.process
    from concurrent.futures import ProcessPoolExecutor

    import duckdb

__all__ = [
    "BATCH_HANDS", "Cancel", "CommitCallback", "ImportPathError", "ImportSummary", "ProgressCallback", "import_files", "import_paths",
    "reaudit_stale", "summary_dict", "worker_count",
]

POLARS_THREADS = "POLARS_MAX_THREADS"
"""polars' own thread count, read when it is first imported: a worker process's is 1 (:func:`_init_worker`)."""
IN_PROCESS_BYTES = 512 << 10
"""Below this much input, parse in this process: starting workers costs more than it saves."""

ProgressCallback = Callable[[int, int, int], None]
"""Called as ``progress(bytes done, bytes total, hands read so far)``: once at the start, then after each chunk."""
CommitCallback = Callable[[int], None]
"""Called as ``on_commit(hands stored so far)`` after each transaction commits (in the writer's thread when there are workers)."""


def import_paths(
    paths: Iterable[str | Path],
    db: str | Path,
    *,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
    memory_limit: str | None = "256MB",
    batch_hands: int = BATCH_HANDS,
    on_start: Callable[[int, int], None] | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    on_commit: CommitCallback | None = None,
    derived: bool = False,
    rooms: Rooms = NO_ROOMS,
    reaudit: bool = False,
) -> ImportSummary:
    """Import every hand under ``paths`` into the database ``db``.

    ``workers``: processes that parse and replay (default: one per core;
    0 parses in this process); ``batch_hands``: hands per transaction;
    ``chunk_bytes``: about how much of a file a worker gets at a time (cut
    at blank lines, so that no hand is split);
    ``on_start(files, bytes)``: called once with the files found and their
    size before any is read; ``progress``: see :data:`ProgressCallback`;
    ``on_commit``: see :data:`CommitCallback` (the hands read run ahead of
    the hands committed, which are what a cancel keeps).
    ``derived``: keep the players' totals and hands (:mod:`hhtool.store.totals`)
    up to date with each batch, as ``hhtool serve`` does; without it (``hhtool
    import``: the writer's time a hand nearly doubles with them) they are left
    out of step, their readers use the seats, and the server catches them up
    when it opens the database.
    ``rooms``: the room files hands are replayed under (each by its site and
    profile; default none: every hand under the profile its header names);
    the summary's ``stale`` then says which stored hands were audited under
    other rules than these give now, and ``reaudit`` replays them again
    (:func:`reaudit_stale`; ``paths`` may then be empty).
    ``cancel`` (a :class:`threading.Event`, or a :class:`Cancel`, which can
    also cut the transaction in progress short): once set, the import stops
    after the transaction in progress and returns its summary, marked
    ``interrupted`` -- everything committed stays, and the same import run
    again adds the rest.  A :class:`KeyboardInterrupt` in the calling thread
    stops it the same way.  Raises :class:`ImportPathError` for a bad path
    and :class:`~hhtool.store.db.StoreError` for a database that cannot be
    opened, is not hhtool's, is damaged or cannot be written (a full disk:
    what was committed stays, and the same import run again finishes it).
    """
    from hhtool.store.db import connect, database_errors

    # DuckDB's errors about the file (a damaged block, a full disk, a read-only folder), raised by the
    # writer (its thread's, handed over) or by the last checkpoint at close, in words (StoreError)
    with database_errors(db, writing=True):
        started = time.monotonic()
        dbp = Path(db)
        summary = ImportSummary(rooms=[f"{r.name} ({r.source})" for r in rooms.rooms], rooms_folder=rooms.folder)
        units = collect_units(paths, exclude=[dbp, dbp.with_name(dbp.name + ".wal")], summary=summary)
        summary.files = len(units)
        workers_asked = workers
        total = sum(u.content_size() for u in units)
        workers = worker_count(total, workers)
        # The worker processes start first, while this one opens the database: their start (interpreters,
        # imports) is no longer after it, with a core idle (docs/performance.md, "The import's stages").
        pool = _Workers(workers, 0, summary, rooms) if workers > 0 and (units or not reaudit) else None
        try:
            con = connect(db, memory_limit=memory_limit, derived=derived)
        except BaseException:
            if pool is not None:
                pool.shutdown(wait=False)
            raise
        no_abort: Callable[[], None] | None = None
        single = False
        try:
            known = {r[0] for r in con.execute("SELECT sha256 FROM files").fetchall()}
            # Each file is hashed when its turn comes (Todo), not all before the first chunk: the workers
            # start at once instead of after a pass over every file (3.9 s for 1.4 GB, one core busy).
            if on_start is not None:
                on_start(len(units), total)
            if workers > 0:
                _one_thread(con)
                single = True
            if workers > 0 and isinstance(cancel, Cancel):
                # while the workers run, and at the close's checkpoint, an abort interrupts DuckDB's statement
                # instead of leaving the caller to raise in this thread, where it could land anywhere (the pool's shutdown)
                no_abort = cancel.on_abort(con.interrupt)
            if units or not reaudit:
                given, pool = pool, None  # import_files ends it
                import_files(
                    Todo(units, known, summary).states, con, summary, total=total, workers=workers, progress=progress, cancel=cancel,
                    batch_hands=batch_hands, chunk_bytes=chunk_bytes, on_commit=on_commit, derived=derived, rooms=rooms, pool=given,
                )
            if reaudit and not summary.interrupted:
                reaudit_stale(con, rooms, summary, workers=workers_asked, cancel=cancel, batch_hands=batch_hands)
                if derived and not summary.interrupted:
                    from hhtool.store.totals import ensure_derived

                    ensure_derived(con)
            if not summary.interrupted:
                from hhtool.store.rooms import notice_stale

                notice_stale(con, rooms, summary)
        finally:
            if pool is not None:  # never handed to import_files
                pool.shutdown(wait=False)
            try:
                if single:  # the workers are done: the last checkpoint on every core
                    _every_thread(con)
                con.close()  # its last checkpoint
            finally:
                if no_abort is not None:
                    no_abort()
        summary.seconds = time.monotonic() - started
        return summary


def import_files(
    states: Callable[[Callable[[int], None]], Iterable[FileState]],
    con: duckdb.DuckDBPyConnection,
    summary: ImportSummary,
    *,
    total: int,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
    batch_hands: int = BATCH_HANDS,
    nice: int = 0,
    chunk_bytes: int = CHUNK_BYTES,
    on_commit: CommitCallback | None = None,
    derived: bool = False,
    rooms: Rooms = NO_ROOMS,
    pool: _Workers | None = None,
) -> None:
    """Read the files ``states(skipped)`` yields into ``con`` (the part of an import after finding the files).

    ``states`` is called once, with the function to call with the size of
    each file it passes by (for the progress); ``total``: the bytes of all
    of them.  The counts go into ``summary``; cancelled or interrupted, it is
    marked ``interrupted`` (nothing raised).  :func:`import_paths` gives it
    the files under its paths; the live import (:mod:`hhtool.store.live`)
    the parts of watched files not yet stored, on the connection it was given.
    ``nice``: the worker processes' nice value at least (Unix; 0 leaves
    them at this process's): the server's import gives way to its pages.
    ``on_commit``: see :data:`CommitCallback`; ``derived``, ``rooms``: as :func:`import_paths`'s.
    ``pool``: the worker processes, started already (:func:`import_paths`
    starts them before it opens the database), ended here; else they are
    started here, before the writer (whose start may catch the derived
    tables up), so that theirs overlaps it.
    """
    total = max(total, 1)
    if progress is not None:
        progress(0, total, summary.hands)
    workers = pool.workers if pool is not None else worker_count(total, workers)
    if pool is None and workers > 0:
        pool = _Workers(workers, nice, summary, rooms)
    try:
        writer = Writer(con, summary, batch_hands, on_commit, derived=derived, rooms=rooms)
    except BaseException:
        if pool is not None:
            pool.shutdown(wait=False)
        raise
    try:
        try:
            _run(states, writer, summary, progress, total, pool, cancel, chunk_bytes, rooms)
        finally:  # stopped before its commit (cancelled, interrupted, failed): the batch in progress is not stored
            writer.rollback()
    except (KeyboardInterrupt, Cancelled):
        summary.interrupted = True
    except Exception as e:
        if not _is_interrupt(e):
            raise
        summary.interrupted = True  # Ctrl-C, or Cancel.abort, reached DuckDB in the middle of a statement


def _one_thread(con: duckdb.DuckDBPyConnection) -> None:
    """DuckDB on one thread while the workers run (their process a core each).

    Its own pool of a thread per core, beside the worker processes, cost
    more CPU than it saved: the writer's transactions took 76 µs of the
    process's CPU a hand with it, 58 on one thread (docs/performance.md,
    "Import").  Only an import's own connection: the live import writes
    through the server's, whose pages keep every thread.
    """
    con.execute("SET threads = 1")


def _every_thread(con: duckdb.DuckDBPyConnection) -> None:
    """DuckDB's threads back to one a core (its default), for the close's checkpoint; a failing connection is left as it is."""
    import duckdb

    try:
        con.execute("RESET threads")
    except duckdb.Error:
        pass


def worker_count(total: int, workers: int | None = None) -> int:
    """The worker processes for ``total`` bytes: ``workers`` if given, else none for a little input, else one per core."""
    if workers is not None:
        return workers
    return 0 if total < IN_PROCESS_BYTES else (os.cpu_count() or 1)


def _is_interrupt(e: BaseException) -> bool:
    import duckdb

    text = str(e).lower()
    # DuckDB wraps a Ctrl-C that lands while it reads a registered frame in its own error types
    return isinstance(e, duckdb.InterruptException) or "keyboardinterrupt" in text or (
        isinstance(e, (RuntimeError, duckdb.Error)) and "interrupted" in text
    )


def _init_worker(parent: int, nice: int = 0, rooms: Rooms = NO_ROOMS) -> None:
    """Workers leave Ctrl-C to the writer, which stops them, and exit when the writer is gone; run at ``nice`` at least.

    ``rooms``: the room files the worker's chunks are replayed under, given
    once here (:func:`hhtool.store.worker.set_pool_rooms`), not with each chunk.

    A Ctrl-C on a terminal reaches every process of the group: the
    workers ignore it, and the process that runs the import decides (it
    cancels, and the import shuts its workers down).  A writer killed
    with ``kill -9`` cannot stop its workers, and they do not notice on
    their own (they wait on a queue): a thread checks every half second
    that the parent is still theirs.
    """
    if nice > 0:
        _lower_priority(nice)
    if rooms:
        set_pool_rooms(rooms)
    # One polars thread: there is a worker per core already, and polars' own pool of a thread per core
    # spent CPU waiting on its threads: a chunk's frames took 21 µs a hand of the process's CPU with it, 12
    # without (docs/performance.md, "Import").  Before polars is imported, which reads it once.
    os.environ.setdefault(POLARS_THREADS, "1")
    import polars  # noqa: F401  - first: its own SIGINT handler is then replaced

    with warnings.catch_warnings():  # as in a chunk (hhtool.store.worker.process_chunk): a worker prints nothing
        warnings.simplefilter("ignore")
        import hhtool.history.parse  # noqa: F401  - configures the C reader: before the first chunk comes

    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="hhtool-parent-watch", daemon=True).start()
    # What the start made (polars', the grammar's and the reader's objects) lives as long as the worker: out of
    # the cycle collector's sight, so that its passes between chunks walk only what the chunks left, and the
    # full pass that used to come once in an import's workers walks none of it (docs/performance.md, "Import").
    gc.freeze()


def _lower_priority(nice: int) -> None:
    """This process's threads at ``nice`` at least, so that they run when nothing else wants the cores.

    Linux keeps a nice value per thread (``setpriority`` on process 0
    changes the calling thread's only), and a thread inherits its
    creator's: each thread there now is lowered, and the ones started later
    (polars' pool) are made by them.
    """
    try:
        threads = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:  # not Linux: the process's value
        threads = [0]
    for tid in threads:
        try:
            if os.getpriority(os.PRIO_PROCESS, tid) < nice:
                os.setpriority(os.PRIO_PROCESS, tid, nice)
        except (OSError, AttributeError):  # a thread gone since; no priorities on this system
            pass


def _run(
    states: Callable[[Callable[[int], None]], Iterable[FileState]],
    writer: Writer,
    summary: ImportSummary,
    progress: ProgressCallback | None,
    total: int,
    pool: _Workers | None,
    cancel: threading.Event | None,
    chunk_bytes: int,
    rooms: Rooms = NO_ROOMS,
) -> None:
    """The chunks through ``pool`` (in this process without one) and the writer; ``pool`` is ended when it returns."""
    done_bytes = 0

    def skipped(size: int) -> None:
        nonlocal done_bytes
        done_bytes += size
        if progress is not None:
            progress(done_bytes, total, summary.hands)

    def consume(
        result: ChunkResult, state: FileState, last: bool, size: int, write: Callable[[ChunkResult, FileState | None], None] = writer.add
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
        check(cancel)
        write(result, state if last else None)
        done_bytes += size
        if progress is not None:
            progress(done_bytes, total, summary.hands)
        check(cancel)

    if pool is None:
        for task, state, last in tasks(states(skipped), chunk_bytes, summary.unreadable):
            consume(process_chunk(task, rooms), state, last, len(task.data))
        writer.flush()
        return

    inflight: deque[_InFlight] = deque()
    # Chunks given to the workers and not yet returned: enough that they go on while the writer commits
    # (a batch takes about a second; two chunks each, as before, left a core idle for part of it).
    limit = 6 * pool.workers + 2
    try:
        thread = WriterThread(writer, cancel)
    except BaseException:
        pool.shutdown(wait=False)
        raise

    def next_result() -> None:
        job = inflight[0]
        result = pool.result(job, inflight)
        inflight.popleft()
        assert job.state is not None and isinstance(job.task, ChunkTask)
        consume(result, job.state, job.last, len(job.task.data), thread.hand_over)

    try:
        for task, state, last in tasks(states(skipped), chunk_bytes, summary.unreadable):
            while len(inflight) >= limit:
                next_result()
            inflight.append(_InFlight(pool.submit(task), task, state, last))
        while inflight:
            next_result()
        thread.finish()
    except BaseException:
        try:
            thread.abandon()
        finally:
            pool.shutdown(wait=False)
        raise
    pool.shutdown(wait=True)


def _ready() -> None:
    """A worker's first task: nothing (submitted to have the pool start every process at once)."""


LOOK_SECONDS = 0.5
"""How often the worker processes are looked at while a result is awaited: a dead one may never break the pool itself."""
MAX_WORKER_DEATHS = 3
"""Times the workers may die with one chunk in their hands before the import stops with an error naming its file."""


class WorkersDiedError(RuntimeError):
    """The worker processes died again and again while one chunk was in their hands: the import stops, naming its file."""


@dataclass(slots=True)
class _InFlight:
    """A chunk in the workers' hands: its task (kept to be sent again should they die), its file, and the deaths it saw."""

    future: Future[ChunkResult]
    task: ChunkTask | StoredHands
    state: FileState | None  # None: stored hands to re-audit
    last: bool
    deaths: int = 0


class _Workers:
    """The worker processes; when one dies, they are started anew and the chunks they held are sent again.

    A worker killed with ``kill -9`` or by the out-of-memory killer breaks
    the whole pool (:class:`~concurrent.futures.process.BrokenProcessPool`:
    every chunk not yet returned fails with it).  Nothing of those chunks
    was written -- results reach the writer only once returned -- so the
    import loses only time: new workers read them again, in order, and
    ``summary.worker_restarts`` says so.  A chunk that was in the workers'
    hands at :data:`MAX_WORKER_DEATHS` deaths stops the import
    (:class:`WorkersDiedError`, naming its file): what was committed stays,
    and the same import run again goes on from there.
    """

    def __init__(self, workers: int, nice: int, summary: ImportSummary, rooms: Rooms = NO_ROOMS) -> None:
        self.workers = workers
        self.nice = nice
        self.summary = summary
        self.rooms = rooms
        self.pool = self._start()

    def _start(self) -> ProcessPoolExecutor:
        """A new pool, its processes started now (not at the first chunks, as the pool would).

        Each process imports the worker's modules and configures the C
        reader as it starts (:func:`_init_worker`), about a third of a
        second, which so overlaps what this process does before its first
        chunk (opening the database, the writer).
        """
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(
            max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_init_worker,
            initargs=(os.getpid(), self.nice, self.rooms),
        )
        for _ in range(self.workers):  # a pool of "spawn" starts a process at each submission, until it has them all
            pool.submit(_ready)
        return pool

    def submit(self, task: ChunkTask | StoredHands) -> Future[ChunkResult]:
        """``task`` handed to the workers; a pool a death has already broken gives a future failed with it.

        A worker can die between two submissions: the pool then refuses the
        next one at once.  That chunk is no different from one the death
        caught in the workers' hands, so it fails the same way, and
        :meth:`result` sends it again to the new workers.
        """
        from concurrent.futures.process import BrokenProcessPool

        try:
            return self.pool.submit(pooled, task)
        except BrokenProcessPool as broken:
            refused: Future[ChunkResult] = Future()
            refused.set_exception(broken)
            return refused

    def result(self, job: _InFlight, inflight: Iterable[_InFlight]) -> ChunkResult:
        """``job``'s result; should the workers die first, new ones read every chunk that had not come back."""
        from concurrent.futures.process import BrokenProcessPool

        while True:
            try:
                return job.future.result(timeout=LOOK_SECONDS)
            except TimeoutError:
                if not self._one_died():
                    continue
            except BrokenProcessPool:
                pass
            self._abandon()
            self.pool = self._start()
            self.summary.worker_restarts += 1
            for other in inflight:  # in order: the results are consumed in the order the chunks were read
                f = other.future
                if f.done() and not f.cancelled() and f.exception() is None:
                    continue  # it came back before the death
                other.deaths += 1
                if other.deaths >= MAX_WORKER_DEATHS:
                    raise WorkersDiedError(
                        f"the import's worker processes died {other.deaths} times while reading {other.task.source} "
                        f"(from line {other.task.line_offset + 1}): killed, or out of memory; what was committed stays, "
                        "and the same import run again goes on from there"
                    )
                other.future = self.submit(other.task)

    def _processes(self) -> list[multiprocessing.process.BaseProcess]:
        return list((getattr(self.pool, "_processes", None) or {}).values())

    def _one_died(self) -> bool:
        """Whether a worker of the pool has ended (a pool's workers end only with the pool, or killed)."""
        return any(p.exitcode is not None for p in self._processes())

    def _abandon(self) -> None:
        """The pool given up: its workers ended, and its manager thread freed should it wait on a dead worker.

        A worker killed while it wrote a result leaves half a message in the
        pipe that every worker writes to: :class:`ProcessPoolExecutor`'s
        manager thread then waits for the rest of it for ever (it never
        marks the pool broken, and no future ever ends), and, a thread the
        interpreter joins at exit, it would hold the process after the
        import too.  So the workers are ended here and, while the thread
        still waits, zeros are written into the pipe from this end: the
        message it waits for is completed with bytes that do not unpickle,
        the pool is broken, and the thread exits.
        """
        pool = self.pool
        processes = self._processes()
        thread = getattr(pool, "_executor_manager_thread", None)
        pool.shutdown(wait=False, cancel_futures=True)
        for p in processes:
            if p.exitcode is None:
                p.kill()
        for p in processes:
            p.join(5)
        writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
        if thread is None or writer is None:
            return
        thread.join(0.2)
        try:
            fd = writer.fileno()
            os.set_blocking(fd, False)
        except (OSError, ValueError):
            return
        zeros = bytes(1 << 16)
        deadline = time.monotonic() + 30
        while thread.is_alive() and time.monotonic() < deadline:
            try:
                os.write(fd, zeros)
            except BlockingIOError:
                pass
            except OSError:
                return
            thread.join(0.01)

    def shutdown(self, wait: bool) -> None:
        """The pool's end: waiting for its workers (``wait``), or not (a cancel); a pool with a dead worker is abandoned (:meth:`_abandon`)."""
        if self._one_died():
            self._abandon()
        else:
            self.pool.shutdown(wait=wait, cancel_futures=not wait)


REAUDIT_TASK_HANDS = 500
"""Stored hands a worker replays again at a time (about the hands of a chunk of an import)."""
HAND_BYTES = 1500
"""About the bytes of a stored hand's text: how many workers a re-audit takes (:func:`worker_count`)."""


def reaudit_stale(
    con: duckdb.DuckDBPyConnection,
    rooms: Rooms,
    summary: ImportSummary,
    *,
    workers: int | None = None,
    nice: int = 0,
    cancel: threading.Event | None = None,
    batch_hands: int = BATCH_HANDS,
) -> None:
    """Replay again, under ``rooms``, every stored hand audited under other rules than they give now (``hhtool import --reaudit``).

    The hands (:func:`hhtool.store.rooms.stale_groups`) are read from the
    database ``batch_hands`` at a time in key order, replayed from their
    text by the workers (as an import's chunks, :func:`hhtool.store.worker.reaudit_chunk`;
    ``workers`` as :func:`import_paths`'s), and each batch's rows replaced in
    one transaction (:func:`hhtool.store.rooms.write_reaudit`): a hand
    re-audited is no longer stale, so a re-audit stopped at any moment is
    finished by the same command, and nothing is done twice.  Counts go
    into ``summary`` (``reaudited``, ``verdict_changes``, ``reaudit_failed``);
    cancelled or interrupted, it is marked ``interrupted``.
    """
    try:
        _reaudit(con, rooms, summary, workers, nice, cancel, batch_hands)
    except (KeyboardInterrupt, Cancelled):
        summary.interrupted = True
    except Exception as e:
        if not _is_interrupt(e):
            raise
        summary.interrupted = True


def _reaudit(
    con: duckdb.DuckDBPyConnection, rooms: Rooms, summary: ImportSummary, workers: int | None, nice: int,
    cancel: threading.Event | None, batch_hands: int,
) -> None:
    from hhtool.store.frames import ArrowStream
    from hhtool.store.rooms import STALE_SELECT, room_rows, stale_frame, stale_groups, write_reaudit

    summary.reaudit = True
    groups = stale_groups(con, rooms)
    if not groups:
        return
    workers = worker_count(sum(g.hands for g in groups) * HAND_BYTES, workers)
    rows = room_rows(rooms) if rooms else None
    con.register("b_stale", ArrowStream(stale_frame(groups)))
    pool = _Workers(workers, nice, summary, rooms) if workers > 0 else None
    try:
        last, index = 0, 0
        while True:
            check(cancel)
            batch = con.execute(STALE_SELECT, [last, batch_hands]).fetchall()
            if not batch:
                break
            last = int(batch[-1][0])
            work = []
            for i in range(0, len(batch), REAUDIT_TASK_HANDS):
                part = batch[i:i + REAUDIT_TASK_HANDS]
                work.append(StoredHands(index, [int(r[0]) for r in part], [str(r[1]) for r in part], [int(r[2]) for r in part], [str(r[3]) for r in part]))
                index += 1
            results: list[ChunkResult] = []
            if pool is None:
                for task in work:
                    results.append(reaudit_chunk(task, rooms))
                    check(cancel)
            else:
                inflight = deque(_InFlight(pool.submit(task), task, None, False) for task in work)
                while inflight:
                    results.append(pool.result(inflight[0], inflight))
                    inflight.popleft()
                    check(cancel)
            for r in results:
                summary.reaudit_failed += r.failed
                summary.replay_errors += r.replay_errors
            write_reaudit(con, results, {int(r[0]): str(r[4]) for r in batch}, rows, summary)
    except BaseException:
        if pool is not None:
            pool.shutdown(wait=False)
        raise
    finally:
        try:
            con.unregister("b_stale")
        except Exception:  # pragma: no cover - the connection is gone
            pass
    if pool is not None:
        pool.shutdown(wait=True)
