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

import contextlib
import dataclasses
import re
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from hhtool.game.rules import STREET_NAMES
from hhtool.history.build import FOLD_STREET_OF, MAX_HAND_LINES, OUTCOME_OF, STRUCTURE_OF, Builder, exposure_of, header_problem
from hhtool.history.errors import HandParseError
from hhtool.history.events import Hand, Header, Seat, SeatOutcome, Summary, Table
from hhtool.history.grammar import PLACEHOLDER, rule_shapes, terminal_patterns, terminal_words
from hhtool.history.lines import LINE_KINDS, MAX_SEAT, LineProblem, Money, Sections, c_collect, c_outcome, c_post_blind, c_street
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


ScanKinds = list[tuple[str, str, tuple[str, ...], "type[Any] | None", "str | None", int, bool, "str | None"]]

_LINE_STARTS = ("header", "table", "seat")
"""The start symbols before the body whose rules the C reader is configured with too (it reads them its own way)."""


def scan_kinds(grammar: str | None = None) -> ScanKinds:
    """The line kinds as the C reader is configured with them, one row per kind.

    ``(rule, shape, literals, event class, its fields, sections, stranger, value)``:
    the rule's shape and literal texts from the grammar
    (:func:`~hhtool.history.grammar.rule_shapes`), the class and the sections (a
    bit each) from :data:`~hhtool.history.lines.LINE_KINDS`, whether the grammar
    also has the kind as chatter about someone not seated, and what the kind
    stands for in its event (a seat outcome's ``outcome``), else None.  Then
    the rules of the header, table and seat lines, with no class.  ``grammar``:
    another grammar's text (the tests configure the C reader with other words).
    """
    shapes, strangers = rule_shapes("line", grammar), rule_shapes("stranger", grammar)
    rows: ScanKinds = []
    for kind in LINE_KINDS:
        shape = shapes[kind.rule]
        other = strangers.get(kind.rule)
        stranger = other is not None and other.literals == shape.literals and other.shape == shape.shape.replace("PLAYER", "STRANGER")
        cls = kind.event
        rows.append((kind.rule, shape.shape, shape.literals, cls, None if cls is None else _class_shape(cls), _mask(kind.place), stranger, OUTCOME_OF.get(kind.rule)))
    for start in _LINE_STARTS:
        for rule, shape in rule_shapes(start, grammar).items():
            rows.append((rule, shape.shape, shape.literals, None, None, 0, False, None))
    return rows


Word = tuple[str, object, int]
"""One word of a terminal as the C reader takes it: the text, what the Python builder converts it to, a number."""

_NO_MONEY = Money("", False)
_SOMEONE = f"{PLACEHOLDER}00"


def _street(word: str) -> tuple[object, int]:
    index: int = c_street(_NO_MONEY, (word,))[0]
    return STREET_NAMES[index], index


_WORD_VALUES: dict[tuple[str, int], Callable[[str], tuple[object, int]]] = {
    ("AMOUNT", 0): lambda w: (w, 0),  # a currency sign: MoneyStyle.symbol is the sign as written
    ("SEAT_NAME", 1): lambda w: (w, 0),
    ("PROFILE", 0): lambda w: (w, 0),
    ("EXPOSURE", 0): lambda w: (exposure_of(w or None), 0),
    ("STRUCTURE", 0): lambda w: (STRUCTURE_OF[w], 0),
    ("BLIND", 0): lambda w: (c_post_blind(_NO_MONEY, (_SOMEONE, w, "0", None))[1], 0),
    ("BLIND_MARK", 0): lambda w: (c_outcome(_NO_MONEY, ("1", _SOMEONE, None, w))[3], 0),
    ("FOLD_STREET", 0): lambda w: (FOLD_STREET_OF[w], 0),
    ("STREET_NAME", 0): _street,
    ("POT", 0): lambda w: (c_collect(_NO_MONEY, (_SOMEONE, "0", f"{w}1"))[2], 0),
    ("POT", 1): lambda w: (c_collect(_NO_MONEY, (_SOMEONE, "0", w))[2], 0),
}
"""What each word of a choice becomes, by (terminal, hole): the Python builder's own conversion of it.

STREET_NAME's number is the street's index (the order of the streets);
EXPOSURE's words end with ``""``, the header without one.
"""


def scan_terminals(patterns: dict[str, str] | None = None) -> dict[str, tuple[tuple[Word, ...], ...]]:
    """The words of the terminals the C reader reads by hand, taken from the grammar's patterns.

    Each terminal's pattern is fitted to the skeleton ``_scan.TERMINALS``
    declares (:func:`~hhtool.history.grammar.terminal_words`); each word goes
    with the value the Python builder converts it to (:data:`_WORD_VALUES`,
    None for a plain text).  Raises ValueError for a pattern of another
    structure, or a word the builder has no value for.
    """
    from hhtool._native import _scan

    patterns = terminal_patterns() if patterns is None else patterns
    out: dict[str, tuple[tuple[Word, ...], ...]] = {}
    for name, skeleton in _scan.TERMINALS.items():
        pattern = patterns.get(name)
        try:
            if pattern is None:
                raise ValueError("the grammar has no such terminal")
            holes = terminal_words(skeleton, pattern, patterns)
            words: list[tuple[Word, ...]] = []
            for i, hole in enumerate(holes):
                if name == "EXPOSURE":
                    hole = (*hole, "")
                value = _WORD_VALUES.get((name, i))
                words.append(tuple((w, *value(w)) if value else (w, None, 0) for w in hole))
        except (ValueError, KeyError, LineProblem) as e:
            raise ValueError(f"the grammar's terminal {name} is not the one _scan.c reads: {e}") from None
        out[name] = tuple(words)
    return out


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
    from the table of line kinds and the grammar (:func:`scan_kinds`,
    :func:`scan_terminals`); a kind
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
    except (TypeError, ValueError, AttributeError) as e:  # an event class or a terminal changed shape, or _scan was built from older sources
        warnings.warn(f"hhtool: the C parser is off ({e}); parsing in Python", RuntimeWarning, stacklevel=2)
        return None
    C_UNREAD = unread
    if unread:
        warnings.warn(
            f"hhtool: the C parser does not read the line kinds {', '.join(unread)}; hands holding them are read in Python",
            RuntimeWarning, stacklevel=2,
        )
    return _scan.parse_hand


def configure_scan(kinds: ScanKinds | None = None, terminals: dict[str, str] | None = None, *, grammar: str | None = None) -> tuple[str, ...]:
    """Configure the C reader (which must be built): the hand's classes, the line kinds, the terminals' words.

    Returns the kinds it does not read.  ``kinds`` and ``terminals`` (the
    grammar's terminal patterns) default to :func:`scan_kinds` and the
    grammar's, ``grammar`` to ``telesina.lark``'s text (the tests hand it
    others: a grammar with other words, which the C reader then reads, or a
    terminal of another structure, which it refuses); raises ValueError or
    TypeError for a class or terminal it cannot read, after which it reads
    nothing until configured again.
    """
    from hhtool._native import _scan

    shapes = [(c, _class_shape(c)) for c in _SCAN_CLASSES]
    rows = scan_kinds(grammar) if kinds is None else kinds
    try:
        words = scan_terminals(terminal_patterns(grammar) if terminals is None else terminals)
    except ValueError:
        # configured with no words, which it refuses: it then reads nothing, as after any refusal
        with contextlib.suppress(ValueError):
            _scan.configure(shapes, rows, {}, zone_info, header_accepted)
        raise
    return _scan.configure(shapes, rows, words, zone_info, header_accepted)


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
