"""The size bounds of what is read: the longest line and the largest hand (``docs/format-notes.md``).

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
