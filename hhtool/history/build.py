"""The Python reader of one hand: its lines in order to a :class:`~hhtool.history.events.Hand`.

The reference reading of the format: the grammar (``grammars/telesina.lark``,
through :func:`hhtool.history.grammar.matcher`) reads each line, the table of
line kinds (:mod:`hhtool.history.lines`) converts its tokens and places its
event, and this module checks the order of the lines and raises a
:class:`~hhtool.history.errors.HandHistoryError` on the first problem.  The C
reader (``hhtool/_native/_scan.c``) must give the same hand for every hand it
reads (``tests/test_scan.py``); it declines the rest, which are read here.

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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from hhtool.game.cards import Card
from hhtool.game.rules import STREET_NAMES, Exposure, RoundName, RulesError, Structure
from hhtool.history.bounds import MAX_LINE_CHARS, line_too_long
from hhtool.history.errors import HandHistoryError, HandParseError, IncompleteHandError, InconsistentHandError, OutOfRangeError
from hhtool.history.events import Event, Hand, Header, OutcomeKind, Seat, SeatOutcome, Street, Summary, Table, Vela, ShowDown
from hhtool.history.grammar import PLACEHOLDER, Tokens, describe_terminal, lark_match, matcher
from hhtool.history.lines import KIND_OF, PRE, SHOWDOWN, STREETS, SUMMARY, Args, LineProblem, Money, misplaced, seat_number
from hhtool.history.money import MoneyStyle, split_amount
from hhtool.history.write import FOLD_WORDS
from hhtool.history.zones import ZoneError, parse_time

if TYPE_CHECKING:
    from hhtool.history.grammar import LineMatcher

MAX_HAND_LINES = 32_767
"""The most lines a hand may have (docs/format-notes.md, "Bounds"): the order of a money line
within its hand is a SMALLINT column, and :data:`hhtool.history.money.MAX_AMOUNT` times it bounds every
sum within a hand."""

_HAND_ID = re.compile(r" Hand #([A-Za-z0-9-]+)")
_SEAT_PREFIX = re.compile(r"Seat [0-9]+: ")

# What a token of these terminals becomes in its event: the C reader is configured with the
# same values (hhtool.history.parse.scan_terminals), so the two readers convert alike.
STRUCTURE_OF: dict[str, Structure] = {"Fixed Limit": "fixed", "Pot Limit": "pot", "No Limit": "no"}
"""STRUCTURE -> :attr:`Header.structure <hhtool.history.events.Header>`."""
FOLD_STREET_OF: dict[str, RoundName] = {words: name for name, words in FOLD_WORDS.items()}
"""FOLD_STREET -> :attr:`SeatOutcome.street <hhtool.history.events.SeatOutcome>` (the writer's words read back)."""
_EXPOSURES: dict[str, Exposure] = {" [carte coperte]": "carte_coperte", " [una coperta]": "una_coperta"}


def exposure_of(token: str | None) -> Exposure:
    """EXPOSURE (None where the header has none) -> :attr:`Header.exposure <hhtool.history.events.Header>`."""
    return _EXPOSURES[token] if token else "standard"


_AFTER_NAME = (":", " ")
_AFTER_NAME_INSIDE = (" ", "")


def header_problem(head: Header) -> tuple[str, str | None] | None:
    """What is wrong with a header's profile, options and forced bets (message, text to point at), or None.

    One function for both readers: the Python builder raises it as an
    error, the C reader asks :func:`hhtool.history.parse.header_accepted`.
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


class _Names(dict[str, str]):
    """Placeholder -> seated name; any other token is a name as written (a stranger's)."""

    def __missing__(self, token: str) -> str:
        return token


class Builder:
    """Reads one hand's lines in order; raises a HandHistoryError on the first problem."""

    def __init__(self, lines: Sequence[str], first_line: int, source: str) -> None:
        self.lines = lines
        self.first_line = first_line
        self.source = source
        self.hand_id: str | None = None
        self.money = Money("", False)  # set by the header
        self.tokens: dict[str, str] = _Names()
        self.seat_player: dict[int, str] = {}
        self.names: list[tuple[str, str, int]] = []  # (name, placeholder, length), longest first
        self.by_first: dict[str, list[tuple[str, str, int]]] = {}  # the same, by first character
        self.events: list[Event] = []
        self.section = PRE
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
        """An amount of the header, a seat or a body line, in the hand's money (located if it does not fit)."""
        try:
            return self.money.amount(text)
        except LineProblem as e:
            raise self.error(e.cls, str(e), self.column_of(text)) from None

    def number(self, token: str | None, what: str) -> int:
        """A seat number or table size of the table or a seat line, at most :data:`~hhtool.history.lines.MAX_SEAT`."""
        try:
            return seat_number(token, what)
        except LineProblem as e:
            raise self.error(e.cls, str(e), self.column_of(e.token) if e.token else None) from None

    def who(self, token: str) -> str:
        """The seated name for a placeholder; a stranger's name as written."""
        return self.tokens.get(token, token)

    # ------------------------------------------------------------ lines

    def match(self, start: str, text: str) -> Tokens:
        """Tokens of a table or seat line."""
        m = matcher(start).match(text)
        if m is None:
            raise self.syntax_error(start, text)
        return m[1]

    def header(self) -> Header:
        """The header line: the hand's id, rules, forced bets, money and start time."""
        self.text = self.lines[0]
        m = matcher("header").match(self.text)
        if m is None:
            known = _HAND_ID.search(self.text)
            self.hand_id = known.group(1) if known else None
            raise self.syntax_error("header", self.text)
        name, v = m
        site, hand_id, prof, vela, wild, exposure, structure, small, big = v[:9]
        assert site and hand_id and prof and structure and small and big
        self.hand_id = hand_id
        raws = [split_amount(t) for t in v[9:11] if t] + [split_amount(small), split_amount(big)]
        symbol = raws[-2].symbol
        self.money = Money(symbol, bool(symbol) or any(r.hundredths is not None for r in raws))
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
            exposure=exposure_of(exposure),
            structure=STRUCTURE_OF[structure],
            small_bet=self.amount(small),
            big_bet=self.amount(big),
            ante=a1 if antes else None,
            bring_in=a2 if antes else None,
            small_blind=None if antes else a1,
            big_blind=None if antes else a2,
            started=started,
            zone=zone,
        )
        problem = header_problem(head)
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
            self.body(i)
        self.lineno = self.first_line + len(lines) - 1
        if self.section != SUMMARY:
            raise self.error(IncompleteHandError, "the hand ends before its *** SUMMARY ***")
        if self.total is None:
            raise self.error(IncompleteHandError, "the summary has no 'Total pot' line")
        if len(self.outcomes) < len(seats):
            raise self.error(IncompleteHandError, f"the summary lists {len(self.outcomes)} of {len(seats)} seats")
        summary = Summary(
            self.summary_line, self.total[0], self.total[1], self.main_pot,
            self.side_pots, self.summary_vela, tuple(self.outcomes),
        )
        m = self.money
        money = MoneyStyle(m.symbol, m.cents, m.decimals, m.grouping)
        return Hand(header, table, tuple(seats), tuple(self.events), summary, money, self.source)

    def body(self, start: int) -> None:
        """Read the body lines, one at a time: place the names, match, convert, build."""
        line_matcher = matcher("line")
        for j in range(start, len(self.lines)):
            self.lineno = lineno = self.first_line + j
            self.text = self.lines[j]
            rule, tokens = self.body_line(line_matcher)
            kind = KIND_OF[rule]
            try:
                args = kind.convert(self.money, tokens)
            except LineProblem as e:
                raise self.error(e.cls, str(e), self.column_of(e.token) if e.token else 1) from None
            place = kind.place
            if place is None:
                BUILDERS[rule](self, lineno, args)
                continue
            if not place[self.section]:
                raise self.error(HandParseError, misplaced(place, self.section), 1)
            event: Callable[..., Event] = kind.event  # type: ignore[assignment]
            if kind.player:
                self.events.append(event(lineno, self.who(args[0]), *args[1:]))
            else:
                self.events.append(event(lineno, *args))

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

_NAME_GUESS = 128
"""How long a name :meth:`Builder.unseated_name` tries: longer than any room writes, short enough to stay cheap."""
_NAME_TRIES = 16
"""How many places a name could end it tries (a line of 4,096 ``[`` would otherwise cost 4,096 matches)."""



# -------------------------------------------------------------- builders
# The kinds with a builder of their own (the table's rows without ``place``):
# each checks the line's place in the hand and keeps the hand's state.

Build = Callable[[Builder, int, Args], None]


def _order(b: Builder, message: str) -> None:
    raise b.error(HandParseError, message, 1)


def _in_body(b: Builder) -> None:
    if b.section == SUMMARY:
        _order(b, "this line cannot follow *** SUMMARY ***")


def _in_play(b: Builder) -> None:
    if b.section != STREETS and b.section != SHOWDOWN:
        _order(b, "an action before *** 2nd STREET ***" if b.section == PRE else "this line cannot follow *** SUMMARY ***")


def _in_summary(b: Builder) -> None:
    if b.section != SUMMARY:
        _order(b, "a summary line before *** SUMMARY ***")


def _b_street(b: Builder, n: int, a: Args) -> None:
    _in_body(b)
    index = a[0]
    if b.section == SHOWDOWN:
        _order(b, "a street after *** SHOW DOWN ***")
    if index != b.street + 1:
        _order(b, f"*** {STREET_NAMES[index]} STREET *** out of order (expected {_next_street(b.street)})")
    b.street = index
    b.section = STREETS
    b.events.append(Street(n, STREET_NAMES[index]))


def _next_street(current: int) -> str:
    return f"*** {STREET_NAMES[current + 1]} STREET ***" if current + 1 < len(STREET_NAMES) else "no more streets"


def _b_vela(b: Builder, n: int, a: Args) -> None:
    _in_play(b)
    if b.section == SHOWDOWN:
        _order(b, "the vela after *** SHOW DOWN ***")
    if b.street != len(STREET_NAMES) - 1:
        _order(b, "the vela before 5th street")
    if any(isinstance(e, Vela) for e in b.events):
        _order(b, "a second vela")
    b.events.append(Vela(n, a[0]))


def _b_show_down(b: Builder, n: int, a: Args) -> None:
    _in_play(b)
    if b.section == SHOWDOWN:
        _order(b, "a second *** SHOW DOWN ***")
    b.section = SHOWDOWN
    b.events.append(ShowDown(n))


def _b_summary(b: Builder, n: int, a: Args) -> None:
    _in_body(b)
    b.section = SUMMARY
    b.summary_line = n


def _b_total(b: Builder, n: int, a: Args) -> None:
    _in_summary(b)
    if b.total is not None or b.outcomes:
        _order(b, "'Total pot' must come first in the summary, once")
    b.total = (a[0], a[1])


def _b_pots(b: Builder, n: int, a: Args) -> None:
    _in_summary(b)
    if b.total is None or b.main_pot is not None or b.outcomes:
        _order(b, "'Main pot' must follow 'Total pot', once")
    assert b.total is not None
    if a[0] + sum(a[1]) != b.total[0]:
        raise b.error(InconsistentHandError, "main pot and side pots do not add up to the total pot", 1)
    b.main_pot = a[0]
    b.side_pots = a[1]


def _b_summary_vela(b: Builder, n: int, a: Args) -> None:
    _in_summary(b)
    if b.total is None or b.summary_vela is not None or b.outcomes:
        _order(b, "'Vela [..]' must follow the pot lines, once")
    b.summary_vela = a[0]


def _outcome(kind: OutcomeKind) -> Build:
    def build(b: Builder, n: int, a: Args) -> None:
        _in_summary(b)
        if b.total is None:
            _order(b, "a seat outcome before 'Total pot'")
        seat, player = a[0], b.who(a[1])
        street: RoundName | None = None
        cards = amount = description = None
        if kind == "folded":
            street = FOLD_STREET_OF[a[4]]
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


OUTCOME_OF: dict[str, OutcomeKind] = {
    "seat_folded": "folded", "seat_won": "won", "seat_lost": "lost", "seat_mucked": "mucked", "seat_collected": "collected",
}
"""A seat outcome's rule -> :attr:`SeatOutcome.outcome <hhtool.history.events.SeatOutcome>` (the C reader is configured with it)."""

BUILDERS: dict[str, Build] = {
    "street": _b_street,
    "vela": _b_vela,
    "show_down": _b_show_down,
    "summary": _b_summary,
    "total": _b_total,
    "pots": _b_pots,
    "summary_vela": _b_summary_vela,
    **{rule: _outcome(kind) for rule, kind in OUTCOME_OF.items()},
}
"""The builders of the kinds that are not simple (``tests/test_lines.py``: exactly the table's rows without a place)."""
