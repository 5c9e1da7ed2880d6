"""The worker's half of an import: a chunk of a file's bytes in, polars frames of rows out.

A worker process gets a :class:`ChunkTask` (a piece of a file cut at a
blank line, with the number of lines before it), splits it into hands with
the reader, parses and replays each, has :class:`~hhtool.store.rows.RowBuilder`
turn them into rows (:mod:`hhtool.store.frames` into frames), and returns a :class:`ChunkResult`: one polars frame
per table, every hand numbered by ``local`` (its position in the chunk)
instead of the ``hand_key`` that only the writer can give.

Each hand is replayed under the room whose file governs it
(:meth:`hhtool.game.room.Rooms.for_hand`, by its header's site and
profile), if any: the rooms come with the call (:func:`process_chunk`'s
``rooms``), or, in a pool's worker process, once from the pool's
initializer (:func:`set_pool_rooms`, then :func:`pooled`).
:func:`reaudit_chunk` replays hands already stored, from their text, for
``hhtool import --reaudit`` (:mod:`hhtool.store.rooms`).
"""

from __future__ import annotations

import gc
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hhtool.game.room import NO_ROOMS, Room, Rooms
from hhtool.history.errors import ErrorRecord, HandHistoryError
from hhtool.replay import replay
from hhtool.store.frames import frames
from hhtool.store.rows import RowBuilder

if TYPE_CHECKING:
    import polars as pl

    from hhtool.history.events import Hand
    from hhtool.history.reader import CutHand, HandText, Skipped, Unread
    from hhtool.replay import Replay


@dataclass(frozen=True, slots=True)
class ChunkTask:
    """A piece of one file: whole hands, cut at a blank line."""

    unit: int  # the file's number in this import
    index: int  # the chunk's number within the file
    source: str  # files.path
    data: bytes
    line_offset: int  # lines of the file before this chunk
    cp1252: bool  # the file switched to Windows-1252 before this chunk
    unread: Unread | None = None  # the rest of an over-long hand after ``data``: counted by the chunker, not sent


@dataclass(slots=True)
class ChunkResult:
    unit: int
    index: int
    frames: dict[str, pl.DataFrame]
    hands: int = 0  # parsed
    failed: int = 0
    junk_lines: int = 0
    replay_errors: int = 0
    cp1252: bool = False
    verdicts: dict[str, int] = field(default_factory=dict)
    keys: list[int] = field(default_factory=list)  # of a re-audit (StoredHands): the hand_key of each hand, by local


@dataclass(frozen=True, slots=True)
class StoredHands:
    """Hands already stored, to replay again from their text (``hhtool import --reaudit``): a worker's task.

    Each hand by its ``hand_key``, ``file`` and ``first_line`` (its rows'
    line numbers are the file's, as when it was imported) and its
    ``raw_text``.
    """

    index: int  # the task's number in the re-audit
    keys: list[int]
    files: list[str]
    first_lines: list[int]
    texts: list[str]

    @property
    def source(self) -> str:
        """The file of its first hand (what an error names)."""
        return self.files[0] if self.files else ""

    @property
    def line_offset(self) -> int:
        """The line before its first hand."""
        return self.first_lines[0] - 1 if self.first_lines else 0


_RESERVE: dict[str, int] = {}
"""The rows of each table this process's last chunk made, and a quarter more: the room the next chunk's
columns are made with (:class:`~hhtool.store.rows.Rows`), the chunks of a file being about the same size."""

_POOL_ROOMS: Rooms = NO_ROOMS
"""The rooms of a pool's worker process, set once by its initializer (:func:`set_pool_rooms`)."""


def set_pool_rooms(rooms: Rooms) -> None:
    """Give this (worker) process the rooms its chunks are replayed under: once, from the pool's initializer."""
    global _POOL_ROOMS
    _POOL_ROOMS = rooms


def pooled(task: ChunkTask | StoredHands) -> ChunkResult:
    """A task in a pool's worker process, under the rooms :func:`set_pool_rooms` gave it."""
    if isinstance(task, StoredHands):
        return reaudit_chunk(task, _POOL_ROOMS)
    return process_chunk(task, _POOL_ROOMS)


def room_tags(rooms: Rooms) -> dict[str, tuple[str, str]]:
    """Each room's name and digest by its file (what a hand's row records), computed once a chunk, not once a hand."""
    return {room.source: (room.name, room.digest) for room in rooms.rooms}


def _hand_texts(task: ChunkTask, notes: list[str]) -> Iterator[HandText | CutHand | Skipped]:
    """The reader's splitting of a chunk (the same reading as :func:`hhtool.history.reader.read_file`); lines relative to it.

    A hand over the size bounds comes as ``(first line, ErrorRecord)``.
    """
    from hhtool.history.reader import split_chunks

    chunks: list[bytes | Unread] = [task.data] if task.unread is None else [task.data, task.unread]
    return split_chunks(chunks, task.source, at_start=task.index == 0, cp1252=task.cp1252, notes=notes)


@contextmanager
def _no_gc() -> Iterator[None]:
    """The cycle collector paused while a chunk is read: a seventh of the replay's time went to it.

    Parsing and replaying allocate many short-lived containers and make
    no reference cycles that need collecting before the chunk is done, so
    each young-generation pass only walked live objects; whatever cycles
    there are are collected after the chunk, when collection resumes
    (after the chunk's rows are freed: :func:`_process_chunk`).
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def process_chunk(task: ChunkTask, rooms: Rooms = NO_ROOMS) -> ChunkResult:
    """Parse and replay every hand of a chunk into rows (runs in a worker process), each under its room of ``rooms``."""
    with warnings.catch_warnings(), _no_gc():
        warnings.simplefilter("ignore")
        return _process_chunk(task, rooms)


def _process_chunk(task: ChunkTask, rooms: Rooms) -> ChunkResult:
    """:func:`process_chunk`'s work, in a function of its own so that the chunk's rows are freed as it returns,
    before the cycle collector resumes: alive, the young generation's pass that follows walked every
    list of the builder's columns (half a million values a chunk; 2.5 µs a hand, docs/performance.md)."""
    from hhtool.history.parse import parse_hand_text
    from hhtool.history.reader import Skipped

    tags = room_tags(rooms)
    builder = RowBuilder(_RESERVE)
    result = ChunkResult(task.unit, task.index, {})
    notes: list[str] = []
    offset = task.line_offset
    for item in _hand_texts(task, notes):
        if isinstance(item, Skipped):
            result.junk_lines += item.count
            continue
        start, text = item
        if isinstance(text, ErrorRecord):  # over the size bounds: failed by the reader, its text cut
            builder.add_failed(text, task.source, start + offset, offset)
            result.failed += 1
            continue
        try:
            hand = parse_hand_text(text, first_line=start, source=task.source)
        except HandHistoryError as e:
            builder.add_failed(ErrorRecord.from_error(e, text + "\n"), task.source, start + offset, offset)
            result.failed += 1
            continue
        # the text without its final line end: the rows add it (RowBuilder.add_hand), the UTF-8 the C reader made kept
        verdict, bug = _rows(builder, hand, text, task.source, offset, rooms, tags, result)
        if bug is not None:  # a bug of ours: this hand is kept in failed, the chunk goes on
            message = f"the import could not store this hand ({type(bug).__name__}: {bug}); please report this hand"
            record = ErrorRecord(
                kind="error", message=message, source=task.source, line=start, column=None,
                hand_id=hand.header.hand_id, line_text=None, expected=(), raw=text + "\n",
            )
            builder.add_failed(record, task.source, start + offset, offset)
            result.failed += 1
            continue
        result.hands += 1
        result.verdicts[verdict] = result.verdicts.get(verdict, 0) + 1
    _RESERVE.update((table, n + n // 4) for table, n in builder.sizes().items())
    result.frames = _frames(builder, result)
    result.cp1252 = bool(notes)
    return result


def _rows(
    builder: RowBuilder, hand: Hand, raw: str, source: str, offset: int, rooms: Rooms, tags: dict[str, tuple[str, str]], result: ChunkResult
) -> tuple[str, Exception | None]:
    """The hand replayed under its room of ``rooms`` and its rows built: its verdict, or the error that kept it out (its rows discarded)."""
    room = rooms.for_hand(hand.header.site, hand.header.profile) if tags else None
    rep, error = _replay(hand, room, result)
    local = builder.local
    try:
        name, digest = tags[room.source] if room is not None else (None, None)
        return builder.add_hand(hand, raw, source, offset, rep, error, name, digest), None
    except Exception as e:
        builder.discard_last(local)
        return "", e


def _replay(hand: Hand, room: Room | None, result: ChunkResult) -> tuple[Replay | None, str | None]:
    """The hand replayed (under ``room``'s rules and rake, if any), or None and why: a bug of ours must not lose the hand."""
    try:
        return replay(hand, explain=False, room=room), None
    except Exception as e:
        result.replay_errors += 1
        return None, f"the replay failed ({type(e).__name__}: {e}); please report this hand"


def reaudit_chunk(task: StoredHands, rooms: Rooms) -> ChunkResult:
    """Stored hands replayed again from their text under ``rooms``: their rows, numbered by ``local``, with ``keys``.

    The rows are those an import of the same text makes now (the same
    file and line numbers).  A hand whose text no longer parses, or
    whose rows cannot be built, is left out (``failed`` counts it): its
    stored rows stay as they are.  No ``failed`` rows are made.
    """
    from hhtool.history.parse import parse_hand_text

    tags = room_tags(rooms)
    builder = RowBuilder()
    result = ChunkResult(0, task.index, {})
    with warnings.catch_warnings(), _no_gc():
        warnings.simplefilter("ignore")
        for key, source, first, raw in zip(task.keys, task.files, task.first_lines, task.texts):
            try:
                hand = parse_hand_text(raw[:-1] if raw.endswith("\n") else raw, first_line=first, source=source)
            except HandHistoryError:
                result.failed += 1
                continue
            verdict, bug = _rows(builder, hand, raw, source, 0, rooms, tags, result)
            if bug is not None:
                result.failed += 1
                continue
            result.keys.append(key)
            result.hands += 1
            result.verdicts[verdict] = result.verdicts.get(verdict, 0) + 1
        try:
            result.frames = frames(builder)
        except Exception:
            bad = builder.out_of_range()
            for verdict in builder.drop(bad):
                result.verdicts[verdict] -= 1
            result.verdicts = {v: n for v, n in result.verdicts.items() if n}
            result.keys = [k for local, k in enumerate(result.keys) if local not in bad]
            result.hands -= len(bad)
            result.failed += len(bad)
            result.frames = frames(builder)
    result.frames.pop("failed", None)
    return result


def _frames(builder: RowBuilder, result: ChunkResult) -> dict[str, pl.DataFrame]:
    """The chunk's frames; a hand with a value its column cannot hold goes to ``failed`` instead.

    The parser's bounds (docs/format-notes.md, "Bounds") keep what it reads
    inside the columns; what they do not bound (the findings of a hand the
    replay finds tens of thousands of faults in) fails the frame's build,
    and only then is every value looked at, the hands that do not fit moved
    to ``failed`` and the frames built again (raising if they still cannot
    be: a bug) -- so one hostile hand never loses the chunk, and a good
    chunk pays nothing for the check.
    """
    try:
        return frames(builder)
    except Exception:
        bad = builder.out_of_range()  # also NULLs what does not fit in failed rows
    for verdict in builder.drop(bad):
        result.hands -= 1
        result.verdicts[verdict] -= 1
        if not result.verdicts[verdict]:
            del result.verdicts[verdict]
        result.failed += 1
    return frames(builder)
