"""A hand as plain text to paste in a forum post: the game, the seats, each street with the cards seen and the actions, the result.

Written from the hand's steps (:mod:`hhtool.replay.steps`), so what it says
is what the replayer shows: the cards as the history's viewer saw them (a
down card the viewer never saw is ``(??)``, a hole card is shown where the
history shows it: in the viewer's own history, at a showdown, when turned
up; an audit view knows every card), the actions in the steps' sentences,
every amount in the hand's own money with thousands grouped
(:func:`hhtool.history.money.display_amount`), the pots as the rules settle
them and the audit's verdict.  Every line fits in 80 columns (East Asian
wide characters count two; a word longer than a line is cut) and every
string from the history is shown through :func:`hhtool.textsafe.term`: a
name holding an escape sequence or a bidi override is text, never a command
to the terminal it is printed on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hhtool.game.cards import RANK_CHARS, card_symbol
from hhtool.history.events import Event, PostAnte
from hhtool.history.money import display_amount
from hhtool.textsafe import columns, term, wrap

if TYPE_CHECKING:
    from hhtool.replay.steps import SeatState, SeenCard, Step
    from hhtool.replayer.share import Shared

WIDTH = 80
INDENT = "    "
_STRUCTURES = {"fixed": "Fixed Limit", "pot": "Pot Limit", "no": "No Limit"}
_EXPOSURES = {"carte_coperte": "carte coperte", "una_coperta": "una coperta"}


def _card(c: SeenCard) -> str:
    if c.card is None:
        return "(??)"
    return card_symbol(c.card) if c.up else f"({card_symbol(c.card)})"


def cards_text(seat: SeatState) -> str:
    """A player's cards as the viewer saw them: up cards bare, down cards in brackets, an unseen one ``(??)``."""
    return " ".join(_card(c) for c in seat.cards) or "no card"


def game_line(shared: Shared) -> str:
    """``Telesina classic Fixed Limit (€0.50/€1.00) - ante €0.10, bring-in €0.20``, amounts grouped."""
    hand = shared.steps.hand
    h = hand.header

    def fmt(value: int | None) -> str:
        return display_amount(value or 0, hand.money)

    options = []
    if h.vela_at_start:
        options.append("vela at start")
    if h.wild is not None:
        options.append(f"wild {RANK_CHARS[h.wild - 2]}")
    if h.exposure in _EXPOSURES:
        options.append(_EXPOSURES[h.exposure])
    small, big = fmt(h.small_bet), fmt(h.big_bet)
    if small.endswith(" chips"):
        small = small.removesuffix(" chips")
    if h.small_blind is not None or h.big_blind is not None:
        forced = f"blinds {fmt(h.small_blind)}/{fmt(h.big_blind)}"
    else:
        forced = f"ante {fmt(h.ante)}" + (f", bring-in {fmt(h.bring_in)}" if h.bring_in is not None else "")
    opts = f" [{', '.join(options)}]" if options else ""
    return f"Telesina {h.profile}{opts} {_STRUCTURES.get(h.structure, h.structure)} ({small}/{big}) - {forced}"


def forum_text(shared: Shared, width: int = WIDTH) -> str:
    """The hand as forum text, every line within ``width`` columns, ending with a newline."""
    steps = shared.steps
    hand = steps.hand
    h = hand.header
    t = hand.table

    def fmt(value: int) -> str:
        return display_amount(value, hand.money)

    out: list[str] = []

    def say(text: str, indent: str = INDENT) -> None:
        out.extend(wrap(term(shared.relabel(text)), width, indent))

    say(game_line(shared))
    if not shared.anonymised:
        say(f"{h.site} hand #{h.hand_id} - table '{t.name}' - {h.started.strftime('%Y/%m/%d %H:%M:%S')} {h.zone}")
    say(f"{len(hand.seats)} players, {t.max_seats}-max; the button is seat {t.button}")
    out.append("")
    for seat in steps.steps[0].seats:
        marks = [m for m, on in (("button", seat.seat == t.button), ("hero", seat.name == shared.hero), ("not dealt in", not seat.dealt)) if on]
        name = "" if shared.relabel(seat.name) == f"Seat {seat.seat}" else f" {seat.name}"
        say(f"Seat {seat.seat}:{name} {fmt(seat.stack)}" + (f" ({', '.join(marks)})" if marks else ""))
    say("Cards: (Q♠) a card down, Q♠ a card up, (??) a card down not seen.")

    events: dict[int, Event] = {e.line: e for e in hand.events}
    antes: list[tuple[int, list[str]]] = []  # (amount, players), in order
    dealt: list[str] = []
    last_deal: Step | None = None

    def flush() -> None:
        nonlocal last_deal
        for amount, players in antes:
            say(f"Antes of {fmt(amount)}: {', '.join(players)}")
        antes.clear()
        if last_deal is not None:
            by_name = {p.name: p for p in last_deal.seats}
            for name in dealt:
                seat = by_name.get(name)
                if seat is not None:
                    say(f"  {name}: {cards_text(seat)}", INDENT + "  ")
        dealt.clear()
        last_deal = None

    for s in steps.steps:
        e = events.get(s.line)
        if s.kind == "start":
            continue
        if s.kind == "post" and isinstance(e, PostAnte) and not e.all_in:
            if antes and antes[-1][0] == e.amount:
                antes[-1][1].append(e.player)
            else:
                antes.append((e.amount, [e.player]))
            continue
        if s.kind == "deal":
            if s.actor is not None and s.actor not in dealt:
                dealt.append(s.actor)
            last_deal = s
            continue
        flush()
        if s.kind == "street":
            out.append("")
            say(f"*** {s.street} STREET *** pot {fmt(s.pot)}")
        elif s.kind == "vela":
            out.append("")
            say(f"*** VELA *** {card_symbol(s.vela) if s.vela is not None else '?'}, pot {fmt(s.pot)}")
        elif s.kind == "showdown":
            out.append("")
            say(f"*** SHOWDOWN *** pot {fmt(s.pot)}")
        elif s.kind == "result":
            out.append("")
            say(f"*** RESULT *** total pot {fmt(hand.summary.total)}, rake {fmt(hand.summary.rake)} (as the history states)")
            for p in steps.replay.pots:
                won = ", ".join(f"{name} {fmt(amount)}" for name, amount in p.winners.items()) or "nobody"
                rake = f", rake {fmt(p.rake)}" if p.rake else ""
                say(f"{p.name} {fmt(p.amount)}{rake}: {won}")
                if p.reason:
                    say(f"  {p.reason}" + ("" if p.verified else " (unverified: cards unknown)"), INDENT + "  ")
        elif s.kind == "verdict":
            out.append("")
            verdict = steps.replay.verdict
            say(f"hhtool's audit: {verdict}" + ("" if verdict == "ok" else f". {steps.verdict_text}"))
        else:
            say(s.sentence)
    flush()
    return "\n".join(out) + "\n"


__all__ = ["WIDTH", "cards_text", "columns", "forum_text", "game_line", "wrap"]
