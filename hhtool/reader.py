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

Lenient (the default): a hand that fails becomes an
:class:`~hhtool.errors.ErrorRecord` (file, line, column, hand id, the
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

from .errors import ErrorRecord, HandHistoryError
from .events import Hand
from .parse import looks_like_header, parse_hand_text

CHUNK_BYTES = 1 << 20
"""How much of a file is read and decoded at once."""

_BOM = b"\xef\xbb\xbf"
_HEADER_START = re.compile(r"\S+ Hand #[A-Za-z0-9-]+: Telesina ")  # = parse.looks_like_header
_BLANKISH_LINE = re.compile(r"\n[^\S\n]*(?:\n|\Z)")  # an empty or whitespace-only line after the first


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


class _Decoder:
    """Bytes to text, whole lines at a time: UTF-8 (BOM dropped), Windows-1252 from the first bad line."""

    def __init__(self, source: str, notes: list[str]) -> None:
        self.source = source
        self.notes = notes
        self.cp1252 = False
        self.first = True

    def decode(self, data: bytes) -> str:
        """Decode whole lines (``data`` ends at a line end, or is the end of the file)."""
        if self.first:
            self.first = False
            if data.startswith(_BOM):
                data = data[3:]
        if not self.cp1252:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as e:
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
    """Splits lines into hands (:data:`HandText`) and :class:`Skipped` junk.

    Fed text made of whole lines; keeps the state of the rules between
    feeds (a hand or junk in progress), so a file can be fed a piece at a time.
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.number = 0  # lines seen so far
        self.hand: list[str] = []
        self.start = 0
        self.junk_start = 0
        self.junk_count = 0
        self.junk_first = ""
        self.out: list[HandText | Skipped] = []

    # the rules, a line at a time

    def line(self, line: str) -> None:
        self.number += 1
        if not line or line.isspace():
            if self.hand:
                self.out.append((self.start, "\n".join(self.hand)))
                self.hand = []
            return
        if " Hand #" in line and looks_like_header(line):
            if self.hand:
                self.out.append((self.start, "\n".join(self.hand)))
            self.flush_junk()
            self.hand = [line]
            self.start = self.number
        elif self.hand:
            self.hand.append(line)
        else:
            if not self.junk_count:
                self.junk_start = self.number
                self.junk_first = line
            self.junk_count += 1

    def flush_junk(self) -> None:
        if self.junk_count:
            self.out.append(Skipped(self.source, self.junk_start, self.junk_count, self.junk_first))
            self.junk_count = 0

    def finish(self) -> None:
        if self.hand:
            self.out.append((self.start, "\n".join(self.hand)))
            self.hand = []
        self.flush_junk()

    # the same rules, a block at a time

    def feed(self, text: str, blank_after: bool) -> None:
        """Lines joined by ``\\n``; ``blank_after``: a blank line (or the end) follows them."""
        blocks = text.split("\n\n")
        last = len(blocks) - 1
        header = _HEADER_START.match
        blankish = _BLANKISH_LINE.search
        for k, block in enumerate(blocks):
            if (
                not self.hand
                and (k < last or blank_after)
                and header(block) is not None
                and block.find(" Hand #", block.find("\n") + 1 or len(block)) < 0
                and blankish(block) is None
            ):
                # a whole hand between blank lines: what the rules below would do, without the loop
                self.flush_junk()
                self.out.append((self.number + 1, block))
                self.number += block.count("\n") + 1
            else:
                for line in block.split("\n"):
                    self.line(line)
            if k < last:
                self.line("")  # the blank line between the blocks


def _pieces(chunks: Iterable[bytes], decoder: _Decoder) -> Iterator[tuple[str, bool]]:
    """Decoded text in pieces of whole lines (no final line end), each with whether a blank line follows.

    A piece ends where a blank line starts when the text read so far has one,
    so that hands are seldom cut between pieces; the text held back is at
    most about two chunks.
    """
    pending = b""
    carry = ""  # decoded whole lines, each ending with "\n"
    for data in chunks:
        if pending:
            data = pending + data
        cut = data.rfind(b"\n") + 1
        if not cut:
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
    last = decoder.decode(pending) if pending else ""
    if last.endswith("\r"):
        last = last[:-1]
    text = carry + last
    if text:
        yield (text[:-1] if not last else text), True


def split_hands(lines: Iterable[str], source: str = "") -> Iterator[tuple[int, list[str]] | Skipped]:
    """Group lines into hands: ``(first line number, lines)``, or :class:`Skipped` junk."""
    splitter = _Splitter(source)
    for line in lines:
        splitter.line(line)
        if splitter.out:
            yield from _as_lines(splitter.out)
            splitter.out.clear()
    splitter.finish()
    yield from _as_lines(splitter.out)


def _as_lines(items: list[HandText | Skipped]) -> Iterator[tuple[int, list[str]] | Skipped]:
    for item in items:
        yield item if isinstance(item, Skipped) else (item[0], item[1].split("\n"))


def _records(items: Iterable[HandText | Skipped], source: str, strict: bool) -> Iterator[Record]:
    for item in items:
        if isinstance(item, Skipped):
            yield item
            continue
        start, text = item
        try:
            yield parse_hand_text(text, first_line=start, source=source)
        except HandHistoryError as e:
            if strict:
                raise
            yield ErrorRecord.from_error(e, text + "\n")


def _split_pieces(pieces: Iterable[tuple[str, bool]], source: str) -> Iterator[HandText | Skipped]:
    splitter = _Splitter(source)
    for text, blank_after in pieces:
        splitter.feed(text, blank_after)
        if splitter.out:
            yield from splitter.out
            splitter.out.clear()
    splitter.finish()
    yield from splitter.out


def read_lines(lines: Iterable[str], source: str = "", *, strict: bool = False) -> Iterator[Record]:
    """Parse already-decoded lines (no line ends) into records."""
    splitter = _Splitter(source)

    def items() -> Iterator[HandText | Skipped]:
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
    return _records(_split_pieces(_pieces(_chunks(stream), decoder), source), source, strict)


def read_file(path: str | Path, *, strict: bool = False, notes: list[str] | None = None) -> Iterator[Record]:
    """Parse a file into records, lazily; the file is closed when the iterator is exhausted."""
    source = str(path)
    with open(path, "rb") as f:
        yield from read_stream(f, source, strict=strict, notes=notes)


def read_text(text: str, source: str = "", *, strict: bool = False) -> Iterator[Record]:
    """Parse hand histories held in a string."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    return _records(_split_pieces([(text, True)], source), source, strict)


def hands(records: Iterable[Record]) -> Iterator[Hand]:
    """Only the hands."""
    return (r for r in records if isinstance(r, Hand))
