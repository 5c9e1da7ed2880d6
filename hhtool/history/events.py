"""Typed events: one frozen dataclass per line kind of FORMAT.md.

Every event carries ``line``, the 1-based line number in its source file.
Line numbers are excluded from equality (``field(compare=False)``): two
hands are equal when they say the same thing, wherever they stood in a
file.  That is what makes ``parse(write(hand)) == hand`` hold for a hand
that came from the middle of a file.

Money is an ``int`` in minor units (:mod:`hhtool.history.money`); cards are
:data:`hhtool.game.cards.Card` ints; player names are the seated names, as
written.  A completion is recorded as the room wrote it (``Complete``, or
a ``Bet``/``RaiseTo`` after a bring-in): the replay engine, which knows
the bring-in, decides what it means.

:data:`Event` is the one list of the body's event classes, and the table
of line kinds (:data:`hhtool.history.lines.LINE_KINDS`) gives each its
grammar rule; what needs the classes at run time (their pickling, the
visitor of :mod:`hhtool.history.visit`, the tests) takes them from the
union, so that a line kind is added by its class, its place in the union,
its row and its writer (``docs/architecture.md``, "Adding a line kind").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Union, get_args

from hhtool.game.cards import Card
from hhtool.history.money import MoneyStyle
from hhtool._native.pickling import picklable
from hhtool.game.rules import Exposure, RoundName, RuleSet, StreetName, Structure, profile

PotName = Literal["pot", "main", "side"]
Blind = Literal["small", "big"]


@dataclass(frozen=True, slots=True)
class Header:
    """The first line: site, id, profile and options, structure, stakes, forced bets, time."""

    line: int = field(compare=False)
    site: str
    hand_id: str
    profile: str  # classic | stellapoker | italian
    vela_at_start: bool
    wild: int | None  # the wild rank (2..14), italian only
    exposure: Exposure
    structure: Structure
    small_bet: int
    big_bet: int
    ante: int | None  # classic, italian
    bring_in: int | None  # classic
    small_blind: int | None  # stellapoker
    big_blind: int | None  # stellapoker
    started: datetime  # aware
    zone: str  # as written: "UTC", "CET", "+01:00"

    def ruleset(self) -> RuleSet:
        """The profile with this hand's italian options applied (may raise RulesError)."""
        return profile(self.profile).with_options(
            vela="at_start" if self.vela_at_start else None,
            wild=self.wild,
            exposure=self.exposure,
        )


@dataclass(frozen=True, slots=True)
class Table:
    """``Table '<name>' <n>-max Seat #<k> is the button``."""

    line: int = field(compare=False)
    name: str
    max_seats: int
    button: int


@dataclass(frozen=True, slots=True)
class Seat:
    """``Seat <k>: <player> (<amount> in chips)``."""

    line: int = field(compare=False)
    seat: int
    player: str
    stack: int


# --------------------------------------------------------------- forced bets


@dataclass(frozen=True, slots=True)
class PostAnte:
    line: int = field(compare=False)
    player: str
    amount: int
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class PostBlind:
    line: int = field(compare=False)
    player: str
    blind: Blind
    amount: int
    all_in: bool = False


# ------------------------------------------------------------ streets, deals


@dataclass(frozen=True, slots=True)
class Street:
    """``*** 2nd STREET ***`` .. ``*** 5th STREET ***``: a betting round begins."""

    line: int = field(compare=False)
    name: StreetName


@dataclass(frozen=True, slots=True)
class Vela:
    """``*** VELA *** [Ks]``: the community card is turned up."""

    line: int = field(compare=False)
    card: Card


@dataclass(frozen=True, slots=True)
class Deal:
    """``Dealt to p [known] [new]``; ``known`` is None without brackets, ``new`` None with one."""

    line: int = field(compare=False)
    player: str
    known: tuple[Card, ...] | None
    new: tuple[Card, ...] | None


# ------------------------------------------------------------------ actions


@dataclass(frozen=True, slots=True)
class BringIn:
    line: int = field(compare=False)
    player: str
    amount: int
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class Complete:
    """``completes it to <amount>``: the amount is the new total for the round."""

    line: int = field(compare=False)
    player: str
    to: int
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class Bet:
    line: int = field(compare=False)
    player: str
    amount: int
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class Call:
    line: int = field(compare=False)
    player: str
    amount: int
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class RaiseTo:
    """``raises <by> to <to>``: the increment, then the new total for the round."""

    line: int = field(compare=False)
    player: str
    by: int
    to: int
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class Check:
    line: int = field(compare=False)
    player: str


@dataclass(frozen=True, slots=True)
class Fold:
    line: int = field(compare=False)
    player: str


@dataclass(frozen=True, slots=True)
class UncalledBet:
    """``Uncalled bet (<amount>) returned to <player>``."""

    line: int = field(compare=False)
    player: str
    amount: int


@dataclass(frozen=True, slots=True)
class Expose:
    """``<player>: exposes [<cards>]``: italian exposure variants turn cards up."""

    line: int = field(compare=False)
    player: str
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class DoubleBetAllowed:
    """``Pair on board - a double bet is allowed`` (informational)."""

    line: int = field(compare=False)


@dataclass(frozen=True, slots=True)
class BettingCapped:
    """``Betting is capped`` (informational)."""

    line: int = field(compare=False)


# --------------------------------------------------------- showdown, pots


@dataclass(frozen=True, slots=True)
class ShowDown:
    """``*** SHOW DOWN ***``."""

    line: int = field(compare=False)


@dataclass(frozen=True, slots=True)
class Shows:
    line: int = field(compare=False)
    player: str
    cards: tuple[Card, ...]
    description: str


@dataclass(frozen=True, slots=True)
class Mucks:
    line: int = field(compare=False)
    player: str


@dataclass(frozen=True, slots=True)
class DoesNotShow:
    """``<player>: doesn't show hand``."""

    line: int = field(compare=False)
    player: str


@dataclass(frozen=True, slots=True)
class Collected:
    """``<player> collected <amount> from pot | main pot | side pot-<n>``."""

    line: int = field(compare=False)
    player: str
    amount: int
    pot: PotName
    side: int = 0  # the side pot's number when pot == "side"


# ------------------------------------------------------------------ chatter


@dataclass(frozen=True, slots=True)
class Disconnected:
    line: int = field(compare=False)
    player: str


@dataclass(frozen=True, slots=True)
class TimedOut:
    line: int = field(compare=False)
    player: str


@dataclass(frozen=True, slots=True)
class Said:
    line: int = field(compare=False)
    player: str
    text: str


@dataclass(frozen=True, slots=True)
class Joins:
    line: int = field(compare=False)
    player: str
    seat: int


@dataclass(frozen=True, slots=True)
class Leaves:
    line: int = field(compare=False)
    player: str


Event = Union[
    PostAnte, PostBlind, Street, Vela, ShowDown, Deal, BringIn, Complete, Bet, Call, RaiseTo,
    Check, Fold, UncalledBet, Expose, DoubleBetAllowed, BettingCapped, Shows, Mucks,
    DoesNotShow, Collected, Disconnected, TimedOut, Said, Joins, Leaves,
]
"""Everything between the seat lines and ``*** SUMMARY ***``: a hand's ``events``, in file order.

The one list of event classes, in the order of the table of line kinds
(:data:`hhtool.history.lines.LINE_KINDS`, the grammar's order), each the
event of one row: ``tests/test_lines.py`` holds the two to each other.
"""

EVENTS: tuple[type[Event], ...] = get_args(Event)
"""The classes of :data:`Event`, in its order."""

Action = Union[BringIn, Complete, Bet, Call, RaiseTo, Check, Fold]
"""A player's betting action: the lines the betting machine verifies, in turn."""

ACTIONS: tuple[type[Action], ...] = get_args(Action)
"""The classes of :data:`Action`, for ``isinstance``."""

# ------------------------------------------------------------------ summary

OutcomeKind = Literal["folded", "won", "lost", "mucked", "collected"]


@dataclass(frozen=True, slots=True)
class SeatOutcome:
    """``Seat <k>: <player> [(button)] [(small blind)|(big blind)] <outcome>``."""

    line: int = field(compare=False)
    seat: int
    player: str
    button: bool
    blind: Blind | None
    outcome: OutcomeKind
    street: RoundName | None = None  # folded
    cards: tuple[Card, ...] | None = None  # won, lost
    amount: int | None = None  # won, collected
    description: str | None = None  # won, lost


@dataclass(frozen=True, slots=True)
class Summary:
    """The ``*** SUMMARY ***`` section."""

    line: int = field(compare=False)
    total: int
    rake: int
    main_pot: int | None  # only when there are side pots
    side_pots: tuple[int, ...]
    vela: Card | None
    outcomes: tuple[SeatOutcome, ...]


# --------------------------------------------------------------------- hand


@dataclass(frozen=True, slots=True)
class Hand:
    """One hand: header, table, seats, the events in order, and the summary."""

    header: Header
    table: Table
    seats: tuple[Seat, ...]
    events: tuple[Event, ...]
    summary: Summary
    money: MoneyStyle
    source: str = field(default="", compare=False)

    @property
    def hand_id(self) -> str:
        return self.header.hand_id

    @property
    def first_line(self) -> int:
        return self.header.line

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(s.player for s in self.seats)

    @property
    def showdown(self) -> tuple[Shows | Mucks | DoesNotShow, ...]:
        """The showdown lines (shows, mucks, doesn't show), in order."""
        return tuple(e for e in self.events if isinstance(e, (Shows, Mucks, DoesNotShow)))

    @property
    def collections(self) -> tuple[Collected, ...]:
        return tuple(e for e in self.events if isinstance(e, Collected))

    @property
    def vela(self) -> Card | None:
        for e in self.events:
            if isinstance(e, Vela):
                return e.card
        return self.summary.vela


# Compiled, a class crosses to a worker process only registered: every event by the union, so
# that a kind added there is registered with it, and the hand's own parts (tests/test_lines.py
# requires every class of this module registered).
picklable(Header, Table, Seat, *EVENTS, SeatOutcome, Summary, Hand)
