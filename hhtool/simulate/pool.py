"""Population mode (``--pool N``): players from a pool join and leave several tables running at once.

A room is not one table of the same six people: players sit down for a
while, leave, and come back at another table.  To let a screen for
collusion be tested, pairs must meet about as often as strangers do, so
who sits where is drawn uniformly from the players not seated anywhere.

The seating is a *schedule* fixed before any card is dealt, a function of
the seed and the block alone: sessions ``k`` of the same block
``k // tables`` are the tables running at once (table ``k % tables`` of
the block), and hand ``n`` of each is the block's step ``n``.  Each
worker process computes the schedule of its session's block (a few
milliseconds) and finds the same, so the bytes do not depend on
``--jobs``.  A player's stay is drawn when they sit down; a player who
goes broke tops up and stays (pool players leave when their stay ends).
"""

from __future__ import annotations

import random

from hhtool.simulate.bots import STYLES, Style
from hhtool.simulate.config import SimConfig
from hhtool.simulate.names import pool_names

STAY_HANDS = (20, 400)
"""A pool player's stay at a table, in hands, drawn uniformly in this range when they sit down."""

EMPTY_HANDS = (0, 3)
"""How long a seat stays empty after a player leaves, in hands."""


def pool_styles(config: SimConfig) -> dict[str, Style]:
    """Each pool player's style, for the whole run: from the seed alone."""
    rng = random.Random(f"{config.seed}:pool:styles")
    return {name: rng.choice(STYLES) for name in pool_names(config.pool)}


Roster = tuple[tuple[int, str], ...]
"""Who sits where at one step: (seat, name) by seat."""

_cache: dict[tuple[object, ...], list[list[Roster]]] = {}


def block_schedule(config: SimConfig, block: int, steps: int) -> list[list[Roster]]:
    """Block ``block``'s seating: for each of its tables, the roster at each of ``steps`` steps (hands).

    Step 0 seats ``players`` at random seats of each table, drawn from the
    pool.  After each step, players whose stay ended leave; an empty seat
    waits 0-3 steps, then takes a player drawn uniformly among those seated
    nowhere (one who just left may sit down elsewhere at once, as players
    change tables), so that any two players share a table about as often as
    any other two.  A table never has fewer than ``min_dealt`` seated.
    """
    key = (config.seed, block, steps, config.pool, config.tables, config.players, config.min_dealt)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    rng = random.Random(f"{config.seed}:{block}:pool")
    names = pool_names(config.pool)
    max_seats = 8 if config.players > 6 else 6
    idle = list(range(config.pool))
    stay: dict[int, int] = {}
    seats: list[dict[int, int]] = []
    empty_for: list[dict[int, int]] = []

    def sit(t: int, seat: int) -> None:
        who = idle.pop(rng.randrange(len(idle)))
        seats[t][seat] = who
        stay[who] = rng.randint(*STAY_HANDS)

    for t in range(config.tables):
        seats.append({})
        empty_for.append({})
        for seat in sorted(rng.sample(range(1, max_seats + 1), config.players)):
            sit(t, seat)
    out: list[list[Roster]] = [[] for _ in range(config.tables)]
    for step in range(steps):
        if step:
            for t in range(config.tables):
                for seat in sorted(seats[t]):
                    who = seats[t][seat]
                    stay[who] -= 1
                    if stay[who] <= 0:
                        del seats[t][seat]
                        idle.append(who)
                        empty_for[t][seat] = rng.randint(*EMPTY_HANDS)
            for t in range(config.tables):
                waiting = empty_for[t]
                for seat in sorted(waiting):
                    if waiting[seat] > 0:
                        waiting[seat] -= 1
                    elif len(seats[t]) < config.players and idle:
                        del waiting[seat]
                        sit(t, seat)
                while len(seats[t]) < config.min_dealt and idle:
                    seat = min(n for n in range(1, max_seats + 1) if n not in seats[t])
                    waiting.pop(seat, None)
                    sit(t, seat)
        for t in range(config.tables):
            roster = tuple((seat, names[seats[t][seat]]) for seat in sorted(seats[t]))
            previous = out[t][-1] if out[t] else None
            out[t].append(previous if previous == roster else roster)
    _cache.clear()  # one block at a time: a worker's sessions come in order
    _cache[key] = out
    return out
