"""The fast key paths give exactly the full evaluator's keys."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hhtool.game.keys import categories, flush_key, key_function, keys
from hhtool.game.cards import Card, deck_cards
from hhtool.game.evaluate import evaluate
from hhtool.game.rules import CLASSIC, ITALIAN, STELLAPOKER, RuleSet

PROFILES = [CLASSIC, STELLAPOKER, ITALIAN, ITALIAN.with_options(wild=9)]


@pytest.mark.parametrize("rules", PROFILES, ids=lambda r: f"{r.name}-wild{r.wild}")
@pytest.mark.parametrize("low", [7, 5, 9, 3])
@pytest.mark.parametrize("n", [5, 6, 7])
def test_scalar_and_batch_keys_equal_evaluate(rules: RuleSet, low: int, n: int) -> None:
    if rules.wild is not None and rules.wild < low:
        pytest.skip("wild rank not in this deck")
    rng = random.Random(low * 7 + n)
    deck = deck_cards(low)
    hands = [rng.sample(deck, n) for _ in range(300 if rules.wild else 1200)]
    # and hands rich in one suit, where flushes and straight flushes live
    for _ in range(100 if rules.wild else 300):
        suit = rng.randrange(4)
        suited = [c for c in deck if c & 3 == suit]
        others = [c for c in deck if c & 3 != suit]
        k = rng.randint(4, min(n, len(suited)))
        hands.append(rng.sample(suited, k) + rng.sample(others, n - k))
    want = [evaluate(h, rules, low).key for h in hands]
    kf = key_function(rules, low)
    assert [kf(h) for h in hands] == want
    assert keys(np.array(hands), rules, low).tolist() == want


def test_flush_key_every_six_with_five_of_a_suit_in_a_small_deck() -> None:
    """24 cards (9 to ace): every six-card hand holding five or six of one suit."""
    from itertools import combinations

    low = 9
    deck = deck_cards(low)
    sixes: list[list[Card]] = []
    for suit in range(4):
        suited = [c for c in deck if c & 3 == suit]
        others = [c for c in deck if c & 3 != suit]
        sixes.append(suited)
        sixes += [[*five, o] for five in combinations(suited, 5) for o in others]
    assert len(sixes) == 4 * (1 + 6 * 18)
    for tie_break, rules in (("split", STELLAPOKER), ("card_order", CLASSIC), ("ranks_then_suits", ITALIAN)):
        for six in sixes:
            assert flush_key(six, tie_break, low) == evaluate(six, rules, low).key  # type: ignore[arg-type]


@pytest.mark.parametrize("rules", [CLASSIC, STELLAPOKER, ITALIAN], ids=lambda r: r.name)
@pytest.mark.parametrize("low", [7, 9, 3])
def test_batch_keys_of_ace_low_straights_and_repeated_ranks(rules: RuleSet, low: int) -> None:
    """The ace of an ace-low straight counts as rank low - 1 (the dense table's plans take it off their base), and
    a rank five times (repeated cards) has no plan: both as the full evaluator says, in every deck layout."""
    rng = random.Random(low)
    ranks = [14, *range(low, low + 4)]
    hands = []
    for n in (5, 6, 7):
        for _ in range(200):
            hand = [r * 4 + rng.randrange(4) for r in ranks]
            hand += rng.sample([c for c in deck_cards(low) if c not in hand], n - 5)
            rng.shuffle(hand)
            if len({c & 3 for c in hand}) > 1 or n > 5:
                hands.append(hand)
    for n in (5, 6, 7):
        batch = [h for h in hands if len(h) == n]
        assert keys(np.array(batch), rules, low).tolist() == [evaluate(h, rules, low).key for h in batch]
    five = np.array([[r * 4, r * 4 + 1, r * 4 + 2, r * 4 + 3, r * 4, 12 * 4] for r in range(low, 12)])
    assert keys(five, rules, low).tolist() == [key_function(rules, low)([int(c) for c in h]) for h in five]


def test_sorting_networks_sort_every_zero_one_input() -> None:
    """The batch sorts a hand's cards with fixed compare-exchanges: by the 0-1 principle, sorting every 0-1 input
    proves a network sorts everything."""
    from itertools import product

    from hhtool.game.keys import _NETWORKS, _sorted_columns

    for n in _NETWORKS:
        inputs = np.array(list(product((0, 1), repeat=n)), dtype=np.int64).T
        assert (_sorted_columns(inputs) == np.sort(inputs, axis=0)).all()


def test_batch_rejects_bad_shapes() -> None:
    with pytest.raises(ValueError):
        keys(np.zeros((3, 4), dtype=np.int64), CLASSIC, 7)


def test_batch_handles_more_rows_than_a_chunk() -> None:
    rng = random.Random(0)
    deck: list[Card] = deck_cards(7)
    hands = [rng.sample(deck, 6) for _ in range(70000)]
    got = keys(np.array(hands), CLASSIC, 7)
    kf = key_function(CLASSIC, 7)
    for i in range(0, 70000, 997):
        assert got[i] == kf(hands[i])


@pytest.mark.parametrize("rules", PROFILES, ids=lambda r: f"{r.name}-wild{r.wild}")
def test_categories_are_the_keys_top_field(rules: RuleSet) -> None:
    rng = random.Random(5)
    deck = deck_cards(5)
    hands = [rng.sample(deck, 6) for _ in range(400)]
    assert categories(np.array(hands), rules, 5).tolist() == [evaluate(h, rules, 5).category for h in hands]


def test_a_card_outside_the_deck_takes_the_full_evaluator() -> None:
    """An invalid hand can hold a Six in a deck from the Seven, or a rank five times with the vela:
    no rank plan exists for those, and the key is still the evaluator's."""
    six_low = [Card(6 * 4 + 1), Card(7 * 4), Card(8 * 4), Card(9 * 4), Card(10 * 4 + 2), Card(14 * 4 + 3)]
    five_aces = [Card(14 * 4 + s) for s in range(4)] + [Card(14 * 4 + 3), Card(9 * 4)]
    for hand in (six_low, five_aces):
        want = evaluate(hand, CLASSIC, 7).key
        assert key_function(CLASSIC, 7)(hand) == want
        assert keys(np.array([hand]), CLASSIC, 7).tolist() == [want]


@pytest.mark.parametrize(("wild", "low"), [(9, 9), (7, 5), (14, 2)])
def test_wild_keys_equal_evaluate_on_hands_rich_in_wild_cards(wild: int, low: int) -> None:
    """One to three wild cards, half the hands rich in one suit: stand-ins that repeat a card held and
    five cards of a suit that are not the best hand (four of a kind beside a flush) are met here, where
    random deals seldom hold two wild cards."""
    rules = ITALIAN.with_options(wild=wild)
    rng = random.Random(wild * 31 + low)
    deck = deck_cards(low)
    wilds = [c for c in deck if c >> 2 == wild]
    rest = [c for c in deck if c >> 2 != wild]
    hands: list[list[Card]] = []
    for i in range(120):
        n = rng.choice((5, 6))
        k = rng.choice((1, 1, 2, 2, 3))
        hand = rng.sample(wilds, k)
        suit = rng.randrange(4)
        pool = [c for c in rest if c & 3 == suit] if i % 2 else rest
        hand += rng.sample(pool, n - k)
        rng.shuffle(hand)
        hands.append(hand)
    want = [evaluate(h, rules, low).key for h in hands]
    kf = key_function(rules, low)
    assert [kf(h) for h in hands] == want
    for n in (5, 6):
        of_n = [i for i, h in enumerate(hands) if len(h) == n]
        assert keys(np.array([hands[i] for i in of_n]), rules, low).tolist() == [want[i] for i in of_n]
