"""Each seat's statistics flags, decided once per hand when it is imported (``docs/stats.md``).

A statistic is a count of actions over a count of opportunities, and both
are decided per hand and player: did this player have the chance to
complete, did they.  Deciding that needs the hand's action lines in
order (who faced a bet, who acted first on 2nd street); summing it needs
only the answers.  So the import decides every flag here, walking the
lines once while the hand is in memory, and stores the answers on the
player's ``seats`` row; the statistics are then sums over seats, the same
whatever the size of the database, instead of re-reading millions of
action lines in order at every query.  (This is how the big poker
trackers do it too: a "hand player statistics" row per seat, written at
import.)

Compiled with mypyc (``setup.py``): it runs in the import's workers, once
per hand.  It lives with the import rather than in :mod:`hhtool.stats`
(which sums what it stores) so that the compiled import path needs
nothing of polars or DuckDB to build.
"""

from __future__ import annotations

from typing import Final

from hhtool.game.rules import ROUND_NAMES
from hhtool.history.events import (
    Bet,
    BringIn,
    Call,
    Check,
    Complete,
    Fold,
    PostAnte,
    PostBlind,
    RaiseTo,
    UncalledBet,
)

STREETS: Final[tuple[str, ...]] = ROUND_NAMES  # the betting rounds' names, one column set each
MoneyLine = PostAnte | PostBlind | BringIn | Complete | Bet | Call | RaiseTo | Check | Fold | UncalledBet
"""A line of the history that moves money or is a turn: the lines the flags are decided from, as the parser typed them.

Not decisions (nobody chooses to post them, and an uncalled bet returned is
no action): the antes, the blinds, the bring-in, the uncalled bet.  What a
player can face: a bet, raise or completion, and a posted big blind (the
bring-in is not).  Money put in on 2nd street by choice (VPIP): a call, bet,
raise or completion.  No turn in the order of acting on 2nd street: the
antes, the blinds, the uncalled bet (the bring-in is one: it acts first).
"""

RATIO_FLAGS: Final[tuple[str, ...]] = ("vpip", "complete", "raise2", "steal", "bi_fold_steal")
"""The per-hand statistics of 2nd street, each stored as ``KEY`` (the action) and ``KEY_opp`` (the opportunity)."""


N_FLAGS: Final = 4 + 2 * len(RATIO_FLAGS) + 2 * len(STREETS)
"""Boolean columns first (saw, the ratio flags, fold to a bet), then three counts per street: the order of
``hhtool.store.schema.SEAT_STATS`` (a test holds the two together)."""


class SeatFlags:
    """One player's answers while the hand is walked: flags as bits (column order), counts per street."""

    def __init__(self) -> None:
        self.bits = 0
        self.counts = [0] * (3 * len(STREETS))


# bit positions, in the order of the columns (Final: compiled, a constant, not a lookup in the module)
_SAW: Final = 0  # 4 bits: 3rd, 4th, 5th, vela
_RATIO: Final = 4  # 2 bits per RATIO_FLAGS key: action, opportunity
_VPIP: Final = _RATIO
_COMPLETE: Final = _RATIO + 2
_RAISE2: Final = _RATIO + 4
_STEAL: Final = _RATIO + 6
_BI_FOLD: Final = _RATIO + 8
_FTB: Final = _RATIO + 2 * len(RATIO_FLAGS)  # 2 bits per street: folded facing a bet, decided facing a bet


class HandFlags:
    """Every player's 2nd-street and per-street answers, decided as the hand's money lines pass by in order.

    The store feeds it each :data:`MoneyLine` with the index of its
    betting round in :data:`STREETS` (:meth:`line`), for a replayed hand
    and for one whose replay raised alike, and reads the answers at the
    end (:meth:`answers`).

    *Faces a bet*: before this decision, in the same round, someone made
    an aggressive line (a bet, raise, completion or big blind) and the
    last one was not this player's.  The steal needs each player's first
    and second turns on 2nd street, in the order they came (:func:`_steal`).
    """

    def __init__(self, has_bring_in: bool) -> None:
        self.has_bring_in = has_bring_in
        self.seats: dict[str, SeatFlags] = {}
        self.aggressive = [0] * len(STREETS)
        self.last_aggressor: list[str | None] = [None] * len(STREETS)
        self.first: dict[str, MoneyLine] = {}  # each player's first turn on 2nd street, in order of acting
        self.second: dict[str, MoneyLine] = {}

    def line(self, street: int, e: MoneyLine) -> None:
        """The next money line, in betting round ``STREETS[street]``."""
        player = e.player
        seat = self.seats.get(player)
        if seat is None:
            seat = self.seats[player] = SeatFlags()
        bits = seat.bits
        decision = not isinstance(e, (PostAnte, PostBlind, BringIn, UncalledBet))
        raises = isinstance(e, (Bet, RaiseTo, Complete))  # a bet, raise or completion
        aggressive = self.aggressive
        facing = aggressive[street] > 0 and self.last_aggressor[street] != player
        if street == 0:
            if decision:
                bits |= 1 << (_VPIP + 1)
                if self.has_bring_in and aggressive[0] == 0:
                    bits |= 1 << (_COMPLETE + 1)
                if facing:
                    bits |= 1 << (_RAISE2 + 1)
            if raises or isinstance(e, Call):
                bits |= 1 << _VPIP
            if isinstance(e, Complete):
                bits |= 1 << _COMPLETE
            if facing and isinstance(e, RaiseTo):
                bits |= 1 << _RAISE2
            if not isinstance(e, (PostAnte, PostBlind, UncalledBet)):  # a turn in the order of acting
                if player not in self.first:
                    self.first[player] = e
                elif player not in self.second:
                    self.second[player] = e
        if decision and facing:
            bits |= 1 << (_FTB + 2 * street + 1)
            if isinstance(e, Fold):
                bits |= 1 << (_FTB + 2 * street)
        seat.bits = bits
        if raises:
            seat.counts[3 * street] += 1
        elif isinstance(e, Call):
            seat.counts[3 * street + 1] += 1
        elif isinstance(e, Fold):
            seat.counts[3 * street + 2] += 1
        if raises or (isinstance(e, PostBlind) and e.blind == "big"):
            aggressive[street] += 1
            self.last_aggressor[street] = player

    def answers(self) -> dict[str, SeatFlags]:
        """Each player's flags once every line has passed (the steal is decided here, from the first turns)."""
        if self.has_bring_in and self.first:
            _steal(self.seats, self.first, self.second)
        return self.seats


def _steal(seats: dict[str, SeatFlags], first: dict[str, MoneyLine], second: dict[str, MoneyLine]) -> None:
    """The steal and the bring-in's answer to it, from the first turns on 2nd street.

    The order of first turns is the order of acting, the bring-in first
    (position 0).  A player at position ``k`` of ``n`` had the chance to
    steal when a bring-in was posted, ``k`` is one of the last two
    (``k >= n - 2``, ``k >= 1``) and everyone between the bring-in and them
    folded; they stole by completing at that turn.  The player at
    position 0 faced a steal when someone stole and everyone after the
    stealer folded; they folded to it when their next turn was a fold.
    """
    order = list(first)
    n = len(order)
    brought_in = any(isinstance(e, BringIn) for e in first.values())
    stealer = -1
    folded_so_far = True  # everyone at positions 1..k-1 folded at their first turn
    for k in range(n):
        p = order[k]
        turn = first[p]
        chance = brought_in and k >= 1 and k >= n - 2 and folded_so_far
        if chance:
            seats[p].bits |= 1 << (_STEAL + 1)
            if isinstance(turn, Complete):
                seats[p].bits |= 1 << _STEAL
                if stealer < 0:
                    stealer = k
        if k >= 1 and not isinstance(turn, Fold):
            folded_so_far = False
    if stealer >= 0 and all(isinstance(first[q], Fold) for q in order[stealer + 1 :]):
        bring_in = seats[order[0]]
        bring_in.bits |= 1 << (_BI_FOLD + 1)
        if isinstance(second.get(order[0]), Fold):
            bring_in.bits |= 1 << _BI_FOLD


def saw_bits(reached: int, has_vela: bool, fold_street: str | None) -> int:
    """The four ``saw_*`` bits of a seat dealt in.

    ``reached``: bit 0, 1, 2 when a card was dealt on 3rd, 4th, 5th street
    (:attr:`hhtool.replay.facts.CardFacts.reached`).
    A player saw a street the hand reached unless they folded on an
    earlier one; the vela, when the hand reached 5th street and a vela was
    turned.
    """
    fold_at = STREETS.index(fold_street) if fold_street is not None and fold_street in STREETS else 99
    bits = 0
    if reached & 1 and fold_at >= 1:
        bits |= 1
    if reached & 2 and fold_at >= 2:
        bits |= 2
    if reached & 4 and fold_at >= 3:
        bits |= 4
        if has_vela and fold_at >= 4:
            bits |= 8
    return bits


NO_SEAT: Final = SeatFlags()
"""The answers of a player with no line: every flag false, every count 0."""

FLAG_BITS: Final = "flag_bits"
"""The worker's one column for the ``N_FLAGS`` boolean columns: bit ``i`` is the ``i``-th
(:mod:`hhtool.store.frames` expands it; an int a seat instead of 24 booleans in Python)."""


def seat_values(seat: SeatFlags | None, saw: int) -> tuple[int, ...]:
    """The worker's values of the ``SEAT_STATS`` columns for one seat dealt in: the flags as bits, then the counts.

    ``saw`` from :func:`saw_bits`.
    """
    s = NO_SEAT if seat is None else seat
    return (s.bits | saw, *s.counts)


NOT_DEALT_IN: Final[tuple[int, ...]] = (0, *[0] * (3 * len(STREETS)))
"""The worker's values of a seat not dealt in: it had no opportunity."""
