"""A simulated hand as a history: the header, the table and seat lines, the chatter, the summary (FORMAT.md).

The events of the play are already in order with their line numbers
(:class:`~hhtool.simulate.hand.HandState`); this adds what a room writes
around them and returns the :class:`~hhtool.history.events.Hand` that
:func:`hhtool.history.write.write_hand` turns into text.  The result is
the audit view (every hole card); :mod:`.view` derives a player's own.
"""

from __future__ import annotations

from hhtool.game.rules import ROUND_NAMES
from hhtool.history.events import Blind, Hand, Header, Joins, Leaves, Said, Seat, SeatOutcome, Summary, Table
from hhtool.simulate.hand import HandState
from hhtool.simulate.settle import Settlement


def write_up(hand: HandState, settled: Settlement, arrivals: list[tuple[str, int]], departures: list[str]) -> Hand:
    """The hand as a history: now and then a word said, who leaves and who sits down, then the summary."""
    rng = hand.rng
    if rng.random() < 0.02 and len(hand.players) > 1:
        talker = rng.choice(hand.players).name
        hand.emit(Said(hand.ln(), talker, rng.choice(("gl", "nh", "ty", "wp"))))
    for name in departures:
        hand.emit(Leaves(hand.ln(), name))
    for name, seat in arrivals:
        hand.emit(Joins(hand.ln(), name, seat))
    summary = _summary(hand, settled)
    return Hand(
        header=_header(hand),
        table=Table(2, hand.table_name, hand.max_seats, hand.button),
        seats=tuple(Seat(3 + k, s, n, st) for k, (s, n, st, _) in enumerate(hand.seat_list)),
        events=tuple(hand.events),
        summary=summary,
        money=hand.cfg.site.money,
    )


def _summary(hand: HandState, settled: Settlement) -> Summary:
    """``*** SUMMARY ***``: the total and rake, the pots when there were several, the vela, one line a seat."""
    line = hand.ln()
    extra = 1
    main_pot: int | None = None
    sides: tuple[int, ...] = ()
    if settled.side_pots:
        amounts = [p.amount for p in settled.side_pots]
        main_pot, sides = amounts[0], tuple(amounts[1:])
        extra += 1
    vela = hand.vela if hand.vela_turned else None
    if vela is not None:
        extra += 1
    left, mucked, collected = settled.left, settled.mucked, settled.collected
    outcomes = []
    blinds = hand.rules.forced_bets == "blinds"
    sb = hand.players[0].name if blinds else None
    bb = hand.players[1].name if blinds else None
    for k, (seat, name, _, _) in enumerate(hand.seat_list):
        p = hand.by_name[name]
        blind: Blind | None = "small" if name == sb else "big" if name == bb else None
        o_line = line + extra + 1 + k
        button = seat == hand.button
        if p.folded:
            o = SeatOutcome(o_line, seat, name, button, blind, "folded", ROUND_NAMES[p.folded_round - 1])
        elif len(left) < 2:
            o = SeatOutcome(o_line, seat, name, button, blind, "collected", amount=collected.get(name, 0))
        elif name in mucked:
            o = SeatOutcome(o_line, seat, name, button, blind, "mucked")
        else:
            v = hand.value(name)
            won = collected.get(name, 0)
            cards = tuple(hand.holes[name].cards)
            if won > 0:
                o = SeatOutcome(o_line, seat, name, button, blind, "won", None, cards, won, v.description)
            else:
                o = SeatOutcome(o_line, seat, name, button, blind, "lost", None, cards, None, v.description)
        outcomes.append(o)
    hand.line = line + extra + 1 + len(outcomes)
    return Summary(line, settled.total, settled.rake, main_pot, sides, vela, tuple(outcomes))


def _header(hand: HandState) -> Header:
    cfg = hand.cfg
    st = cfg.stakes
    return Header(
        1,
        cfg.site.name,
        hand.hand_id,
        hand.rules.name,
        cfg.options.vela_at_start,
        cfg.options.wild,
        cfg.options.exposure,
        cfg.structure,
        st.small_bet,
        st.big_bet,
        st.ante,
        st.bring_in,
        st.small_blind,
        st.big_blind,
        hand.started,
        cfg.site.zone,
    )
