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

from dataclasses import dataclass
from typing import Final

from hhtool.game.evaluate import STRAIGHT_FLUSH
from hhtool.game.pots import Pot, pots_from, share_pots
from hhtool.game.showdown import compare
from hhtool.game.rules import round_of_street
from hhtool.history.events import Collected, Mucks, ShowDown, Shows, Street, Vela
from hhtool.simulate.config import SimConfig
from hhtool.simulate.hand import HandState


def rake_for(total: int, config: SimConfig, players: int, reached_round: int) -> int:
    """The rake of a pot of ``total``: the table's rake rule (``config.rake``) computed as the audit computes it.

    The rule is a room file's ``[rake]``, else the simulator's own
    (:data:`~hhtool.simulate.config.HOUSE_RAKE`: 5 %, rounded down to 5
    minor units, capped, none on play chips, none when the hand ended
    during the 2nd-street round); :meth:`~hhtool.game.rake.RakeRule.due`
    is the audit's own computation, so the two agree by construction
    (asked for the amount alone: the words are the audit's).
    ``players``: dealt in; ``reached_round``: the last betting round whose
    cards were dealt (1 = 2nd street, 5 = the vela's round).
    """
    site = config.site
    return config.rake.due(
        total, currency=site.currency, cents=site.money.cents, big_bet=config.stakes.big_bet, players=players, reached_round=reached_round
    ).amount


def _reached_round(hand: HandState) -> int:
    """The last betting round whose cards were dealt, as the replay counts it: the last street's, the vela's round after a vela that has one."""
    for e in reversed(hand.events):
        if isinstance(e, Vela):
            return 5 if hand.rules.vela_betting_round else 4
        if isinstance(e, Street):
            return round_of_street(e.name)
    return 1


@dataclass(init=False)
class Settlement:
    """How a hand ended, for its summary and the table.

    ``total`` put in and the ``rake`` taken; ``side_pots``: the pots the
    summary lists (none unless a showdown split the money into several);
    ``left``: who had not folded, in dealing order; ``mucked``: who did
    not show; ``collected``: each winner's take; ``stacks``: each player's
    stack after the hand.  A value object in the project's idiom
    (docs/architecture.md, "Value objects"): every hand simulated builds one.
    """

    total: Final[int]
    rake: Final[int]
    side_pots: Final[list[Pot]]
    left: Final[list[str]]
    mucked: Final[set[str]]
    collected: Final[dict[str, int]]
    stacks: Final[dict[str, int]]

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
        self.total = total
        self.rake = rake
        self.side_pots = side_pots
        self.left = left
        self.mucked = mucked
        self.collected = collected
        self.stacks = stacks


def settle(hand: HandState, saw_third: bool) -> Settlement:
    """The showdown's lines (who shows, who mucks) and the collections, from what each player put in."""
    rules = hand.rules
    players = hand.players
    left = [p.name for p in players if not p.folded]
    contributions = {p.name: p.total for p in players}
    folded = {p.name for p in players if p.folded}
    pots = pots_from(contributions, folded)
    total = sum(contributions.values())
    rake = rake_for(total, hand.cfg, len(players), _reached_round(hand) if saw_third else 1)
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
