"""One hand at the simulator's table: its state, and the deal (RULES.md §4).

:class:`HandState` holds what the other parts of a hand read and change:
the players in dealing order and the game's betting machine, the one the
replay checks with (:class:`~hhtool.game.betting.Betting`), each player's cards, the deck
and the vela, and the history's events so far with the number of the next
line.  It deals as the profile says: the forced bets, each street's cards
(face up or down by :meth:`~hhtool.game.rules.RuleSet.dealt_up`, the burns,
the exposes of the variants) and the vela.  The bots' choices are
:mod:`.choices`, the showdown and the pots :mod:`.settle`, the history's
text :mod:`.record`; :mod:`.play` runs them in order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime

from hhtool.game.betting import Betting
from hhtool.game.operations import Player, deal_order
from hhtool.game.cards import Card, deck_cards
from hhtool.game.evaluate import HandValue, evaluate
from hhtool.game.rules import STREET_NAMES
from hhtool.history.events import Blind, Deal, Event, Expose, PostAnte, PostBlind, Street, Vela
from hhtool.simulate.bots import Style
from hhtool.simulate.config import DeckExhausted, SimConfig


@dataclass
class Hole:
    """One player's cards: in the order dealt, and the ones face up in the order they turned up."""

    cards: list[Card] = field(default_factory=list)
    up: list[Card] = field(default_factory=list)


class HandState:
    """One hand's table: the players and the betting machine, the cards, the events written so far.

    ``seats`` are the table's occupied seats in seat order, ``(seat, name,
    stack, style)``; the players are put in dealing order (from the
    button's left) for the machine.
    """

    def __init__(
        self,
        config: SimConfig,
        rng: random.Random,
        hand_id: str,
        table_name: str,
        max_seats: int,
        seats: tuple[tuple[int, str, int, Style], ...],
        button: int,
        started: datetime,
    ) -> None:
        self.cfg = config
        self.rules = config.rules
        self.rng = rng
        self.hand_id = hand_id
        self.table_name = table_name
        self.max_seats = max_seats
        self.seat_list = seats
        self.button = button
        self.started = started
        self.style = {name: style for _, name, _, style in seats}
        order = deal_order([(s, n) for s, n, _, _ in seats], button)
        stacks = {n: st for _, n, st, _ in seats}
        self.players = [Player(n, s, stacks[n], stacks[n]) for s, n in order]
        self.by_name = {p.name: p for p in self.players}
        n = len(self.players)
        rules = self.rules
        self.low = rules.lowest_rank(n)
        stakes = config.stakes
        self.betting = Betting(
            rules=rules,
            structure=config.structure,
            small_bet=stakes.small_bet,
            big_bet=stakes.big_bet,
            bring_in_amount=stakes.bring_in,
            big_blind=stakes.big_blind,
            players=self.players,
        )
        self.holes = {p.name: Hole() for p in self.players}
        self.events: list[Event] = []
        self.line = 3 + n  # header, table, seats
        self.deck: list[Card] = []
        self.vela: Card | None = None
        self.vela_turned = False
        self.values: dict[str, HandValue] = {}

    def ln(self) -> int:
        """The number of the line about to be written."""
        self.line += 1
        return self.line - 1

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def value(self, name: str) -> HandValue:
        """A player's hand with the vela once it is turned, evaluated once (the showdown and the summary ask again)."""
        v = self.values.get(name)
        if v is None:
            extra = [self.vela] if self.vela_turned and self.vela is not None else []
            v = evaluate([*self.holes[name].cards, *extra], self.rules, self.low)
            self.values[name] = v
        return v

    # ------------------------------------------------------------ the deal

    def shuffle(self) -> None:
        """A shuffled deck for the number of players; the vela set aside first where the profile turns it at the start."""
        deck = deck_cards(self.low)
        self.rng.shuffle(deck)
        self.deck = deck
        if self.rules.vela == "at_start":
            self.vela = deck.pop()

    def post_forced_bets(self) -> None:
        """Antes from everyone in seat order, or the two blinds left of the button; short stacks post all they have."""
        stakes = self.cfg.stakes
        if self.rules.forced_bets == "antes":
            ante = stakes.ante or 0
            for p in sorted(self.players, key=lambda q: q.seat):
                amount = min(ante, p.behind)
                p.behind -= amount
                p.total += amount
                if p.behind == 0:
                    p.all_in = True
                self.emit(PostAnte(self.ln(), p.name, amount, p.all_in))
            return
        blinds: tuple[tuple[Player, Blind, int | None], ...] = (
            (self.players[0], "small", stakes.small_blind),
            (self.players[1], "big", stakes.big_blind),
        )
        for p, kind, want in blinds:
            amount = min(want or 0, p.behind)
            p.behind -= amount
            p.total += amount
            p.this_round += amount
            if p.behind == 0:
                p.all_in = True
            self.emit(PostBlind(self.ln(), p.name, kind, amount, p.all_in))

    def deal_street(self, rnd: int) -> None:
        """The street of betting round ``rnd`` (1 = 2nd street): its line, a burn where the profile burns, the cards, the exposes.

        Raises :class:`~hhtool.simulate.config.DeckExhausted` when the deck
        cannot deal the street (a big table of a small deck).
        """
        rules = self.rules
        deck = self.deck
        live = [p for p in self.players if not p.folded]
        need = len(live) * (2 if rnd == 1 else 1) + (1 if rnd > 1 and rules.burns else 0)
        if need > len(deck):
            raise DeckExhausted(f"{need} cards needed on street {rnd}, {len(deck)} left")
        if rnd > 1 and rules.burns:
            deck.pop()
        self.emit(Street(self.ln(), STREET_NAMES[rnd - 1]))
        up = rules.dealt_up(rnd)
        for p in live:
            hole = self.holes[p.name]
            if rnd == 1:
                first, door = deck.pop(), deck.pop()
                hole.cards = [first, door]
                if up[1]:
                    hole.up.append(door)
                self.emit(Deal(self.ln(), p.name, (first, door), None))
            else:
                card = deck.pop()
                known = tuple(hole.cards)
                hole.cards.append(card)
                if up[0]:
                    hole.up.append(card)
                self.emit(Deal(self.ln(), p.name, known, (card,)))
        if not up[-1]:  # a card dealt down this street: each player exposes one
            for p in live:
                hole = self.holes[p.name]
                hidden = [c for c in hole.cards if c not in hole.up]
                card = self.rng.choice(hidden)
                hole.up.append(card)
                self.emit(Expose(self.ln(), p.name, (card,)))

    def turn_vela(self) -> None:
        """The vela: the card set aside at the start, or the deck's next."""
        if self.vela is None:
            self.vela = self.deck.pop()
        self.vela_turned = True
        self.emit(Vela(self.ln(), self.vela))
