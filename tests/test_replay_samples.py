"""Every sample history audits as sample_histories/README.md says."""

from __future__ import annotations

import warnings

import pytest

from hhtool.history.events import Hand
from hhtool.history.reader import Cp1252Warning, read_file
from hhtool.replay import replay
from hhtool.game.rules import profile
from tests.sample_paths import GOOD

# hand id -> what the README's arithmetic says each winner collects (minor units)
EXPECTED = {
    "C-1001": {"bob": 1090},
    "C-1001-BOM": {"bob": 1090},
    "C-1001-W": {"bob": 1090},
    "C-2001": {"alice": 30},
    "C-2002": {"alice": 1130},
    "C-2003": {"alice": 505},
    "S-5001": {"Paolo": 513, "Anna": 512},
    "I-3001": {"Sofia": 6100, "Luca": 4500, "Matteo": 2000},
    "I-4001": {"Rosa": 1900},
    "I-5001": {"Ugo": 4250},
    "I-6001": {"Bruno": 19800},
    "C-7001": {"[VIP] Zia (IT)": 4150},
}


def sample_hands() -> list[Hand]:
    out: list[Hand] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Cp1252Warning)
        for path in GOOD:
            out += [r for r in read_file(path) if isinstance(r, Hand)]
    return out


HANDS = sample_hands()


def test_every_sample_hand_is_covered() -> None:
    assert sorted(h.hand_id for h in HANDS) == sorted(EXPECTED)


@pytest.mark.parametrize("hand", HANDS, ids=lambda h: h.hand_id)
def test_sample_audits_ok_with_the_readme_payouts(hand: Hand) -> None:
    r = replay(hand)
    assert r.findings == (), [f.message for f in r.findings]
    assert r.verdict == "ok"
    assert r.payouts == EXPECTED[hand.hand_id]
    assert r.claimed == r.payouts


def test_side_pots_of_030() -> None:
    hand = next(h for h in HANDS if h.hand_id == "I-3001")
    r = replay(hand)
    assert [(p.name, p.amount, p.winners) for p in r.pots] == [
        ("main pot", 6100, {"Sofia": 6100}),
        ("side pot-1", 4500, {"Luca": 4500}),
        ("side pot-2", 2000, {"Matteo": 2000}),
    ]
    assert r.pots[0].eligible == ("Luca", "Sofia", "Matteo", "Chiara")


def test_format_example_reason_and_order() -> None:
    hand = next(h for h in HANDS if h.hand_id == "C-1001")
    r = replay(hand)
    assert r.showdown_order == ("bob", "alice")
    assert r.pots[0].reason.startswith("both hold two pair, Queens and Jacks, and bob's Q♥ beats alice's Q♣ (the same ranks")
    assert r.rounds[0].startswith("2nd street: alice opens (highest door card Q♠")
    assert r.rounds[3].startswith("5th street: bob opens")


def test_what_if_stellapoker_splits_the_format_example() -> None:
    """RULES.md §3 / FORMAT.md: under split the same showdown would split the pot."""
    hand = next(h for h in HANDS if h.hand_id == "C-1001")
    r = replay(hand, profile("stellapoker"))
    assert r.pots[0].winners == {"alice": 545, "bob": 545}
    assert r.verdict == "invalid"  # antes, a bring-in and a vela are not stellapoker's
