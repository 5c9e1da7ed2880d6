"""Faults on demand: alter a simulated hand with one of the replay issue's fault classes.

The classes are :data:`hhtool.faults.FAULTS`, the same the mutation tests
use; each knows the finding code that must catch it and the verdict it
must give, and both go into the manifest so an audit can be scored.  A
class that does not apply to a hand (no bring-in in a blinds game, no
vela to remove, ...) is skipped.
"""

from __future__ import annotations

import random

from ..events import Hand
from ..faults import FAULTS


def inject(hand: Hand, rng: random.Random) -> tuple[Hand, dict[str, str]] | None:
    """``hand`` altered by one fault class and its manifest entry, or None if none applies.

    The class is drawn uniformly among those that apply to this hand, so
    that classes which apply rarely (a raise over the cap needs a fixed-limit
    heads-up round) are not crowded out by those that apply everywhere.
    """
    applicable = []
    for fault in FAULTS:
        altered = fault.apply(hand, rng)
        if altered is not None:
            applicable.append((fault, altered))
    if not applicable:
        return None
    fault, (new_hand, what) = applicable[rng.randrange(len(applicable))]
    return new_hand, {"fault": fault.name, "code": fault.code, "verdict": fault.verdict, "change": what}
