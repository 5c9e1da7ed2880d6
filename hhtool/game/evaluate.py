"""Hand values: the best five cards a player holds, as one comparable key.

RULES.md §2-§3.  A hand's value is an integer *key*: a larger key is a
better hand under the profile's ``tie_break``.  The key packs fields in
order of significance -- category, then ranks, then (where the profile
lets suits speak) cards or suits -- so that comparing two hands is one
integer comparison, and explaining a comparison is finding the first
field that differs (:func:`fields_of`).

The straight-flush rules ``heads_up_low_beats_royal`` and
``italian_cycle`` are not orders on single hands (the second is not even
transitive); they live in :mod:`hhtool.game.showdown`, which reads the
``min_sf``/``max_sf`` marks and the alternative straight flushes that
:func:`evaluate` records here.

Key layouts, one per ``tie_break`` (all start with the category):

``split``
    five ranks in order of significance (groups by size then rank, then
    single cards high to low; straights from the top, the low ace last).
``ranks_then_suits``
    the same five ranks, then the five suits in the same order (the largest
    group first, within a group its best suit first, then single cards).
``card_order``
    two group ranks, five single cards by card value (rank, then suit),
    then the suits of the group cards.  High-card hands and straights
    compare card by card; pairs by the pair, then kickers card by card;
    flushes put the flush's suit in the first group slot so that suit alone
    decides, then (for two flushes of one suit, which only a big deck
    allows) their cards.

In every layout the ace of an ace-low straight counts as rank ``low - 1``,
the lowest card, also when cards are compared one by one (RULES.md §3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import Final, cast

from hhtool.game.cards import (
    ACE,
    RANK_NAMES,
    RANK_PLURALS,
    SUIT_NAMES,
    Card,
    make_card,
)
from hhtool.game.rules import RuleSet, TieBreak
from hhtool._native.pickling import picklable

# Categories, lowest first (RULES.md §2: flush above full house).
HIGH_CARD: Final = 0
ONE_PAIR: Final = 1
TWO_PAIR: Final = 2
THREE_OF_A_KIND: Final = 3
STRAIGHT: Final = 4
FULL_HOUSE: Final = 5
FLUSH: Final = 6
FOUR_OF_A_KIND: Final = 7
STRAIGHT_FLUSH: Final = 8
POKERISSIMO: Final = 9

CATEGORY_NAMES: Final = (
    "high_card",
    "one_pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "full_house",
    "flush",
    "four_of_a_kind",
    "straight_flush",
    "pokerissimo",
)
CATEGORY_LABELS: Final = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "a straight",
    "a full house",
    "a flush",
    "four of a kind",
    "a straight flush",
    "pokerissimo",
)

_GROUP_CATEGORY: Final = {
    # (size of the largest group, size of the second) -> category
    (5, 0): POKERISSIMO,
    (4, 1): FOUR_OF_A_KIND,
    (4, 0): FOUR_OF_A_KIND,
    (3, 2): FULL_HOUSE,
    (3, 1): THREE_OF_A_KIND,
    (3, 0): THREE_OF_A_KIND,
    (2, 2): TWO_PAIR,
    (2, 1): ONE_PAIR,
    (2, 0): ONE_PAIR,
    (1, 1): HIGH_CARD,
    (1, 0): HIGH_CARD,
}


@dataclass(init=False, unsafe_hash=True)
class HandValue:
    """The value of a player's best hand under one rule profile.

    ``five`` holds the cards played, in order of significance (for a wild
    card, the wild card itself; ``played`` says what it stood for).
    ``alternatives`` holds the player's other straight flushes when the
    profile's ``sf_rule`` can make a lower one the better choice.

    A value object in the project's idiom (docs/architecture.md, "Value
    objects"): the evaluator builds one for every candidate five cards of
    every hand and runout, so the written ``__init__`` stores ``Final``
    fields (C stores when compiled); the dataclass gives the equality and
    hashing the showdown and the caches rely on, and the ``repr``.
    """

    key: Final[int]
    category: Final[int]
    five: Final[tuple[Card, ...]]
    played: Final[tuple[Card, ...]]
    tie_break: Final[TieBreak]
    low: Final[int]
    min_sf: Final[bool]
    max_sf: Final[bool]
    alternatives: Final[tuple[HandValue, ...]]

    def __init__(
        self,
        key: int,
        category: int,
        five: tuple[Card, ...],
        played: tuple[Card, ...],
        tie_break: TieBreak,
        low: int,
        min_sf: bool = False,
        max_sf: bool = False,
        alternatives: tuple[HandValue, ...] = (),
    ) -> None:
        self.key = key
        self.category = category
        self.five = five
        self.played = played
        self.tie_break = tie_break
        self.low = low
        self.min_sf = min_sf
        self.max_sf = max_sf
        self.alternatives = alternatives

    @property
    def category_name(self) -> str:
        return CATEGORY_NAMES[self.category]

    @property
    def description(self) -> str:
        return describe(self.category, self.played, self.low)

    def fields(self) -> list[tuple[str, int]]:
        """The key's fields, labelled, for explanations."""
        return fields_of(self.category, self.played, self.tie_break, self.low)


picklable(HandValue)  # as a call of the class with its fields: compiled, the default way back calls __init__ with none


# ---------------------------------------------------------------------------
# Keys


def _arranged_ranks(played: Sequence[int], low: int, category: int) -> list[int]:
    """Ranks in order of significance, the low ace of a straight as ``low - 1``."""
    ranks = [c >> 2 for c in played]
    if category in (STRAIGHT, STRAIGHT_FLUSH) and ranks[-1] == ACE:
        ranks[-1] = low - 1
    return ranks


def _arranged_cards(played: Sequence[int], low: int, category: int) -> list[int]:
    """Card values in order of significance, the low ace of a straight as rank ``low - 1``."""
    cards = list(played)
    if category in (STRAIGHT, STRAIGHT_FLUSH) and cards[-1] >> 2 == ACE:
        cards[-1] = (low - 1) * 4 + (cards[-1] & 3)
    return cards


def _group_sizes(played: Sequence[int]) -> list[int]:
    sizes: list[int] = []
    prev = -1
    for c in played:
        r = c >> 2
        if r == prev:
            sizes[-1] += 1
        else:
            sizes.append(1)
            prev = r
    return sizes


def fields_of(category: int, played: Sequence[int], tie_break: TieBreak, low: int) -> list[tuple[str, int]]:
    """The comparison fields of a hand, most significant first, with labels.

    ``played`` is in order of significance (as :func:`evaluate` leaves it).
    Labels say what a field is so that :mod:`hhtool.game.showdown` can explain
    which one decided.  The key is these values packed, widest first.
    """
    out: list[tuple[str, int]] = [("category", category)]
    if tie_break == "split" or tie_break == "ranks_then_suits":
        ranks = _arranged_ranks(played, low, category)
        ranks += [0] * (5 - len(ranks))
        out += [("rank", r) for r in ranks]
        if tie_break == "ranks_then_suits":
            suits = [c & 3 for c in _arranged_cards(played, low, category)]
            suits += [0] * (5 - len(suits))
            out += [("suit", s) for s in suits]
        return out
    # card_order
    groups: list[int] = []
    singles: list[int] = []
    group_suits: list[int] = []
    if category in (STRAIGHT, STRAIGHT_FLUSH, HIGH_CARD):
        singles = _arranged_cards(played, low, category)
    elif category == FLUSH:
        groups = [played[0] & 3]
        singles = list(played)
    else:
        sizes = _group_sizes(played)
        i = 0
        for size in sizes:
            chunk = played[i : i + size]
            if size >= 2:
                groups.append(chunk[0] >> 2)
                group_suits += [c & 3 for c in chunk]
            else:
                singles.append(chunk[0])
            i += size
    out += [("flush suit" if category == FLUSH and k == 0 else "group rank", g) for k, g in enumerate(groups)]
    out += [("group rank", 0)] * (2 - len(groups))
    out += [("card", c) for c in singles]
    out += [("card", 0)] * (5 - len(singles))
    out += [("group suit", s) for s in group_suits]
    out += [("group suit", 0)] * (5 - len(group_suits))
    return out


def suit_cards(category: int, played: Sequence[int], tie_break: TieBreak) -> list[int]:
    """The cards whose suits the key's suit fields hold, in the same order (for explanations)."""
    if tie_break == "ranks_then_suits":
        return list(played)
    if tie_break == "card_order" and category not in (STRAIGHT, STRAIGHT_FLUSH, HIGH_CARD, FLUSH):
        sizes = _group_sizes(played)
        out: list[int] = []
        i = 0
        for size in sizes:
            if size >= 2:
                out += played[i : i + size]
            i += size
        return out
    return []


_WIDTHS: Final = {"category": 4, "rank": 4, "suit": 2, "group rank": 4, "flush suit": 4, "card": 6, "group suit": 2}


def pack(fields: Sequence[tuple[str, int]]) -> int:
    """Pack labelled fields into one integer, most significant first."""
    key = 0
    for label, value in fields:
        key = (key << _WIDTHS[label]) | value
    return key


def key_of(category: int, played: Sequence[int], tie_break: TieBreak, low: int) -> int:
    """``pack(fields_of(category, played, tie_break, low))``, packed as the fields are found.

    The same fields in the same widths (:data:`_WIDTHS`), without the
    labelled list :func:`fields_of` builds for explanations: every showdown
    keys each player's hand, and compiled the list of tuples and a dictionary
    lookup a field were half of the evaluator's work.  A test holds the two
    equal (``tests/test_evaluate_reference.py``).
    """
    return _key_of(category, played if isinstance(played, tuple) else tuple(played), tie_break, low)


def _key_of(category: int, played: tuple[int, ...], tie_break: TieBreak, low: int) -> int:
    """:func:`key_of` of a tuple: compiled, a tuple is read by index natively, a ``Sequence`` through Python's protocol."""
    key = category
    n = len(played)
    if tie_break == "split" or tie_break == "ranks_then_suits":
        ace_low = (category == STRAIGHT or category == STRAIGHT_FLUSH) and played[n - 1] >> 2 == ACE
        width = n if n > 5 else 5
        for i in range(width):
            r = 0
            if i < n:
                r = low - 1 if ace_low and i == n - 1 else played[i] >> 2
            key = key << 4 | r
        if tie_break == "ranks_then_suits":
            for i in range(width):
                key = key << 2 | (played[i] & 3 if i < n else 0)
        return key
    # card_order: two group ranks (or the flush's suit), five single cards, five group suits
    singles = 0
    if category == STRAIGHT or category == STRAIGHT_FLUSH or category == HIGH_CARD:
        key = key << 8  # no group rank
        for c in _arranged_cards(played, low, category):
            key = key << 6 | c
            singles += 1
    elif category == FLUSH:
        key = (key << 4 | (played[0] & 3)) << 4  # the flush's suit, no second group
        for i in range(n):
            key = key << 6 | played[i]
            singles += 1
    else:
        ranks: list[int] = []
        cards: list[int] = []
        suit_list: list[int] = []
        groups = 0
        suits = 0
        i = 0
        while i < n:
            r = played[i] >> 2
            j = i + 1
            while j < n and played[j] >> 2 == r:
                j += 1
            if j - i >= 2:
                ranks.append(r)
                for k in range(i, j):
                    suit_list.append(played[k] & 3)
            else:
                cards.append(played[i])
            i = j
        for r in ranks:
            key = key << 4 | r
            groups += 1
        for _ in range(2 - groups):
            key = key << 4
        for c in cards:
            key = key << 6 | c
            singles += 1
        for _ in range(5 - singles):
            key = key << 6
        for x in suit_list:
            key = key << 2 | x
            suits += 1
        for _ in range(5 - suits):
            key = key << 2
        return key
    for _ in range(5 - singles):
        key = key << 6
    return key << 10  # no group suit


# ---------------------------------------------------------------------------
# Straights


@lru_cache(maxsize=16)
def straight_windows(low: int) -> tuple[tuple[int, int], ...]:
    """``(rank mask, top rank)`` of every straight in a deck from ``low``, best first.

    The ace is also bit ``low - 1`` in a rank mask (see :func:`rank_mask`),
    so the ace-low straight is an ordinary window.  No wrap-around.
    """
    return tuple((sum(1 << r for r in range(top - 4, top + 1)), top) for top in range(ACE, low + 2, -1))


def rank_mask(cards: Sequence[int], low: int) -> int:
    """Bit r for every rank held (ranks below the deck's lowest are ignored), and the low ace."""
    m = 0
    for c in cards:
        m |= 1 << (c >> 2)
    m &= ~((1 << low) - 1)
    if m >> ACE & 1:
        m |= 1 << (low - 1)
    return m


def _straight_cards(best_of_rank: dict[int, int], top: int, low: int) -> tuple[int, ...]:
    return tuple(best_of_rank[ACE if r == low - 1 else r] for r in range(top, top - 5, -1))


# ---------------------------------------------------------------------------
# Evaluation


@dataclass(init=False, unsafe_hash=True)
class _Candidate:
    """One kind of hand the cards make: a value object, as :class:`HandValue` (several for every hand evaluated)."""

    category: Final[int]
    played: Final[tuple[int, ...]]

    def __init__(self, category: int, played: tuple[int, ...]) -> None:
        self.category = category
        self.played = played


def _candidates(cards: Sequence[int], low: int, want_all_sf: bool) -> list[_Candidate]:
    """The best hand of each kind the cards make: groups, straight, flush, straight flushes.

    Cards may repeat (a wild card standing for a card already held).  With
    fewer than five cards only groups and high cards exist (RULES.md §4,
    best showing hand).  The groups are runs of the sorted cards (a rank's
    cards lie together, its best suit first), read by position: compiled,
    a dictionary of lists a rank and the iteration of its values were most
    of every showdown's evaluation (14,000 instructions a hand).
    """
    cs = sorted(cards)
    cs.reverse()  # as sorted(reverse=True) leaves plain ints, without a call with a keyword
    n = len(cs)
    if n == 0:
        return [_Candidate(HIGH_CARD, ())]
    starts: list[int] = []  # where each rank's run begins, best rank first
    sizes: list[int] = []
    largest = 0
    prev = -1
    for i in range(n):
        r = cs[i] >> 2
        if r != prev:
            starts.append(i)
            sizes.append(0)
            prev = r
        k = len(sizes) - 1
        size = sizes[k] + 1
        sizes[k] = size
        if size > largest:
            largest = size
    groups = len(starts)
    played: list[int] = []
    for size in range(largest, 0, -1):  # the groups by size, largest first, each size in rank order (a stable sort's)
        for g in range(groups):
            if sizes[g] == size:
                at = starts[g]
                for i in range(at, at + size):
                    played.append(cs[i])
    m = len(played) if len(played) < 5 else 5
    five = tuple(played[:5])
    # the sizes of the first two groups of the five (the groups of ``played``, the last one cut at five)
    top = played[0] >> 2
    j = 1
    while j < m and played[j] >> 2 == top:
        j += 1
    first = j
    second = 0
    if j < m:
        top = played[j] >> 2
        j += 1
        second = 1
        while j < m and played[j] >> 2 == top:
            j += 1
            second += 1
    out = [_Candidate(_group_category(first, second), five)]
    if n < 5:
        return out
    if groups >= 5:
        mask = rank_mask(cs, low)
        for w, top in straight_windows(low):
            if mask & w == w:
                best_of_rank = {cs[at] >> 2: cs[at] for at in starts}
                out.append(_Candidate(STRAIGHT, _straight_cards(best_of_rank, top, low)))
                break
    suit_count = 0  # a byte a suit: no list of boxed counts
    for i in range(n):
        suit_count += 1 << ((cs[i] & 3) << 3)
    for s in range(4):
        if (suit_count >> (s << 3)) & 255 < 5:
            continue
        suited = [c for c in cs if c & 3 == s]
        out.append(_Candidate(FLUSH, tuple(suited[:5])))
        mask = rank_mask(suited, low)
        one_of_rank = {c >> 2: c for c in suited}
        for w, top in straight_windows(low):
            if mask & w == w:
                out.append(_Candidate(STRAIGHT_FLUSH, _straight_cards(one_of_rank, top, low)))
                if not want_all_sf:
                    break
    return out


def _group_category(first: int, second: int) -> int:
    """:data:`_GROUP_CATEGORY` of the sizes of the largest group and the next, without a tuple built and looked up."""
    if first >= 5:
        return POKERISSIMO
    if first == 4:
        return FOUR_OF_A_KIND
    if first == 3:
        return FULL_HOUSE if second == 2 else THREE_OF_A_KIND
    if first == 2:
        return TWO_PAIR if second == 2 else ONE_PAIR
    return HIGH_CARD


def _value(cand: _Candidate, five: tuple[Card, ...], tie_break: TieBreak, low: int) -> HandValue:
    cat = cand.category
    is_sf = cat == STRAIGHT_FLUSH
    return HandValue(
        key=_key_of(cat, cand.played, tie_break, low),
        category=cat,
        five=five,
        played=cast(tuple[Card, ...], cand.played),  # Card is an int: the candidate's tuple itself, not a copy
        tie_break=tie_break,
        low=low,
        min_sf=is_sf and cand.played[-1] >> 2 == ACE,
        max_sf=is_sf and cand.played[0] >> 2 == ACE,
    )


def _best_natural(
    cards: Sequence[int], tie_break: TieBreak, low: int, want_all_sf: bool
) -> tuple[HandValue, list[HandValue]]:
    cands = _candidates(cards, low, want_all_sf)
    values = [_value(c, cast(tuple[Card, ...], c.played), tie_break, low) for c in cands]
    best = values[0]
    for v in values:  # the first of the highest keys, as max() with a key keeps it; a loop costs no closure and call
        if v.key > best.key:
            best = v
    sfs = [v for v in values if v.category == STRAIGHT_FLUSH and v is not best]
    return best, sfs


def evaluate(cards: Sequence[Card], rules: RuleSet, low: int) -> HandValue:
    """The best hand in ``cards`` (a player's own cards plus the vela) under ``rules``.

    ``low`` is the deck's lowest rank (:meth:`RuleSet.lowest_rank`): it
    places the ace-low straight.  Works for any number of cards; with fewer
    than five only groups count (showing hands).
    """
    tie_break = rules.tie_break
    want_all_sf = rules.sf_rule != "standard"
    wild = rules.wild
    if wild is None or not any(c >> 2 == wild for c in cards):
        best, sfs = _best_natural(cards, tie_break, low, want_all_sf)
        if sfs and best.category == STRAIGHT_FLUSH:
            return _with_alternatives(best, sfs)
        return best
    return _best_wild(cards, rules, low, wild)


def _with_alternatives(best: HandValue, others: list[HandValue]) -> HandValue:
    alts = tuple(sorted({v.key: v for v in others if v.key != best.key}.values(), key=lambda v: -v.key))
    return HandValue(
        key=best.key,
        category=best.category,
        five=best.five,
        played=best.played,
        tie_break=best.tie_break,
        low=best.low,
        min_sf=best.min_sf,
        max_sf=best.max_sf,
        alternatives=alts,
    )


def wild_stand_ins(naturals: Sequence[int], wilds: int, low: int, *, flush_suits_only: bool = False) -> list[tuple[int, ...]]:
    """The stand-ins to try for ``wilds`` wild cards beside ``naturals``, one tuple of cards each.

    A wild card may stand for any rank of the deck and any suit, also a
    card already held (that is how five of a kind, pokerissimo, is made).
    Only two suit choices can ever matter: all wild cards hearts (the best
    suit for every tie-break), or all of one suit the natural cards hold
    (to make a flush); so these are every multiset of ranks in those suits,
    suits in ascending order.  ``flush_suits_only`` drops, of the natural
    cards' suits, those that cannot reach five cards even with every wild
    card: all-of-that-suit then makes no flush, and hearts gives a key at
    least as high (the key's suit fields, sorted, only rise), so the best
    key is the same; which equal hand is shown first may differ, so only
    the key-only path (:mod:`hhtool.game.keys`) prunes.
    """
    counts = [0, 0, 0, 0]
    for c in naturals:
        counts[c & 3] += 1
    suits = [s for s in range(4) if s == 3 or (counts[s] and (not flush_suits_only or counts[s] + wilds >= 5))]
    return [stand_ins for suit in suits for stand_ins in _suited_stand_ins(suit, wilds, low)]


@lru_cache(maxsize=64)
def _suited_stand_ins(suit: int, wilds: int, low: int) -> tuple[tuple[int, ...], ...]:
    """Every multiset of ``wilds`` ranks of the deck from ``low``, as cards of ``suit``."""
    return tuple(tuple(make_card(r, suit) for r in rs) for rs in combinations_with_replacement(range(low, ACE + 1), wilds))


def _best_wild(cards: Sequence[Card], rules: RuleSet, low: int, wild: int) -> HandValue:
    """Wild cards (italian ``wild``): each stands for whatever card makes the hand best (:func:`wild_stand_ins`)."""
    naturals = [c for c in cards if c >> 2 != wild]
    wilds = [c for c in cards if c >> 2 == wild]
    want_all_sf = rules.sf_rule != "standard"
    best: HandValue | None = None
    best_subst: tuple[int, ...] = ()
    sfs: dict[int, tuple[HandValue, tuple[int, ...]]] = {}
    for subst in wild_stand_ins(naturals, len(wilds), low):
        value, alt = _best_natural(naturals + list(subst), rules.tie_break, low, want_all_sf)
        if best is None or value.key > best.key:
            best, best_subst = value, subst
        for v in [value, *alt]:
            if v.category == STRAIGHT_FLUSH and v.key not in sfs:
                sfs[v.key] = (v, subst)
    assert best is not None
    result = _restore_wilds(best, naturals, wilds, best_subst)
    others = [_restore_wilds(v, naturals, wilds, s) for k, (v, s) in sfs.items() if k != best.key]
    if others and result.category == STRAIGHT_FLUSH:
        return _with_alternatives(result, others)
    return result


def _restore_wilds(value: HandValue, naturals: list[Card], wilds: list[Card], subst: tuple[int, ...]) -> HandValue:
    """Put the wild cards themselves back where their stand-ins were played."""
    pool = list(naturals)
    spare = list(wilds)
    five: list[Card] = []
    for c in value.played:
        if c in pool:
            pool.remove(c)
            five.append(c)
        else:
            five.append(spare.pop(0))
    return HandValue(
        key=value.key,
        category=value.category,
        five=tuple(five),
        played=value.played,
        tie_break=value.tie_break,
        low=value.low,
        min_sf=value.min_sf,
        max_sf=value.max_sf,
    )


# ---------------------------------------------------------------------------
# Descriptions (FORMAT.md "Descriptions")


def describe(category: int, played: Sequence[int], low: int) -> str:
    """The room's words for a hand: ``two pair, Queens and Jacks``."""
    ranks = [c >> 2 for c in played]
    if not ranks:
        return "no cards"
    if category == HIGH_CARD:
        return f"high card {RANK_NAMES[ranks[0]]}"
    if category == ONE_PAIR:
        return f"a pair of {RANK_PLURALS[ranks[0]]}"
    if category == TWO_PAIR:
        return f"two pair, {RANK_PLURALS[ranks[0]]} and {RANK_PLURALS[ranks[2]]}"
    if category == THREE_OF_A_KIND:
        return f"three of a kind, {RANK_PLURALS[ranks[0]]}"
    if category == FULL_HOUSE:
        return f"a full house, {RANK_PLURALS[ranks[0]]} full of {RANK_PLURALS[ranks[3]]}"
    if category == FLUSH:
        return f"a flush, {SUIT_NAMES[played[0] & 3]}"
    if category == FOUR_OF_A_KIND:
        return f"four of a kind, {RANK_PLURALS[ranks[0]]}"
    if category == POKERISSIMO:
        return f"pokerissimo, {RANK_PLURALS[ranks[0]]}"
    arranged = _arranged_ranks(played, low, category)
    top, bottom = arranged[0], arranged[-1]
    bottom_name = RANK_NAMES[ACE] if bottom == low - 1 else RANK_NAMES[bottom]
    kind = "a straight flush" if category == STRAIGHT_FLUSH else "a straight"
    return f"{kind}, {bottom_name} to {RANK_NAMES[top]}"


def quick_category(cards: Sequence[Card], wild: int | None) -> tuple[int, int]:
    """(category, rank of the main group) from ranks alone: pairs, trips, quads; wild cards join the top group.

    For fewer than five cards this is exactly what can be made; with five
    or more it ignores straights and flushes.  It is the bots' quick read
    of a hand (a full evaluation per decision would be most of the
    simulator's time), never used to settle anything.
    """
    counts: dict[int, int] = {}
    for c in cards:
        r = c >> 2
        counts[r] = counts.get(r, 0) + 1
    wilds = counts.pop(wild, 0) if wild is not None else 0
    first = second = top = 0
    for r, n in counts.items():
        if n > first or (n == first and r > top):
            second = first
            first, top = n, r
        elif n > second:
            second = n
    if not counts:
        top = 14
    first += wilds
    if first >= 5:
        return 9, top
    if first == 4:
        return 7, top
    if first == 3:
        return (5 if second >= 2 else 3), top
    if first == 2:
        return (2 if second == 2 else 1), top
    return 0, top
