"""A table over many hands: seats, stacks that carry over, a moving button, sit-outs and newcomers.

The table is the only state that outlives a hand.  Between hands it
settles stacks, lets broke players leave (their seat stays empty a few
hands, then a newcomer joins), lets players sit out for a while and come
back, and moves the button clockwise to the next player dealt in.  The
viewer of an own-view history (``--view NAME``) never sits out and never
leaves: a room's history for one player holds only that player's hands,
so the viewer simply tops up when broke; nor do the players of a colluding
pair at a single table (``--collude``), so the pair keeps meeting.

In population mode (``--pool``) the seating is not the table's own: a
schedule (:mod:`.pool`) says who sits where at each hand, and the table
follows it: who leaves and who sits down, pool players keeping their
style for the whole run and topping up when broke.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from hhtool.simulate.bots import STYLES, Style
from hhtool.simulate.config import SimConfig
from hhtool.simulate.names import FIRST_NAMES

NEWCOMERS = (
    "Il Vecchio", "ciro:napoli", "[VIP] Zia (IT)", "Ännchen", "o'neil", "Luca", "Sofia", "Matteo",
    "Chiara", "Davide", "Piero", "Lia", "Bruno", "Rosa", "Enzo", "Tito",
)


@dataclass
class SeatState:
    """One occupied seat: who sits there, with how much, how they play."""

    seat: int
    name: str
    stack: int
    style: Style
    sitting_out: int = 0  # hands still to sit out


@dataclass(frozen=True, slots=True)
class Deal:
    """Who is dealt into the next hand: (seat, name, stack, style) by seat, and the button's seat."""

    seats: tuple[tuple[int, str, int, Style], ...]
    button: int


class Table:
    """One table's seats between hands; all randomness from the table's own generator."""

    def __init__(
        self,
        config: SimConfig,
        rng: random.Random,
        schedule: list[tuple[tuple[int, str], ...]] | None = None,
        styles: dict[str, Style] | None = None,
    ) -> None:
        """A table of ``config.players`` first players; or, given a pool ``schedule`` (a roster a hand) and the pool's ``styles``, its first roster."""
        self.config = config
        self.rng = rng
        self.max_seats = 8 if config.players > 6 else 6
        self.seats: dict[int, SeatState] = {}
        self.empty_for: dict[int, int] = {}  # empty seat -> hands until a newcomer sits
        self.newcomer = 0
        self.button = 0
        self.arrivals: list[tuple[str, int]] = []  # (name, seat) who sat down since the last hand
        self.departures: list[str] = []
        self.stay = config.colluders | ({config.view} if config.view is not None else frozenset())
        self.schedule = schedule
        self.pool_styles: dict[str, Style] = styles if styles is not None else {}
        self.step = 0
        if schedule is not None:
            for seat, name in schedule[0]:
                self.seats[seat] = SeatState(seat, name, self._buy_in(), self.pool_styles[name])
            return
        numbers = sorted(rng.sample(range(1, self.max_seats + 1), config.players))
        for k, seat in enumerate(numbers):
            self.seats[seat] = SeatState(seat, FIRST_NAMES[k], self._buy_in(), rng.choice(STYLES))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.seats.values())

    def _buy_in(self) -> int:
        stakes = self.config.stakes
        unit = stakes.small_bet
        return max(stakes.big_bet * 4, round(stakes.buy_in * self.rng.uniform(0.5, 1.5) / unit) * unit)

    def _new_name(self) -> str:
        taken = {s.name for s in self.seats.values()}
        while True:
            base = NEWCOMERS[self.newcomer % len(NEWCOMERS)]
            lap = self.newcomer // len(NEWCOMERS)
            self.newcomer += 1
            name = base if lap == 0 else f"{base}{lap + 1}"
            if name not in taken:
                return name

    def next_deal(self) -> Deal:
        """The players dealt into the next hand and the button, after moving it."""
        active = [s for _, s in sorted(self.seats.items()) if s.sitting_out == 0]
        if len(active) < self.config.min_dealt:
            for s in sorted(self.seats.values(), key=lambda x: x.seat):
                if s.sitting_out and len(active) < self.config.min_dealt:
                    s.sitting_out = 0
                    active.append(s)
            active.sort(key=lambda x: x.seat)
        numbers = [s.seat for s in active]
        if self.button == 0:
            self.button = self.rng.choice(numbers)
        else:
            after = [n for n in numbers if n > self.button]
            self.button = after[0] if after else numbers[0]
        return Deal(tuple((s.seat, s.name, s.stack, s.style) for s in active), self.button)

    def settle(self, stacks: dict[str, int]) -> None:
        """After a hand: new stacks, then who leaves, sits out, comes back or sits down.

        A player left with less than a big bet leaves (the viewer tops up
        instead); an empty seat fills after a few hands; each hand a player
        may sit out for one to six hands.  ``arrivals`` and ``departures``
        say what happened, for the chatter lines of the hand just played.
        """
        cfg = self.config
        rng = self.rng
        self.arrivals = []
        self.departures = []
        for s in self.seats.values():
            if s.name in stacks:
                s.stack = stacks[s.name]
            elif s.sitting_out:
                s.sitting_out -= 1
        if self.schedule is not None:
            self.follow_schedule()
            return
        for seat, s in list(self.seats.items()):
            if s.stack < cfg.stakes.big_bet:
                if s.name in self.stay or rng.random() < 0.5:
                    s.stack = self._buy_in()  # a top-up between hands
                else:
                    del self.seats[seat]
                    self.empty_for[seat] = rng.randint(0, 3)
                    self.departures.append(s.name)
        for seat in sorted(self.empty_for):
            if self.empty_for[seat] > 0:
                self.empty_for[seat] -= 1
                continue
            if len(self.seats) >= cfg.players:
                continue
            del self.empty_for[seat]
            s = SeatState(seat, self._new_name(), self._buy_in(), rng.choice(STYLES))
            self.seats[seat] = s
            self.arrivals.append((s.name, seat))
        # keep enough players seated: a newcomer takes the first empty seat at once
        while len(self.seats) < cfg.min_dealt:
            seat = min(n for n in range(1, self.max_seats + 1) if n not in self.seats)
            self.empty_for.pop(seat, None)
            s = SeatState(seat, self._new_name(), self._buy_in(), rng.choice(STYLES))
            self.seats[seat] = s
            self.arrivals.append((s.name, seat))
        for s in self.seats.values():
            if s.sitting_out == 0 and s.name != cfg.view and rng.random() < 0.02:
                s.sitting_out = rng.randint(1, 6)

    def follow_schedule(self) -> None:
        """Population mode, after a hand: broke players top up, the next roster's leavers leave and its arrivals sit down."""
        cfg = self.config
        rng = self.rng
        schedule = self.schedule
        assert schedule is not None
        self.step += 1
        roster = dict(schedule[min(self.step, len(schedule) - 1)])
        for seat, s in list(self.seats.items()):
            if roster.get(seat) != s.name:
                del self.seats[seat]
                self.departures.append(s.name)
            elif s.stack < cfg.stakes.big_bet:
                s.stack = self._buy_in()  # a top-up between hands: pool players leave when their stay ends
        for seat, name in sorted(roster.items()):
            if seat not in self.seats:
                self.seats[seat] = SeatState(seat, name, self._buy_in(), self.pool_styles[name])
                self.arrivals.append((name, seat))
        for s in self.seats.values():
            if s.sitting_out == 0 and rng.random() < 0.02:
                s.sitting_out = rng.randint(1, 6)
