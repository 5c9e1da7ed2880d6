"""Faults on demand: alter a simulated hand with one of the replay issue's fault classes.

The classes are :data:`hhtool.simulate.mutate.FAULTS`, the same the mutation tests
use; each knows the finding code that must catch it and the verdict it
must give, and both go into the manifest so an audit can be scored, with
the line the fault changed (``fault_line``: where the audit must report
the cause; counted from the hand's first line here, from the file's first
line in the manifest).  A
class that does not apply to a hand (no bring-in in a blinds game, no
vela to remove, ...) is skipped.
"""

from __future__ import annotations

import random

from hhtool.game.room import Room
from hhtool.history.events import Hand
from hhtool.simulate.mutate import FAULTS


def inject(hand: Hand, rng: random.Random, room: Room | None = None) -> tuple[Hand, dict[str, object]] | None:
    """``hand`` altered by one fault class and its manifest entry, or None if none applies.

    The class is drawn uniformly among those that apply to this hand, so
    that classes which apply rarely (a raise over the cap needs a fixed-limit
    heads-up round) are not crowded out by those that apply everywhere.
    ``room``: the room file the hand was dealt under, whose rules decide
    where a fault applies and what catches it
    (:meth:`~hhtool.simulate.mutate.FaultClass.alter`); the entry names it.
    """
    applicable = []
    for fault in FAULTS:
        done = fault.alter(hand, rng, room)
        if done is not None:
            applicable.append((fault, *done))
    if not applicable:
        return None
    fault, altered, code = applicable[rng.randrange(len(applicable))]
    entry: dict[str, object] = {"fault": fault.name, "code": code, "verdict": fault.verdict, "change": altered.change, "fault_line": altered.line}
    if room is not None:
        entry["room"] = room.name
    return altered.hand, entry
