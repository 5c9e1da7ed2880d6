"""Each player's cards street by street as the history shows them, and who is all-in: what the equities price.

:mod:`hhtool.replay.equities` prices a replayed hand's streets and all-in
pots from these; they live apart from it, compiled with mypyc
(``setup.py``), because the import asks :func:`has_all_in` of every hand
and walks the cards of every hand that passes it (:func:`betting_over`
says whether there is a pot to price), while the pricing itself (numpy)
runs for one hand in a hundred.
"""

from __future__ import annotations

from collections.abc import Sequence

from hhtool.game.cards import Card
from hhtool.game.rules import RuleSet, round_of_street
from hhtool.history.events import (
    ACTIONS,
    Bet,
    BringIn,
    Call,
    Complete,
    Deal,
    Expose,
    Fold,
    Hand,
    PostAnte,
    PostBlind,
    RaiseTo,
    Shows,
    Street,
    Vela,
)
from hhtool.replay.result import Replay


class Holding:
    """What the history shows of one player's cards: in deal order, the round each came, which were up."""

    def __init__(self) -> None:
        self.cards: list[Card | None] = []  # None: dealt, not seen (yet)
        self.rounds: list[int] = []  # the betting round each card was dealt for (1: both 2nd-street cards)
        self.up: list[Card] = []  # face up for the table
        self.folded = 0  # the round the player folded in; 0 while in

    def at(self, rnd: int) -> list[Card | None]:
        """The cards dealt by round ``rnd``."""
        return [c for c, r in zip(self.cards, self.rounds) if r <= rnd]

    def known_at(self, rnd: int) -> tuple[Card, ...] | None:
        """The cards dealt by round ``rnd``, when every one is known and the deal is whole; else None."""
        cards = self.at(rnd)
        if len(cards) != min(rnd + 1, 5) or any(c is None for c in cards):
            return None
        return tuple(c for c in cards if c is not None)

    def in_at(self, rnd: int) -> bool:
        """Still in the hand when round ``rnd``'s cards were dealt."""
        return self.folded == 0 or self.folded >= rnd


class CardWalk:
    """One pass over a hand's events: every player's cards, when each folded, and where betting ended."""

    def __init__(self, hand: Hand, rules: RuleSet) -> None:
        self.held: dict[str, Holding] = {}
        self.streets: list[tuple[int, int]] = []  # (round, line) of each street line
        self.last_money = 0  # the round of the last forced bet or action (0: before 2nd street)
        rnd = 0
        for e in hand.events:
            tp = type(e)
            if tp is Street:
                assert isinstance(e, Street)
                rnd = round_of_street(e.name)
                self.streets.append((rnd, e.line))
            elif tp is Deal:
                assert isinstance(e, Deal)
                self._deal(e, rnd, rules)
            elif tp is Expose or tp is Shows:
                assert isinstance(e, (Expose, Shows))
                self._learn(e.player, e.cards, exposed=tp is Expose)
            elif tp is Vela:
                rnd = 5
            elif tp in ACTIONS or tp is PostAnte or tp is PostBlind:
                self.last_money = rnd
                if tp is Fold:
                    assert isinstance(e, Fold)
                    held = self.held.get(e.player)
                    if held is not None and held.folded == 0:
                        held.folded = max(rnd, 1)

    def _deal(self, e: Deal, rnd: int, rules: RuleSet) -> None:
        # the replay's reading of deal lines (:meth:`hhtool.replay.deal.CardChecks.deal`), without its checks;
        # face up as ``rules`` deals (RuleSet.dealt_up)
        mine = self.held.setdefault(e.player, Holding())
        known = list(e.known or ())
        if rnd <= 1:
            if len(known) >= 2:
                mine.cards = [known[0], known[1]]
            elif len(known) == 1:
                mine.cards = [None, known[0]]
            else:
                mine.cards = [None, None]
            mine.rounds = [1, 1]
            if rules.dealt_up(1)[1] and mine.cards[1] is not None:
                mine.up = [mine.cards[1]]
            return
        if mine.cards and mine.cards[0] is None and known and len(known) > len(mine.up) and known[0] not in mine.up:
            mine.cards[0] = known[0]
        new = list(e.new or ())
        card = new[0] if new else None
        mine.cards.append(card)
        mine.rounds.append(rnd)
        if card is not None and rules.dealt_up(rnd)[0]:
            mine.up.append(card)

    def _learn(self, player: str, cards: Sequence[Card], *, exposed: bool) -> None:
        """Cards a line shows of ``player``'s: each fills an unseen place (an exposed one the latest, as the
        engine does: the card just dealt down; a shown one the first); exposed cards are up for the table."""
        mine = self.held.get(player)
        if mine is None:
            return
        for c in cards:
            if c not in mine.cards and None in mine.cards:
                idx = len(mine.cards) - 1 - mine.cards[::-1].index(None) if exposed else mine.cards.index(None)
                mine.cards[idx] = c
            if exposed and c not in mine.up:
                mine.up.append(c)

    def dead(self, rnd: int, players: Sequence[str]) -> list[Card]:
        """The up cards of ``players`` who had folded before round ``rnd``'s deal."""
        out: list[Card] = []
        for n in players:
            h = self.held.get(n)
            if h is not None and 0 < h.folded < rnd:
                out += h.up
        return out


def betting_over(walk: CardWalk, hand: Hand, replay: Replay) -> bool:
    """At the end of the betting, two or more players in, at least one all-in, at most one with chips behind."""
    in_hand = [n for n in replay.stacks if n in walk.held and walk.held[n].folded == 0]
    if len(in_hand) < 2:
        return False
    all_in = all_in_players(hand)
    return any(n in all_in for n in in_hand) and sum(1 for n in in_hand if n not in all_in) <= 1


def all_in_players(hand: Hand) -> set[str]:
    """Who a line says is all-in."""
    out: set[str] = set()
    for e in hand.events:
        if isinstance(e, (PostAnte, PostBlind, BringIn, Complete, Bet, Call, RaiseTo)) and e.all_in:
            out.add(e.player)
    return out


def has_all_in(replay: Replay) -> bool:
    """A player ended the hand with nothing behind before the payouts: the cheap test before
    :func:`hhtool.replay.equities.allin_adjustments`."""
    due = replay.payouts
    return any(left == due.get(n, 0) for n, left in replay.stacks.items())
