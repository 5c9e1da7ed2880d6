"""The fast evaluator against the brute-force reference, and the category counts."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from itertools import combinations

import pytest

from hhtool.game.cards import Card, deck_cards
from hhtool.game.evaluate import CATEGORY_NAMES, evaluate
from hhtool.game.rules import CLASSIC, ITALIAN, STELLAPOKER, RuleSet
from tests import reference


def test_category_counts_of_all_32_card_five_card_hands() -> None:
    """All C(32, 5) = 201,376 five-card hands of the 32-card deck (7 to ace).

    Eight ranks, four suits, five straights (T-A, 9-K, 8-Q, 7-J and the
    ace-low A-7-8-9-T):

    - straight flush: 5 straights x 4 suits = 20
    - four of a kind: 8 ranks x 7 kicker ranks x 4 suits = 224
    - full house: 8 x C(4,3) x 7 x C(4,2) = 8 x 4 x 7 x 6 = 1,344
    - flush: C(8,5) rank sets x 4 suits - 20 straight flushes = 224 - 20 = 204
    - straight: 5 x 4^5 - 20 = 5,100
    - three of a kind: 8 x C(4,3) x C(7,2) x 4^2 = 8 x 4 x 21 x 16 = 10,752
    - two pair: C(8,2) x C(4,2)^2 x 6 kicker ranks x 4 = 28 x 36 x 24 = 24,192
    - one pair: 8 x C(4,2) x C(7,3) x 4^3 = 8 x 6 x 35 x 64 = 107,520
    - high card: (C(8,5) - 5 straights) x (4^5 - 4 flushes) = 51 x 1,020 = 52,020

    which add up to 201,376.
    """
    expected = {
        "straight_flush": 20,
        "four_of_a_kind": 224,
        "full_house": 1344,
        "flush": 204,
        "straight": 5100,
        "three_of_a_kind": 10752,
        "two_pair": 24192,
        "one_pair": 107520,
        "high_card": 52020,
    }
    assert sum(expected.values()) == 201376
    counts: Counter[str] = Counter()
    for five in combinations(deck_cards(7), 5):
        counts[CATEGORY_NAMES[evaluate(five, STELLAPOKER, 7).category]] += 1
    assert dict(counts) == expected


def _check_deals(rules: RuleSet, players_range: tuple[int, int], n_deals: int, seed: int, vela: bool) -> None:
    """Deal random hands; the fast evaluator must order them as the reference does."""
    rng = random.Random(seed)
    for _ in range(n_deals):
        players = rng.randint(*players_range)
        low = rules.lowest_rank(players)
        deck = deck_cards(low)
        rng.shuffle(deck)
        n_hands = rng.randint(2, min(players, 4))
        hands = [deck[i * 5 : i * 5 + 5] for i in range(n_hands)]
        extra = [deck[-1]] if vela else []
        fast = [evaluate([*h, *extra], rules, low) for h in hands]
        ref = [reference.best([*h, *extra], rules.tie_break, low, rules.wild) for h in hands]
        for f, r in zip(fast, ref):
            assert f.category == r[1], (hands, extra, f.description)
        for (fa, ra), (fb, rb) in combinations(zip(fast, ref), 2):
            ta, tb = ra[0], rb[0]
            want = (ta > tb) - (ta < tb)
            got = (fa.key > fb.key) - (fa.key < fb.key)
            assert got == want, (hands, extra, fa.description, fb.description)


@pytest.mark.parametrize("rules", [CLASSIC, STELLAPOKER, replace(CLASSIC, tie_break="ranks_then_suits")], ids=lambda r: f"{r.name}-{r.tie_break}")
@pytest.mark.parametrize("vela", [False, True])
def test_fixed32_profiles_agree_with_reference(rules: RuleSet, vela: bool) -> None:
    _check_deals(rules, (2, 6), 400, seed=hash((rules.tie_break, vela)) & 0xFFFF, vela=vela)


@pytest.mark.parametrize("vela", [False, True])
def test_italian_every_deck_size_agrees_with_reference(vela: bool) -> None:
    _check_deals(ITALIAN, (2, 8), 400, seed=7 + vela, vela=vela)


@pytest.mark.parametrize("wild", [7, 9, 14])
def test_italian_wild_cards_agree_with_reference(wild: int) -> None:
    rules = ITALIAN.with_options(wild=wild)
    _check_deals(rules, (4, 6), 40, seed=wild, vela=False)


def test_italian_wild_cards_with_vela_agree_with_reference() -> None:
    rules = ITALIAN.with_options(wild=12, vela="at_start")
    _check_deals(rules, (4, 5), 25, seed=99, vela=True)


def test_wild_hands_rich_in_wild_cards() -> None:
    """Hands holding two wild cards, dealt on purpose (random deals seldom hold them)."""
    rules = ITALIAN.with_options(wild=8)
    rng = random.Random(5)
    low = 7
    for _ in range(30):
        deck = deck_cards(low)
        wilds = [c for c in deck if c >> 2 == 8]
        rest = [c for c in deck if c >> 2 != 8]
        rng.shuffle(wilds)
        rng.shuffle(rest)
        a = [*wilds[:2], *rest[:3]]
        b = [*wilds[2:3], *rest[3:7]]
        fa, fb = evaluate(a, rules, low), evaluate(b, rules, low)
        ra, rb = reference.best(a, rules.tie_break, low, 8), reference.best(b, rules.tie_break, low, 8)
        assert (fa.category, fb.category) == (ra[1], rb[1])
        want = (ra[0] > rb[0]) - (ra[0] < rb[0])
        assert (fa.key > fb.key) - (fa.key < fb.key) == want


def test_best_five_is_five_of_the_cards() -> None:
    rng = random.Random(3)
    deck: list[Card] = deck_cards(7)
    for _ in range(500):
        six = rng.sample(deck, 6)
        v = evaluate(six, CLASSIC, 7)
        assert len(v.five) == 5 and set(v.five) <= set(six)
        assert evaluate(v.five, CLASSIC, 7).key == v.key


@pytest.mark.parametrize("tie_break", ["split", "card_order", "ranks_then_suits"])
@pytest.mark.parametrize("low", [7, 5, 9])
@pytest.mark.parametrize("n_cards", [5, 6])
def test_same_category_pairs_agree_with_reference(tie_break: str, low: int, n_cards: int) -> None:
    """Within one category is where tie-breaks live: compare many such pairs.

    Random deals seldom hold two flushes or two straights; here hands are
    bucketed by category first, then every pair within a bucket is checked.
    """
    rules = replace(ITALIAN, tie_break=tie_break)  # type: ignore[arg-type]
    rng = random.Random(low * 10 + n_cards)
    deck = deck_cards(low)
    buckets: dict[int, list[list[Card]]] = {}
    for _ in range(15000):
        hand = rng.sample(deck, n_cards)
        cat = evaluate(hand, rules, low).category
        bucket = buckets.setdefault(cat, [])
        if len(bucket) < 24:
            bucket.append(hand)
    # six cards of a 24-card deck always hold a pair or a straight
    assert len(buckets) == (8 if (low, n_cards) == (9, 6) else 9)
    for cat, hands in buckets.items():
        ref = [reference.best(h, tie_break, low) for h in hands]
        fast = [evaluate(h, rules, low) for h in hands]
        for r, f in zip(ref, fast):
            assert r[1] == cat == f.category
        for i, j in combinations(range(len(hands)), 2):
            want = (ref[i][0] > ref[j][0]) - (ref[i][0] < ref[j][0])
            got = (fast[i].key > fast[j].key) - (fast[i].key < fast[j].key)
            assert got == want, (hands[i], hands[j], fast[i].description, fast[j].description)


@pytest.mark.parametrize("tie_break", ["split", "ranks_then_suits", "card_order"])
def test_the_key_packed_directly_is_the_packed_fields(tie_break: str) -> None:
    """``key_of`` (the evaluator's key, packed as the fields are found) is ``pack(fields_of(...))`` (the fields the
    showdown explains with): on every candidate of random hands of every deck size, and on arbitrary cards given any category."""
    from hhtool.game.evaluate import _candidates, fields_of, key_of, pack

    rng = random.Random(44)
    for _ in range(20_000):
        low = rng.choice([2, 5, 6, 7])
        deck = [r << 2 | s for r in range(low, 15) for s in range(4)]
        k = rng.choice([1, 2, 3, 4, 5, 5, 6, 6, 7])
        cards = rng.sample(deck, k) if rng.random() < 0.9 else [rng.choice(deck) for _ in range(k)]  # repeats: wild stand-ins
        for cand in _candidates(cards, low, True):
            assert key_of(cand.category, cand.played, tie_break, low) == pack(fields_of(cand.category, cand.played, tie_break, low))  # type: ignore[arg-type]
        category = rng.randrange(len(CATEGORY_NAMES))
        played = tuple(rng.choice(deck) for _ in range(rng.randint(1, 6)))
        assert key_of(category, played, tie_break, low) == pack(fields_of(category, played, tie_break, low))  # type: ignore[arg-type]
