"""Main and side pots from what each player put in (RULES.md §5, §7)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Final



class Pot:
    """A pot: its amount and the players still in the hand who may win it.

    A plain class with ``Final`` fields for the reason given at :class:`hhtool.game.showing.Opener`.
    """

    def __init__(self, amount: int, eligible: tuple[str, ...]) -> None:
        self.amount: Final = amount
        self.eligible: Final = eligible

    def __repr__(self) -> str:
        return f"Pot(amount={self.amount!r}, eligible={self.eligible!r})"


def pots_from(contributions: Mapping[str, int], folded: Collection[str]) -> list[Pot]:
    """Main pot first, then side pots in the order they formed.

    Each level is set by what a player still in the hand put in: a pot holds,
    from every player (folded ones too), what they put in between the level
    below and this one, and only the players still in who reached the level
    may win it.  Pots that the same players may win are one pot.
    ``contributions`` is in dealing order, which the eligible lists keep.
    """
    live = [n for n in contributions if n not in folded]
    levels = sorted({contributions[n] for n in live if contributions[n] > 0})
    pots: list[Pot] = []
    below = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, below) for c in contributions.values())
        eligible = tuple(n for n in live if contributions[n] >= level)
        if pots and pots[-1].eligible == eligible:
            pots[-1] = Pot(pots[-1].amount + amount, eligible)
        elif amount > 0:
            pots.append(Pot(amount, eligible))
        below = level
    # chips above the highest live level (a folded player's over-contribution) join the last pot
    rest = sum(max(c - below, 0) for c in contributions.values())
    if rest:
        if pots:
            pots[-1] = Pot(pots[-1].amount + rest, pots[-1].eligible)
        else:
            pots.append(Pot(rest, tuple(live)))
    return pots
