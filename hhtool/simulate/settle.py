"""The end of a simulated hand: the showdown, the rake and the pots (RULES.md §6-§7).

The order of the showdown and who may muck are the betting machine's
(:meth:`~hhtool.game.betting.Betting.show_order`,
:meth:`~hhtool.game.betting.Betting.may_muck`), the pots and their
division the game's (:func:`~hhtool.game.pots.pots_from`,
:func:`~hhtool.game.pots.share_pots`): the auditor checks and settles the
written history with the same machine and functions, so the two agree by
construction.  What is the simulator's own is the rooms' habits: the rake
(:func:`rake_for`) and a beaten hand mucked rather than shown.
"""

from __future__ import annotations

from typing import Final

from hhtool.game.evaluate import STRAIGHT_FLUSH
from hhtool.game.pots import Pot, pots_from, share_pots
from hhtool.game.showdown import compare
from hhtool.history.events import Collected, Mucks, ShowDown, Shows
from hhtool.simulate.config import SimConfig
from hhtool.simulate.hand import HandState

RAKE_PERCENT = 5


def rake_for(total: int, config: SimConfig, saw_third_street: bool) -> int:
    """The rake: 5% of the pot, rounded down to 5 minor units, capped; none on play chips.

    No rake when the hand ended during the 2nd-street round ("no third
    street, no drop", as stud rooms do), nor at play-chip tables.
    """
    if not config.site.cash or not saw_third_street:
        return 0
    rake = total * RAKE_PERCENT // 100 // 5 * 5
    return min(rake, config.stakes.rake_cap)


class Settlement:
    """How a hand ended, for its summary and the table.

    ``total`` put in and the ``rake`` taken; ``side_pots``: the pots the
    summary lists (none unless a showdown split the money into several);
    ``left``: who had not folded, in dealing order; ``mucked``: who did
    not show; ``collected``: each winner's take; ``stacks``: each player's
    stack after the hand.  A plain class with ``Final`` fields, the
    project's value-object idiom (docs/architecture.md).
    """

    def __init__(
        self,
        total: int,
        rake: int,
        side_pots: list[Pot],
        left: list[str],
        mucked: set[str],
        collected: dict[str, int],
        stacks: dict[str, int],
    ) -> None:
        self.total: Final = total
        self.rake: Final = rake
        self.side_pots: Final = side_pots
        self.left: Final = left
        self.mucked: Final = mucked
        self.collected: Final = collected
        self.stacks: Final = stacks


def settle(hand: HandState, saw_third: bool) -> Settlement:
    """The showdown's lines (who shows, who mucks) and the collections, from what each player put in."""
    rules = hand.rules
    players = hand.players
    left = [p.name for p in players if not p.folded]
    contributions = {p.name: p.total for p in players}
    folded = {p.name for p in players if p.folded}
    pots = pots_from(contributions, folded)
    total = sum(contributions.values())
    rake = rake_for(total, hand.cfg, saw_third)
    mucked: set[str] = set()
    shown: list[str] = []
    if len(left) >= 2:
        hand.emit(ShowDown(hand.ln()))
        b = hand.betting
        for name in b.show_order():
            if b.may_muck(name) and _may_muck(hand, name, shown, pots):
                mucked.add(name)
                hand.emit(Mucks(hand.ln(), name))
            else:
                shown.append(name)
                v = hand.value(name)
                hand.emit(Shows(hand.ln(), name, tuple(hand.holes[name].cards), v.description))
    contenders = [n for n in left if n not in mucked] or left
    collected: dict[str, int] = {}
    single = len(pots) == 1
    order = [p.name for p in players]
    for i, pot_share in enumerate(share_pots(pots, rake, contenders, order, hand.value, rules)):
        for name, share in pot_share.win.items():
            if share <= 0:
                continue
            collected[name] = collected.get(name, 0) + share
            if len(left) < 2 or single:
                hand.emit(Collected(hand.ln(), name, share, "pot"))
            elif i == 0:
                hand.emit(Collected(hand.ln(), name, share, "main"))
            else:
                hand.emit(Collected(hand.ln(), name, share, "side", i))
    side_pots = pots if len(pots) > 1 and len(left) >= 2 else []
    stacks = {p.name: p.behind + collected.get(p.name, 0) for p in players}
    return Settlement(total, rake, side_pots, left, mucked, collected, stacks)


def _may_muck(hand: HandState, name: str, shown: list[str], pots: list[Pot]) -> bool:
    """A player may muck a hand beaten, in every pot it can win, by a hand already shown.

    Straight flushes are always shown: under the special rules who
    beats whom depends on who else contests the pot.
    """
    mine = hand.value(name)
    if mine.category >= STRAIGHT_FLUSH:
        return False
    for pot in pots:
        if name not in pot.eligible:
            continue
        beaten = False
        for other in shown:
            if other in pot.eligible:
                theirs = hand.value(other)
                if theirs.category < STRAIGHT_FLUSH and compare(theirs, mine, hand.rules.sf_rule, 2) > 0:
                    beaten = True
                    break
        if not beaten:
            return False
    return hand.rng.random() > hand.style[name].looseness * 0.4
