"""Bots: four styles of player, so that the players of a table differ in their statistics.

A style is two dials, as the trackers measure players: *looseness* (how
weak a hand it keeps playing: VPIP) and *aggression* (how often it bets or
raises rather than checks or calls: AF), plus a bluffing rate and a bet
size as a share of the pot.  A decision looks at one number, the
strength of the player's cards (:func:`strength`), adds some noise, and
picks among the actions the betting state machine allows; the machine,
not the bot, is the authority on what is legal.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from hhtool.game.cards import Card
from hhtool.game.evaluate import HandValue, quick_category

Move = Literal["fold", "check", "call", "raise", "bring_in"]


@dataclass(frozen=True, slots=True)
class Style:
    """How a bot plays: looseness and aggression in 0..1, a bluff rate, a bet size (share of the pot)."""

    name: str
    looseness: float
    aggression: float
    bluff: float
    sizing: float


STYLES: tuple[Style, ...] = (
    Style("tight-aggressive", 0.25, 0.75, 0.06, 0.75),
    Style("loose-aggressive", 0.70, 0.85, 0.15, 0.90),
    Style("tight-passive", 0.20, 0.20, 0.01, 0.45),
    Style("loose-passive", 0.80, 0.15, 0.02, 0.40),
)
STYLES_BY_NAME = {s.name: s for s in STYLES}

# a made hand's base strength by category (high card .. pokerissimo)
_BASE = (0.05, 0.30, 0.60, 0.72, 0.80, 0.86, 0.90, 0.96, 0.99, 1.0)
_SPAN = (0.20, 0.25, 0.10, 0.08, 0.05, 0.04, 0.04, 0.03, 0.01, 0.0)


def strength(category: int, top_rank: int, low: int, beaten_showing: bool, cards: int = 5, draw: float = 1.0) -> float:
    """A rough 0..1 strength of a player's best cards (own cards, plus the vela when turned).

    ``top_rank`` is the rank that orders hands within the category (the
    pair's rank, the high card); ``beaten_showing`` says an opponent's
    face-up cards alone already make a better category, which costs a
    third of the strength: the bots read the board as people do.  With
    ``cards`` below five, the cards still to come add a little: their
    *draw*, which a card-sharing player (``--collude card-sharing``)
    scales by ``draw``, the share of its outs still live (1 for every
    other bot: the honest read takes every out for live).
    """
    span = max(14 - low, 1)
    s = _BASE[category] + _SPAN[category] * (top_rank - low) / span
    if cards < 5:
        s += 0.06 * (5 - cards) * draw  # cards to come: early hands are worth more than what they show
    if beaten_showing:
        s *= 0.66
    return s


def quick_five(cards: Sequence[Card], wild: int | None, low: int) -> tuple[int, int]:
    """:func:`quick_category` with straights and flushes, for five cards or more (wild cards count for flushes)."""
    category, top = quick_category(cards, wild)
    if category >= 6:
        return category, top
    wilds = sum(1 for c in cards if c >> 2 == wild) if wild is not None else 0
    suits = [0, 0, 0, 0]
    for c in cards:
        if c >> 2 != wild:
            suits[c & 3] += 1
    if max(suits) + wilds >= 5:
        return 6, 14
    if category < 4:
        ranks = {c >> 2 for c in cards if c >> 2 != wild}
        if 14 in ranks:
            ranks.add(low - 1)
        for high in range(14, low + 2, -1):
            if all(r in ranks for r in range(high - 4, high + 1)):
                return 4, high
    return category, top


def top_rank_of(value: HandValue) -> int:
    """The rank that matters most in a hand: the first card of the played five."""
    played: Sequence[Card] = value.played or value.five
    return (played[0] >> 2) if played else 0


@dataclass(frozen=True, slots=True)
class Situation:
    """What a bot sees when it is its turn (amounts in minor units)."""

    owed: int  # to call
    pot: int
    behind: int
    may_check: bool
    may_raise: bool
    must_bring_in: bool
    round_no: int


def decide(style: Style, s: float, sit: Situation, rng: random.Random) -> Move:
    """Fold, check, call, raise (bet) or bring in, by style and strength."""
    noisy = s + rng.uniform(-0.12, 0.12)
    bluffing = rng.random() < style.bluff
    if sit.must_bring_in:
        if sit.may_raise and (noisy > 0.55 - 0.2 * style.aggression or bluffing):
            return "raise"
        return "bring_in"
    if sit.owed <= 0:
        if sit.may_raise and (noisy > 0.62 - 0.35 * style.aggression or bluffing):
            if rng.random() < 0.35 + 0.6 * style.aggression:
                return "raise"
        return "check" if sit.may_check else "call"
    # facing a bet: the price against the pot, then the style's threshold
    price = sit.owed / max(sit.pot + sit.owed, 1)
    keep = 0.50 - 0.35 * style.looseness + 0.45 * price
    if noisy < keep and not bluffing:
        return "fold"
    if sit.may_raise and (noisy > 0.78 - 0.25 * style.aggression or bluffing):
        if rng.random() < 0.25 + 0.6 * style.aggression:
            return "raise"
    return "call"


def raise_fraction(style: Style, s: float, rng: random.Random) -> float:
    """The bet or raise size as a share of the pot (pot and no limit)."""
    return max(0.25, style.sizing + rng.uniform(-0.2, 0.2) + (0.3 if s > 0.85 else 0.0))
