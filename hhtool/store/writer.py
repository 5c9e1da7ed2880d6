"""The import's one writer: worker results in batches into DuckDB, one transaction each, in a thread of its own.

A batch is inserted in groups of at most :data:`GROUP_HANDS` hands (the
frames the writer holds at once), all in the batch's one transaction, which
commits at :data:`BATCH_HANDS` hands or :data:`BATCH_SECONDS`.

Exactly once, whatever moment the import is stopped at: a batch's
transaction holds its hands, their rows, their players' totals
(:mod:`hhtool.store.totals`), failures, conflicts, and the
``files`` row of every file whose *last* chunk is in it (so a ``files``
row means the file is in, up to its ``size``); a hand is inserted only if
its ``(site, hand_id)`` is not stored yet (the same text: a duplicate,
another: a conflict, kept once in ``conflicts``); the rooms the new hands
were replayed under get their row in ``rooms`` in the same transaction
(:func:`hhtool.store.rooms.record_rooms`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hhtool.game.room import NO_ROOMS, Rooms
from hhtool.store.cancel import Cancel, check
from hhtool.store.frames import ArrowStream
from hhtool.store.rooms import record_rooms, room_rows
from hhtool.store.sources import FileState
from hhtool.store.summary import SHOWN_FAILED, FailedHand, ImportSummary
from hhtool.store.totals import add_derived, ensure_derived
from hhtool.store.worker import ChunkResult

if TYPE_CHECKING:
    import duckdb
    import polars as pl

BATCH_HANDS = 20_000
"""Hands per writer transaction (at most; also committed every :data:`BATCH_SECONDS`).

Larger than a group (:data:`GROUP_HANDS`) because DuckDB's storage work
shrinks with the rows a transaction appends: a table's rows that fill a row
group (122,880) are written compressed into the file at once, the rest go
through the log (the WAL) at commit and are compressed again by the next
checkpoint.  Not larger, because DuckDB holds a transaction's rows in memory
until its commit: 40,000 hands took the import's peak to 950 MB, near its
bound of 1 GB, for 2 % of its CPU (docs/performance.md, "Import")."""
GROUP_HANDS = 10_000
"""Hands the writer merges and inserts at once (at most): its memory, whatever the transaction's size."""
BATCH_SECONDS = 5.0
WRITER_QUEUE = 12
"""Chunk results waiting for the writer thread (about 10,000 hands, 30 MB of frames)."""
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


_REGISTERED = ("b_keys", "b_conf", "b_all", "b_failed", "b_places", *(f"b_{t}" for t in ("hands", "seats", "actions", "cards", "pots", "findings")))
"""The frames a batch registers on the connection (:meth:`Writer.flush`), unregistered when it ends."""

@dataclass(slots=True)
class _Uncommitted:
    """What the open transaction holds, told to the summary only once it commits (a rollback forgets it)."""

    stored: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    failed_new: int = 0
    failed_first: list[FailedHand] = field(default_factory=list)
    stamp: int | None = None  # the transaction's now() (epoch µs), where failed rows were stored
    units: int = 0  # files whose files row is in
    duplicates: int = 0
    conflicts: int = 0
    conflicts_new: int = 0
    superseded: int = 0
    hands: int = 0  # hands and failed records inserted: the size of the batch


class Writer:
    """The single writer: batches of worker results into DuckDB, one transaction each, inserted a group at a time."""

    def __init__(
        self, con: duckdb.DuckDBPyConnection, summary: ImportSummary, batch_hands: int = BATCH_HANDS, on_commit: Callable[[int], None] | None = None,
        derived: bool = False, rooms: Rooms = NO_ROOMS, group_hands: int = GROUP_HANDS,
    ) -> None:
        self.con = con
        self.group_hands = group_hands  # hands merged and inserted at once, within the batch's transaction
        self.rooms = room_rows(rooms) if rooms else None  # the rows of ``rooms`` the new hands may name
        self.derived = derived  # keep the players' totals and hands (hhtool.store.totals) with each batch: serve's imports
        if derived:  # brought up to the hands first (and made where missing), so that each batch adds to them
            ensure_derived(con)
        self.on_commit = on_commit  # called with the hands stored so far after each commit
        self.batch_hands = batch_hands
        self.summary = summary
        row = con.execute("SELECT coalesce(max(hand_key), 0) FROM hands").fetchone()
        self.next_key = int(row[0]) + 1 if row else 1
        self.threshold = 0
        self._tune_checkpoints()
        self.pending: list[ChunkResult] = []
        self.pending_hands = 0
        self.done_units: list[FileState] = []
        self.last_commit = time.monotonic()
        self.open: _Uncommitted | None = None  # the transaction in progress, if any
        self.open_key = self.next_key  # next_key when it began: where a rollback takes it back to
        self.open_seconds = 0.0  # the writer's time in it so far

    def add(self, result: ChunkResult, finished: FileState | None) -> None:
        """Hold ``result`` (and the file it ends, if any); insert the group, commit the batch, when they are full."""
        self.pending.append(result)
        self.pending_hands += result.hands + result.failed
        if finished is not None:
            self.done_units.append(finished)
        due = time.monotonic() - self.last_commit >= BATCH_SECONDS
        held = self.pending_hands + (self.open.hands if self.open is not None else 0)
        if due or held >= self.batch_hands:
            self.flush()
        elif self.pending_hands >= self.group_hands:
            self._insert_pending()

    def _tune_checkpoints(self) -> None:
        threshold = checkpoint_threshold(self.next_key - 1)
        if threshold != self.threshold:
            self.con.execute(f"SET checkpoint_threshold = '{threshold}B'")
            self.threshold = threshold

    def _register(self, name: str, df: pl.DataFrame) -> None:
        self.con.register(name, ArrowStream(df))

    def flush(self) -> None:
        """Insert what is held and commit the transaction: everything added so far is stored when it returns."""
        if not self.pending and not self.done_units and self.open is None:
            return
        if self.pending or self.done_units:
            self._insert_pending()
        open_, self.open = self.open, None
        assert open_ is not None
        t0 = time.monotonic()
        try:
            if self.derived and self.next_key > self.open_key:
                # the transaction's new hands in them, in it: never a hand without its totals.  Once a transaction, not
                # once a group: planning each of the statements costs about 20 ms (docs/performance.md, "Serving")
                add_derived(self.con, self.open_key, self.next_key - 1)
            self.con.execute("COMMIT")
        except BaseException:
            try:
                self.con.execute("ROLLBACK")
            except Exception:  # DuckDB has rolled it back already, or the connection is gone
                pass
            self._rolled_back()
            raise
        finally:
            for name in _REGISTERED:
                self._unregister(name)
        self._tune_checkpoints()
        s = self.summary
        s.stored += open_.stored
        s.add_failed(open_.failed_new, open_.failed_first, open_.stamp)  # committed: the summary names them
        for v, n in open_.verdicts.items():
            s.verdicts[v] = s.verdicts.get(v, 0) + n
        s.imported += open_.units
        s.duplicates += open_.duplicates
        s.conflicts += open_.conflicts
        s.conflicts_new += open_.conflicts_new
        s.superseded += open_.superseded
        self.last_commit = time.monotonic()
        s.writer_seconds += self.open_seconds + self.last_commit - t0
        self.open_seconds = 0.0
        if self.on_commit is not None:
            self.on_commit(s.stored)

    def rollback(self) -> None:
        """Give up the transaction in progress (an interrupted import): nothing of it is stored, and the summary is told none of it."""
        if self.open is None:
            return
        try:
            self.con.execute("ROLLBACK")
        except Exception:  # pragma: no cover - the connection is gone, its transaction with it
            pass
        self._rolled_back()

    def _rolled_back(self) -> None:
        self.open = None
        self.next_key = self.open_key
        self.open_seconds = 0.0

    def _unregister(self, name: str) -> None:
        try:
            self.con.unregister(name)
        except Exception:
            pass

    def _insert_pending(self) -> None:
        """The held results, merged, inserted into the transaction in progress (begun if none); on any error it is rolled back."""
        import polars as pl

        if not self.pending and not self.done_units:
            return
        t0 = time.monotonic()
        results, units = self.pending, self.done_units
        self.pending, self.done_units, self.pending_hands = [], [], 0
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
        if self.open is None:
            con.execute("BEGIN TRANSACTION")
            self.open = _Uncommitted()
            self.open_key = self.next_key
        tx = self.open
        try:
            stored, verdicts = self._insert_hands(merged, tx)
            failed_new, failed_first, stamp = self._insert_failed(merged.get("failed"))
            self._supersede(merged, tx)
            for u in units:
                con.execute(
                    "INSERT OR REPLACE INTO files (path, sha256, size, mtime, imported_at, encoding, hands, failed, open_from) "
                    "VALUES (?, ?, ?, ?, now(), ?, ?, ?, ?)",
                    [u.unit.path, u.sha256, u.size, u.unit.mtime(), "cp1252" if u.cp1252 else "utf-8", u.hands, u.failed, u.open_from],
                )
        except BaseException:
            self.rollback()
            raise
        finally:
            for name in _REGISTERED:
                self._unregister(name)
        self.next_key += stored
        tx.stored += stored
        for v, n in verdicts.items():
            tx.verdicts[v] = tx.verdicts.get(v, 0) + n
        tx.failed_new += failed_new
        tx.failed_first = sorted([*tx.failed_first, *failed_first], key=lambda f: f.key)[:SHOWN_FAILED]
        tx.stamp = stamp if stamp is not None else tx.stamp
        tx.units += len(units)
        tx.hands += sum(r.hands + r.failed for r in results)
        self.open_seconds += time.monotonic() - t0

    def _insert_hands(self, merged: dict[str, pl.DataFrame], tx: _Uncommitted) -> tuple[int, dict[str, int]]:
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
        if not existing and keys.select(pl.struct("site", "hand_id").n_unique()).item() == hands.height:
            # The usual group: no hand of it stored yet, none twice in it, so every one is new and none a conflict.
            # Counted in polars: the loop below, a Python tuple a hand, was about 1.5 µs a hand of the writer's CPU.
            counts = hands.group_by("verdict", maintain_order=True).len()  # in the order of first sight, as the loop's
            self._store_new(merged, hands, None)
            return hands.height, dict(zip(counts.get_column("verdict").to_list(), counts.get_column("len").to_list()))
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
                tx.duplicates += 1
            else:
                tx.conflicts += 1
                key = (site, hand_id, th)
                if local not in known_conflicts and key not in batch_conflicts:
                    batch_conflicts.add(key)
                    conflict_locals.append(local)
        if new_locals:
            self._store_new(merged, hands, None if len(new_locals) == hands.height else new_locals)
        if conflict_locals:
            self._register("b_conf", pl.DataFrame({"local": conflict_locals}, schema={"local": pl.Int32}))
            self._register("b_all", hands)
            con.execute(
                "INSERT INTO conflicts BY NAME SELECT b.site, b.hand_id, b.text_hash, b.file, b.first_line, b.raw_text, "
                "now() AS imported_at FROM b_all b JOIN b_conf USING (local)"
            )
            tx.conflicts_new += len(conflict_locals)
        return len(new_locals), verdicts

    def _store_new(self, merged: dict[str, pl.DataFrame], hands: pl.DataFrame, new_locals: list[int] | None) -> None:
        """Insert the new hands (``new_locals``; None: every hand of the group) with their rows, numbered from ``next_key``."""
        import polars as pl

        con = self.con
        n = hands.height if new_locals is None else len(new_locals)
        new = None if new_locals is None else pl.DataFrame(
            {"local": new_locals, "hand_key": range(self.next_key, self.next_key + n)},
            schema={"local": pl.Int32, "hand_key": pl.Int64},
        )

        def keyed(df: pl.DataFrame) -> pl.DataFrame:
            """The rows of the new hands, numbered by ``hand_key`` (in polars: DuckDB then only appends)."""
            if new is None:  # the usual case: every hand of the group is new, hand_key = first + local
                return df.with_columns(hand_key=pl.col("local").cast(pl.Int64) + self.next_key).drop("local")
            return df.join(new, on="local", how="inner", maintain_order="left").drop("local")

        for table in ("hands", "seats", "actions", "cards", "pots", "findings"):
            df = hands if table == "hands" else merged.get(table)
            if df is None or not df.height:
                continue
            self._register(f"b_{table}", keyed(df))
            con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM b_{table}")
        if self.rooms is not None:  # the rules the new hands were replayed under, with them
            record_rooms(con, self.rooms, "b_hands")

    def _supersede(self, merged: dict[str, pl.DataFrame], tx: _Uncommitted) -> None:
        """Drop the ``failed`` rows that an earlier read of the same places made of a hand read now as another text.

        A hand read before it was written whole (a client that paused in
        the middle of it, a copy in progress) failed as incomplete; when the
        file is read again (``files.open_from``, or the whole of a file whose
        content changed), the same place -- the same file, the same first
        line -- holds the hand as it is now: stored, or failed with its
        longer text.  The earlier reading of that place is no hand of its
        own, so its row goes, in the transaction that stores the new one
        (docs/live.md).  Rows of places that hold no record now are kept.
        """
        import polars as pl

        places = [
            df.select("file", "first_line", pl.col(key).alias("hash"))
            for df, key in ((merged.get("hands"), "text_hash"), (merged.get("failed"), "raw_hash"))
            if df is not None and df.height
        ]
        if not places:
            return
        self._register("b_places", pl.concat(places))
        row = self.con.execute(
            "DELETE FROM failed f USING b_places p "
            "WHERE f.file = p.file AND f.first_line = p.first_line AND f.raw_hash <> p.hash "
            "AND NOT EXISTS (SELECT 1 FROM b_places q WHERE q.hash = f.raw_hash)"
        ).fetchall()  # one row, its count; fetched to the end, so that the connection is free again
        tx.superseded += int(row[0][0]) if row else 0

    def _insert_failed(self, failed: pl.DataFrame | None) -> tuple[int, list[FailedHand], int | None]:
        """Store the failed rows not stored yet (by their text's hash).

        Returns how many were stored, the first :data:`~hhtool.store.summary.SHOWN_FAILED`
        of them by file and line, and the transaction's ``now()`` (their
        ``imported_at``, in µs since the epoch): the summary names the failed
        hands of its run, and the rows of the run are those stored between
        its first and last such time.
        """
        if failed is None or not failed.height:
            return 0, [], None
        self._register("b_failed", failed.unique(subset="raw_hash", keep="first", maintain_order=True))
        new = "FROM b_failed f WHERE NOT EXISTS (SELECT 1 FROM failed x WHERE x.raw_hash = f.raw_hash)"
        first = self.con.execute(
            "SELECT f.file, f.line, f.first_line, f.hand_id, f.kind, f.message, f.expected, epoch_us(now()) "
            f"{new} ORDER BY f.file, f.line LIMIT {SHOWN_FAILED}"
        ).fetchall()  # before the insert, which makes them all stored
        row = self.con.execute(f"INSERT INTO failed BY NAME SELECT f.*, now() AS imported_at {new}").fetchall()
        # one row, the rows inserted; fetched to the end, so that the connection is free again
        shown = [FailedHand(str(r[0]), int(r[1]), int(r[2]), r[3], str(r[4]), str(r[5]), r[6]) for r in first]
        return (int(row[0][0]) if row else 0), shown, (int(first[0][7]) if first else None)


class WriterThread:
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

    def __init__(self, writer: Writer, cancel: threading.Event | None = None) -> None:
        import queue

        self.writer = writer
        self.cancel = cancel
        # a second Ctrl-C (Cancel.abort) interrupts the statement this thread runs: its transaction rolls back
        self._no_abort = cancel.on_abort(writer.con.interrupt) if isinstance(cancel, Cancel) else None
        self.queue: queue.Queue[tuple[ChunkResult, FileState | None] | None] = queue.Queue(maxsize=WRITER_QUEUE)
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
            self.writer.rollback()  # stopped early: the batch in progress is not stored (nothing to do after its commit)
            if self._no_abort is not None:
                self._no_abort()
            self.done.set()

    def _stopping(self) -> bool:
        """Dropping, or the import is cancelled: the main thread sees it too and stops the import."""
        return self.dropping.is_set() or (self.cancel is not None and self.cancel.is_set())

    def hand_over(self, result: ChunkResult, finished: FileState | None) -> None:
        self._put((result, finished))

    def _put(self, item: tuple[ChunkResult, FileState | None] | None) -> None:
        import queue

        while True:
            if self.failure is not None:
                raise self.failure
            check(self.cancel)
            try:
                self.queue.put(item, timeout=0.2)
                return
            except queue.Full:
                pass

    def finish(self) -> None:
        """Write what is queued and the last batch; raise what the writer raised (or :class:`~hhtool.store.cancel.Cancelled` meanwhile)."""
        self._put(None)
        while not self.done.wait(0.2):
            check(self.cancel)
        check(self.cancel)  # the writer stopped early for it
        if self.failure is not None:
            raise self.failure

    def abandon(self) -> None:
        """Stop after the transaction in progress, dropping what is queued; return once the thread has ended.

        A Ctrl-C meanwhile (a :class:`KeyboardInterrupt` in this thread, when
        no handler of the caller's catches it) interrupts that transaction
        (it rolls back) and is raised once the thread has ended, never before.
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
