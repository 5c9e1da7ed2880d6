"""A :class:`~hhtool.history.events.Hand` back to canonical text.

Canonical means: the spellings of FORMAT.md, single spaces, the italian
options in the order ``[vela at start] [wild r] [exposure]``, amounts in
the hand's :class:`~hhtool.history.money.MoneyStyle`, ``Main pot X. Side pot-1 Y.``
with a final period, ``\\n`` line ends and no blank line inside the hand.
Completions are written as the room wrote them (a ``Bet`` stays a bet).

Round trip: ``parse_text(write_hand(hand)) == hand`` for every hand the
parser produced (line numbers are not part of equality), and the written
text of a canonical hand is identical to its source.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from hhtool.game.cards import RANK_CHARS, cards_str, card_str
from hhtool.game.rules import ROUND_NAMES, RoundName
from hhtool.history import events
from hhtool.history.events import Collected, Deal, Event, Hand, Header, SeatOutcome
from hhtool.history.money import MoneyStyle, format_amount

_STRUCTURES = {"fixed": "Fixed Limit", "pot": "Pot Limit", "no": "No Limit"}
_EXPOSURES = {"carte_coperte": " [carte coperte]", "una_coperta": " [una coperta]"}
FOLD_WORDS: dict[RoundName, str] = {name: "on the Vela" if name == "vela" else f"on {name} Street" for name in ROUND_NAMES}
"""Where the summary says a player folded (``folded on 3rd Street``), for each betting round."""


def write_hand(hand: Hand) -> str:
    """The hand as canonical text, ending with a newline."""
    return "\n".join(hand_lines(hand)) + "\n"


def write_hands(hands: Iterable[Hand]) -> str:
    """Several hands, separated by one blank line."""
    return "\n".join(write_hand(h) for h in hands)


def hand_lines(hand: Hand) -> list[str]:
    style = hand.money

    def amt(value: int) -> str:
        return format_amount(value, style)

    lines = [header_line(hand.header, style)]
    t = hand.table
    lines.append(f"Table '{t.name}' {t.max_seats}-max Seat #{t.button} is the button")
    for s in hand.seats:
        lines.append(f"Seat {s.seat}: {s.player} ({amt(s.stack)} in chips)")
    for e in hand.events:
        lines.append(event_line(e, style))
    lines.append("*** SUMMARY ***")
    sm = hand.summary
    lines.append(f"Total pot {amt(sm.total)} | Rake {amt(sm.rake)}")
    if sm.main_pot is not None:
        text = f"Main pot {amt(sm.main_pot)}."
        for k, side in enumerate(sm.side_pots, start=1):
            text += f" Side pot-{k} {amt(side)}."
        lines.append(text)
    if sm.vela is not None:
        lines.append(f"Vela [{card_str(sm.vela)}]")
    for o in sm.outcomes:
        lines.append(outcome_line(o, style))
    return lines


def header_line(h: Header, style: MoneyStyle) -> str:
    def amt(value: int | None) -> str:
        assert value is not None
        return format_amount(value, style)

    options = ""
    if h.vela_at_start:
        options += " [vela at start]"
    if h.wild is not None:
        options += f" [wild {RANK_CHARS[h.wild - 2]}]"
    options += _EXPOSURES.get(h.exposure, "")
    if h.small_blind is not None or h.big_blind is not None:
        forced = f"blinds {amt(h.small_blind)}/{amt(h.big_blind)}"
    else:
        forced = f"ante {amt(h.ante)}"
        if h.bring_in is not None:
            forced += f", bring-in {amt(h.bring_in)}"
    when = h.started.strftime("%Y/%m/%d %H:%M:%S")
    return (
        f"{h.site} Hand #{h.hand_id}: Telesina {h.profile}{options} {_STRUCTURES[h.structure]} "
        f"({amt(h.small_bet)}/{amt(h.big_bet)}) - {forced} - {when} {h.zone}"
    )


def event_line(e: Event, style: MoneyStyle) -> str:
    """One body line."""
    return _WRITERS[type(e)](e, style)


def _all_in(flag: bool) -> str:
    return " and is all-in" if flag else ""


def _deal(e: Deal, style: MoneyStyle) -> str:
    text = f"Dealt to {e.player}"
    if e.known is not None:
        text += f" [{cards_str(e.known)}]"
        if e.new is not None:
            text += f" [{cards_str(e.new)}]"
    return text


def _collected(e: Collected, style: MoneyStyle) -> str:
    pot = {"pot": "pot", "main": "main pot"}.get(e.pot) or f"side pot-{e.side}"
    return f"{e.player} collected {format_amount(e.amount, style)} from {pot}"


def outcome_line(o: SeatOutcome, style: MoneyStyle) -> str:
    text = f"Seat {o.seat}: {o.player}"
    if o.button:
        text += " (button)"
    if o.blind is not None:
        text += f" ({o.blind} blind)"
    if o.outcome == "folded":
        return f"{text} folded {FOLD_WORDS[o.street or '2nd']}"
    if o.outcome == "won":
        return f"{text} showed [{cards_str(o.cards or ())}] and won ({format_amount(o.amount or 0, style)}) with {o.description}"
    if o.outcome == "lost":
        return f"{text} showed [{cards_str(o.cards or ())}] and lost with {o.description}"
    if o.outcome == "mucked":
        return f"{text} mucked"
    return f"{text} collected ({format_amount(o.amount or 0, style)})"


_WRITERS: dict[type, Callable[..., str]] = {
    events.PostAnte: lambda e, s: f"{e.player}: posts the ante {format_amount(e.amount, s)}{_all_in(e.all_in)}",
    events.PostBlind: lambda e, s: f"{e.player}: posts {e.blind} blind {format_amount(e.amount, s)}{_all_in(e.all_in)}",
    events.Street: lambda e, s: f"*** {e.name} STREET ***",
    events.Vela: lambda e, s: f"*** VELA *** [{card_str(e.card)}]",
    events.ShowDown: lambda e, s: "*** SHOW DOWN ***",
    events.Deal: _deal,
    events.BringIn: lambda e, s: f"{e.player}: brings in for {format_amount(e.amount, s)}{_all_in(e.all_in)}",
    events.Complete: lambda e, s: f"{e.player}: completes it to {format_amount(e.to, s)}{_all_in(e.all_in)}",
    events.Bet: lambda e, s: f"{e.player}: bets {format_amount(e.amount, s)}{_all_in(e.all_in)}",
    events.Call: lambda e, s: f"{e.player}: calls {format_amount(e.amount, s)}{_all_in(e.all_in)}",
    events.RaiseTo: lambda e, s: f"{e.player}: raises {format_amount(e.by, s)} to {format_amount(e.to, s)}{_all_in(e.all_in)}",
    events.Check: lambda e, s: f"{e.player}: checks",
    events.Fold: lambda e, s: f"{e.player}: folds",
    events.UncalledBet: lambda e, s: f"Uncalled bet ({format_amount(e.amount, s)}) returned to {e.player}",
    events.Expose: lambda e, s: f"{e.player}: exposes [{cards_str(e.cards)}]",
    events.DoubleBetAllowed: lambda e, s: "Pair on board - a double bet is allowed",
    events.BettingCapped: lambda e, s: "Betting is capped",
    events.Shows: lambda e, s: f"{e.player}: shows [{cards_str(e.cards)}] ({e.description})",
    events.Mucks: lambda e, s: f"{e.player}: mucks hand",
    events.DoesNotShow: lambda e, s: f"{e.player}: doesn't show hand",
    events.Collected: _collected,
    events.Disconnected: lambda e, s: f"{e.player} is disconnected",
    events.TimedOut: lambda e, s: f"{e.player} has timed out",
    events.Said: lambda e, s: f'{e.player} said, "{e.text}"',
    events.Joins: lambda e, s: f"{e.player} joins the table at seat #{e.seat}",
    events.Leaves: lambda e, s: f"{e.player} leaves the table",
}
"""The line of each class of :data:`~hhtool.history.events.Event`, in its order (``tests/test_lines.py``: exactly its classes)."""
