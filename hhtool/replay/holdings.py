"""Each player's cards street by street as the replay read them, and who a line says is all-in: what the equities price.

The replay's deal and card checks (:class:`hhtool.replay.deal.CardChecks`)
read every deal, exposure and showdown line once; at its end the replay
hands what it read to a :class:`Holdings`, which
:class:`~hhtool.replay.result.Replay` carries (``Replay.holdings``), and
:mod:`hhtool.replay.equities` prices a hand's streets and all-in pots from
it without walking the events again.  Both classes are value objects in
the project's idiom (docs/architecture.md, "Value objects"), compiled with
mypyc (``setup.py``): the replay builds one for every hand the import
reads, while the pricing (numpy) runs for one hand in a hundred.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from hhtool.game.cards import Card


@dataclass(init=False)
class Holding:
    """What the history shows of one player's cards: in deal order, the round each came for, which were up.

    ``cards``: None for a card dealt and never seen (a hole card in another
    player's own history, until shown or exposed).  ``rounds``: the betting
    round each card was dealt for (1: both 2nd-street cards).  ``up``: face
    up for the table, as the replay's rules deal them, and exposed.
    ``folded``: the betting round the player folded in; 0 while in.
    """

    cards: Final[tuple[Card | None, ...]]
    rounds: Final[tuple[int, ...]]
    up: Final[tuple[Card, ...]]
    folded: Final[int]

    def __init__(self, cards: tuple[Card | None, ...], rounds: tuple[int, ...], up: tuple[Card, ...], folded: int) -> None:
        self.cards = cards
        self.rounds = rounds
        self.up = up
        self.folded = folded

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


@dataclass(init=False)
class Holdings:
    """A replayed hand's cards for the equities: every dealt-in player's, the streets, where betting ended.

    ``held``: player -> :class:`Holding`, for the players dealt in, in deal
    order.  ``streets``: (round, line) of each street line, in order.
    ``last_money``: the betting round of the last forced bet or action (0:
    before 2nd street).  ``all_in``: who a line says is all-in.
    """

    held: Final[dict[str, Holding]]
    streets: Final[tuple[tuple[int, int], ...]]
    last_money: Final[int]
    all_in: Final[frozenset[str]]

    def __init__(self, held: dict[str, Holding], streets: tuple[tuple[int, int], ...], last_money: int, all_in: frozenset[str]) -> None:
        self.held = held
        self.streets = streets
        self.last_money = last_money
        self.all_in = all_in

    def dead(self, rnd: int, players: Sequence[str]) -> list[Card]:
        """The up cards of ``players`` who had folded before round ``rnd``'s deal."""
        out: list[Card] = []
        for n in players:
            h = self.held.get(n)
            if h is not None and 0 < h.folded < rnd:
                out += h.up
        return out

    def betting_over(self, players: Sequence[str]) -> bool:
        """At the end of the betting, two or more of ``players`` in, at least one all-in, at most one with chips behind."""
        in_hand = [n for n in players if n in self.held and self.held[n].folded == 0]
        if len(in_hand) < 2:
            return False
        all_in = self.all_in
        return any(n in all_in for n in in_hand) and sum(1 for n in in_hand if n not in all_in) <= 1
