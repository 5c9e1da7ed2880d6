"""One hand, dealt and played: the game's betting state machine, the replay's too, drives it.

:class:`HandPlay` runs a hand in the order of the game: the deck shuffled
and the forced bets (:mod:`.hand`), then street by street the deal
(:mod:`.hand`) and the betting round the bots play through the shared
:class:`~hhtool.game.betting.Betting` machine (:mod:`.choices`), the
vela and its round where the profile has them, and the showdown and the
pots settled with the auditor's own functions (:mod:`.settle`);
:meth:`HandPlay.build` writes it up as a history (:mod:`.record`).
Sharing the machine, the pots and the showdown is the point: the
simulator and the auditor read the rules once.
"""

from __future__ import annotations

from hhtool.history.events import Hand
from hhtool.simulate.choices import Bots
from hhtool.simulate.hand import HandState
from hhtool.simulate.record import write_up
from hhtool.simulate.settle import Settlement, settle


class HandPlay:
    """One hand from its :class:`~hhtool.simulate.hand.HandState`: :meth:`run` plays it (the table then settles), :meth:`build` writes it up."""

    def __init__(self, hand: HandState) -> None:
        self.hand = hand
        self.bots = Bots(hand)
        self.settled: Settlement | None = None

    def run(self) -> dict[str, int]:
        """Play the hand through the collections; each player's stack after it.

        Raises :class:`~hhtool.simulate.config.DeckExhausted` when the deck
        runs out (the session deals the hand again).
        """
        hand = self.hand
        rules = hand.rules
        hand.shuffle()
        hand.post_forced_bets()
        saw_third = False
        for rnd in range(1, 5):
            if len(hand.betting.in_hand) < 2:
                break
            hand.deal_street(rnd)
            saw_third = rnd > 1
            self.bots.betting_round(rnd)
        if len(hand.betting.in_hand) >= 2 and rules.has_vela:
            hand.turn_vela()
            if rules.vela_betting_round:
                self.bots.betting_round(5)
        self.settled = settle(hand, saw_third)
        return self.settled.stacks

    def build(self, arrivals: list[tuple[str, int]], departures: list[str]) -> Hand:
        """The hand as a history, with who leaves and who sits down after it (the table's changes)."""
        if self.settled is None:
            raise RuntimeError(f"hand {self.hand.hand_id}: build() before run()")
        return write_up(self.hand, self.settled, arrivals, departures)
