"""The table of body line kinds: grammar rule -> event class, where in a hand it may stand, how its tokens convert.

One row per rule of the grammar's ``line`` start symbol (``grammars/telesina.lark``).
The Python builder (:mod:`hhtool.history.build`) reads a line with the grammar's
matcher, then converts its tokens and builds its event as the row says; the C
reader (``hhtool/_native/_scan.c``) is configured from the same rows
(:func:`hhtool.history.parse.scan_kinds`): each row's shape (the rule's sequence of
terminals) picks the C routine that reads it and the rule's literal text, taken
from the grammar, is what that routine compares.  So adding a line kind is the
grammar rule, the event class in :data:`~hhtool.history.events.Event`, a row here and
the writer (``docs/architecture.md``, "Adding a line kind: the recipe").

A row whose ``place`` is set is a *simple* kind: its event is
``event(line, player, *rest)`` (``event(line)`` when the rule names no player), and
it may stand in the sections ``place`` allows.  The other rows (streets, the vela,
the showdown, the summary's parts) have a builder of their own in
:mod:`hhtool.history.build`, which checks their order and keeps the hand's state.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hhtool.game.cards import Card, parse_card
from hhtool.game.rules import STREET_NAMES
from hhtool.history import events
from hhtool.history.errors import HandHistoryError, HandParseError, InconsistentHandError, OutOfRangeError
from hhtool.history.events import Event
from hhtool.history.grammar import Tokens
from hhtool.history.money import AmountError, AmountRangeError, split_amount, to_units

MAX_SEAT = 99
"""The largest seat number, table size (``<n>-max``), button seat, side-pot number and
``joins the table at seat #<n>`` accepted (docs/format-notes.md, "Bounds"): seats are TINYINT
columns, and no room seats a hundred players at one table."""

_SEAT_DIGITS = len(str(MAX_SEAT))

# Sections of the body, in order.
PRE, STREETS, SHOWDOWN, SUMMARY = range(4)

Sections = tuple[bool, bool, bool, bool]
ONLY_PRE: Sections = (True, False, False, False)
"""Forced bets: before the cards are dealt."""
IN_PLAY: Sections = (False, True, True, False)
"""Deals, actions, shows: from ``*** 2nd STREET ***`` to the summary."""
IN_BODY: Sections = (True, True, True, False)
"""Chatter, collections, uncalled bets: anywhere before the summary."""


def misplaced(place: Sections, section: int) -> str:
    """Why a simple kind allowed in ``place`` cannot stand in ``section`` (the error's message)."""
    if place == ONLY_PRE:
        return "a forced bet after the cards were dealt"
    if section == SUMMARY:
        return "this line cannot follow *** SUMMARY ***"
    return "an action before *** 2nd STREET ***"


class LineProblem(Exception):
    """A token that parses but does not fit the hand (raised while converting, located by the builder)."""

    def __init__(self, message: str, token: str | None = None, cls: type[HandHistoryError] = InconsistentHandError) -> None:
        super().__init__(message)
        self.token = token
        self.cls = cls


class Money:
    """A hand's amounts: text to integer minor units in its currency, noting how they were written."""

    def __init__(self, symbol: str, cents: bool) -> None:
        self.symbol = symbol
        self.cents = cents
        self.decimals = False  # an amount was written with two decimals
        self.grouping = False  # an amount was written with thousands separators

    def amount(self, text: str | None) -> int:
        """Raises :class:`LineProblem` for another currency, decimals in chips or an amount out of range."""
        assert text is not None
        raw = split_amount(text)
        try:
            value = to_units(raw, self.symbol, self.cents)
        except AmountRangeError as e:
            raise LineProblem(str(e), text, OutOfRangeError) from None
        except AmountError as e:
            raise LineProblem(str(e), text) from None
        if raw.hundredths is not None:
            self.decimals = True
        if raw.grouped:
            self.grouping = True
        return value


Args = tuple[Any, ...]
Convert = Callable[[Money, Tokens], Args]


def seat_number(token: str | None, what: str) -> int:
    """An INT token that names a seat (or a table size, a side pot): at most :data:`MAX_SEAT`.

    Read by its significant digits first, so that a number of thousands of
    digits is this error, not ``int()``'s.
    """
    digits = (token or "0").lstrip("0")
    if len(digits) > _SEAT_DIGITS or (digits and int(digits) > MAX_SEAT):
        raise LineProblem(f"{what} {_shown(digits)} is out of range: the largest accepted is {MAX_SEAT}", token, OutOfRangeError)
    return int(digits) if digits else 0


def _shown(digits: str) -> str:
    """A number to quote in a message: as written, or its length when it is too long to quote."""
    return digits if len(digits) <= 20 else f"of {len(digits):,} digits"


def cards(text: str | None) -> tuple[Card, ...]:
    """``"Qc Qs 9c"`` -> cards (the grammar guarantees the shape)."""
    return tuple(parse_card(c) for c in (text or "").split(" "))


# ------------------------------------------------------------ converters


def c_amount_action(m: Money, v: Tokens) -> Args:
    return (v[0], m.amount(v[1]), v[2] is not None)


def c_post_blind(m: Money, v: Tokens) -> Args:
    return (v[0], "small" if v[1] == "small blind" else "big", m.amount(v[2]), v[3] is not None)


def c_street(m: Money, v: Tokens) -> Args:
    return (STREET_NAMES.index(str(v[0])),)


def c_one_card(m: Money, v: Tokens) -> Args:
    read = cards(v[0])
    if len(read) != 1:
        raise LineProblem("the vela is one card", v[0], HandParseError)
    return (read[0],)


def c_none(m: Money, v: Tokens) -> Args:
    return ()


def c_deal(m: Money, v: Tokens) -> Args:
    return (v[0], None if v[1] is None else cards(v[1]), None if v[2] is None else cards(v[2]))


def c_raise(m: Money, v: Tokens) -> Args:
    return (v[0], m.amount(v[1]), m.amount(v[2]), v[3] is not None)


def c_player(m: Money, v: Tokens) -> Args:
    return (v[0],)


def c_uncalled(m: Money, v: Tokens) -> Args:
    return (v[1], m.amount(v[0]))


def c_player_cards(m: Money, v: Tokens) -> Args:
    return (v[0], cards(v[1]))


def c_show(m: Money, v: Tokens) -> Args:
    return (v[0], cards(v[1]), v[2] or "")


def c_collect(m: Money, v: Tokens) -> Args:
    pot = v[2] or ""
    if pot == "pot":
        return (v[0], m.amount(v[1]), "pot", 0)
    if pot == "main pot":
        return (v[0], m.amount(v[1]), "main", 0)
    return (v[0], m.amount(v[1]), "side", seat_number(pot[9:], "the side pot number"))


def c_said(m: Money, v: Tokens) -> Args:
    return (v[0], v[1] or "")


def c_joins(m: Money, v: Tokens) -> Args:
    return (v[0], seat_number(v[1], "the seat number"))


def c_total(m: Money, v: Tokens) -> Args:
    return (m.amount(v[0]), m.amount(v[1]))


_SIDE_POT = re.compile(r" Side pot-([0-9]+) ([^ ]+?)\.(?= |$)")


def c_pots(m: Money, v: Tokens) -> Args:
    main = m.amount(v[0])
    sides: list[int] = []
    for k, found in enumerate(_SIDE_POT.finditer(v[1] or ""), start=1):
        if seat_number(found.group(1), "the side pot number") != k:
            raise LineProblem(f"side pots must be numbered 1, 2, ... in order; found Side pot-{found.group(1)}", f"Side pot-{found.group(1)}")
        sides.append(m.amount(found.group(2)))
    return (main, tuple(sides))


def c_outcome(m: Money, v: Tokens) -> Args:
    """Seat number, player, button, blind, then the outcome's own tokens as written."""
    head = (seat_number(v[0], "the seat number"), v[1], v[2] is not None, None if v[3] is None else ("small" if v[3] == " (small blind)" else "big"))
    return head + tuple(v[4:])


def c_won(m: Money, v: Tokens) -> Args:
    return c_outcome(m, v)[:4] + (cards(v[4]), m.amount(v[5]), v[6])


def c_lost(m: Money, v: Tokens) -> Args:
    return c_outcome(m, v)[:4] + (cards(v[4]), v[5])


def c_collected_outcome(m: Money, v: Tokens) -> Args:
    return c_outcome(m, v)[:4] + (m.amount(v[4]),)


# ------------------------------------------------------------------ the table


@dataclass(frozen=True, slots=True)
class LineKind:
    """One body line kind.

    ``rule``: the grammar rule (the name the matcher returns); ``event``: the
    class its line becomes (None for the summary's parts, which fill the
    :class:`~hhtool.history.events.Summary`); ``place``: where a simple kind may
    stand (None: the kind has its own builder in :mod:`hhtool.history.build`);
    ``convert``: tokens -> the event's arguments after its line number;
    ``player``: whether the first of them is a player token (the rule names a PLAYER).
    """

    rule: str
    event: type[Event] | None
    place: Sections | None
    convert: Convert
    player: bool = True


LINE_KINDS: tuple[LineKind, ...] = (
    LineKind("post_ante", events.PostAnte, ONLY_PRE, c_amount_action),
    LineKind("post_blind", events.PostBlind, ONLY_PRE, c_post_blind),
    LineKind("street", events.Street, None, c_street),
    LineKind("vela", events.Vela, None, c_one_card),
    LineKind("show_down", events.ShowDown, None, c_none),
    LineKind("summary", None, None, c_none),
    LineKind("deal", events.Deal, IN_PLAY, c_deal),
    LineKind("bring_in", events.BringIn, IN_PLAY, c_amount_action),
    LineKind("complete", events.Complete, IN_PLAY, c_amount_action),
    LineKind("bet", events.Bet, IN_PLAY, c_amount_action),
    LineKind("call", events.Call, IN_PLAY, c_amount_action),
    LineKind("raise_to", events.RaiseTo, IN_PLAY, c_raise),
    LineKind("check", events.Check, IN_PLAY, c_player),
    LineKind("fold", events.Fold, IN_PLAY, c_player),
    LineKind("uncalled", events.UncalledBet, IN_BODY, c_uncalled),
    LineKind("expose", events.Expose, IN_PLAY, c_player_cards),
    LineKind("double_bet", events.DoubleBetAllowed, IN_PLAY, c_none, player=False),
    LineKind("capped", events.BettingCapped, IN_PLAY, c_none, player=False),
    LineKind("show", events.Shows, IN_PLAY, c_show),
    LineKind("muck", events.Mucks, IN_PLAY, c_player),
    LineKind("no_show", events.DoesNotShow, IN_BODY, c_player),
    LineKind("collect", events.Collected, IN_BODY, c_collect),
    LineKind("total", None, None, c_total),
    LineKind("pots", None, None, c_pots),
    LineKind("summary_vela", None, None, c_one_card),
    LineKind("seat_folded", None, None, c_outcome),
    LineKind("seat_won", None, None, c_won),
    LineKind("seat_lost", None, None, c_lost),
    LineKind("seat_mucked", None, None, c_outcome),
    LineKind("seat_collected", None, None, c_collected_outcome),
    LineKind("disconnected", events.Disconnected, IN_BODY, c_player),
    LineKind("timed_out", events.TimedOut, IN_BODY, c_player),
    LineKind("said", events.Said, IN_BODY, c_said),
    LineKind("joins", events.Joins, IN_BODY, c_joins),
    LineKind("leaves", events.Leaves, IN_BODY, c_player),
)
"""Every body line kind, in the grammar's order (``tests/test_lines.py`` checks the two list the same rules)."""

KIND_OF: dict[str, LineKind] = {k.rule: k for k in LINE_KINDS}
