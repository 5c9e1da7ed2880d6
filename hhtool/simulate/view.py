"""A player's own view of a hand: what a room gives that player as their history.

FORMAT.md: on 2nd street the viewer sees ``[hole door]`` and everyone else
``[door]``; on later streets the first bracket repeats the cards already
known to the viewer, the second holds the new card when it is dealt face
up.  So for every other player we keep only the cards that were face up
when the line was written: nothing of the hole card, nothing of a card
dealt down (una coperta's last card, every card of carte coperte) until
its ``exposes`` line turns it.  Cards shown at the showdown stay: the
viewer saw them.
"""

from __future__ import annotations

from dataclasses import replace

from hhtool.game.cards import Card
from hhtool.game.rules import RuleSet, round_of_street
from hhtool.history.events import Deal, Event, Expose, Hand, Street


def own_view(hand: Hand, viewer: str, rules: RuleSet | None = None) -> Hand:
    """``hand`` (the audit view) as ``viewer`` saw it; ``rules``, the hand's own (its header's) if not given."""
    if rules is None:
        rules = hand.header.ruleset()
    visible: dict[str, list[Card]] = {}
    round_no = 0
    events: list[Event] = []
    for e in hand.events:
        if isinstance(e, Street):
            round_no = round_of_street(e.name)
        elif isinstance(e, Expose):
            seen = visible.setdefault(e.player, [])
            seen.extend(c for c in e.cards if c not in seen)
        elif isinstance(e, Deal):
            seen = visible.setdefault(e.player, [])
            if round_no == 1:
                door = (e.known or ())[1:2]
                if rules.dealt_up(1)[1]:
                    seen.extend(door)
                if e.player != viewer:
                    e = replace(e, known=tuple(seen) or None, new=None)
            else:
                new = tuple(e.new or ())
                up = rules.dealt_up(round_no)[0]
                if e.player != viewer:
                    e = replace(e, known=tuple(seen) or None, new=new if up else None)
                if up:
                    seen.extend(new)
        events.append(e)
    return replace(hand, events=tuple(events))
