"""Main and side pots from what each player put in, and who takes each (RULES.md §5, §7).

The one settlement of the project: the replay settles a history's pots
with :func:`share_pots` and compares the result with what the history
paid; the simulator settles the hands it plays with the same function.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Final

from hhtool.game.evaluate import HandValue
from hhtool.game.rules import RuleSet
from hhtool.game.showdown import divide, winners


@dataclass(init=False, unsafe_hash=True)
class Pot:
    """A pot: its amount and the players still in the hand who may win it.

    A value object in the project's idiom (docs/architecture.md, "Value
    objects"): every hand settled, replayed or simulated builds its pots.
    """

    amount: Final[int]
    eligible: Final[tuple[str, ...]]

    def __init__(self, amount: int, eligible: tuple[str, ...]) -> None:
        self.amount = amount
        self.eligible = eligible


def pots_from(contributions: dict[str, int], folded: set[str]) -> list[Pot]:
    """Main pot first, then side pots in the order they formed.

    Each level is set by what a player still in the hand put in: a pot holds,
    from every player (folded ones too), what they put in between the level
    below and this one, and only the players still in who reached the level
    may win it.  Pots that the same players may win are one pot.
    ``contributions`` is in dealing order, which the eligible lists keep.
    A dict and a set, and loops over lists of ints: compiled, the sums are
    native arithmetic, where ``sum()`` of a generator over a ``Mapping``
    went through Python's iterator protocol for every player at every level.
    """
    live: list[str] = []
    put: list[int] = []
    levels: list[int] = []
    for n, c in contributions.items():
        put.append(c)
        if n not in folded:
            live.append(n)
            if c > 0 and c not in levels:
                levels.append(c)
    levels.sort()
    pots: list[Pot] = []
    below = 0
    for level in levels:
        amount = 0
        for c in put:
            if c > below:
                amount += (c if c < level else level) - below
        eligible = tuple([n for n in live if contributions[n] >= level])
        if pots and pots[-1].eligible == eligible:
            pots[-1] = Pot(pots[-1].amount + amount, eligible)
        elif amount > 0:
            pots.append(Pot(amount, eligible))
        below = level
    # chips above the highest live level (a folded player's over-contribution) join the last pot
    rest = 0
    for c in put:
        if c > below:
            rest += c - below
    if rest:
        if pots:
            pots[-1] = Pot(pots[-1].amount + rest, pots[-1].eligible)
        else:
            pots.append(Pot(rest, tuple(live)))
    return pots


@dataclass(init=False)
class Share:
    """One pot divided by the rules.

    ``contesting``: who may win it and did not muck (all its eligible
    players when every one of them mucked); ``judged``: those of them whose
    hands were compared, with their ``values`` in the same order (empty
    when one player contests it alone; fewer than ``contesting`` when some
    hands are unknown); ``won``: who shares it, in the order the showdown
    ranked them; ``win``: each winner's share, odd chips from the button's
    left (:func:`hhtool.game.showdown.divide`).  A value object, as
    :class:`Pot` (not hashed: ``win`` is a dict).
    """

    pot: Final[Pot]
    rake: Final[int]
    contesting: Final[tuple[str, ...]]
    judged: Final[tuple[str, ...]]
    values: Final[tuple[HandValue, ...]]
    won: Final[tuple[str, ...]]
    win: Final[dict[str, int]]

    def __init__(
        self,
        pot: Pot,
        rake: int,
        contesting: tuple[str, ...],
        judged: tuple[str, ...],
        values: tuple[HandValue, ...],
        won: tuple[str, ...],
        win: dict[str, int],
    ) -> None:
        self.pot = pot
        self.rake = rake
        self.contesting = contesting
        self.judged = judged
        self.values = values
        self.won = won
        self.win = win

    @property
    def amount(self) -> int:
        """What the pot pays after its rake."""
        return self.pot.amount - self.rake

    @property
    def unknown(self) -> tuple[str, ...]:
        """Contenders whose hands are unknown: the pot's winner cannot be checked."""
        return tuple(n for n in self.contesting if n not in self.judged) if len(self.contesting) > 1 else ()


def share_pots(
    pots: Sequence[Pot],
    rake: int,
    contenders: Collection[str],
    order: Sequence[str],
    value: Callable[[str], HandValue | None],
    rules: RuleSet,
) -> list[Share]:
    """Divide ``pots`` (main first) among ``contenders`` (those left who did not muck).

    ``rake`` is taken from the main pot first, then the side pots in turn;
    ``order`` is every player in dealing order (for the odd chips);
    ``value`` gives a player's hand, None when it is unknown (that player
    cannot be judged, and the pot goes to the best hand known).
    """
    shares: list[Share] = []
    rake_left = rake
    for pot in pots:
        taken = min(rake_left, pot.amount)
        rake_left -= taken
        amount = pot.amount - taken
        contesting = tuple(n for n in pot.eligible if n in contenders) or pot.eligible
        if len(contesting) == 1:
            shares.append(Share(pot, taken, contesting, (), (), contesting, {contesting[0]: amount}))
            continue
        judged: list[str] = []
        values: list[HandValue] = []
        for n in contesting:
            v = value(n)
            if v is not None:
                judged.append(n)
                values.append(v)
        won = tuple(judged[j] for j in winners(values, rules)) if judged else ()
        win = divide(amount, [n for n in order if n in won]) if won else {}
        shares.append(Share(pot, taken, contesting, tuple(judged), tuple(values), won, win))
    return shares
