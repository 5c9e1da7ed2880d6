"""Files to hands, as a stream: memory holds one hand at a time.

A file is read as bytes, line by line.  Each line is decoded as UTF-8 (a
byte-order mark on the first line is dropped, ``\\r\\n`` becomes ``\\n``);
the first line that is not UTF-8 switches the rest of the file to
Windows-1252, the code page that old Windows rooms save the ``€`` sign in,
with a :class:`EncodingWarning`-style :class:`Cp1252Warning` (once per file).

Splitting: a hand starts at a line that looks like a header
(``<Site> Hand #``) and runs to the next blank line, the next header or
the end of the file.  Non-blank lines outside a hand are junk: they are
skipped and reported as a :class:`Skipped` record, never an error.

Lenient (the default): a hand that fails becomes an
:class:`~hhtool.errors.ErrorRecord` (file, line, column, hand id, the
line, what was expected, the hand's raw text) and reading goes on.
Strict: the first failure is raised.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Union

from .errors import ErrorRecord, HandHistoryError
from .events import Hand
from .parse import looks_like_header, parse_hand


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


def _decoded_lines(stream: Iterable[bytes], source: str, notes: list[str]) -> Iterator[str]:
    """Decode line by line: UTF-8 (BOM dropped), then Windows-1252 after the first bad line."""
    cp1252 = False
    first = True
    for raw in stream:
        if first:
            first = False
            if raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
        if raw.endswith(b"\n"):
            raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
        elif raw.endswith(b"\r"):
            raw = raw[:-1]
        if not cp1252:
            try:
                yield raw.decode("utf-8")
                continue
            except UnicodeDecodeError:
                cp1252 = True
                message = f"{source}: not UTF-8; reading it as Windows-1252"
                notes.append(message)
                warnings.warn(message, Cp1252Warning, stacklevel=4)
        yield raw.decode("cp1252", errors="replace")


def split_hands(lines: Iterable[str], source: str = "") -> Iterator[tuple[int, list[str]] | Skipped]:
    """Group lines into hands: ``(first line number, lines)``, or :class:`Skipped` junk."""
    hand: list[str] = []
    start = 0
    junk_start = 0
    junk: list[str] = []
    number = 0
    for number, line in enumerate(lines, start=1):
        if not line or line.isspace():
            if hand:
                yield start, hand
                hand = []
            continue
        if " Hand #" in line and looks_like_header(line):
            if hand:
                yield start, hand
            if junk:
                yield Skipped(source, junk_start, len(junk), junk[0])
                junk = []
            hand = [line]
            start = number
        elif hand:
            hand.append(line)
        else:
            if not junk:
                junk_start = number
            junk.append(line)
    if hand:
        yield start, hand
    if junk:
        yield Skipped(source, junk_start, len(junk), junk[0])


def read_lines(lines: Iterable[str], source: str = "", *, strict: bool = False) -> Iterator[Record]:
    """Parse already-decoded lines (no line ends) into records."""
    for item in split_hands(lines, source):
        if isinstance(item, Skipped):
            yield item
            continue
        start, hand_lines = item
        try:
            yield parse_hand(hand_lines, first_line=start, source=source)
        except HandHistoryError as e:
            if strict:
                raise
            yield ErrorRecord.from_error(e, "\n".join(hand_lines) + "\n")


def read_stream(stream: BinaryIO | Iterable[bytes], source: str = "", *, strict: bool = False, notes: list[str] | None = None) -> Iterator[Record]:
    """Parse a binary stream of hand histories into records, lazily."""
    return read_lines(_decoded_lines(stream, source, notes if notes is not None else []), source, strict=strict)


def read_file(path: str | Path, *, strict: bool = False, notes: list[str] | None = None) -> Iterator[Record]:
    """Parse a file into records, lazily; the file is closed when the iterator is exhausted."""
    source = str(path)
    with open(path, "rb") as f:
        yield from read_stream(f, source, strict=strict, notes=notes)


def read_text(text: str, source: str = "", *, strict: bool = False) -> Iterator[Record]:
    """Parse hand histories held in a string."""
    return read_lines(text.lstrip("\ufeff").replace("\r\n", "\n").split("\n"), source, strict=strict)


def hands(records: Iterable[Record]) -> Iterator[Hand]:
    """Only the hands."""
    return (r for r in records if isinstance(r, Hand))
