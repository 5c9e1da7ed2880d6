"""A brute-force hand evaluator, slow and obviously right, to check the fast one.

It shares nothing with :mod:`hhtool.game.evaluate` but the card encoding: it
tries every five of the cards (and, for wild cards, every card of the deck
each wild card could stand for, suits and duplicates included), classifies
each five by counting, and builds the comparison tuple straight from the
words of RULES.md §3.  Python compares tuples lexicographically, which is
what "compare X, then Y" means.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations, product

ACE = 14

HIGH, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FULL_HOUSE, FLUSH, QUADS, STRAIGHT_FLUSH, FIVE = range(10)


def rank(c: int) -> int:
    return c // 4


def suit(c: int) -> int:
    return c % 4


def straight_top(ranks: list[int], low: int) -> int | None:
    """Top rank of the straight the five distinct ranks make (ace-low counts), else None."""
    rs = sorted(set(ranks))
    if len(rs) != 5:
        return None
    if rs[-1] - rs[0] == 4:
        return rs[-1]
    if rs == [low, low + 1, low + 2, low + 3, ACE]:
        return low + 3
    return None


def classify(five: Sequence[int], low: int) -> tuple[int, list[int]]:
    """Category and the five cards in order of significance."""
    ranks = [rank(c) for c in five]
    counts = Counter(ranks)
    flush = len({suit(c) for c in five}) == 1
    top = straight_top(ranks, low)
    if top is not None:
        desc = sorted(five, reverse=True)
        if top == low + 3 and ACE in ranks:  # ace low: the ace goes last
            desc = desc[1:] + desc[:1]
        return (STRAIGHT_FLUSH if flush else STRAIGHT), desc
    if flush and len(counts) == 5:
        return FLUSH, sorted(five, reverse=True)
    order = sorted(five, key=lambda c: (counts[rank(c)], rank(c), suit(c)), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    cat = {
        (5,): FIVE,
        (4, 1): QUADS,
        (3, 2): FULL_HOUSE,
        (3, 1, 1): TRIPS,
        (2, 2, 1): TWO_PAIR,
        (2, 1, 1, 1): PAIR,
        (1, 1, 1, 1, 1): HIGH,
    }[tuple(shape)]
    if flush and cat < FLUSH:  # a five-card flush with a pair needs duplicate cards (wild)
        return FLUSH, sorted(five, reverse=True)
    return cat, order


def low_value(c: int, low: int, cat: int, pos: int) -> int:
    """Card value, with the last card of an ace-low straight counted as the lowest card."""
    if cat in (STRAIGHT, STRAIGHT_FLUSH) and pos == 4 and rank(c) == ACE:
        return (low - 1) * 4 + suit(c)
    return c


def compare_tuple(cat: int, cards: list[int], tie_break: str, low: int) -> tuple[object, ...]:
    """RULES.md §3 in tuple form."""
    ranks = [rank(low_value(c, low, cat, i)) for i, c in enumerate(cards)]
    if tie_break == "split":
        return (cat, ranks)
    if tie_break == "ranks_then_suits":
        return (cat, ranks, [suit(c) for c in cards])
    # card_order
    values = [low_value(c, low, cat, i) for i, c in enumerate(cards)]
    if cat in (HIGH, STRAIGHT, STRAIGHT_FLUSH):
        return (cat, values)
    if cat == FLUSH:
        return (cat, suit(cards[0]), values)
    counts = Counter(rank(c) for c in cards)
    group_ranks = [r for r in dict.fromkeys(rank(c) for c in cards) if counts[r] >= 2]
    singles = [c for c in cards if counts[rank(c)] == 1]
    group_suits = [suit(c) for c in cards if counts[rank(c)] >= 2]
    return (cat, group_ranks, singles, group_suits)


def best(cards: Sequence[int], tie_break: str, low: int, wild: int | None = None) -> tuple[tuple[object, ...], int]:
    """The best comparison tuple of any five of ``cards``, and its category."""
    deck = [r * 4 + s for r in range(low, ACE + 1) for s in range(4)]
    wild_pos = [i for i, c in enumerate(cards) if wild is not None and rank(c) == wild]
    results = []
    for stand_ins in product(deck, repeat=len(wild_pos)):
        hand = list(cards)
        for i, c in zip(wild_pos, stand_ins):
            hand[i] = c
        for five in combinations(hand, 5):
            cat, arranged = classify(five, low)
            results.append((compare_tuple(cat, arranged, tie_break, low), cat))
    return max(results, key=lambda t: t[0])
