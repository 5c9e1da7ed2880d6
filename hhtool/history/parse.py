"""Reading one hand: the entry points, and the C reader configured from the table of line kinds.

:func:`parse_hand_text` (how the reader calls it), :func:`parse_hand` and
:func:`parse_text` read one hand.  Two readers stand behind them: the C reader
(``hhtool/_native/_scan.c``, see :func:`_accelerator`) reads the hands that occur
in practice, or declines a hand, which the Python builder
(:class:`hhtool.history.build.Builder`, the reference reading of the format) then
reads and, where the hand is wrong, says why.  ``tests/test_scan.py`` holds the
two to the same result on the whole differential corpus.
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from hhtool.history.build import MAX_HAND_LINES, Builder, header_problem
from hhtool.history.errors import HandParseError
from hhtool.history.events import Hand, Header, Seat, SeatOutcome, Summary, Table
from hhtool.history.grammar import rule_shapes, terminal_patterns
from hhtool.history.lines import LINE_KINDS, MAX_SEAT, Sections
from hhtool.history.money import MoneyStyle
from hhtool.history.zones import zone_info

__all__ = ["ACCELERATOR", "C_UNREAD", "MAX_HAND_LINES", "MAX_SEAT", "looks_like_header", "parse_hand", "parse_hand_text", "parse_text"]

_HEADER_START = re.compile(r"\S+ Hand #[A-Za-z0-9-]+: Telesina ")


def looks_like_header(line: str) -> bool:
    """Whether a line starts a hand (``<Site> Hand #<id>: Telesina ``): how the reader splits files."""
    return _HEADER_START.match(line) is not None


def header_accepted(head: Header) -> bool:
    """Whether the header's rules and forced bets agree (the C reader's question; it remembers the answer)."""
    return header_problem(head) is None


# ------------------------------------------------------------ the accelerator

_SCAN_CLASSES: tuple[type[Any], ...] = (Header, Table, Seat, SeatOutcome, Summary, Hand, MoneyStyle)
"""The classes ``_scan`` builds a hand from, in the order it numbers them; it checks each one's name and fields."""


def _class_shape(cls: type[Any]) -> str:
    return f"{cls.__name__}: {' '.join(f.name for f in dataclasses.fields(cls))}"


def _mask(place: Sections | None) -> int:
    return sum(1 << s for s, allowed in enumerate(place or ()) if allowed)


ScanKinds = list[tuple[str, str, tuple[str, ...], "type[Any] | None", "str | None", int, bool]]


def scan_kinds() -> ScanKinds:
    """The table of line kinds as the C reader is configured with it, one row per kind.

    ``(rule, shape, literals, event class, its fields, sections, stranger)``: the
    rule's shape and literal texts from the grammar (:func:`~hhtool.history.grammar.rule_shapes`),
    the class and the sections (a bit each) from :data:`~hhtool.history.lines.LINE_KINDS`,
    and whether the grammar also has the kind as chatter about someone not seated.
    """
    shapes, strangers = rule_shapes("line"), rule_shapes("stranger")
    rows: ScanKinds = []
    for kind in LINE_KINDS:
        shape = shapes[kind.rule]
        other = strangers.get(kind.rule)
        stranger = other is not None and other.literals == shape.literals and other.shape == shape.shape.replace("PLAYER", "STRANGER")
        cls = kind.event
        rows.append((kind.rule, shape.shape, shape.literals, cls, None if cls is None else _class_shape(cls), _mask(kind.place), stranger))
    return rows


C_UNREAD: tuple[str, ...] = ()
"""The line kinds the C reader does not read (no routine for their shape): hands holding them are read in Python."""


def _accelerator() -> Callable[[str, int, str], Hand | None] | None:
    """The C reader of common hands (``hhtool/_native/_scan.c``), configured; None when it is not built.

    Why: the per-line work of :class:`~hhtool.history.build.Builder` is
    interpreter work (several microseconds a line), and the parser's speed
    goal needs a whole hand in tens of microseconds.  The C reader builds the
    same events for the lines it knows and returns None for any hand with
    anything else -- an unusual line, a name it cannot place, anything that
    would be an error -- which the builder then reads.  It is configured
    from the table of line kinds and the grammar (:func:`scan_kinds`); a kind
    it has no routine for is named in :data:`C_UNREAD` and in a warning, since
    every hand holding it is read in Python.  ``HHTOOL_PURE=1`` builds
    nothing, and everything is read in Python.
    """
    global C_UNREAD
    try:
        from hhtool._native import _scan
    except ImportError:
        return None
    try:
        unread = configure_scan()
    except (TypeError, ValueError) as e:  # an event class or a terminal changed shape: _scan.c must follow
        warnings.warn(f"hhtool: the C parser is off ({e}); parsing in Python", RuntimeWarning, stacklevel=2)
        return None
    C_UNREAD = unread
    if unread:
        warnings.warn(
            f"hhtool: the C parser does not read the line kinds {', '.join(unread)}; hands holding them are read in Python",
            RuntimeWarning, stacklevel=2,
        )
    return _scan.parse_hand


def configure_scan(kinds: ScanKinds | None = None, terminals: dict[str, str] | None = None) -> tuple[str, ...]:
    """Configure the C reader (which must be built): the hand's classes, the line kinds, the grammar's terminals.

    Returns the kinds it does not read.  ``kinds`` and ``terminals`` default to
    :func:`scan_kinds` and the grammar's (the tests hand it others, to see it
    refuse them); raises ValueError or TypeError for a class or terminal it
    cannot read, after which it reads nothing until configured again.
    """
    from hhtool._native import _scan

    shapes = [(c, _class_shape(c)) for c in _SCAN_CLASSES]
    return _scan.configure(
        shapes, scan_kinds() if kinds is None else kinds, terminal_patterns() if terminals is None else terminals,
        zone_info, header_accepted,
    )


ACCELERATOR = _accelerator()
"""``_scan.parse_hand(text, first_line, source) -> Hand | None``, or None: set it to None to read every hand in Python."""


def parse_hand_text(text: str, *, first_line: int = 1, source: str = "") -> Hand:
    """:func:`parse_hand` for a hand given as its lines joined by ``\\n`` (how the reader holds it).

    The C accelerator reads the hand when it can (see :data:`ACCELERATOR`);
    otherwise, and for every hand that it declines, the Python builder does.
    """
    fast = ACCELERATOR
    if fast is not None:
        hand = fast(text, first_line, source)
        if hand is not None:
            return hand
    return Builder(text.split("\n"), first_line, source).parse()


def parse_hand(lines: Sequence[str], *, first_line: int = 1, source: str = "") -> Hand:
    """Parse one hand given as its lines (no line ends).

    ``first_line`` is the file line number of the header, so events carry
    file line numbers.  Raises :class:`~hhtool.history.errors.HandParseError`,
    :class:`~hhtool.history.errors.IncompleteHandError` or
    :class:`~hhtool.history.errors.InconsistentHandError`.

    >>> hand = parse_text(open("sample_histories/000_format_example.txt").read())
    >>> hand.header.hand_id, hand.summary.total
    ('C-1001', 1140)
    """
    if lines and not any("\n" in line for line in lines):
        return parse_hand_text("\n".join(lines), first_line=first_line, source=source)
    return Builder(lines, first_line, source).parse()


def parse_text(text: str, *, source: str = "") -> Hand:
    """Parse exactly one hand from text (surrounding blank lines are ignored)."""
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").split("\n")
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    end = len(lines)
    while end > start and not lines[end - 1].strip():
        end -= 1
    body = lines[start:end]
    for k, line in enumerate(body):
        if not line.strip():
            raise HandParseError(
                "a blank line inside the hand: parse_text reads one hand (use hhtool.history.reader for files)",
                line=start + k + 1, column=1, line_text=line, source=source,
            )
    return parse_hand(body, first_line=start + 1, source=source)
