"""An own view of a carte coperte hand: other players' 2nd-street lines show nothing.

The grammar accepts ``Dealt to bob`` without brackets for exactly this
case (every card is dealt down, so the viewer sees none of another
player's first two cards until they turn one).  The replay engine used to
count that line as a 2nd street with zero cards (``deal_count``, invalid);
it now reads it as two unknown cards, filled in by the ``exposes`` lines
and the showdown.
"""

from __future__ import annotations

from dataclasses import replace

from hhtool.history.events import Deal, Hand
from hhtool.history.reader import read_file
from hhtool.replay import replay
from hhtool.simulate.view import own_view
from tests.sample_paths import SAMPLES


def test_carte_coperte_own_view_replays_without_findings() -> None:
    hand = next(r for r in read_file(SAMPLES / "050_italian_carte_coperte.txt") if isinstance(r, Hand))
    for viewer in ("Nico", "Ada", "Ugo"):
        mine = own_view(hand, viewer)
        bare = [e for e in mine.events if isinstance(e, Deal) and e.known is None]
        assert len(bare) == 2  # the two other players on 2nd street
        r = replay(mine)
        assert r.findings == (), r.findings
        assert r.payouts == {"Ugo": 4250}


def test_bare_deal_outside_carte_coperte_is_still_a_finding() -> None:
    hand = next(r for r in read_file(SAMPLES / "000_format_example.txt") if isinstance(r, Hand))
    events = list(hand.events)
    k = next(i for i, e in enumerate(events) if isinstance(e, Deal) and e.player == "carol")
    deal = events[k]
    assert isinstance(deal, Deal)
    events[k] = replace(deal, known=None)
    r = replay(replace(hand, events=tuple(events)))
    assert "deal_count" in {f.code for f in r.findings}
