"""Properties of every replay, valid hand or not: chips are conserved, payouts add up."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from hhtool.history.events import Hand
from hhtool.history.reader import hands, read_text
from hhtool.replay import Replay, replay
from tests.handgen import generate_hand
from tests.sample_paths import SAMPLES
from tests.test_replay_samples import HANDS


def _check(hand: Hand) -> None:
    r = replay(hand)
    _same_without_words(r, replay(hand, explain=False))
    start = {s.player: s.stack for s in hand.seats if s.player in r.stacks}
    put_in = {n: start[n] - (r.stacks[n] - r.payouts.get(n, 0)) for n in r.stacks}
    rake = sum(p.rake for p in r.pots)
    # the pots hold exactly what the players put in (folded players' chips included)
    assert sum(p.amount for p in r.pots) == sum(put_in.values())
    for p in r.pots:
        assert 0 <= p.rake <= p.amount
        assert set(p.winners) <= set(p.eligible) or p.eligible == ()
    if all(p.verified for p in r.pots) and any(p.winners for p in r.pots):
        # payouts are the pots less the rake, so the chips are conserved
        assert sum(r.payouts.values()) == sum(put_in.values()) - rake
        assert sum(r.stacks.values()) + rake == sum(start.values())


def _same_without_words(r: Replay, quiet: Replay) -> None:
    """``explain=False`` (the import's replay) drops the words only: everything stored is the same."""
    assert quiet.rounds == () and all(p.reason == "" for p in quiet.pots)
    assert quiet.verdict == r.verdict and quiet.findings == r.findings
    assert [replace(p, reason="") for p in r.pots] == list(quiet.pots)
    assert (quiet.payouts, quiet.claimed, quiet.stacks, quiet.categories) == (r.payouts, r.claimed, r.stacks, r.categories)
    assert quiet.showdown_order == r.showdown_order


def test_one_known_hand_in_a_contested_pot_is_explained() -> None:
    """Only one contender's cards known: the pot's reason says so (it used to crash the words only)."""
    text = (SAMPLES / "060_italian_una_coperta_own_view.txt").read_text(encoding="utf-8")
    shown = "Bruno: shows [Th Ah 9h Qh Jh] (a flush, Hearts)\n"
    won = "Seat 6: Bruno showed [Th Ah 9h Qh Jh] and won ($198) with a flush, Hearts"
    assert shown in text and won in text
    hand = next(hands(read_text(text.replace(shown, "").replace(won, "Seat 6: Bruno collected ($198)"))))
    r = replay(hand)
    _same_without_words(r, replay(hand, explain=False))
    assert "cards_unknown" in {f.code for f in r.findings}
    assert any("the only hand known" in p.reason for p in r.pots), [p.reason for p in r.pots]
    _check(hand)


def test_samples_conserve_chips() -> None:
    for hand in HANDS:
        _check(hand)


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 10**9))
def test_random_histories_conserve_chips_and_never_crash(seed: int) -> None:
    """Generated histories are plausible text, mostly against the rules: the replay
    must still reach a verdict and keep the money straight."""
    for record in read_text(generate_hand(random.Random(seed), seed)):
        if isinstance(record, Hand):
            _check(record)
