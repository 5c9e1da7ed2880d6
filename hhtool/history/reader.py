"""Files to hands, as a stream: memory holds one chunk of the file at a time.

A file is read as bytes, in chunks of about a megabyte cut at a line end,
and each chunk is decoded at once as UTF-8 (a byte-order mark at the start
of the file is dropped, ``\\r\\n`` becomes ``\\n``); the first line that is
not UTF-8 switches the rest of the file to Windows-1252, the code page
that old Windows rooms save the ``€`` sign in, with a
:class:`EncodingWarning`-style :class:`Cp1252Warning` (once per file).

Splitting: a hand starts at a line that looks like a header
(``<Site> Hand #``) and runs to the next blank line, the next header or
the end of the file.  Non-blank lines outside a hand are junk: they are
skipped and reported as a :class:`Skipped` record, never an error.  The
common case -- a block of lines between blank lines that starts with a
header and holds no other -- is recognised a block at a time; anything
else goes through the same rules a line at a time.

Bounds (:mod:`hhtool.history.bounds`): a line over 4,096 characters or a hand over
262,144 is cut where it is read -- a line read 16 KB without its line end
has the rest counted, not kept (:class:`Tally`), and a hand keeps its first
lines up to the bound -- and the hand becomes a failed hand saying how long
it was, with the text kept; so time and memory stay linear in the file
and bounded, whatever it holds.

Lenient (the default): a hand that fails becomes an
:class:`~hhtool.history.errors.ErrorRecord` (file, line, column, hand id, the
line, what was expected, the hand's raw text) and reading goes on.
Strict: the first failure is raised.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Union

from hhtool.history.bounds import MAX_CHAR_BYTES, MAX_HAND_CHARS, MAX_LINE_CHARS, hand_too_large, line_too_long
from hhtool.history.errors import ErrorRecord, HandHistoryError, HandParseError
from hhtool.history.events import Hand
from hhtool.history.parse import looks_like_header, parse_hand_text

CHUNK_BYTES = 1 << 20
"""How much of a file is read and decoded at once."""
LINE_BYTES = MAX_CHAR_BYTES * (MAX_LINE_CHARS + 1)
"""A line read this far without its line end is over the bound in any encoding: the rest is counted, not kept."""

_BOM = b"\xef\xbb\xbf"
_HEADER_START = re.compile(r"\S+ Hand #[A-Za-z0-9-]+: Telesina ")  # = parse.looks_like_header
_HAND_ID = re.compile(r"\S+ Hand #([A-Za-z0-9-]+)")
_CONTINUATION = bytes(range(0x80, 0xC0))  # the bytes 10xxxxxx: inside a UTF-8 character, never its first byte
_BLANKISH_LINE = re.compile(r"\n[^\S\n]*(?:\n|\Z)")  # an empty or whitespace-only line after the first


def _newlines_py(text: str) -> int:
    """The line ends of ``text``, or -1 where a line after its first is empty or only whitespace."""
    return -1 if _BLANKISH_LINE.search(text) is not None else text.count("\n")


try:  # the same in one pass of C (hhtool/_native/_scan.c), not built with HHTOOL_PURE=1
    from hhtool._native._scan import newlines as _newlines
except ImportError:  # pragma: no cover - the pure build
    _newlines = _newlines_py


class Cp1252Warning(UserWarning):
    """A file that is not UTF-8 was read as Windows-1252."""


@dataclass(frozen=True, slots=True)
class Skipped:
    """Junk lines between hands (not a hand, so not an error)."""

    source: str
    line: int
    count: int
    first_text: str


Record = Union[Hand, ErrorRecord, Skipped]
HandText = tuple[int, str]
"""A hand as (file line number of its header, its lines joined by ``\\n``)."""
CutHand = tuple[int, ErrorRecord]
"""A hand over the size bounds: (file line number of its header, the failure, with the text kept)."""


@dataclass(frozen=True, slots=True)
class Unread:
    """Bytes of a file counted and not kept: the rest of the line read last, then whole lines.

    The reader makes one for the rest of a line longer than :data:`LINE_BYTES`;
    the import's chunker (:func:`hhtool.store.sources.read_chunks`) one for
    the rest of a hand with no end in sight, so that a worker given only the
    hand's first part reports its true size.  Characters are counted as the
    decoder would give them (``\\r\\n`` is one line end): the ``*_cont``
    bytes (UTF-8 continuation bytes) are no characters in UTF-8 and one
    each in Windows-1252.
    """

    more: int  # bytes of the rest of the line read last (its line end not counted)
    more_cont: int
    lines: int  # whole lines after it (the last one may lack a line end, at the end of the file)
    rest: int  # bytes of those lines, each line end counted as one
    rest_cont: int

    def chars(self, cp1252: bool) -> tuple[int, int, int]:
        """(characters of the rest of the line, lines after it, their characters) as the decoder would read them."""
        if cp1252:
            return self.more, self.lines, self.rest
        return self.more - self.more_cont, self.lines, self.rest - self.rest_cont


class Tally:
    """Counts a stream of bytes into an :class:`Unread` without keeping them: time linear, memory constant."""

    __slots__ = ("in_line", "more", "more_cont", "newlines", "rest", "rest_cont", "cr", "open_line")

    def __init__(self) -> None:
        self.in_line = True  # still in the line whose start was kept
        self.more = self.more_cont = self.newlines = self.rest = self.rest_cont = 0
        self.cr = False  # the bytes so far end with "\\r" (a "\\r\\n" across two reads is one line end)
        self.open_line = False  # the last line after the first has no line end (yet)

    def add(self, data: bytes, *, line_only: bool = False) -> int:
        """Count ``data`` (``line_only``: only up to the first line's end).  Returns where that is in it, or -1."""
        if not data:
            return -1
        cr_before, self.cr = self.cr, data.endswith(b"\r")
        end = -1
        if self.in_line:
            end = data.find(b"\n")
            part = data if end < 0 else data[:end]
            self.more += len(part)
            self.more_cont += _continuation_bytes(part)
            if end < 0:
                return -1
            if part.endswith(b"\r") or (not part and cr_before):
                self.more -= 1  # the "\\r" of a "\\r\\n" is part of the line end
            self.in_line = False
            self.newlines += 1
            cr_before = False
            data = data[end + 1 :]
            if not data or line_only:
                return end
        self.newlines += data.count(b"\n")
        self.rest += len(data) - data.count(b"\r\n") - (1 if cr_before and data.startswith(b"\n") else 0)
        self.rest_cont += _continuation_bytes(data)
        self.open_line = not data.endswith(b"\n")
        return end

    def unread(self) -> Unread:
        """What was counted; a last line without a line end counts as a line, and its end as a character."""
        if self.in_line:
            return Unread(self.more, self.more_cont, 0, 0, 0)
        open_line = int(self.open_line)
        return Unread(self.more, self.more_cont, self.newlines - 1 + open_line, self.rest + open_line, self.rest_cont)


def _continuation_bytes(data: bytes) -> int:
    return len(data) - len(data.translate(None, _CONTINUATION))


def _has_long_line(text: str) -> bool:
    """Whether a line of ``text`` is over :data:`~hhtool.history.bounds.MAX_LINE_CHARS`: a search per bound's length, not per line."""
    pos = 0
    end = len(text)
    while end - pos > MAX_LINE_CHARS:
        nl = text.rfind("\n", pos, pos + MAX_LINE_CHARS + 1)
        if nl < 0:
            return True  # the line at pos has more than the bound
        pos = nl + 1  # a line starts there; any line end before the window's end came before it
    return False


class _Decoder:
    """Bytes to text, whole lines at a time: UTF-8 (BOM dropped), Windows-1252 from the first bad line."""

    def __init__(self, source: str, notes: list[str]) -> None:
        self.source = source
        self.notes = notes
        self.cp1252 = False
        self.first = True

    def decode(self, data: bytes, *, end: bool = False) -> str:
        """Decode whole lines (``data`` ends at a line end, or is the end of the file: ``end``).

        A UTF-8 character cut short by the end of the file is a file still
        being written (a writer that paused in the middle of a ``€``), not
        one in Windows-1252: its bytes read as U+FFFD and the file stays
        UTF-8, so that the same bytes, read again once the character is
        whole, read the same as the rest of the file.
        """
        if self.first:
            self.first = False
            if data.startswith(_BOM):
                data = data[3:]
        if not self.cp1252:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as e:
                if end and e.end == len(data) and e.reason == "unexpected end of data":
                    return (data[: e.start].decode("utf-8") + "\ufffd").replace("\r\n", "\n")
                cut = data.rfind(b"\n", 0, e.start) + 1  # the start of the first line that is not UTF-8
                self.cp1252 = True
                message = f"{self.source}: not UTF-8; reading it as Windows-1252"
                self.notes.append(message)
                warnings.warn(message, Cp1252Warning, stacklevel=5)
                text = data[:cut].decode("utf-8") + data[cut:].decode("cp1252", errors="replace")
        else:
            text = data.decode("cp1252", errors="replace")
        if "\r" in text:
            text = text.replace("\r\n", "\n")
        return text


def _chunks(stream: BinaryIO | Iterable[bytes]) -> Iterator[bytes]:
    """The stream's bytes in pieces: large reads from a file, the items of any other iterable."""
    read = getattr(stream, "read1", None) or getattr(stream, "read", None)
    if read is None:
        yield from stream
        return
    while True:
        data = read(CHUNK_BYTES)
        if not data:
            return
        yield data


class _Splitter:
    """Splits lines into hands (:data:`HandText`), hands over the bounds (:data:`CutHand`) and :class:`Skipped` junk.

    Fed text made of whole lines; keeps the state of the rules between
    feeds (a hand or junk in progress), so a file can be fed a piece at a time.
    A hand in progress keeps its lines up to :data:`~hhtool.history.bounds.MAX_HAND_CHARS`
    characters, each cut to :data:`~hhtool.history.bounds.MAX_LINE_CHARS`, and counts the rest.
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.number = 0  # lines seen so far
        self.hand: list[str] = []  # the lines kept of the hand in progress
        self.start = 0
        self.size = 0  # characters of the hand in progress, line ends included, kept or not
        self.kept = 0  # characters of its lines kept, line ends included
        self.over = False  # a line of it was not kept (the hand is over the bound)
        self.long: tuple[int, int] | None = None  # its line over the bound that ends the text kept: (line number, length)
        self.last = 0  # the length of its last line
        self.last_kept = False  # whether that line is kept
        self.lines = 0  # its lines, kept or not
        self.junk_start = 0
        self.junk_count = 0
        self.junk_first = ""
        self.out: list[HandText | CutHand | Skipped] = []

    # the rules, a line at a time

    def line(self, line: str) -> None:
        self.number += 1
        # a line over the bound is told by its first MAX_LINE_CHARS characters, all that a read ending inside
        # it keeps (_pieces): so whether it starts a hand, or ends one as blank, is the same wherever reads end
        head = line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS]
        if not head or head.isspace():
            if self.hand:
                self.end_hand()
            return
        if " Hand #" in head and looks_like_header(head):
            if self.hand:
                self.end_hand()
            self.flush_junk()
            self.start = self.number
            self.size = self.kept = self.lines = 0
            self.over = False
            self.long = None
            self.add(line)
        elif self.hand:
            self.add(line)
        else:
            if not self.junk_count:
                self.junk_start = self.number
                self.junk_first = line[:MAX_LINE_CHARS]
            self.junk_count += 1

    def add(self, line: str) -> None:
        """A line of the hand in progress: kept while the hand is within the bounds, counted in any case.

        The text kept is a hand's first lines: up to the first line over the
        bound (cut to it), or up to the bound of the hand.
        """
        n = self.last = len(line)
        self.size += n + 1
        self.lines += 1
        if self.over:
            self.last_kept = False
            return
        if n > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS]
        if self.kept + len(line) < MAX_HAND_CHARS:
            self.hand.append(line)
            self.kept += len(line) + 1
            self.last_kept = True
            if n > MAX_LINE_CHARS:
                self.long = (self.number, n)
                self.over = True
        else:
            self.over = True
            self.last_kept = False

    def unread(self, more: int, lines: int, chars: int) -> None:
        """The last line fed goes on for ``more`` characters not read, then ``lines`` lines (``chars`` characters) not read."""
        if self.hand:
            n = self.last = self.last + more
            if self.last_kept and n > MAX_LINE_CHARS:
                self.long = (self.number, n)
                self.over = True
            self.size += more + chars
            self.lines += lines
            self.over = self.over or lines > 0
        elif lines:
            if not self.junk_count:
                self.junk_start = self.number + 1
                self.junk_first = ""  # not read
            self.junk_count += lines
        self.number += lines

    def end_hand(self) -> None:
        if self.long is None and not self.over:
            self.out.append((self.start, "\n".join(self.hand)))
        else:
            self.out.append((self.start, self.cut_hand()))
        self.hand = []

    def cut_hand(self) -> ErrorRecord:
        """The failure of a hand over the bounds: how long it was, where; the text kept is its first part."""
        line: int = self.start
        column: int | None = None
        text: str | None = self.hand[0]
        if self.long is not None:
            line, length = self.long
            k = line - self.start  # the lines kept are the hand's first ones
            text = self.hand[k] if k < len(self.hand) else None
            column = MAX_LINE_CHARS + 1
            problem = line_too_long(length)
        else:
            problem = hand_too_large(self.size)
        message = (
            f"{problem} (the text kept is cut: {self.kept:,} of the hand's {self.size:,} characters,"
            f" {len(self.hand):,} of its {self.lines:,} lines)"
        )
        m = _HAND_ID.match(self.hand[0])
        error = HandParseError(message, line=line, column=column, line_text=text, hand_id=m.group(1) if m else None, source=self.source)
        return ErrorRecord.from_error(error, "\n".join(self.hand) + "\n")

    def flush_junk(self) -> None:
        if self.junk_count:
            self.out.append(Skipped(self.source, self.junk_start, self.junk_count, self.junk_first))
            self.junk_count = 0

    def finish(self) -> None:
        if self.hand:
            self.end_hand()
        self.flush_junk()

    # the same rules, a block at a time

    def feed(self, text: str, blank_after: bool) -> None:
        """Lines joined by ``\\n``; ``blank_after``: a blank line (or the end) follows them."""
        blocks = text.split("\n\n")
        last = len(blocks) - 1
        header = _HEADER_START.match
        newlines = _newlines
        for k, block in enumerate(blocks):
            if (
                not self.hand
                and (k < last or blank_after)
                and len(block) < MAX_HAND_CHARS
                and header(block) is not None
                and block.find(" Hand #", block.find("\n") + 1 or len(block)) < 0
                and (ends := newlines(block)) >= 0  # no blank or whitespace-only line inside
                and (len(block) <= MAX_LINE_CHARS or not _has_long_line(block))
            ):
                # a whole hand between blank lines: what the rules below would do, without the loop
                self.flush_junk()
                self.out.append((self.number + 1, block))
                self.number += ends + 1
            else:
                for line in block.split("\n"):
                    self.line(line)
            if k < last:
                self.line("")  # the blank line between the blocks


def _pieces(chunks: Iterable[bytes | Unread], decoder: _Decoder) -> Iterator[tuple[str, bool] | Unread]:
    """Decoded text in pieces of whole lines (no final line end), each with whether a blank line follows.

    A piece ends where a blank line starts when the text read so far has one,
    so that hands are seldom cut between pieces; the text held back is at
    most about two chunks.  A line read :data:`LINE_BYTES` without its line
    end is cut: a piece ends with its first part, the rest is counted as it
    is read, and an :class:`Unread` says how much followed.  An ``Unread``
    among the chunks (the import chunker's) goes on the line before it.
    """
    pending = b""
    carry = ""  # decoded whole lines, each ending with "\n"
    tally: Tally | None = None  # counting the rest of a cut line
    for data in chunks:
        if isinstance(data, Unread):
            text = carry + decoder.decode(pending) if pending else carry[:-1]
            carry, pending = "", b""
            if text:
                yield text, False
            yield data
            continue
        if tally is not None:
            end = tally.add(data, line_only=True)
            if end < 0:
                continue
            yield tally.unread()
            tally = None
            data = data[end + 1 :]
            if not data:
                continue
        if pending:
            data = pending + data
        cut = data.rfind(b"\n") + 1
        if not cut:
            if len(data) > LINE_BYTES:
                keep = char_start(data, LINE_BYTES)
                yield carry + decoder.decode(data[:keep]), False
                carry, pending = "", b""
                tally = Tally()
                tally.add(data[keep:])
                continue
            pending = data
            continue
        pending = data[cut:]
        text = carry + decoder.decode(data[:cut]) if carry else decoder.decode(data[:cut])
        blank = text.rfind("\n\n")
        if blank >= 0:
            carry = text[blank + 1 :]
            yield text[:blank], True
        elif len(text) > CHUNK_BYTES:
            carry = ""
            yield text[:-1], False
        else:
            carry = text
    if tally is not None:
        yield tally.unread()  # the file ends in the cut line
        return
    last = decoder.decode(pending, end=True) if pending else ""
    if last.endswith("\r"):
        last = last[:-1]
    text = carry + last
    if text:
        yield (text[:-1] if not last else text), True


def char_start(data: bytes, at: int) -> int:
    """``at``, or up to three bytes before it: not inside a UTF-8 character, so ``data[:k]`` decodes whole."""
    k = at
    while k > at - 3 and 0x80 <= data[k] < 0xC0:
        k -= 1
    return k


def split_hands(lines: Iterable[str], source: str = "") -> Iterator[tuple[int, list[str]] | ErrorRecord | Skipped]:
    """Group lines into hands: ``(first line number, lines)``, an :class:`ErrorRecord` for one over the bounds, or junk."""
    splitter = _Splitter(source)
    for line in lines:
        splitter.line(line)
        if splitter.out:
            yield from _as_lines(splitter.out)
            splitter.out.clear()
    splitter.finish()
    yield from _as_lines(splitter.out)


def _as_lines(items: list[HandText | CutHand | Skipped]) -> Iterator[tuple[int, list[str]] | ErrorRecord | Skipped]:
    for item in items:
        if isinstance(item, Skipped):
            yield item
        elif isinstance(item[1], ErrorRecord):
            yield item[1]
        else:
            yield (item[0], item[1].split("\n"))


def _records(items: Iterable[HandText | CutHand | Skipped], source: str, strict: bool) -> Iterator[Record]:
    for item in items:
        if isinstance(item, Skipped):
            yield item
            continue
        start, text = item
        if isinstance(text, ErrorRecord):  # over the bounds: the splitter's failure, with the text kept
            if strict:
                raise HandParseError(
                    text.message, line=text.line, column=text.column, line_text=text.line_text, hand_id=text.hand_id, source=source
                )
            yield text
            continue
        try:
            yield parse_hand_text(text, first_line=start, source=source)
        except HandHistoryError as e:
            if strict:
                raise
            yield ErrorRecord.from_error(e, text + "\n")


def _split_pieces(
    pieces: Iterable[tuple[str, bool] | Unread], source: str, decoder: _Decoder | None = None
) -> Iterator[HandText | CutHand | Skipped]:
    splitter = _Splitter(source)
    for piece in pieces:
        if isinstance(piece, Unread):
            splitter.unread(*piece.chars(decoder is not None and decoder.cp1252))
        else:
            splitter.feed(piece[0], piece[1])
        if splitter.out:
            yield from splitter.out
            splitter.out.clear()
    splitter.finish()
    yield from splitter.out


def split_chunks(
    chunks: Iterable[bytes | Unread], source: str, *, at_start: bool = True, cp1252: bool = False, notes: list[str] | None = None
) -> Iterator[HandText | CutHand | Skipped]:
    """A piece of a file's bytes split into hands, read exactly as :func:`read_file` reads the same bytes in place.

    For the import's workers, each given one chunk of a file cut at a blank
    line (:func:`hhtool.store.sources.read_chunks`): ``at_start``, the chunk
    is the file's first (a byte-order mark is dropped); ``cp1252``, an
    earlier part of the file was not UTF-8, so this one is read as
    Windows-1252 from its start; an :class:`Unread` among the chunks is the
    counted rest of an over-long hand.  Lines are numbered from the chunk's
    start; a note goes into ``notes`` when the chunk switches to Windows-1252.
    """
    decoder = _Decoder(source, notes if notes is not None else [])
    decoder.first = at_start
    decoder.cp1252 = cp1252
    return _split_pieces(_pieces(chunks, decoder), source, decoder)


def read_lines(lines: Iterable[str], source: str = "", *, strict: bool = False) -> Iterator[Record]:
    """Parse already-decoded lines (no line ends) into records."""
    splitter = _Splitter(source)

    def items() -> Iterator[HandText | CutHand | Skipped]:
        for line in lines:
            splitter.line(line)
            if splitter.out:
                yield from splitter.out
                splitter.out.clear()
        splitter.finish()
        yield from splitter.out

    return _records(items(), source, strict)


def read_stream(stream: BinaryIO | Iterable[bytes], source: str = "", *, strict: bool = False, notes: list[str] | None = None) -> Iterator[Record]:
    """Parse a binary stream of hand histories into records, lazily."""
    decoder = _Decoder(source, notes if notes is not None else [])
    return _records(_split_pieces(_pieces(_chunks(stream), decoder), source, decoder), source, strict)


def read_file(path: str | Path, *, strict: bool = False, notes: list[str] | None = None) -> Iterator[Record]:
    """Parse a file into records, lazily; the file is closed when the iterator is exhausted."""
    source = str(path)
    with open(path, "rb") as f:
        yield from read_stream(f, source, strict=strict, notes=notes)


def read_text(text: str, source: str = "", *, strict: bool = False) -> Iterator[Record]:
    """Parse hand histories held in a string, exactly as :func:`read_stream` reads the same text from a file.

    The text goes through the file's path (as UTF-8), so that the bounds
    apply the same way: an over-long line is judged by its head, and a
    final bare CR is a line end, whichever way the text arrives.  A string
    that cannot be UTF-8 (a lone surrogate) is split as it is.
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.lstrip("\ufeff").replace("\r\n", "\n")
        return _records(_split_pieces([(text, True)], source), source, strict)
    return read_stream([data[i : i + CHUNK_BYTES] for i in range(0, len(data), CHUNK_BYTES)] or [b""], source, strict=strict)


def hands(records: Iterable[Record]) -> Iterator[Hand]:
    """Only the hands."""
    return (r for r in records if isinstance(r, Hand))
