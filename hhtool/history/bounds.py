"""The size bounds of what is read: the longest line, the largest hand, and zip archives (``docs/format-notes.md``).

Why bounds at all: a file is untrusted, and without them one line of a
hundred megabytes is held whole, split, matched and handed to Lark (whose
time and memory grow with the line: a 5 MB line once cost 9 s and 2.2 GB),
and an import stores it whole.  With them, a line or a hand over the bound
is cut where it is read: the hand becomes a failed hand whose kept text is
its first part, its error saying how long it was, and what follows is read
on; time and memory stay linear in the input and bounded.

The numbers: FORMAT.md's lines are short (a header, the longest, about 130
characters; a showdown outcome with long names under 300), and a chat line
(``<player> said, "…"``) is what rooms cap at a few hundred characters;
4,096 leaves more than ten times that, and Lark's cost on the worst line of
that length (spaces, ``[`` or ``(``) is a few milliseconds.  A real hand is
a few kilobytes (ten seats, five streets and chatter: under 20 KB);
262,144 characters is ten times the most talkative hand and still a small
allocation, so no real hand is refused and no hostile one costs more than a
quarter of a megabyte to keep.

A zip archive is bounded from what its central directory says before a
byte of a member is read: a few kilobytes of archive may claim gigabytes
(a zip bomb), and its directory may hold millions of entries, each of
which Python's :mod:`zipfile` keeps as an object of about half a kilobyte.
Histories come one file a table and day or session, some rooms one file
a hand: a year of a busy player's hands is a few hundred thousand files
at most, so an archive of more than a million entries is not a history
archive.  A history file of a day of multi-tabling is tens of megabytes;
a member of more than a gigabyte is not one.  Histories compress 10 to
40 times (deflate to bzip2, measured on simulated tables and players' own
views); zeros compress 1,032 times with deflate and thousands of times
with bzip2 or LZMA: 200 refuses no history, refuses what expands like a
bomb, and bounds what an archive makes the import read to 200 times its
size.  A member or an archive of a megabyte or less is read whatever its
ratio: it costs what a small file does.
"""

from __future__ import annotations

from typing import Final

MAX_LINE_CHARS: Final = 4_096
"""The longest line accepted, in characters (its line end not counted)."""

MAX_HAND_CHARS: Final = 262_144
"""The largest hand accepted, in characters, every line end counted (``len`` of its raw text)."""

MAX_CHAR_BYTES: Final = 4
"""Bytes of the longest UTF-8 character: a stretch of ``4 * n`` bytes holds at least ``n`` characters."""


def line_too_long(length: int) -> str:
    """The error for a line over :data:`MAX_LINE_CHARS` (its number is the error's location)."""
    return f"the line is {length:,} characters long; the longest accepted is {MAX_LINE_CHARS:,}"


def hand_too_large(size: int) -> str:
    """The error for a hand over :data:`MAX_HAND_CHARS`."""
    return f"the hand is {size:,} characters long; the largest accepted is {MAX_HAND_CHARS:,}"


MAX_ARCHIVE_MEMBERS: Final = 1_000_000
"""The most entries (files and folders) a zip archive read may have: an archive with more is not read at all."""

MAX_MEMBER_BYTES: Final = 1 << 30
"""The largest zip member read, in bytes uncompressed (1 GiB), as the archive's directory gives it."""

MAX_COMPRESSION_RATIO: Final = 200
"""The most a zip member, or an archive's members together, may expand: uncompressed bytes over compressed ones."""

RATIO_FREE_BYTES: Final = 1 << 20
"""Uncompressed bytes (1 MiB) up to which a member or an archive is read whatever its ratio: no more work than a small file."""


def too_many_members() -> str:
    """Why an archive whose directory has more than :data:`MAX_ARCHIVE_MEMBERS` entries is not read."""
    return (
        f"a zip archive of more than {MAX_ARCHIVE_MEMBERS:,} entries: at most {MAX_ARCHIVE_MEMBERS:,} are read from one archive; "
        "none of it was read (split it into smaller archives)"
    )


def member_too_large(size: int) -> str:
    """Why a zip member over :data:`MAX_MEMBER_BYTES` is not read."""
    return f"a zip member of {size:,} bytes uncompressed: the largest read is {MAX_MEMBER_BYTES:,}; not read (extract it and import the file)"


def too_compressed(what: str, size: int, packed: int) -> str:
    """Why a member or an archive (``what``) that would expand more than :data:`MAX_COMPRESSION_RATIO` times is not read."""
    return (
        f"{what} that expands {size / max(packed, 1):,.0f} times ({packed:,} bytes to {size:,} uncompressed): "
        f"more than {MAX_COMPRESSION_RATIO:,} times is taken for a zip bomb; not read"
    )
