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

RERAISE_STREETS: Final[tuple[str, ...]] = STREETS
"""The streets of the re-raise (3-bet) flags ``reraise_ST`` / ``reraise_ST_opp``."""
CHECK_RAISE_STREETS: Final[tuple[str, ...]] = STREETS[1:]
"""The streets of the check-raise flags: none on 2nd street, where nobody can check and then face a bet
(the bring-in acts first; a big blind who checks closes the round)."""
N_MORE_FLAGS: Final = 1 + 2 * len(RERAISE_STREETS) + 2 * len(CHECK_RAISE_STREETS) + 4
"""The boolean columns added at the end of ``seats`` (``hhtool.store.schema.SEAT_MORE_FLAGS``), packed in the same
bits after the first ``N_FLAGS``: the vela's opportunity, the re-raise and check-raise per street, the continuation bet."""


# bit positions, in the order of the columns (Final: compiled, a constant, not a lookup in the module)
_SAW: Final = 0  # 4 bits: 3rd, 4th, 5th, vela
_RATIO: Final = 4  # 2 bits per RATIO_FLAGS key: action, opportunity
_VPIP: Final = _RATIO
_COMPLETE: Final = _RATIO + 2
_RAISE2: Final = _RATIO + 4
_STEAL: Final = _RATIO + 6
_BI_FOLD: Final = _RATIO + 8
_FTB: Final = _RATIO + 2 * len(RATIO_FLAGS)  # 2 bits per street: folded facing a bet, decided facing a bet
_SAW_VELA_OPP: Final = _FTB + 2 * len(STREETS)  # N_FLAGS: the first of SEAT_MORE_FLAGS
_RERAISE: Final = _SAW_VELA_OPP + 1  # 2 bits per street: re-raised, had the chance
_CHECK_RAISE: Final = _RERAISE + 2 * len(STREETS)  # 2 bits per street from 3rd: raised after checking, had the chance
_CBET: Final = _CHECK_RAISE + 2 * (len(STREETS) - 1)  # bet 3rd street after the last 2nd-street raise, had the chance
_CBET_FOLD: Final = _CBET + 2  # folded to that bet, faced it


class SeatFlags:
    """One player's answers while the hand is walked: flags as bits (column order), counts per street.

    And what :class:`HandFlags` needs of the player as the lines pass,
    kept here rather than in dictionaries by name (a lookup and a boxed
    integer at every line): the chips put in, in the hand and in this
    round, whether they checked this round, their first two turns on 2nd
    street, whether they have decided on 3rd street.
    """

    def __init__(self, stack: int = 0, has_stack: bool = False) -> None:
        self.bits: int = 0
        self.counts = [0] * (3 * len(STREETS))
        self.stack = stack  # the chips at the start (has_stack: the player was dealt in, so a raise needs chips)
        self.has_stack = has_stack
        self.invested = 0  # the chips put in the hand
        self.in_round = 0  # ... this round, counted when put_in_round
        self.put_in_round = False
        self.checked = False  # checked this round, no decision facing a bet since
        self.first: MoneyLine | None = None  # the first and second turns on 2nd street
        self.second: MoneyLine | None = None
        self.acted3 = False  # decided on 3rd street


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

    def __init__(
        self, has_bring_in: bool, cap: int = 0, cap_heads_up: bool = False, stacks: dict[str, int] | None = None,
        blind_is_bet: bool = False,
    ) -> None:
        """``cap``: the bets a round allows (fixed limit; 0: no cap), lifted heads-up with ``cap_heads_up``;
        ``stacks``: each seat's chips at the start (a raise needs chips beyond the call); ``blind_is_bet``: the
        big blind counts toward the cap."""
        self.has_bring_in = has_bring_in
        self.seats: dict[str, SeatFlags] = {}
        self.aggressive = [0] * len(STREETS)
        self.last_aggressor: list[str | None] = [None] * len(STREETS)
        self.order: list[SeatFlags] = []  # the players by their first turn on 2nd street, in order of acting
        self.cap = cap
        self.cap_heads_up = cap_heads_up
        self.blind_is_bet = blind_is_bet
        self.stacks: dict[str, int] = {} if stacks is None else stacks
        self.in_hand = len(self.stacks)
        self.bets = 0  # toward the cap, this round
        self.street = 0
        self.last_raise_kind = False  # 2nd street's last aggressive line was a completion, bet or raise (not a blind)
        self.cbettor: str | None = None  # who may continuation-bet on 3rd street
        self.cbet_made = False

    def _new_round(self, street: int) -> None:
        if self.street == 0 and street > 0 and self.last_raise_kind:
            self.cbettor = self.last_aggressor[0]
        self.street = street
        for seat in self.seats.values():
            seat.in_round = 0
            seat.put_in_round = False
            seat.checked = False
        self.bets = 0

    def _seat(self, player: str) -> SeatFlags:
        seat = self.seats.get(player)
        if seat is None:
            stack = self.stacks.get(player)
            seat = self.seats[player] = SeatFlags(0, False) if stack is None else SeatFlags(stack, True)
        return seat

    def _may_raise(self, seat: SeatFlags) -> bool:
        """Whether a raise is allowed now: the round not capped, and the player has chips beyond the call."""
        if self.cap > 0 and self.bets >= self.cap and not (self.cap_heads_up and self.in_hand == 2):
            return False
        if not seat.has_stack:
            return True
        current = 0  # the most anyone has put in this round (0 when nobody has)
        first = True
        for other in self.seats.values():
            if other.put_in_round and (first or other.in_round > current):
                current = other.in_round
                first = False
        return seat.stack - seat.invested > current - seat.in_round

    def _put(self, seat: SeatFlags, amount: int, in_round: bool) -> None:
        seat.invested += amount
        if in_round:
            seat.in_round += amount
            seat.put_in_round = True

    def line(self, street: int, e: MoneyLine) -> None:
        """The next money line, in betting round ``STREETS[street]``."""
        player = e.player
        if street != self.street:
            self._new_round(street)
        seat = self._seat(player)
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
                if seat.first is None:
                    seat.first = e
                    self.order.append(seat)
                elif seat.second is None:
                    seat.second = e
        if decision and facing:
            bits |= 1 << (_FTB + 2 * street + 1)
            if isinstance(e, Fold):
                bits |= 1 << (_FTB + 2 * street)
        if decision:
            bits = self._more(street, e, player, seat, bits, facing)
        seat.bits = bits
        if raises:
            seat.counts[3 * street] += 1
        elif isinstance(e, Call):
            seat.counts[3 * street + 1] += 1
        elif isinstance(e, Fold):
            seat.counts[3 * street + 2] += 1
            self.in_hand -= 1
        if raises or (isinstance(e, PostBlind) and e.blind == "big"):
            aggressive[street] += 1
            self.last_aggressor[street] = player
            if street == 0:
                self.last_raise_kind = raises
            if raises or self.blind_is_bet:
                self.bets += 1
        # the money, for the chips a raise needs
        if isinstance(e, (RaiseTo, Complete)):
            self._put(seat, e.to - seat.in_round, True)
        elif isinstance(e, (Bet, Call, BringIn, PostBlind)):
            self._put(seat, e.amount, True)
        elif isinstance(e, PostAnte):
            self._put(seat, e.amount, False)
        elif isinstance(e, UncalledBet):
            self._put(seat, -e.amount, True)

    def _more(self, street: int, e: MoneyLine, player: str, seat: SeatFlags, bits: int, facing: bool) -> int:
        """The re-raise, check-raise and continuation-bet bits of one decision (docs/stats.md)."""
        raised = isinstance(e, RaiseTo)
        if facing and self.aggressive[street] == 2 and self._may_raise(seat):  # a bet and one raise: a 3-bet to make
            bits |= 1 << (_RERAISE + 2 * street + 1)
            if raised:
                bits |= 1 << (_RERAISE + 2 * street)
        if street >= 1:
            if seat.checked and facing:
                seat.checked = False  # the first decision facing a bet after the check
                if self._may_raise(seat):
                    bits |= 1 << (_CHECK_RAISE + 2 * (street - 1) + 1)
                    if raised:
                        bits |= 1 << (_CHECK_RAISE + 2 * (street - 1))
            elif isinstance(e, Check):
                seat.checked = True
        if street == 1 and not seat.acted3:
            seat.acted3 = True
            if player == self.cbettor:
                if self.aggressive[1] == 0:
                    bits |= 1 << (_CBET + 1)
                    if isinstance(e, Bet):
                        bits |= 1 << _CBET
                        self.cbet_made = True
            elif self.cbet_made and self.aggressive[1] == 1 and self.last_aggressor[1] == self.cbettor:
                bits |= 1 << (_CBET_FOLD + 1)
                if isinstance(e, Fold):
                    bits |= 1 << _CBET_FOLD
        return bits

    def answers(self) -> dict[str, SeatFlags]:
        """Each player's flags once every line has passed (the steal is decided here, from the first turns)."""
        if self.has_bring_in and self.order:
            _steal(self.order)
        return self.seats


def _steal(order: list[SeatFlags]) -> None:
    """The steal and the bring-in's answer to it, from the first turns on 2nd street (each seat's ``first``, ``second``).

    The order of first turns is the order of acting, the bring-in first
    (position 0).  A player at position ``k`` of ``n`` had the chance to
    steal when a bring-in was posted, ``k`` is one of the last two
    (``k >= n - 2``, ``k >= 1``) and everyone between the bring-in and them
    folded; they stole by completing at that turn.  The player at
    position 0 faced a steal when someone stole and everyone after the
    stealer folded; they folded to it when their next turn was a fold.
    """
    n = len(order)
    brought_in = False
    for seat in order:
        if isinstance(seat.first, BringIn):
            brought_in = True
    stealer = -1
    folded_so_far = True  # everyone at positions 1..k-1 folded at their first turn
    for k in range(n):
        seat = order[k]
        turn = seat.first
        chance = brought_in and k >= 1 and k >= n - 2 and folded_so_far
        if chance:
            seat.bits |= 1 << (_STEAL + 1)
            if isinstance(turn, Complete):
                seat.bits |= 1 << _STEAL
                if stealer < 0:
                    stealer = k
        if k >= 1 and not isinstance(turn, Fold):
            folded_so_far = False
    if stealer >= 0:
        rest_folded = True
        for k in range(stealer + 1, n):
            if not isinstance(order[k].first, Fold):
                rest_folded = False
        if rest_folded:
            bring_in = order[0]
            bring_in.bits |= 1 << (_BI_FOLD + 1)
            if isinstance(bring_in.second, Fold):
                bring_in.bits |= 1 << _BI_FOLD


def saw_bits(reached: int, has_vela: bool, fold_street: str | None, vela_rules: bool = True) -> int:
    """The four ``saw_*`` bits of a seat dealt in, and the vela's opportunity (``saw_vela_opp``).

    ``reached``: bit 0, 1, 2 when a card was dealt on 3rd, 4th, 5th street
    (:attr:`hhtool.replay.facts.CardFacts.reached`).
    A player saw a street the hand reached unless they folded on an
    earlier one; the vela, when the hand reached 5th street and a vela was
    turned.  ``vela_rules``: the hand's rules have a vela (stellapoker and
    italian without ``[vela at start]`` have none): only then is seeing it
    an opportunity, so that "saw the vela" is ``-`` there, not 0 %.
    """
    fold_at = STREETS.index(fold_street) if fold_street is not None and fold_street in STREETS else 99
    bits = 0
    if reached & 1 and fold_at >= 1:
        bits |= 1
    if reached & 2 and fold_at >= 2:
        bits |= 2
    if reached & 4 and fold_at >= 3:
        bits |= 4
        if has_vela and vela_rules and fold_at >= 4:
            bits |= 8
    if vela_rules:
        bits |= 1 << _SAW_VELA_OPP
    return bits


NO_SEAT: Final = SeatFlags()
"""The answers of a player with no line: every flag false, every count 0."""

FLAG_BITS: Final = "flag_bits"
"""The worker's one column for the ``N_FLAGS + N_MORE_FLAGS`` boolean columns: bit ``i`` is the ``i``-th
(:mod:`hhtool.store.frames` expands it; an int a seat instead of 47 booleans in Python)."""


def seat_values(seat: SeatFlags | None, saw: int) -> tuple[int, ...]:
    """The worker's values of the ``SEAT_STATS`` columns for one seat dealt in: the flags as bits, then the counts.

    ``saw`` from :func:`saw_bits`.
    """
    s = NO_SEAT if seat is None else seat
    return (s.bits | saw, *s.counts)


NOT_DEALT_IN: Final[tuple[int, ...]] = (0, *[0] * (3 * len(STREETS)))
"""The worker's values of a seat not dealt in: it had no opportunity."""
