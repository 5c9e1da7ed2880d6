"""Fault injection: valid hands altered by one fault class each.

The audit must catch every one of these, with the right verdict.  The
test suite applies each class to every hand it can (the mutation corpus),
and ``hhtool simulate --faults`` uses the same functions, writing a
manifest so that an audit can be scored.

A fault function takes a hand and a random generator and returns the
altered hand with a sentence saying what changed and the line the fault
changed (:class:`Altered`), or ``None`` when the class does not apply to
that hand (no bring-in to move in a blinds game, no vela to remove in a
profile without one, ...).  That line is where the audit must report the
cause: the line altered, the first line inserted (for four raises, the one
over the cap), or, for a line removed, the line that now stands where it
stood.  Lines inserted or removed renumber the lines after them as the
written text numbers them, so the altered hand's lines are those of
``write_hand(altered.hand)`` for a hand whose lines were its text's.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from hhtool.game.cards import Card, card_str, make_card
from hhtool.history.events import (
    ACTIONS,
    Action,
    Bet,
    BringIn,
    Call,
    Check,
    Collected,
    Deal,
    Event,
    Expose,
    Fold,
    Hand,
    Mucks,
    PostAnte,
    RaiseTo,
    ShowDown,
    Shows,
    Street,
    Vela,
)
from hhtool.game.rules import RuleSet, profile

if TYPE_CHECKING:
    from hhtool.game.room import Room


@dataclass(frozen=True, slots=True)
class Altered:
    """A hand altered by a fault: the hand, what changed in words, and the line it changed."""

    hand: Hand
    change: str
    line: int


Fault = Callable[[Hand, random.Random], "Altered | None"]
RuledFault = Callable[[Hand, random.Random, RuleSet], "Altered | None"]


@dataclass(frozen=True, slots=True)
class FaultClass:
    """A fault, the finding code that must catch it and the verdict it must give.

    ``code`` is the code under the hand's profile.  A room file can change
    both where a fault applies and what catches it: ``ruled`` is the fault
    under a room's rules where they decide it (a raise over the cap needs
    the room's cap), and ``rake_code`` the code that catches it when the
    room states its rake (a changed Rake line is then ``rake_over`` or
    ``rake_under``, not a wrong collection); :meth:`alter` applies both.
    """

    name: str
    code: str
    verdict: str
    apply: Fault
    ruled: RuledFault | None = None
    rake_code: Callable[[Hand, Altered], str] | None = None

    def alter(self, hand: Hand, rng: random.Random, room: Room | None = None) -> tuple[Altered, str] | None:
        """``hand`` altered by this class, under ``room``'s rules (None: its profile's), and the code that must catch it; None if the class does not apply."""
        if room is None:
            altered = self.apply(hand, rng)
        elif self.ruled is not None:
            altered = self.ruled(hand, rng, room.rules)
        else:
            altered = self.apply(hand, rng)
        if altered is None:
            return None
        if room is not None and room.rake is not None and self.rake_code is not None:
            return altered, self.rake_code(hand, altered)
        return altered, self.code


def _events(hand: Hand, events: list[Event]) -> Hand:
    return replace(hand, events=tuple(events))


def _splice(hand: Hand, start: int, removed: int, inserted: Sequence[Event]) -> Hand:
    """``removed`` events from ``start`` replaced by ``inserted``, numbered as the written text numbers them.

    The inserted lines take the line of the first event removed (or of the
    event they go before, or of the summary); every later line moves by the
    difference.
    """
    events = list(hand.events)
    at = events[start].line if start < len(events) else hand.summary.line
    shift = len(inserted) - removed
    new = [replace(e, line=at + k) for k, e in enumerate(inserted)]
    later = [replace(e, line=e.line + shift) for e in events[start + removed :]]
    s = hand.summary
    summary = replace(s, line=s.line + shift, outcomes=tuple(replace(o, line=o.line + shift) for o in s.outcomes))
    return replace(hand, events=tuple(events[:start] + new + later), summary=summary)


def _actions(hand: Hand) -> list[tuple[int, Action, int]]:
    """(index, event, street number) of every betting action."""
    out: list[tuple[int, Action, int]] = []
    street = 0
    for i, e in enumerate(hand.events):
        if isinstance(e, Street):
            street += 1
        elif isinstance(e, Vela):
            street = 5
        elif isinstance(e, ACTIONS):
            out.append((i, e, street))
    return out


def wrong_winner(hand: Hand, rng: random.Random) -> Altered | None:
    collections = [(i, e) for i, e in enumerate(hand.events) if isinstance(e, Collected)]
    players = [s.player for s in hand.seats]
    if not collections:
        return None
    i, c = rng.choice(collections)
    others = [p for p in players if p != c.player and not any(isinstance(x, Collected) and x.player == p for x in hand.events)]
    if not others:
        return None
    who = rng.choice(others)
    events = list(hand.events)
    events[i] = replace(c, player=who)
    return Altered(_events(hand, events), f"{c.player}'s collection on line {c.line} given to {who}", c.line)


def wrong_amount(hand: Hand, rng: random.Random) -> Altered | None:
    collections = [(i, e) for i, e in enumerate(hand.events) if isinstance(e, Collected)]
    if not collections:
        return None
    i, c = rng.choice(collections)
    delta = rng.choice([-1, 1]) * max(1, c.amount // 10)
    if c.amount + delta <= 0:
        delta = 1
    events = list(hand.events)
    events[i] = replace(c, amount=c.amount + delta)
    return Altered(_events(hand, events), f"{c.player} collects {c.amount + delta} instead of {c.amount} (line {c.line})", c.line)


def total_pot_wrong(hand: Hand, rng: random.Random) -> Altered | None:
    if hand.summary.side_pots:
        return None  # main + side pots must add up to the total, or the hand does not even parse
    delta = max(1, hand.summary.total // 20)
    summary = replace(hand.summary, total=hand.summary.total + delta)
    line = hand.summary.line + 1  # 'Total pot' comes first in the summary
    return Altered(replace(hand, summary=summary), f"total pot raised by {delta} (line {line})", line)


def rake_wrong(hand: Hand, rng: random.Random) -> Altered | None:
    if not any(isinstance(e, Collected) for e in hand.events):
        return None
    s = hand.summary
    delta = max(1, s.total // 20)
    rake = s.rake + delta if s.rake + delta < s.total else max(s.rake - delta, 0)
    if rake == s.rake:
        return None
    return Altered(replace(hand, summary=replace(s, rake=rake)), f"rake {rake} instead of {s.rake} with the same collections", s.line + 1)


def rake_wrong_code(hand: Hand, altered: Altered) -> str:
    """What catches :func:`rake_wrong` under a room that states its rake: the Rake line over or under the room's (the hand's was the room's)."""
    return "rake_over" if altered.hand.summary.rake > hand.summary.rake else "rake_under"


def rake_over_pot(hand: Hand, rng: random.Random) -> Altered | None:
    s = hand.summary
    return Altered(replace(hand, summary=replace(s, rake=s.total + 1)), f"rake {s.total + 1} on a pot of {s.total}", s.line + 1)


def illegal_bet_size(hand: Hand, rng: random.Random) -> Altered | None:
    # not a completion of the bring-in (a round-1 "bets" in classic): that is another fault
    bring_in = any(isinstance(e, BringIn) for e in hand.events) or hand.header.bring_in is not None
    bets = [(i, e) for i, e, s in _actions(hand) if isinstance(e, Bet) and not e.all_in and not (bring_in and s == 1)]
    if not bets:
        return None
    i, e = rng.choice(bets)
    assert isinstance(e, Bet)
    structure = hand.header.structure
    if structure == "fixed":
        amount = e.amount + max(1, hand.header.small_bet // 2)
    elif structure == "pot":
        amount = hand.summary.total + hand.header.small_bet  # above the pot at any point of the hand
    else:
        amount = max(1, hand.header.small_bet // 2)  # below the minimum bet
        if amount >= e.amount:
            return None
    events = list(hand.events)
    events[i] = replace(e, amount=amount)
    return Altered(_events(hand, events), f"{e.player} bets {amount} instead of {e.amount} (line {e.line})", e.line)


def raise_over_cap(hand: Hand, rng: random.Random, rules: RuleSet | None = None) -> Altered | None:
    """In a heads-up fixed-limit round that went bet-call: four raises between the bet and the call.

    ``rules``: the room's, where a room file governs the hand (default: the
    header's profile).  Under rules with no cap heads-up, or a cap above
    one bet and four raises, the raises are legal: the class does not apply.
    """
    rules = rules if rules is not None else profile(hand.header.profile)
    if hand.header.structure != "fixed" or rules.cap_heads_up or rules.cap_bets > 4:
        return None
    acts = _actions(hand)
    by_round: dict[int, list[tuple[int, Action]]] = {}
    for i, e, street in acts:
        by_round.setdefault(street, []).append((i, e))
    for street, round_acts in sorted(by_round.items()):
        kinds = [type(e) for _, e in round_acts]
        players = {e.player for _, e in round_acts}
        if len(players) != 2 or kinds[-2:] != [Bet, Call] or street == 1:
            continue
        (_, bet), (j, call) = round_acts[-2], round_acts[-1]
        assert isinstance(bet, Bet) and isinstance(call, Call)
        if bet.all_in or call.all_in:
            continue
        unit, level = bet.amount, bet.amount
        stacks = {seat.player: seat.stack for seat in hand.seats}
        if min(stacks.get(bet.player, 0), stacks.get(call.player, 0)) < hand.summary.total + 4 * unit:
            continue  # the raises must not run a player out of chips: that would be another fault
        inserted: list[Event] = []
        for n in range(4):
            who = call.player if n % 2 == 0 else bet.player
            inserted.append(RaiseTo(line=call.line, player=who, by=unit, to=level + unit))
            level += unit
        inserted.append(Call(line=call.line, player=call.player, amount=unit))
        # the bet is the first of the round's bets: the raise that makes one more than the cap is the fault's line
        over = call.line + rules.cap_bets - 1
        what = f"four raises after {bet.player}'s bet on line {bet.line}: one bet and four raises"
        return Altered(_splice(hand, j, 1, inserted), what, over)
    return None


def check_facing_bet(hand: Hand, rng: random.Random) -> Altered | None:
    calls = [(i, e) for i, e, _ in _actions(hand) if isinstance(e, Call)]
    if not calls:
        return None
    i, e = rng.choice(calls)
    events = list(hand.events)
    events[i] = Check(line=e.line, player=e.player)
    return Altered(_events(hand, events), f"{e.player} checks instead of calling (line {e.line})", e.line)


def out_of_turn(hand: Hand, rng: random.Random) -> Altered | None:
    acts = _actions(hand)
    pairs = []
    for k in range(1, len(acts) - 1):
        (i, e, s), (j, f, t) = acts[k], acts[k + 1]
        first_of_round = acts[k - 1][2] != s
        if s == t and j == i + 1 and e.player != f.player and not first_of_round:
            pairs.append((i, j))
    if not pairs:
        return None
    i, j = rng.choice(pairs)
    events = list(hand.events)
    a, b = events[i], events[j]
    events[i], events[j] = replace(b, line=a.line), replace(a, line=b.line)
    what = f"lines {a.line} and {b.line} swapped: {getattr(b, 'player', '?')} acts before {getattr(a, 'player', '?')}"
    return Altered(_events(hand, events), what, a.line)


def action_after_fold(hand: Hand, rng: random.Random) -> Altered | None:
    acts = _actions(hand)
    for k, (i, e, s) in enumerate(acts):
        if isinstance(e, Fold):
            later = [(j, x) for j, x, t in acts[k + 1 :]]
            if not later:
                continue
            j, x = later[0]
            what = f"{e.player} checks after folding on line {e.line}"
            return Altered(_splice(hand, j, 0, [Check(line=x.line, player=e.player)]), what, x.line)
    return None


def wrong_bring_in(hand: Hand, rng: random.Random) -> Altered | None:
    for i, e in enumerate(hand.events):
        if isinstance(e, BringIn):
            others = [s.player for s in hand.seats if s.player != e.player]
            dealt = {x.player for x in hand.events if isinstance(x, PostAnte)}
            others = [p for p in others if p in dealt]
            if not others:
                return None
            who = rng.choice(others)
            events = list(hand.events)
            events[i] = replace(e, player=who)
            return Altered(_events(hand, events), f"{who} brings in instead of {e.player} (line {e.line})", e.line)
    return None


def wrong_opener(hand: Hand, rng: random.Random) -> Altered | None:
    """Swap the first two actions of a later round, by different players."""
    acts = _actions(hand)
    for k in range(1, len(acts) - 1):
        (i, e, s), (j, f, t) = acts[k], acts[k + 1]
        if s >= 2 and acts[k - 1][2] != s and s == t and j == i + 1 and e.player != f.player:
            events = list(hand.events)
            events[i], events[j] = replace(f, line=e.line), replace(e, line=f.line)
            return Altered(_events(hand, events), f"{f.player} opens street {s} instead of {e.player} (line {e.line})", e.line)
    return None


def missing_ante(hand: Hand, rng: random.Random) -> Altered | None:
    antes = [(i, e) for i, e in enumerate(hand.events) if isinstance(e, PostAnte)]
    if not antes:
        return None
    i, e = rng.choice(antes)
    return Altered(_splice(hand, i, 1, []), f"{e.player}'s ante (line {e.line}) removed", e.line)


def missing_vela(hand: Hand, rng: random.Random) -> Altered | None:
    if not any(isinstance(e, ShowDown) for e in hand.events):
        return None  # a hand won by a fold in the vela round: without the vela its bets are out of round, another fault
    for i, e in enumerate(hand.events):
        if isinstance(e, Vela):
            altered = _splice(hand, i, 1, [])
            return Altered(replace(altered, summary=replace(altered.summary, vela=None)), f"the vela (line {e.line}) removed", e.line)
    return None


def extra_vela(hand: Hand, rng: random.Random) -> Altered | None:
    """A vela in a hand whose profile (and variant) deals none."""
    if hand.header.profile == "classic" or hand.header.vela_at_start or any(isinstance(e, Vela) for e in hand.events):
        return None
    if not any(isinstance(e, Street) and e.name == "5th" for e in hand.events):
        return None  # a vela before 5th street does not even parse (FORMAT.md order): not this fault
    used = {c for e in hand.events if isinstance(e, Deal) for part in (e.known or (), e.new or ()) for c in part}
    used |= {c for e in hand.events if isinstance(e, (Expose, Shows)) for c in e.cards}  # own views show some cards only here
    free = [make_card(r, s) for r in range(8, 15) for s in range(4) if make_card(r, s) not in used]
    if not free:
        return None
    card = rng.choice(free)
    # after the last street's actions: before the showdown or the end of events
    events = list(hand.events)
    idx = next((k for k, e in enumerate(events) if isinstance(e, (ShowDown, Shows, Mucks, Collected))), len(events))
    altered = _splice(hand, idx, 0, [Vela(line=0, card=Card(card))])
    line = altered.events[idx].line
    return Altered(altered, f"a vela {card_str(card)} added on line {line}", line)


def _deal_positions(hand: Hand) -> list[tuple[int, str, int]]:
    """(event index, part, position) of every card in a deal line."""
    out = []
    for i, e in enumerate(hand.events):
        if isinstance(e, Deal):
            for part in ("known", "new"):
                cards = getattr(e, part) or ()
                for k in range(len(cards)):
                    out.append((i, part, k))
    return out


def _set_card(hand: Hand, where: tuple[int, str, int], card: Card) -> tuple[Hand, Card, int]:
    i, part, k = where
    e = hand.events[i]
    assert isinstance(e, Deal)
    cards = list(getattr(e, part))
    old = cards[k]
    cards[k] = card
    events = list(hand.events)
    events[i] = replace(e, known=tuple(cards)) if part == "known" else replace(e, new=tuple(cards))
    return _events(hand, events), old, e.line


def card_twice(hand: Hand, rng: random.Random) -> Altered | None:
    """A new card on a later street becomes a card dealt earlier to another player."""
    positions = _deal_positions(hand)
    news = [p for p in positions if p[1] == "new"]
    if not news:
        return None
    target = rng.choice(news)
    deals = {i: e for i, e in enumerate(hand.events) if isinstance(e, Deal)}
    target_player = deals[target[0]].player
    earlier = [
        getattr(deals[i], part)[k] for i, part, k in positions if i < target[0] and deals[i].player != target_player
    ]
    if not earlier:
        return None
    card = rng.choice(earlier)
    new_hand, old, line = _set_card(hand, target, card)
    return Altered(new_hand, f"{card_str(old)} on line {line} replaced by {card_str(card)}, already dealt", line)


def card_outside_deck(hand: Hand, rng: random.Random) -> Altered | None:
    news = [p for p in _deal_positions(hand) if p[1] == "new"]
    if not news:
        return None
    target = rng.choice(news)
    card = make_card(2, rng.randrange(4))  # the largest deck (8 players) starts at 3
    new_hand, old, line = _set_card(hand, target, card)
    return Altered(new_hand, f"{card_str(old)} on line {line} replaced by {card_str(card)}, outside the deck", line)


FAULTS: tuple[FaultClass, ...] = (
    FaultClass("wrong_winner", "wrong_winner", "disputed", wrong_winner),
    FaultClass("wrong_amount", "wrong_amount", "disputed", wrong_amount),
    FaultClass("total_pot_wrong", "total_pot", "disputed", total_pot_wrong),
    FaultClass("rake_wrong", "wrong_amount", "disputed", rake_wrong, rake_code=rake_wrong_code),
    FaultClass("rake_over_pot", "rake_exceeds_pot", "invalid", rake_over_pot),
    FaultClass("illegal_bet_size", "bet_size", "invalid", illegal_bet_size),
    FaultClass("raise_over_cap", "raise_over_cap", "invalid", raise_over_cap, ruled=raise_over_cap),
    FaultClass("check_facing_bet", "check_facing_bet", "invalid", check_facing_bet),
    FaultClass("out_of_turn", "out_of_turn", "invalid", out_of_turn),
    FaultClass("action_after_fold", "action_after_fold", "invalid", action_after_fold),
    FaultClass("wrong_bring_in", "bring_in_player", "invalid", wrong_bring_in),
    FaultClass("wrong_opener", "wrong_opener", "invalid", wrong_opener),
    FaultClass("missing_ante", "ante_missing", "invalid", missing_ante),
    FaultClass("missing_vela", "vela_missing", "invalid", missing_vela),
    FaultClass("extra_vela", "vela_unexpected", "invalid", extra_vela),
    FaultClass("card_twice", "card_twice", "invalid", card_twice),
    FaultClass("card_outside_deck", "card_not_in_deck", "invalid", card_outside_deck),
)

FAULTS_BY_NAME = {f.name: f for f in FAULTS}
