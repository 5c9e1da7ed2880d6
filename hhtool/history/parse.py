"""One hand's lines to a :class:`~hhtool.history.events.Hand`.

The order of lines in a hand (FORMAT.md, "Lines, in order"), as checked here:

1. the header (start symbol ``header``), then the table line (``table``);
2. one or more seat lines (``seat``), which define the player names;
3. body lines (``line``): forced bets and chatter, then ``*** 2nd STREET ***``
   and later streets in order, the vela, ``*** SHOW DOWN ***``; actions,
   deals, uncalled bets, collections and chatter anywhere after the first
   street (collections and uncalled bets also before it, for a hand won
   by the forced bets alone);
4. ``*** SUMMARY ***``, ``Total pot``, optionally ``Main pot ...``,
   optionally ``Vela [..]``, then exactly one ``Seat`` outcome per seat, in
   seat order.

Names: before a body line is given to the grammar, the name of a seated
player is replaced by a PLAYER placeholder (see ``grammars/telesina.lark``).
Where a name can stand is known -- at the start of the line, after
``Dealt to `` or ``Seat <k>: ``, at the end of ``Uncalled bet (..) returned
to`` -- and the names are tried longest first, so ``bob smith: folds`` is
bob smith's line even when bob sits at the table too.  If no seated name
gives a line the grammar accepts, the line is tried as chatter about
someone not seated (``stranger``); if that fails too, Lark parses the line
to say where it breaks and what it expected.

Speed: most hands never reach this module's line loop.  A C accelerator
(``hhtool/_native/_scan.c``, see :func:`_accelerator`) reads a whole hand the way
described here and builds the same events, or declines the hand, which
this module then reads; tests/test_scan.py holds the two to the same result.
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from hhtool.history.bounds import MAX_LINE_CHARS, line_too_long
from hhtool.game.cards import Card, parse_card
from hhtool.history.errors import HandHistoryError, HandParseError, IncompleteHandError, InconsistentHandError, OutOfRangeError
from hhtool.history.events import (
    STREET_NAMES,
    Bet,
    BettingCapped,
    BringIn,
    Call,
    Check,
    Collected,
    Complete,
    Deal,
    DoesNotShow,
    DoubleBetAllowed,
    Disconnected,
    Event,
    Expose,
    Fold,
    FoldStreet,
    Hand,
    Header,
    Joins,
    Leaves,
    Mucks,
    OutcomeKind,
    PostAnte,
    PostBlind,
    RaiseTo,
    Said,
    Seat,
    SeatOutcome,
    Shows,
    ShowDown,
    Street,
    Summary,
    Table,
    TimedOut,
    UncalledBet,
    Vela,
)
from hhtool.history.grammar import PLACEHOLDER, Tokens, describe_terminal, lark_match, matcher
from hhtool.history.money import AmountError, AmountRangeError, MoneyStyle, split_amount, to_units
from hhtool.game.rules import RulesError
from hhtool.history.zones import ZoneError, parse_time, zone_info

if TYPE_CHECKING:
    from hhtool.history.grammar import LineMatcher

MAX_SEAT = 99
"""The largest seat number, table size (``<n>-max``), button seat, side-pot number and
``joins the table at seat #<n>`` accepted (docs/format-notes.md, "Bounds"): seats are TINYINT
columns, and no room seats a hundred players at one table."""

MAX_HAND_LINES = 32_767
"""The most lines a hand may have (docs/format-notes.md, "Bounds"): the order of a money line
within its hand is a SMALLINT column, and :data:`hhtool.history.money.MAX_AMOUNT` times it bounds every
sum within a hand."""

_SEAT_DIGITS = len(str(MAX_SEAT))

_HAND_ID = re.compile(r" Hand #([A-Za-z0-9-]+)")
_SEAT_PREFIX = re.compile(r"Seat [0-9]+: ")
_SIDE_POT = re.compile(r" Side pot-([0-9]+) ([^ ]+?)\.(?= |$)")
_HEADER_START = re.compile(r"\S+ Hand #[A-Za-z0-9-]+: Telesina ")

_STRUCTURES = {"Fixed Limit": "fixed", "Pot Limit": "pot", "No Limit": "no"}
_FOLD_STREETS: dict[str, FoldStreet] = {
    "on 2nd Street": "2nd", "on 3rd Street": "3rd", "on 4th Street": "4th",
    "on 5th Street": "5th", "on the Vela": "vela",
}
_EXPOSURES = {" [carte coperte]": "carte_coperte", " [una coperta]": "una_coperta"}

# Sections of the body, in order.
_PRE, _STREETS, _SHOWDOWN, _SUMMARY = range(4)
_AFTER_NAME = (":", " ")
_AFTER_NAME_INSIDE = (" ", "")

_CARD_OF: dict[str, Card] = {r + u: parse_card(r + u) for r in "23456789TJQKA" for u in "hdcs"}


_CARD_PAIRS: dict[str, tuple[Card, ...]] = {a + " " + b: (_CARD_OF[a], _CARD_OF[b]) for a in _CARD_OF for b in _CARD_OF}
_CARD_PAIRS.update((a, (c,)) for a, c in _CARD_OF.items())


def _cards(text: str) -> tuple[Card, ...]:
    """``"Qc Qs 9c"`` -> cards (the grammar guarantees the shape): one lookup per two cards."""
    if len(text) <= 5:
        return _CARD_PAIRS[text]
    pairs = _CARD_PAIRS
    out = pairs[text[:5]]
    for i in range(6, len(text), 6):
        out += pairs[text[i : i + 5]]
    return out


_LINE_CACHE_SIZE = 50_000
_HEADER_CACHE_SIZE = 10_000
_DEAL_CACHE_SIZE = 20_000

_HEADER_PARTS = re.compile(
    r"(\S+ Hand #)[A-Za-z0-9][A-Za-z0-9-]*(: .*) ([0-9]{4}/[0-9]{2}/[0-9]{2}) ([0-9]{2}:[0-9]{2}:[0-9]{2})( \S+)"
)
"""A header cut around its hand id (HAND_ID), date (DATE) and time (TIME), which change every hand."""
_HEADER_TEMPLATE_ID, _HEADER_TEMPLATE_WHEN = "0", " 2000/01/01 00:00:00"
_HEADER_TEMPLATES: dict[str, tuple[str, Tokens] | None] = {}
_LINE_MATCHES: dict[tuple[str, str], Tokens] = {}
_HEADER_INFO: dict[str, tuple[Header, str, bool, bool, bool]] = {}
"""Header template -> a header read in full from it (id, date, time aside) and the money it set."""


def _match_header(text: str) -> tuple[str, Tokens] | None:
    """``matcher("header").match(text)``, through a cache of header templates.

    The hand id, date and time are delimited by literals that they cannot
    contain, so replacing them with other text of the same terminals keeps
    a header valid (or invalid); the header is matched once per template,
    with its tokens put back.  ``tests/test_grammar.py`` checks the two
    routes agree.
    """
    cut = _HEADER_PARTS.fullmatch(text)
    if cut is None:
        return matcher("header").match(text)
    site_part, middle, date, time, zone_part = cut.groups()
    key = site_part + _HEADER_TEMPLATE_ID + middle + _HEADER_TEMPLATE_WHEN + zone_part
    if key in _HEADER_TEMPLATES:
        hit = _HEADER_TEMPLATES[key]
    else:
        hit = matcher("header").match(key)
        if len(_HEADER_TEMPLATES) >= _HEADER_CACHE_SIZE:
            _HEADER_TEMPLATES.clear()
        _HEADER_TEMPLATES[key] = hit
    if hit is None:
        return None
    name, v = hit
    hand_id = text[len(site_part) : len(text) - len(middle) - len(date) - len(time) - len(zone_part) - 2]
    return name, (v[0], hand_id, *v[2:11], date, time, *v[13:])


def looks_like_header(line: str) -> bool:
    """Whether a line starts a hand (``<Site> Hand #<id>: Telesina ``): how the reader splits files."""
    return _HEADER_START.match(line) is not None


def _header_problem(head: Header) -> tuple[str, str | None] | None:
    """What is wrong with a header's profile, options and forced bets (message, text to point at), or None.

    One function for both readers: the Python builder raises it as an
    error, the C accelerator (``_scan``) asks :func:`_header_accepted`.
    """
    prof = head.profile
    try:
        rules = head.ruleset()
    except RulesError as e:
        return str(e), None
    antes = head.ante is not None
    if rules.forced_bets == "blinds" and antes:
        return f"the {prof} profile uses blinds, not antes", " - ante"
    if rules.forced_bets == "antes" and not antes:
        return f"the {prof} profile uses antes, not blinds", " - blinds"
    if rules.bring_in and head.bring_in is None:
        return f"the {prof} profile needs a bring-in: '- ante <a>, bring-in <b> -'", None
    if not rules.bring_in and head.bring_in is not None:
        return f"the {prof} profile has no bring-in", ", bring-in"
    return None


def _header_accepted(head: Header) -> bool:
    """Whether the header's rules and forced bets agree (the accelerator's question; it remembers the answer)."""
    return _header_problem(head) is None


class _Names(dict[str, str]):
    """Placeholder -> seated name; any other token is a name as written (a stranger's)."""

    def __missing__(self, token: str) -> str:
        return token


class _Builder:
    """Reads one hand's lines in order; raises a HandHistoryError on the first problem."""

    def __init__(self, lines: Sequence[str], first_line: int, source: str, text: str | None = None) -> None:
        self.lines = lines
        self.hand_text = "\n".join(lines) if text is None else text  # the lines joined by "\n"
        self.first_line = first_line
        self.source = source
        self.hand_id: str | None = None
        self.symbol = ""
        self.cents = False
        self.decimals = False
        self.grouping = False
        self.tokens: dict[str, str] = _Names()
        self.seat_player: dict[int, str] = {}
        self.names: list[tuple[str, str, int]] = []  # (name, placeholder, length), longest first
        self.by_first: dict[str, list[tuple[str, str, int]]] = {}  # the same, by first character
        self.events: list[Event] = []
        self.section = _PRE
        self.street = -1
        self.lineno = first_line
        self.text = ""
        # summary parts
        self.summary_line = 0
        self.total: tuple[int, int] | None = None
        self.main_pot: int | None = None
        self.side_pots: tuple[int, ...] = ()
        self.summary_vela: Card | None = None
        self.outcomes: list[SeatOutcome] = []

    # ------------------------------------------------------------ errors

    def error(self, cls: type[HandHistoryError], message: str, column: int | None = None, **kw: object) -> HandHistoryError:
        """An error at line ``self.lineno``, quoting that line."""
        k = self.lineno - self.first_line
        return cls(
            message,
            line=self.lineno,
            column=column,
            line_text=self.lines[k] if 0 <= k < len(self.lines) else self.text,
            hand_id=self.hand_id,
            source=self.source,
            **kw,  # type: ignore[arg-type]
        )

    def column_of(self, token: str) -> int | None:
        i = self.text.find(token)
        return i + 1 if i >= 0 else None

    def syntax_error(self, start: str, text: str, at: int = -1, name_len: int = 0) -> HandHistoryError:
        """Ask Lark where ``text`` (``self.text`` with a name replaced at ``at``) breaks."""
        from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

        if len(self.text) > MAX_LINE_CHARS:  # Lark's time and memory grow fast with the line (the reader cuts such hands first)
            return self.error(HandParseError, line_too_long(len(self.text)), MAX_LINE_CHARS + 1)
        try:
            lark_match(start, text)
        except UnexpectedInput as e:
            expected: set[str] = set()
            column = getattr(e, "column", None)
            if isinstance(e, UnexpectedCharacters):
                expected = set(e.allowed or ())
            elif isinstance(e, UnexpectedToken):
                expected = set(e.expected or ())
                if e.token.type == "$END":
                    column = len(text) + 1
            elif isinstance(e, UnexpectedEOF):
                expected = set(e.expected or ())
                column = len(text) + 1
            if not isinstance(column, int) or column < 1:
                column = len(text) + 1
            if at >= 0 and column > at + 1:
                placeholder_len = len(text) - (len(self.text) - name_len)
                column = max(at + 1, column - placeholder_len + name_len)
            words = tuple(sorted(describe_terminal(t) for t in expected))
            near = self.text[column - 1 : column + 19]
            what = f"unexpected text {near!r}" if near else "the line ends too soon"
            return self.error(HandParseError, f"{what} at column {column}", column, expected=words)
        # Lark accepts what the fast matcher refused: a bug, reported as one.
        return self.error(HandParseError, "the fast matcher and the grammar disagree on this line", 1)

    # ------------------------------------------------------------ tokens

    def amount(self, text: str) -> int:
        """An amount in the header or a seat line (body lines go through the converter)."""
        converter = _converter(self.symbol, self.cents)
        converter.dec = converter.grp = False
        try:
            value = converter.amount(text)
        except _LineProblem as e:
            raise self.error(e.cls, str(e), self.column_of(text)) from None
        if converter.dec:
            self.decimals = True
        if converter.grp:
            self.grouping = True
        return value

    def number(self, token: str | None, what: str) -> int:
        """A seat number or table size of the table or a seat line, at most :data:`MAX_SEAT`."""
        try:
            return _seat_number(token, what)
        except _LineProblem as e:
            raise self.error(e.cls, str(e), self.column_of(e.token) if e.token else None) from None

    def who(self, token: str) -> str:
        """The seated name for a placeholder; a stranger's name as written."""
        return self.tokens.get(token, token)

    def player(self, token: str | None) -> str:
        assert token is not None
        if token[:1] == PLACEHOLDER:
            return self.tokens[token]
        return token

    # ------------------------------------------------------------ lines

    def match(self, start: str, text: str) -> Tokens:
        """Tokens of a table or seat line (cached: rooms repeat them)."""
        hit = _LINE_MATCHES.get((start, text))
        if hit is not None:
            return hit
        m = matcher(start).match(text)
        if m is None:
            raise self.syntax_error(start, text)
        if len(_LINE_MATCHES) >= _LINE_CACHE_SIZE:
            _LINE_MATCHES.clear()
        _LINE_MATCHES[(start, text)] = m[1]
        return m[1]

    def header(self) -> Header:
        """The header line; what it says apart from its id, date and time is cached per template."""
        self.text = text = self.lines[0]
        cut = _HEADER_PARTS.fullmatch(text)
        if cut is None:
            return self.header_in_full()
        site_part, middle, date, time, zone_part = cut.groups()
        key = site_part + _HEADER_TEMPLATE_ID + middle + _HEADER_TEMPLATE_WHEN + zone_part
        known = _HEADER_INFO.get(key)
        if known is None:
            head = self.header_in_full()
            if len(_HEADER_INFO) >= _HEADER_CACHE_SIZE:
                _HEADER_INFO.clear()
            _HEADER_INFO[key] = (head, self.symbol, self.cents, self.decimals, self.grouping)
            return head
        head, self.symbol, self.cents, self.decimals, self.grouping = known
        self.hand_id = hand_id = text[len(site_part) : len(text) - len(middle) - len(date) - len(time) - len(zone_part) - 2]
        try:
            started = parse_time(date, time, head.zone)
        except ZoneError:
            return self.header_in_full()
        return Header(
            self.first_line, head.site, hand_id, head.profile, head.vela_at_start, head.wild, head.exposure,
            head.structure, head.small_bet, head.big_bet, head.ante, head.bring_in, head.small_blind,
            head.big_blind, started, head.zone,
        )

    def header_in_full(self) -> Header:
        m = _match_header(self.text)
        if m is None:
            known = _HAND_ID.search(self.text)
            self.hand_id = known.group(1) if known else None
            raise self.syntax_error("header", self.text)
        name, v = m
        site, hand_id, prof, vela, wild, exposure, structure, small, big = v[:9]
        assert site and hand_id and prof and structure and small and big
        self.hand_id = hand_id
        raws = [split_amount(t) for t in v[9:11] if t] + [split_amount(small), split_amount(big)]
        self.symbol = raws[-2].symbol
        self.cents = bool(self.symbol) or any(r.hundredths is not None for r in raws)
        first, second = v[9], v[10]
        assert first
        a1 = self.amount(first)
        a2 = None if second is None else self.amount(second)
        date, time, zone = v[11], v[12], v[13]
        assert date and time and zone
        try:
            started = parse_time(date, time, zone)
        except ZoneError as e:
            raise self.error(HandParseError, str(e), self.column_of(zone)) from None
        if wild is not None:
            from hhtool.game.cards import parse_rank

            wild_rank: int | None = parse_rank(wild[7:-1])
        else:
            wild_rank = None
        antes = name == "header_antes"
        head = Header(
            line=self.first_line,
            site=site,
            hand_id=hand_id,
            profile=prof,
            vela_at_start=vela is not None,
            wild=wild_rank,
            exposure=_EXPOSURES[exposure] if exposure else "standard",  # type: ignore[arg-type]
            structure=_STRUCTURES[structure],  # type: ignore[arg-type]
            small_bet=self.amount(small),
            big_bet=self.amount(big),
            ante=a1 if antes else None,
            bring_in=a2 if antes else None,
            small_blind=None if antes else a1,
            big_blind=None if antes else a2,
            started=started,
            zone=zone,
        )
        problem = _header_problem(head)
        if problem is not None:
            message, token = problem
            raise self.error(InconsistentHandError, message, self.column_of(token) if token else None)
        return head

    def parse(self) -> Hand:
        lines = self.lines
        if not lines:
            raise HandParseError("empty hand", source=self.source)
        header = self.header()
        if len(lines) < 2:
            raise IncompleteHandError("the hand ends after its header", line=self.first_line, hand_id=self.hand_id, source=self.source)
        self.lineno = self.first_line + 1
        self.text = lines[1]
        if len(lines) > MAX_HAND_LINES:
            self.lineno = self.first_line + MAX_HAND_LINES
            self.text = lines[MAX_HAND_LINES]
            raise self.error(OutOfRangeError, f"the hand has {len(lines):,} lines; the most accepted is {MAX_HAND_LINES:,}")
        t = self.match("table", self.text)
        table = Table(self.lineno, t[0] or "", self.number(t[1], "the table size"), self.number(t[2], "the button seat"))
        seats: list[Seat] = []
        i = 2
        while i < len(lines) and lines[i].startswith("Seat "):
            self.lineno = self.first_line + i
            self.text = lines[i]
            s = self.match("seat", self.text)
            seats.append(Seat(self.lineno, self.number(s[0], "the seat number"), s[1] or "", self.amount(s[2] or "")))
            i += 1
        self.check_seats(table, seats)
        self.tokens = _Names((f"{PLACEHOLDER}{k:02d}", s.player) for k, s in enumerate(seats))
        self.seat_player = {s.seat: s.player for s in seats}
        self.names = sorted(
            ((s.player, f"{PLACEHOLDER}{k:02d}", len(s.player)) for k, s in enumerate(seats)), key=lambda p: -p[2]
        )
        for entry in self.names:
            self.by_first.setdefault(entry[0][:1], []).append(entry)
        if i < len(lines):
            self.body(i, seats)
        self.lineno = self.first_line + len(lines) - 1
        if self.section != _SUMMARY:
            raise self.error(IncompleteHandError, "the hand ends before its *** SUMMARY ***")
        if self.total is None:
            raise self.error(IncompleteHandError, "the summary has no 'Total pot' line")
        if len(self.outcomes) < len(seats):
            raise self.error(IncompleteHandError, f"the summary lists {len(self.outcomes)} of {len(seats)} seats")
        summary = Summary(
            self.summary_line, self.total[0], self.total[1], self.main_pot,
            self.side_pots, self.summary_vela, tuple(self.outcomes),
        )
        money = MoneyStyle(self.symbol, self.cents, self.decimals, self.grouping)
        return Hand(header, table, tuple(seats), tuple(self.events), summary, money, self.source)

    def body(self, start: int, seats: list[Seat]) -> None:
        """Read the body lines: replace names in the whole body at once, then line by line.

        ``str.replace`` over the body puts placeholders where a seated name
        starts a line, follows ``Dealt to `` or, in a summary outcome,
        follows its own ``Seat <k>: `` (only when no seated name is a
        prefix of another, so that the name is the only reading).  A line
        that then fails (a name elsewhere, an ambiguous name, a name
        quoted in chat) is read again from its original text by
        :meth:`body_line`, which tries every place a name can stand.

        Matched and converted lines are cached per money style, since
        rooms repeat lines across hands: a cached line of a common kind
        (an action, a deal, a forced bet, chatter) is a tuple that says in
        which sections of the hand it may stand and how to build its event,
        so most lines cost a dictionary lookup, a table check and the
        event's construction.  The other kinds (streets, the vela, the
        summary) go through their builder functions, which check the order.
        """
        text = self.hand_text
        pos = 0
        for _ in range(start):
            pos = text.index("\n", pos) + 1
        body = "\n" + text[pos:]
        for name, token, _ in self.names:
            body = (
                body.replace("\n" + name + ":", "\n" + token + ":")
                .replace("\n" + name + " ", "\n" + token + " ")
                .replace("Dealt to " + name + " [", "Dealt to " + token + " [")
            )
        if _outcomes_by_seat(self.names):
            for k, s in enumerate(seats):
                head = f"\nSeat {s.seat}: "
                body = body.replace(head + s.player + " ", f"{head}{PLACEHOLDER}{k:02d} ")
        subs = body.split("\n")
        converter = _converter(self.symbol, self.cents)
        get = converter.fast.get
        tokens = self.tokens
        append = self.events.append
        section = self.section
        flags = 0
        lineno = self.first_line + start
        for j in range(start, len(self.lines)):
            sub = subs[j - start + 1]
            hit = get(sub)
            if hit is None:
                try:
                    hit = converter.fast_hit(sub)
                except _LineProblem as e:
                    self.lineno = lineno
                    self.text = self.lines[j]
                    raise self.error(e.cls, str(e), self.column_of(e.token) if e.token else 1) from None
            ok = hit[0]
            if ok is not None and ok[section]:
                append(hit[1](lineno, tokens[hit[2]], *hit[3]))
                flags |= hit[4]
            else:
                self.section = section
                self.slow_line(hit, lineno, j)
                section = self.section
            lineno += 1
        if flags & 1:
            self.decimals = True
        if flags & 2:
            self.grouping = True

    def slow_line(self, hit: FastHit, lineno: int, j: int) -> None:
        """A line the table cannot take: a kind with its own builder, a line out of place, or one to read again."""
        build = hit[5]
        if build is not None:
            if hit[4] & 1:
                self.decimals = True
            if hit[4] & 2:
                self.grouping = True
            args = hit[6]
        else:
            self.lineno = lineno
            self.text = self.lines[j]
            converter = _converter(self.symbol, self.cents)
            m = self.body_line(converter.matcher)
            try:
                build, args, dec, grp = converter.convert(m)
            except _LineProblem as e:
                raise self.error(e.cls, str(e), self.column_of(e.token) if e.token else 1) from None
            if dec:
                self.decimals = True
            if grp:
                self.grouping = True
        if build(self, lineno, args):
            # the line needs its original text (chatter quoting a name): read it alone
            self.lineno = lineno
            self.text = self.lines[j]
            converter = _converter(self.symbol, self.cents)
            build, args, _, _ = converter.convert(self.body_line(converter.matcher))
            build(self, lineno, args)

    def check_seats(self, table: Table, seats: list[Seat]) -> None:
        if not seats:
            self.lineno = self.first_line + 2
            self.text = self.lines[2] if len(self.lines) > 2 else ""
            if len(self.lines) <= 2:
                raise self.error(IncompleteHandError, "the hand ends before its seat lines")
            raise self.syntax_error("seat", self.text)
        numbers: set[int] = set()
        names: set[str] = set()
        for s in seats:
            self.lineno, self.text = s.line, self.lines[s.line - self.first_line]
            if s.seat in numbers:
                raise self.error(InconsistentHandError, f"seat {s.seat} appears twice", 6)
            if not 1 <= s.seat <= table.max_seats:
                raise self.error(InconsistentHandError, f"seat {s.seat} does not exist at a {table.max_seats}-max table", 6)
            if s.player in names:
                raise self.error(InconsistentHandError, f"player {s.player!r} is seated twice")
            numbers.add(s.seat)
            names.add(s.player)

    def body_line(self, line_matcher: LineMatcher) -> tuple[str, Tokens]:
        """Match a body line against the seated names; see the module docstring."""
        text = self.text
        first_try: tuple[str, int, int] | None = None
        for name, token, n in self.by_first.get(text[:1], ()):
            if text.startswith(name) and text[n : n + 1] in _AFTER_NAME:
                sub = token + text[n:]
                m = line_matcher.match(sub)
                if m is not None:
                    return m
                if first_try is None:
                    first_try = (sub, 0, n)
        prefix = 0
        if text.startswith("Dealt to "):
            prefix = 9
        elif text.startswith("Seat "):
            sm = _SEAT_PREFIX.match(text)
            prefix = sm.end() if sm else 0
        if prefix:
            for name, token, n in self.by_first.get(text[prefix : prefix + 1], ()):
                end = prefix + n
                if text.startswith(name, prefix) and text[end : end + 1] in _AFTER_NAME_INSIDE:
                    sub = text[:prefix] + token + text[end:]
                    m = line_matcher.match(sub)
                    if m is not None:
                        return m
                    if first_try is None:
                        first_try = (sub, prefix, n)
        elif text.startswith("Uncalled bet ("):
            for name, token, n in self.names:
                if text.endswith(name) and text.endswith(" returned to " + name):
                    at = len(text) - n
                    sub = text[:at] + token
                    m = line_matcher.match(sub)
                    if m is not None:
                        return m
                    if first_try is None:
                        first_try = (sub, at, n)
        m = line_matcher.match(text)
        if m is not None:
            return m
        m = matcher("stranger").match(text)
        if m is not None:
            return m
        if first_try is not None:
            raise self.syntax_error("line", *first_try)
        unseated = self.unseated_name(line_matcher, prefix)
        if unseated is not None:
            seated = [n for n, _, _ in sorted(self.names, key=lambda t: t[1])]
            raise self.error(
                InconsistentHandError,
                f"{unseated} is not seated at this table (seated: {', '.join(seated)})",
                prefix + 1,
            )
        raise self.syntax_error("line", text)

    def unseated_name(self, line_matcher: LineMatcher, prefix: int) -> str | None:
        """The name a line would be read with if that player were seated (``zed: folds``), else None.

        Only on the error path: each place a name can end (before ``:``, a
        space or `` [``) is tried with a seated player's placeholder, and
        the line is the unseated player's if that reads.
        """
        text, token = self.text, self.names[0][1] if self.names else ""
        if not token or len(text) > MAX_LINE_CHARS:  # the line's length is its error, said by syntax_error
            return None
        # a bounded search (it only words an error): the first places a name of up to _NAME_GUESS characters can end
        ends = [end for end in range(prefix + 1, min(len(text), prefix + _NAME_GUESS + 1)) if text[end] in ": ["][:_NAME_TRIES]
        for end in ends:
            if line_matcher.match(text[:prefix] + token + text[end:]) is not None:
                return text[prefix:end]
        if text.startswith("Uncalled bet ("):
            at = text.find(" returned to ")
            if at >= 0 and line_matcher.match(text[: at + 13] + token) is not None:
                return text[at + 13 :]
        return None

    # ------------------------------------------------------------ order

    def need(self, allowed: bool, what: str) -> None:
        if not allowed:
            raise self.error(HandParseError, what, 1)

    def in_body(self) -> None:
        self.need(self.section != _SUMMARY, "this line cannot follow *** SUMMARY ***")

    def in_play(self) -> None:
        self.in_body()
        self.need(self.section != _PRE, "an action before *** 2nd STREET ***")

    def in_summary(self) -> None:
        self.need(self.section == _SUMMARY, "a summary line before *** SUMMARY ***")

    def add(self, event: Event) -> None:
        self.events.append(event)


_NAME_GUESS = 128
"""How long a name :meth:`_Builder.unseated_name` tries: longer than any room writes, short enough to stay cheap."""
_NAME_TRIES = 16
"""How many places a name could end it tries (a line of 4,096 ``[`` would otherwise cost 4,096 matches)."""


class _LineProblem(Exception):
    """A token that parses but does not fit the hand (raised while converting, located later)."""

    def __init__(self, message: str, token: str | None = None, cls: type[HandHistoryError] = InconsistentHandError) -> None:
        super().__init__(message)
        self.token = token
        self.cls = cls


Args = tuple[Any, ...]
Build = Callable[[_Builder, int, Args], "bool | None"]
Convert = Callable[["_Converter", Tokens], Args]
Converted = tuple[Build, Args, bool, bool]
FastHit = tuple["tuple[bool, ...] | None", Any, str, Args, int, "Build | None", Args]
"""A body line, matched and converted, as :meth:`_Builder.body` caches it.

``(sections, event class, placeholder, other arguments, money flags, builder, arguments)``:
``sections[s]`` says whether the event may stand in section ``s`` (then it
is ``event class(line, player, *other arguments)``); ``sections`` is None
for a kind that needs its builder; builder None means the line must be read
again from its original text.  Money flags: 1 decimals, 2 thousands separators.
"""

_SLOW: FastHit = (None, None, "", (), 0, None, ())
_DEAL_HEAD = "Dealt to " + PLACEHOLDER
_PLACEHOLDERS = frozenset(f"{PLACEHOLDER}{k:02d}" for k in range(100))
_DEAL_TAIL = ("", " [")  # what may follow the placeholder in a deal: the end, or cards

# where a line of a common kind may stand: _PRE, _STREETS, _SHOWDOWN, _SUMMARY
_ONLY_PRE = (True, False, False, False)
_IN_PLAY = (False, True, True, False)
_IN_BODY = (True, True, True, False)
_SIMPLE: dict[str, tuple[tuple[bool, ...], type[Event]]] = {
    "post_ante": (_ONLY_PRE, PostAnte),
    "post_blind": (_ONLY_PRE, PostBlind),
    "deal": (_IN_PLAY, Deal),
    "bring_in": (_IN_PLAY, BringIn),
    "complete": (_IN_PLAY, Complete),
    "bet": (_IN_PLAY, Bet),
    "call": (_IN_PLAY, Call),
    "raise_to": (_IN_PLAY, RaiseTo),
    "check": (_IN_PLAY, Check),
    "fold": (_IN_PLAY, Fold),
    "muck": (_IN_PLAY, Mucks),
    "expose": (_IN_PLAY, Expose),
    "show": (_IN_PLAY, Shows),
    "uncalled": (_IN_BODY, UncalledBet),
    "collect": (_IN_BODY, Collected),
    "no_show": (_IN_BODY, DoesNotShow),
    "disconnected": (_IN_BODY, Disconnected),
    "timed_out": (_IN_BODY, TimedOut),
    "said": (_IN_BODY, Said),
    "joins": (_IN_BODY, Joins),
    "leaves": (_IN_BODY, Leaves),
}
"""The kinds whose event is ``cls(line, player, *rest)`` and whose place is a set of sections.

The same checks as their builders below (``_KINDS``), which still run for
a line out of place, to raise the error.  ``tests/test_parse.py`` checks
that the two agree.
"""


def _outcomes_by_seat(names: list[tuple[str, str, int]]) -> bool:
    """Whether ``Seat <k>: <name> `` can be replaced in bulk: no name is a prefix of another or of ``Seat ``."""
    ordered = sorted(n for n, _, _ in names)
    for a, b in zip(ordered, ordered[1:]):
        if b.startswith(a):
            return False
    return not any("Seat".startswith(n) or n.startswith("Seat") for n in ordered)


class _Converter:
    """Tokens to event arguments for one money style; caches amounts and whole lines.

    What a body line means does not depend on the hand once its names are
    placeholders, only on the hand's currency and unit, so the converted
    arguments of a line are cached per ``(symbol, cents)``.
    """

    def __init__(self, symbol: str, cents: bool) -> None:
        self.symbol = symbol
        self.cents = cents
        self.amounts: dict[str, tuple[int, bool, bool]] = {}
        self.fast: dict[str, FastHit] = {}
        self.deals: dict[str, FastHit] = {}  # deal lines by what follows the placeholder
        self.matcher = matcher("line")
        self.dec = False
        self.grp = False

    def amount(self, text: str | None) -> int:
        assert text is not None
        hit = self.amounts.get(text)
        if hit is None:
            raw = split_amount(text)
            try:
                value = to_units(raw, self.symbol, self.cents)
            except AmountRangeError as e:
                raise _LineProblem(str(e), text, OutOfRangeError) from None
            except AmountError as e:
                raise _LineProblem(str(e), text) from None
            hit = (value, raw.hundredths is not None, raw.grouped)
            if len(self.amounts) >= _LINE_CACHE_SIZE:
                self.amounts.clear()
            self.amounts[text] = hit
        if hit[1]:
            self.dec = True
        if hit[2]:
            self.grp = True
        return hit[0]

    def convert(self, m: tuple[str, Tokens]) -> Converted:
        self.dec = self.grp = False
        build, convert = _KINDS[m[0]]
        return build, convert(self, m[1]), self.dec, self.grp

    def fast_hit(self, sub: str) -> FastHit:
        """Match and convert a body line with names replaced, and cache it (raises _LineProblem).

        A deal line (``Dealt to <placeholder> [..] [..]``) means the same
        whoever it is dealt to, so it is matched and cached once per card
        text, with the first placeholder standing in; rooms deal every
        player a line a street, and the card texts repeat far more than
        the lines do.
        """
        if sub[:10] == _DEAL_HEAD and sub[9:12] in _PLACEHOLDERS and sub[12:14] in _DEAL_TAIL and PLACEHOLDER not in sub[12:]:
            rest = sub[12:]
            hit = self.deals.get(rest)
            if hit is None:
                hit = self.deals[rest] = self.line_hit(_DEAL_HEAD + "00" + rest, cache=False)
                if len(self.deals) >= _DEAL_CACHE_SIZE:
                    self.deals.clear()
            if hit[0] is None:
                return hit
            token = sub[9:12]
            return (hit[0], hit[1], token, hit[3], hit[4], hit[5], (token, *hit[3]))
        return self.line_hit(sub)

    def line_hit(self, sub: str, *, cache: bool = True) -> FastHit:
        """:meth:`fast_hit` for any line."""
        hit = _SLOW
        # one placeholder at most: a second one stands in quoted text (chat, a description)
        if sub.count(PLACEHOLDER) <= 1:
            m = self.matcher.match(sub)
            if m is not None:
                build, args, dec, grp = self.convert(m)
                flags = (1 if dec else 0) | (2 if grp else 0)
                simple = _SIMPLE.get(m[0])
                if simple is not None:
                    hit = (simple[0], simple[1], args[0], args[1:], flags, build, args)
                else:
                    hit = (None, None, "", (), flags, build, args)
        if cache:
            if len(self.fast) >= _LINE_CACHE_SIZE:
                self.fast.clear()
            self.fast[sub] = hit
        return hit


_CONVERTERS: dict[tuple[str, bool], _Converter] = {}


def _converter(symbol: str, cents: bool) -> _Converter:
    c = _CONVERTERS.get((symbol, cents))
    if c is None:
        c = _CONVERTERS[(symbol, cents)] = _Converter(symbol, cents)
    return c


# ------------------------------------------------------------ converters


def _seat_number(token: str | None, what: str) -> int:
    """An INT token that names a seat (or a table size, a side pot): at most :data:`MAX_SEAT`.

    Read by its significant digits first, so that a number of thousands of
    digits is this error, not ``int()``'s.
    """
    digits = (token or "0").lstrip("0")
    if len(digits) > _SEAT_DIGITS or (digits and int(digits) > MAX_SEAT):
        raise _LineProblem(f"{what} {_shown(digits)} is out of range: the largest accepted is {MAX_SEAT}", token, OutOfRangeError)
    return int(digits) if digits else 0


def _shown(digits: str) -> str:
    """A number to quote in a message: as written, or its length when it is too long to quote."""
    return digits if len(digits) <= 20 else f"of {len(digits):,} digits"


def _c_amount_action(c: _Converter, v: Tokens) -> Args:
    return (v[0], c.amount(v[1]), v[2] is not None)


def _c_post_blind(c: _Converter, v: Tokens) -> Args:
    return (v[0], "small" if v[1] == "small blind" else "big", c.amount(v[2]), v[3] is not None)


def _c_street(c: _Converter, v: Tokens) -> Args:
    return (STREET_NAMES.index(str(v[0])),)


def _c_one_card(c: _Converter, v: Tokens) -> Args:
    cards = _cards(v[0] or "")
    if len(cards) != 1:
        raise _LineProblem("the vela is one card", v[0], HandParseError)
    return (cards[0],)


def _c_none(c: _Converter, v: Tokens) -> Args:
    return ()


def _c_deal(c: _Converter, v: Tokens) -> Args:
    return (v[0], None if v[1] is None else _cards(v[1]), None if v[2] is None else _cards(v[2]))


def _c_raise(c: _Converter, v: Tokens) -> Args:
    return (v[0], c.amount(v[1]), c.amount(v[2]), v[3] is not None)


def _c_player(c: _Converter, v: Tokens) -> Args:
    return (v[0],)


def _c_uncalled(c: _Converter, v: Tokens) -> Args:
    return (v[1], c.amount(v[0]))


def _c_player_cards(c: _Converter, v: Tokens) -> Args:
    return (v[0], _cards(v[1] or ""))


def _c_show(c: _Converter, v: Tokens) -> Args:
    return (v[0], _cards(v[1] or ""), v[2] or "")


def _c_collect(c: _Converter, v: Tokens) -> Args:
    pot = v[2] or ""
    if pot == "pot":
        return (v[0], c.amount(v[1]), "pot", 0)
    if pot == "main pot":
        return (v[0], c.amount(v[1]), "main", 0)
    return (v[0], c.amount(v[1]), "side", _seat_number(pot[9:], "the side pot number"))


def _c_said(c: _Converter, v: Tokens) -> Args:
    return (v[0], v[1] or "")


def _c_joins(c: _Converter, v: Tokens) -> Args:
    return (v[0], _seat_number(v[1], "the seat number"))


def _c_total(c: _Converter, v: Tokens) -> Args:
    return (c.amount(v[0]), c.amount(v[1]))


def _c_pots(c: _Converter, v: Tokens) -> Args:
    main = c.amount(v[0])
    sides: list[int] = []
    for k, m in enumerate(_SIDE_POT.finditer(v[1] or ""), start=1):
        if _seat_number(m.group(1), "the side pot number") != k:
            raise _LineProblem(f"side pots must be numbered 1, 2, ... in order; found Side pot-{m.group(1)}", f"Side pot-{m.group(1)}")
        sides.append(c.amount(m.group(2)))
    return (main, tuple(sides))


def _c_outcome(c: _Converter, v: Tokens) -> Args:
    """Seat number, player, button, blind, then the outcome's own tokens converted."""
    head = (_seat_number(v[0], "the seat number"), v[1], v[2] is not None, None if v[3] is None else ("small" if v[3] == " (small blind)" else "big"))
    return head + tuple(v[4:])


def _c_won(c: _Converter, v: Tokens) -> Args:
    base = _c_outcome(c, v)
    return base[:4] + (_cards(v[4] or ""), c.amount(v[5]), v[6])


def _c_lost(c: _Converter, v: Tokens) -> Args:
    base = _c_outcome(c, v)
    return base[:4] + (_cards(v[4] or ""), v[5])


def _c_collected_outcome(c: _Converter, v: Tokens) -> Args:
    base = _c_outcome(c, v)
    return base[:4] + (c.amount(v[4]),)


# -------------------------------------------------------------- builders
# Each checks the line's place in the hand and appends its event; a
# builder returns True to have its line read again from the original text.


def _order(b: _Builder, message: str) -> None:
    raise b.error(HandParseError, message, 1)


def _in_play(b: _Builder) -> None:
    if b.section != _STREETS and b.section != _SHOWDOWN:
        _order(b, "an action before *** 2nd STREET ***" if b.section == _PRE else "this line cannot follow *** SUMMARY ***")


def _in_body(b: _Builder) -> None:
    if b.section == _SUMMARY:
        _order(b, "this line cannot follow *** SUMMARY ***")


def _in_summary(b: _Builder) -> None:
    if b.section != _SUMMARY:
        _order(b, "a summary line before *** SUMMARY ***")


def _forced(cls: type[PostAnte]) -> Build:
    def build(b: _Builder, n: int, a: Args) -> None:
        if b.section != _PRE:
            b.lineno = n
            _order(b, "a forced bet after the cards were dealt")
        b.events.append(cls(n, b.who(a[0]), a[1], a[2]))

    return build


def _b_post_blind(b: _Builder, n: int, a: Args) -> None:
    if b.section != _PRE:
        b.lineno = n
        _order(b, "a forced bet after the cards were dealt")
    b.events.append(PostBlind(n, b.who(a[0]), a[1], a[2], a[3]))


def _b_street(b: _Builder, n: int, a: Args) -> None:
    b.lineno = n
    _in_body(b)
    index = a[0]
    if b.section == _SHOWDOWN:
        _order(b, "a street after *** SHOW DOWN ***")
    if index != b.street + 1:
        _order(b, f"*** {STREET_NAMES[index]} STREET *** out of order (expected {_next_street(b.street)})")
    b.street = index
    b.section = _STREETS
    b.events.append(Street(n, STREET_NAMES[index]))


def _next_street(current: int) -> str:
    return f"*** {STREET_NAMES[current + 1]} STREET ***" if current + 1 < len(STREET_NAMES) else "no more streets"


def _b_vela(b: _Builder, n: int, a: Args) -> None:
    b.lineno = n
    _in_play(b)
    if b.section == _SHOWDOWN:
        _order(b, "the vela after *** SHOW DOWN ***")
    if b.street != len(STREET_NAMES) - 1:
        _order(b, "the vela before 5th street")
    if any(isinstance(e, Vela) for e in b.events):
        _order(b, "a second vela")
    b.events.append(Vela(n, a[0]))


def _b_show_down(b: _Builder, n: int, a: Args) -> None:
    b.lineno = n
    _in_play(b)
    if b.section == _SHOWDOWN:
        _order(b, "a second *** SHOW DOWN ***")
    b.section = _SHOWDOWN
    b.events.append(ShowDown(n))


def _b_summary(b: _Builder, n: int, a: Args) -> None:
    b.lineno = n
    _in_body(b)
    b.section = _SUMMARY
    b.summary_line = n


def _b_deal(b: _Builder, n: int, a: Args) -> None:
    if b.section != _STREETS and b.section != _SHOWDOWN:
        b.lineno = n
        _in_play(b)
    b.events.append(Deal(n, b.who(a[0]), a[1], a[2]))


def _action(cls: type[BringIn] | type[Complete] | type[Bet] | type[Call]) -> Build:
    def build(b: _Builder, n: int, a: Args) -> None:
        if b.section != _STREETS and b.section != _SHOWDOWN:
            b.lineno = n
            _in_play(b)
        b.events.append(cls(n, b.who(a[0]), a[1], a[2]))

    return build


def _b_raise(b: _Builder, n: int, a: Args) -> None:
    if b.section != _STREETS and b.section != _SHOWDOWN:
        b.lineno = n
        _in_play(b)
    b.events.append(RaiseTo(n, b.who(a[0]), a[1], a[2], a[3]))


def _player_event(cls: type[Check] | type[Fold] | type[Mucks], play: bool) -> Build:
    def build(b: _Builder, n: int, a: Args) -> None:
        if play and b.section != _STREETS and b.section != _SHOWDOWN:
            b.lineno = n
            _in_play(b)
        elif b.section == _SUMMARY:
            b.lineno = n
            _in_body(b)
        b.events.append(cls(n, b.who(a[0])))

    return build


def _chatter(cls: type[Disconnected] | type[TimedOut] | type[Leaves] | type[DoesNotShow]) -> Build:
    def build(b: _Builder, n: int, a: Args) -> None:
        if b.section == _SUMMARY:
            b.lineno = n
            _in_body(b)
        b.events.append(cls(n, b.who(a[0])))

    return build


def _b_uncalled(b: _Builder, n: int, a: Args) -> None:
    b.lineno = n
    _in_body(b)
    b.events.append(UncalledBet(n, b.who(a[0]), a[1]))


def _b_expose(b: _Builder, n: int, a: Args) -> None:
    b.lineno = n
    _in_play(b)
    b.events.append(Expose(n, b.who(a[0]), a[1]))


def _b_double_bet(b: _Builder, n: int, a: Args) -> None:
    b.lineno = n
    _in_play(b)
    b.events.append(DoubleBetAllowed(n))


def _b_capped(b: _Builder, n: int, a: Args) -> None:
    b.lineno = n
    _in_play(b)
    b.events.append(BettingCapped(n))


def _b_show(b: _Builder, n: int, a: Args) -> bool | None:
    if PLACEHOLDER in a[2]:
        return True
    b.lineno = n
    _in_play(b)
    b.events.append(Shows(n, b.who(a[0]), a[1], a[2]))
    return None


def _b_collect(b: _Builder, n: int, a: Args) -> None:
    b.lineno = n
    _in_body(b)
    b.events.append(Collected(n, b.who(a[0]), a[1], a[2], a[3]))


def _b_said(b: _Builder, n: int, a: Args) -> bool | None:
    if PLACEHOLDER in a[1]:
        return True
    b.lineno = n
    _in_body(b)
    b.events.append(Said(n, b.who(a[0]), a[1]))
    return None


def _b_joins(b: _Builder, n: int, a: Args) -> None:
    b.lineno = n
    _in_body(b)
    b.events.append(Joins(n, b.who(a[0]), a[1]))


def _b_total(b: _Builder, n: int, a: Args) -> None:
    b.lineno = n
    _in_summary(b)
    if b.total is not None or b.outcomes:
        _order(b, "'Total pot' must come first in the summary, once")
    b.total = (a[0], a[1])


def _b_pots(b: _Builder, n: int, a: Args) -> None:
    b.lineno = n
    _in_summary(b)
    if b.total is None or b.main_pot is not None or b.outcomes:
        _order(b, "'Main pot' must follow 'Total pot', once")
    assert b.total is not None
    if a[0] + sum(a[1]) != b.total[0]:
        raise b.error(InconsistentHandError, "main pot and side pots do not add up to the total pot", 1)
    b.main_pot = a[0]
    b.side_pots = a[1]


def _b_summary_vela(b: _Builder, n: int, a: Args) -> None:
    b.lineno = n
    _in_summary(b)
    if b.total is None or b.summary_vela is not None or b.outcomes:
        _order(b, "'Vela [..]' must follow the pot lines, once")
    b.summary_vela = a[0]


def _outcome(kind: OutcomeKind) -> Build:
    def build(b: _Builder, n: int, a: Args) -> None:
        b.lineno = n
        _in_summary(b)
        if b.total is None:
            _order(b, "a seat outcome before 'Total pot'")
        seat, player = a[0], b.who(a[1])
        street: FoldStreet | None = None
        cards = amount = description = None
        if kind == "folded":
            street = _FOLD_STREETS[a[4]]
        elif kind == "won":
            cards, amount, description = a[4], a[5], a[6]
        elif kind == "lost":
            cards, description = a[4], a[5]
        elif kind == "collected":
            amount = a[4]
        if b.seat_player.get(seat) != player:
            raise b.error(InconsistentHandError, f"seat {seat} is not {player!r} in the seat lines", 6)
        if b.outcomes and b.outcomes[-1].seat >= seat:
            _order(b, "seat outcomes must be in seat order, one per seat")
        b.outcomes.append(SeatOutcome(n, seat, player, a[2], a[3], kind, street, cards, amount, description))

    return build


_KINDS: dict[str, tuple[Build, Convert]] = {
    "post_ante": (_forced(PostAnte), _c_amount_action),
    "post_blind": (_b_post_blind, _c_post_blind),
    "street": (_b_street, _c_street),
    "vela": (_b_vela, _c_one_card),
    "show_down": (_b_show_down, _c_none),
    "summary": (_b_summary, _c_none),
    "deal": (_b_deal, _c_deal),
    "bring_in": (_action(BringIn), _c_amount_action),
    "complete": (_action(Complete), _c_amount_action),
    "bet": (_action(Bet), _c_amount_action),
    "call": (_action(Call), _c_amount_action),
    "raise_to": (_b_raise, _c_raise),
    "check": (_player_event(Check, True), _c_player),
    "fold": (_player_event(Fold, True), _c_player),
    "uncalled": (_b_uncalled, _c_uncalled),
    "expose": (_b_expose, _c_player_cards),
    "double_bet": (_b_double_bet, _c_none),
    "capped": (_b_capped, _c_none),
    "show": (_b_show, _c_show),
    "muck": (_player_event(Mucks, True), _c_player),
    "no_show": (_chatter(DoesNotShow), _c_player),
    "collect": (_b_collect, _c_collect),
    "total": (_b_total, _c_total),
    "pots": (_b_pots, _c_pots),
    "summary_vela": (_b_summary_vela, _c_one_card),
    "seat_folded": (_outcome("folded"), _c_outcome),
    "seat_won": (_outcome("won"), _c_won),
    "seat_lost": (_outcome("lost"), _c_lost),
    "seat_mucked": (_outcome("mucked"), _c_outcome),
    "seat_collected": (_outcome("collected"), _c_collected_outcome),
    "disconnected": (_chatter(Disconnected), _c_player),
    "timed_out": (_chatter(TimedOut), _c_player),
    "said": (_b_said, _c_said),
    "joins": (_b_joins, _c_joins),
    "leaves": (_chatter(Leaves), _c_player),
}


# ------------------------------------------------------------ the accelerator

_SCAN_CLASSES: tuple[type[Any], ...] = (
    Header, Table, Seat, PostAnte, PostBlind, Street, Vela, Deal, BringIn, Complete, Bet, Call,
    RaiseTo, Check, Fold, UncalledBet, Expose, DoubleBetAllowed, BettingCapped, ShowDown, Shows,
    Mucks, Collected, Disconnected, TimedOut, Said, Joins, Leaves, DoesNotShow, SeatOutcome,
    Summary, Hand, MoneyStyle,
)
"""The classes ``_scan`` builds, in the order it numbers them; it checks each one's name and fields."""


def _accelerator() -> Callable[[str, int, str], Hand | None] | None:
    """The C reader of common hands (``hhtool/_native/_scan.c``), configured; None when it is not built.

    Why: the per-line work of :class:`_Builder` is interpreter work (about
    7 µs for a line the caches miss, 1-1.5 µs for one they hold), and the
    parser's speed goal needs a whole hand in tens of microseconds.  The C
    reader builds the same events for the lines it knows and returns None
    for any hand with anything else -- an unusual line, a name it cannot
    place, anything that would be an error -- which this module then reads
    as before.  ``HHTOOL_PURE=1`` builds nothing, and everything is read here.
    """
    try:
        from hhtool._native import _scan
    except ImportError:
        return None
    shapes = [(c, f"{c.__name__}: {' '.join(f.name for f in dataclasses.fields(c))}") for c in _SCAN_CLASSES]
    try:
        _scan.configure(shapes, zone_info, _header_accepted)
    except (TypeError, ValueError) as e:  # an event class changed shape: _scan.c must follow
        warnings.warn(f"hhtool: the C parser is off ({e}); parsing in Python", RuntimeWarning, stacklevel=2)
        return None
    return _scan.parse_hand


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
    return _Builder(text.split("\n"), first_line, source, text).parse()


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
    return _Builder(lines, first_line, source).parse()


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
