"""What the betting machine (:mod:`hhtool.game.betting`) keeps and records: the players, the operations, the refusals.

A player's money and state in the hand (:class:`Player`), each action the
machine applied (:class:`Checked`, :class:`Folded`, :class:`Called`,
:class:`BroughtIn`, :class:`BetTo`: :data:`Operation`), the refusal of one
it does not allow (:class:`IllegalAction`, with a finding code), and the
seats in dealing order.  Apart from the machine, so that its users (the
replay, the simulator) name them without the machine's module, and the
machine's module holds the rules of play only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final


@dataclass(init=False, unsafe_hash=True)
class Checked:
    """``player`` checked in betting round ``round_no`` (1 = 2nd street).

    The operations are value objects in the project's idiom (docs/architecture.md, "Value objects"):
    a written ``__init__`` storing ``Final`` fields, the dataclass for equality, hashing and ``repr``.
    """

    round_no: Final[int]
    player: Final[str]

    def __init__(self, round_no: int, player: str) -> None:
        self.round_no = round_no
        self.player = player


@dataclass(init=False, unsafe_hash=True)
class Folded:
    """``player`` folded in betting round ``round_no``."""

    round_no: Final[int]
    player: Final[str]

    def __init__(self, round_no: int, player: str) -> None:
        self.round_no = round_no
        self.player = player


@dataclass(init=False, unsafe_hash=True)
class Called:
    """``player`` called, putting in ``amount`` (less than the bet when all-in)."""

    round_no: Final[int]
    player: Final[str]
    amount: Final[int]

    def __init__(self, round_no: int, player: str, amount: int) -> None:
        self.round_no = round_no
        self.player = player
        self.amount = amount


@dataclass(init=False, unsafe_hash=True)
class BroughtIn:
    """``player`` brought in for ``amount``."""

    round_no: Final[int]
    player: Final[str]
    amount: Final[int]

    def __init__(self, round_no: int, player: str, amount: int) -> None:
        self.round_no = round_no
        self.player = player
        self.amount = amount


@dataclass(init=False, unsafe_hash=True)
class BetTo:
    """``player`` bet or raised to ``to`` for the round, facing a bet of ``facing`` (0: a bet, not a raise).

    ``completes``: the bet or raise completed the bring-in (RULES.md §4).
    Every ``BetTo`` makes its player the round's aggressor.
    """

    round_no: Final[int]
    player: Final[str]
    to: Final[int]
    facing: Final[int]
    completes: Final[bool]

    def __init__(self, round_no: int, player: str, to: int, facing: int, completes: bool) -> None:
        self.round_no = round_no
        self.player = player
        self.to = to
        self.facing = facing
        self.completes = completes

    @property
    def by(self) -> int:
        """How much it raised the bet faced (the whole of it for a bet)."""
        return self.to - self.facing


Operation = Checked | Folded | Called | BroughtIn | BetTo
"""What the betting machine recorded for one action."""


class IllegalAction(Exception):
    """An action the rules do not allow here; ``code`` is a finding code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(init=False)
class Player:
    """One player's money and state in the hand.

    ``init=False`` and a written ``__init__``, which holds the starting
    values (the fields below declare the types for the dataclass's repr
    and equality): compiled by mypyc, the ``__init__`` the decorator writes
    still runs as Python (340 ns against 70 for this one), and the replay
    and the simulator make one a player a hand.
    """

    name: str
    seat: int
    stack: int  # at the start of the hand
    behind: int  # still in front of the player
    total: int  # put in this hand (antes included), less uncalled bets returned
    this_round: int
    folded: bool
    folded_round: int
    all_in: bool
    acted: bool  # acted since the last full bet or raise
    may_raise: bool  # a short all-in does not reopen the betting to those who acted

    def __init__(self, name: str, seat: int, stack: int, behind: int, total: int = 0) -> None:
        self.name = name
        self.seat = seat
        self.stack = stack
        self.behind = behind
        self.total = total
        self.this_round = 0
        self.folded = False
        self.folded_round = 0
        self.all_in = False
        self.acted = False
        self.may_raise = True

    @property
    def can_act(self) -> bool:
        return not self.folded and not self.all_in


def refuse(refusal: IllegalAction | None) -> None:
    """Raise the refusal a check of the machine returned, if any (its ``verify_x()``)."""
    if refusal is not None:
        raise refusal


def deal_order(seats: Sequence[tuple[int, str]], button: int) -> list[tuple[int, str]]:
    """Seats in dealing order: the first seat to the button's left, then clockwise."""
    ordered = list(seats)
    for i in range(1, len(ordered)):  # a hand's seats come in order: sorted only when they do not
        if ordered[i - 1][0] >= ordered[i][0]:
            ordered.sort()
            break
    after = [s for s in ordered if s[0] > button]
    before = [s for s in ordered if s[0] <= button]
    return after + before
