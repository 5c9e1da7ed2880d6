"""Fast hand keys: one hand at a time, or millions at once with numpy.

:func:`hhtool.game.evaluate.evaluate` builds a full :class:`~hhtool.game.evaluate.HandValue` (the
five cards played, alternatives, a description): right for a showdown,
too slow for a simulator or an importer that rank millions of hands.
This module computes the *same integer key* much faster, by doing the
rank work once per deck instead of once per hand:

- A hand's ranks, as a multiset, decide everything but suits: the
  category when there is no flush, the ranks in order of significance,
  and which cards are groups and which are single.  We precompute that
  *plan* for every multiset of ranks the deck allows (a few thousand),
  keyed by a signature that is a plain sum of per-card numbers.
- The same sum carries a count per suit, which tells at once whether
  five cards share a suit.  Those hands (a few in a hundred) take the
  full evaluator.
- The suits that the tie-break reads are then taken from the actual
  cards, in the plan's order.

A hand with wild cards is the best key of its natural cards with each
set of stand-ins worth trying (:func:`hhtool.game.evaluate.wild_stand_ins`),
each keyed as above: the full evaluator would build a hand value for
every stand-in (an all-in of eight players with wild cards took seconds
of the import).  Every key here equals
``evaluate(cards, rules, low).key``; the test suite checks that on random
deals and all of ``bench/`` measures it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from dataclasses import replace
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import TYPE_CHECKING

from hhtool.game.cards import ACE, Card, make_card
from hhtool.game.evaluate import (
    FLUSH,
    HIGH_CARD,
    STRAIGHT,
    STRAIGHT_FLUSH,
    evaluate,
    fields_of,
    wild_stand_ins,
    pack,
    rank_mask,
    straight_windows,
)
from hhtool.game.rules import STELLAPOKER, RuleSet, TieBreak

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

SUIT_SHIFT = 45  # rank counts take 3 bits per rank, ranks 2..14: bits 6..44
RANK_MASK = (1 << SUIT_SHIFT) - 1


def card_signature(card: int) -> int:
    """What a card adds to a hand's signature: one in its rank's and its suit's counters."""
    return (1 << (3 * (card >> 2))) | (1 << (SUIT_SHIFT + 4 * (card & 3)))


SIGNATURE = [card_signature(c) if c >= 8 else 0 for c in range(64)]


@dataclass(frozen=True, slots=True)
class Plan:
    """What the ranks alone decide about a hand with no flush.

    ``base`` is the key with every suit-dependent field zero.  ``positions``
    lists, in order of significance, the cards played as indices into the
    hand sorted best card first: that sort puts a rank's cards together,
    best suit first, and where each rank starts depends on the ranks alone.
    ``singles`` and ``groups`` split those positions for ``card_order``;
    ``low_ace`` marks an ace-low straight (its ace counts as the lowest card).
    """

    category: int
    base: int
    positions: tuple[int, ...]
    singles: tuple[int, ...]
    groups: tuple[int, ...]
    low_ace: bool


def _representative(ranks: Sequence[int]) -> list[Card]:
    """Cards with these ranks and no five of one suit: suits dealt round-robin."""
    return [make_card(r, i % 4) for i, r in enumerate(sorted(ranks))]


@lru_cache(maxsize=64)
def plans(tie_break: TieBreak, low: int, n_cards: int) -> dict[int, Plan]:
    """The plan of every rank multiset of ``n_cards`` cards in a deck from ``low``.

    Built once per deck by running the full evaluator on one hand of each
    multiset (a few thousand: 0.1 s for 32 cards).
    """
    rules = replace(STELLAPOKER, tie_break=tie_break)
    out: dict[int, Plan] = {}
    for ranks in combinations_with_replacement(range(low, ACE + 1), n_cards):
        if max(ranks.count(r) for r in set(ranks)) > 4:
            continue
        hand = _representative(ranks)
        value = evaluate(hand, rules, low)
        srt = sorted(hand, reverse=True)
        positions = tuple(srt.index(c) for c in value.played)
        order = [c >> 2 for c in value.played]
        single = [order.count(r) == 1 for r in order]
        straight = value.category in (STRAIGHT, STRAIGHT_FLUSH)
        zeroed = [(label, 0 if label in _SUIT_FIELDS else v) for label, v in value.fields()]
        sig = sum(1 << (3 * r) for r in ranks)
        out[sig] = Plan(
            category=value.category,
            base=pack(zeroed),
            positions=positions,
            singles=tuple(p for p, s in zip(positions, single) if s or straight or value.category == HIGH_CARD),
            groups=tuple(p for p, s in zip(positions, single) if not (s or straight or value.category == HIGH_CARD)),
            low_ace=straight and order[-1] == ACE,
        )
    return out


_SUIT_FIELDS = frozenset(("suit", "group suit", "card"))


def flush_key(cards: Sequence[int], tie_break: TieBreak, low: int) -> int:
    """The key of a hand of at most seven cards, five or more of one suit.

    Such a hand holds at most three of a rank, so nothing outside the suit
    beats its flush: the best is that suit's straight flush or its flush.
    """
    if len(cards) > 7:
        return evaluate(cards, replace(STELLAPOKER, tie_break=tie_break), low).key  # type: ignore[arg-type]
    counts = [0, 0, 0, 0]
    for c in cards:
        counts[c & 3] += 1
    suit = counts.index(max(counts))
    suited = sorted((c for c in cards if c & 3 == suit), reverse=True)
    mask = rank_mask(suited, low)
    for w, top in straight_windows(low):
        if mask & w == w:
            by_rank = {c >> 2: c for c in suited}
            played = [by_rank[ACE if r == low - 1 else r] for r in range(top, top - 5, -1)]
            return pack(fields_of(STRAIGHT_FLUSH, played, tie_break, low))
    return pack(fields_of(FLUSH, suited[:5], tie_break, low))


class KeyFunction:
    """``key(cards)`` for one profile and deck: equal to ``evaluate(...).key``, several times faster."""

    def __init__(self, rules: RuleSet, low: int) -> None:
        self.rules = rules
        self.low = low
        self.tie_break: TieBreak = rules.tie_break
        self._wild = rules.wild  # read on every call: an attribute of self, not of the rule set
        self._plans: dict[int, dict[int, Plan]] = {}
        self._low_ace_base = (low - 1) * 4
        # the stand-ins of wild cards are keyed as natural cards (a stand-in of the wild rank is no wild card)
        self._natural: KeyFunction = self if rules.wild is None else KeyFunction(replace(rules, wild=None), low)

    def _plans_for(self, n: int) -> dict[int, Plan]:
        p = self._plans.get(n)
        if p is None:
            p = self._plans[n] = plans(self.tie_break, self.low, n)
        return p

    def __call__(self, cards: Sequence[int]) -> int:
        n = len(cards)
        if n < 5:
            return evaluate(cards, self.rules, self.low).key  # type: ignore[arg-type]
        wild = self._wild
        if wild is not None and any(c >> 2 == wild for c in cards):
            return self._wild_key(cards, wild)
        sig = sum(map(SIGNATURE.__getitem__, cards))
        if ((sig >> SUIT_SHIFT) + 0x3333) & 0x8888:  # some suit counter >= 5
            return flush_key(cards, self.tie_break, self.low)
        return self._group_key(cards, sig)

    def _wild_key(self, cards: Sequence[int], wild: int) -> int:
        """The best key of the natural cards with each set of stand-ins, keyed as natural cards.

        A stand-in may repeat a card held, so five cards of a suit need not
        make the best hand (four of a kind and a flush at once): such a hand
        takes the better of its flush key and its groups' key.
        """
        naturals = [c for c in cards if c >> 2 != wild]
        base = sum(map(SIGNATURE.__getitem__, naturals))
        natural = self._natural
        tie_break = self.tie_break
        low = self.low
        best = -1
        for stand_ins in wild_stand_ins(naturals, len(cards) - len(naturals), low, flush_suits_only=True):
            hand = [*naturals, *stand_ins]
            sig = base + sum(map(SIGNATURE.__getitem__, stand_ins))
            k = natural._group_key(hand, sig)
            if ((sig >> SUIT_SHIFT) + 0x3333) & 0x8888:
                k = max(k, flush_key(hand, tie_break, low))
            if k > best:
                best = k
        return best

    def _group_key(self, cards: Sequence[int], sig: int) -> int:
        """The key of a hand without a flush, from its rank multiset's plan and its cards' suits."""
        plan = self._plans_for(len(cards)).get(sig & RANK_MASK)
        if plan is None:  # a rank outside the deck, or one rank five times: no plan, the full evaluator
            return evaluate(cards, self.rules, self.low).key  # type: ignore[arg-type]
        tie_break = self.tie_break
        if tie_break == "split":
            return plan.base
        srt = sorted(cards, reverse=True)
        suits = 0
        if tie_break == "ranks_then_suits":
            for p in plan.positions:
                suits = (suits << 2) | (srt[p] & 3)
            return plan.base | suits
        # card_order: five 6-bit single-card slots, then five 2-bit group-suit slots
        singles = 0
        for p in plan.singles:
            singles = (singles << 6) | srt[p]
        if plan.low_ace:
            singles = (singles & ~63) | self._low_ace_base | (singles & 3)
        singles <<= 6 * (5 - len(plan.singles))
        for p in plan.groups:
            suits = (suits << 2) | (srt[p] & 3)
        suits <<= 2 * (5 - len(plan.groups))
        return plan.base | (singles << 10) | suits


@lru_cache(maxsize=4)
def category_shift(tie_break: TieBreak) -> int:
    """Bits below the category in a key of this layout: ``key >> category_shift(t)`` is the category.

    Every layout starts with the category, and the fields after it have a
    fixed width whatever the hand (:func:`hhtool.game.evaluate.fields_of`), so a
    key with category 1 and every other field 0 is ``1 << shift``.
    """
    rest = fields_of(HIGH_CARD, [], tie_break, 7)[1:]
    return pack([("category", 1), *((label, 0) for label, _ in rest)]).bit_length() - 1


def categories(cards: npt.ArrayLike, rules: RuleSet, low: int) -> np.ndarray:
    """The category (:data:`hhtool.game.evaluate.HIGH_CARD` ...) of many hands at once: their :func:`keys`' top field."""
    return keys(cards, rules, low) >> category_shift(rules.tie_break)


def key_function(rules: RuleSet, low: int) -> Callable[[Sequence[int]], int]:
    """A fast ``cards -> key`` function for ``rules`` and a deck from ``low``."""
    return KeyFunction(rules, low)


CHUNK = 1 << 16


def keys(cards: npt.ArrayLike, rules: RuleSet, low: int) -> np.ndarray:
    """Keys of many hands at once: ``cards`` is an (N, k) array of card ints, k >= 5.

    Vectorised with numpy, in chunks so that memory stays small, for hands
    without five cards of a suit and without wild cards; the others (under
    one in a hundred) go through :func:`evaluate`.
    """
    import numpy as np

    arr = np.asarray(cards, dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] < 5:
        raise ValueError("cards must be an (N, k) array with k >= 5")
    table = _PlanArrays.get(rules.tie_break, low, arr.shape[1])
    out = np.empty(arr.shape[0], dtype=np.int64)
    for start in range(0, arr.shape[0], CHUNK):
        chunk = arr[start : start + CHUNK]
        out[start : start + CHUNK] = table.keys(chunk, rules, low)
    return out


DENSE_LIMIT = 5**8
"""A deck of at most eight ranks (from 7) finds a hand's plan in a dense table of 5^8 entries (3 MB), not by a
binary search: a hand's rank counts (0 to 4) read as a number in base 5 are its index."""

_DENSE_SUITS = 24  # in the dense path's per-card numbers: the base-5 rank code below, the suit counters from here
_DENSE_BAD = 48  # and a card outside the deck counts here

_NETWORKS: dict[int, tuple[tuple[int, int], ...]] = {
    # the fewest compare-exchanges that sort 5, 6, 7 values (Knuth, TAOCP 5.3.4): a hand's cards sorted with
    # whole-column minimum and maximum, not a sort call for every row of six
    5: ((0, 3), (1, 4), (0, 2), (1, 3), (0, 1), (2, 4), (1, 2), (3, 4), (2, 3)),
    6: ((0, 5), (1, 3), (2, 4), (1, 2), (3, 4), (0, 3), (2, 5), (0, 1), (2, 3), (4, 5), (1, 2), (3, 4)),
    7: ((0, 6), (2, 3), (4, 5), (0, 2), (1, 4), (3, 6), (0, 1), (2, 5), (3, 4), (1, 2), (4, 6), (2, 3), (4, 5), (1, 2),
        (3, 4), (5, 6)),
}


def _sorted_columns(cols: np.ndarray) -> np.ndarray:
    """(k, N) cards, a column a hand -> each column sorted lowest first."""
    import numpy as np

    net = _NETWORKS.get(cols.shape[0])
    if net is None:
        return np.sort(cols, axis=0)
    c = list(cols)
    for i, j in net:
        c[i], c[j] = np.minimum(c[i], c[j]), np.maximum(c[i], c[j])
    return np.stack(c)


class _PlanArrays:
    """The plans of one deck as numpy arrays: what :func:`keys` applies to a batch of hands.

    The batch is handled transposed, a row a card position and a column a
    hand, so that each step is a whole-vector operation (numpy's reductions
    and sorts along a row of five to seven are slow, a call a row).  A
    plan's suit-dependent part is a sum over the hand's cards sorted lowest
    first: each card played as a single contributes its value times its
    slot's weight, each card whose suit the tie-break reads its suit times
    its slot's weight (the fields are disjoint bit ranges that the base
    leaves zero, so the sum is the fields packed).  An ace-low straight's
    ace, which counts as rank ``low - 1``, is the same sum with that
    difference taken off the plan's base.
    """

    _cache: dict[tuple[str, int, int], _PlanArrays] = {}

    @classmethod
    def get(cls, tie_break: TieBreak, low: int, n: int) -> _PlanArrays:
        key = (tie_break, low, n)
        if key not in cls._cache:
            cls._cache[key] = cls(tie_break, low, n)
        return cls._cache[key]

    def __init__(self, tie_break: TieBreak, low: int, n: int) -> None:
        import numpy as np

        table = plans(tie_break, low, n)
        items = sorted(table.items())
        self.tie_break = tie_break
        self.sigs = np.array([s for s, _ in items], dtype=np.int64)
        self.sig_of = np.array(SIGNATURE, dtype=np.int64)
        plan_list = [p for _, p in items]
        # weights by position in the hand sorted lowest first (position p of the best-first sort is n - 1 - p),
        # a row a position; one column more, all zero: the dense path's "no plan"
        suit_w = np.zeros((n, len(plan_list) + 1), dtype=np.int64)  # times the card's suit
        card_w = np.zeros((n, len(plan_list) + 1), dtype=np.int64)  # times the card itself
        base = [p.base for p in plan_list] + [0]
        for i, p in enumerate(plan_list):
            if tie_break == "ranks_then_suits":
                for j, pos in enumerate(p.positions):
                    suit_w[n - 1 - pos, i] = 1 << (2 * (4 - j))
            elif tie_break != "split":  # card_order: five 6-bit single-card slots, then five 2-bit group-suit slots
                for j, pos in enumerate(p.singles):
                    card_w[n - 1 - pos, i] = 1 << (10 + 6 * (4 - j))
                for j, pos in enumerate(p.groups):
                    suit_w[n - 1 - pos, i] = 1 << (2 * (4 - j))
                if p.low_ace:  # the last single, the ace, counts as rank low - 1
                    base[i] -= (ACE - (low - 1)) * 4 << 10
        self.base = np.array(base, dtype=np.int64)
        self.suit_w = suit_w
        self.card_w = card_w
        self.dense: np.ndarray | None = None
        ranks = ACE + 1 - low
        if 5**ranks <= DENSE_LIMIT:
            # a card: its rank's digit of the code, its suit's counter, or the bad-card count when outside the deck
            self.card_of = np.array(
                [
                    5 ** ((c >> 2) - low) + (1 << (_DENSE_SUITS + 4 * (c & 3))) if low <= c >> 2 <= ACE else 1 << _DENSE_BAD
                    for c in range(64)
                ],
                dtype=np.int64,
            )
            codes = [sum(((s >> (3 * r)) & 7) * 5 ** (r - low) for r in range(low, ACE + 1)) for s, _ in items]
            # every code with no plan (a rank five times carries into the next digit: fewer cards than a plan's) and
            # every code past the table (clipped to its last entry) gives the extra column
            self.dense = np.full(5**ranks + 1, len(items), dtype=np.intp)
            self.dense[codes] = np.arange(len(items))

    def keys(self, arr: np.ndarray, rules: RuleSet, low: int) -> np.ndarray:
        import numpy as np

        cols = np.ascontiguousarray(arr.T)
        if self.dense is not None:
            per = self.card_of.take(cols).sum(axis=0)
            slow = (((((per >> _DENSE_SUITS) & 0xFFFF) + 0x3333) & 0x8888) != 0) | (per >= 1 << _DENSE_BAD)
            idx = self.dense.take(per & ((1 << _DENSE_SUITS) - 1), mode="clip")
            slow |= idx == len(self.sigs)  # no plan: a rank five times
        else:
            sig = self.sig_of.take(cols).sum(axis=0)
            slow = (((sig >> SUIT_SHIFT) + 0x3333) & 0x8888) != 0
            idx = np.minimum(np.searchsorted(self.sigs, sig & RANK_MASK), len(self.sigs) - 1)
            slow |= self.sigs[idx] != (sig & RANK_MASK)  # no plan: a rank outside the deck, or one rank five times
        if rules.wild is not None:
            slow |= ((cols >> 2) == rules.wild).any(axis=0)
        out: np.ndarray = self.base.take(idx)
        if self.tie_break != "split":
            srt = _sorted_columns(cols)
            part = (srt & 3) * self.suit_w.take(idx, axis=1)
            if self.tie_break != "ranks_then_suits":
                part += srt * self.card_w.take(idx, axis=1)
            out += part.sum(axis=0)
        if slow.any():
            one = KeyFunction(rules, low)
            for i in np.nonzero(slow)[0]:
                out[i] = one([int(c) for c in arr[i]])
        return out
