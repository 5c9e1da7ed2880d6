"""The worker's half of an import: a chunk of a file's bytes in, polars frames of rows out.

A worker process gets a :class:`ChunkTask` (a piece of a file cut at a
blank line, with the number of lines before it), splits it into hands with
the reader, parses and replays each, has :class:`~hhtool.store.rows.RowBuilder`
turn them into rows (:mod:`hhtool.store.frames` into frames), and returns a :class:`ChunkResult`: one polars frame
per table, every hand numbered by ``local`` (its position in the chunk)
instead of the ``hand_key`` that only the writer can give.
"""

from __future__ import annotations

import gc
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hhtool.history.errors import ErrorRecord, HandHistoryError
from hhtool.store.frames import frames
from hhtool.store.rows import RowBuilder

if TYPE_CHECKING:
    import polars as pl

    from hhtool.history.reader import Unread
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


def _hand_texts(task: ChunkTask, notes: list[str]) -> Iterator[Any]:
    """The reader's splitting of a chunk: ``(first line, text)`` per hand, or ``Skipped`` junk.

    Uses the reader's own decoder and splitter (the same reading as
    :func:`hhtool.history.reader.read_file`) on the chunk; lines are relative to it.
    A hand over the size bounds comes as ``(first line, ErrorRecord)``.
    """
    from hhtool.history import reader

    decoder = reader._Decoder(task.source, notes)
    decoder.first = task.index == 0
    decoder.cp1252 = task.cp1252
    chunks: list[bytes | reader.Unread] = [task.data] if task.unread is None else [task.data, task.unread]
    return reader._split_pieces(reader._pieces(chunks, decoder), task.source, decoder)


@contextmanager
def _no_gc() -> Iterator[None]:
    """The cycle collector paused while a chunk is read: a seventh of the replay's time went to it.

    Parsing and replaying allocate many short-lived containers and make
    no reference cycles that need collecting before the chunk is done, so
    each young-generation pass only walked live objects; whatever cycles
    there are are collected after the chunk, when collection resumes.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def process_chunk(task: ChunkTask) -> ChunkResult:
    """Parse and replay every hand of a chunk into rows (runs in a worker process)."""
    from hhtool.history.parse import parse_hand_text
    from hhtool.history.reader import Skipped
    from hhtool.replay import replay

    builder = RowBuilder()
    result = ChunkResult(task.unit, task.index, {})
    notes: list[str] = []
    offset = task.line_offset
    with warnings.catch_warnings(), _no_gc():
        warnings.simplefilter("ignore")
        for item in _hand_texts(task, notes):
            if isinstance(item, Skipped):
                result.junk_lines += item.count
                continue
            start, text = item
            if isinstance(text, ErrorRecord):  # over the size bounds: failed by the reader, its text cut
                builder.add_failed(text, task.source, start + offset, offset)
                result.failed += 1
                continue
            raw = text + "\n"
            try:
                hand = parse_hand_text(text, first_line=start, source=task.source)
            except HandHistoryError as e:
                builder.add_failed(ErrorRecord.from_error(e, raw), task.source, start + offset, offset)
                result.failed += 1
                continue
            error = None
            try:
                rep: Replay | None = replay(hand, explain=False)
            except Exception as e:  # a bug of ours must not lose the hand
                rep = None
                error = f"the replay failed ({type(e).__name__}: {e}); please report this hand"
                result.replay_errors += 1
            local = builder.local
            try:
                verdict = builder.add_hand(hand, raw, task.source, offset, rep, error)
            except Exception as e:  # a bug of ours: this hand is kept in failed, the chunk goes on
                builder.discard_last(local)
                message = f"the import could not store this hand ({type(e).__name__}: {e}); please report this hand"
                record = ErrorRecord(
                    kind="error", message=message, source=task.source, line=start, column=None,
                    hand_id=hand.header.hand_id, line_text=None, expected=(), raw=raw,
                )
                builder.add_failed(record, task.source, start + offset, offset)
                result.failed += 1
                continue
            result.hands += 1
            result.verdicts[verdict] = result.verdicts.get(verdict, 0) + 1
        result.frames = _frames(builder, result)
    result.cp1252 = bool(notes)
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
