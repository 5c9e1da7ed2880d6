"""Who opens a betting round (RULES.md §4, "best showing hand").

Round 1 goes to the highest door card by card order, in every profile.
Later rounds go to the best hand among the cards face up (with the vela
where the profile counts it, as classic does in its last round).  With
fewer than five cards only groups exist; with five, every category in the
profile's order.  Showing hands that tie go to the player dealt first
(``showing_tie = "position"``) or are compared by suits as at showdown
(``"suits"``).  Only players who can still act are considered.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from hhtool.game.cards import Card, card_symbol
from hhtool.game.evaluate import HandValue, describe, evaluate
from hhtool.game.rules import RuleSet, TieBreak


@dataclass(init=False, unsafe_hash=True)
class Opener:
    """The player who opens, as an index into the list given, and why (:attr:`reason`).

    The reason is written when asked: an audit or a wrong-opener finding
    reads it, an import of many hands never does, and the words cost more
    than finding the opener.  A value object in the project's idiom
    (docs/architecture.md, "Value objects"): every betting round builds
    one; its ``repr`` is its own, with the reason in words.
    """

    index: Final[int]
    _door: Final[Card | None]  # round 1: the highest door card
    _cards: Final[tuple[Card, ...]]  # later rounds: the opener's showing cards (a copy: the hand goes on)
    _rules: Final[RuleSet | None]
    _low: Final[int]
    _note: Final[str]  # how a tie was broken

    def __init__(
        self, index: int, door: Card | None = None, cards: tuple[Card, ...] = (), rules: RuleSet | None = None, low: int = 0, note: str = ""
    ) -> None:
        self.index = index
        self._door = door
        self._cards = cards
        self._rules = rules
        self._low = low
        self._note = note

    @property
    def reason(self) -> str:
        if self._door is not None:
            return f"highest door card {card_symbol(self._door)} (card order: rank, then suit)"
        assert self._rules is not None
        return f"best showing hand, {showing_description(self._cards, self._rules, self._low)}{self._note}"

    def __repr__(self) -> str:
        return f"Opener(index={self.index!r}, reason={self.reason!r})"


def _showing_rules(rules: RuleSet, suits: bool) -> RuleSet:
    """The rules showing hands are compared under: ranks only, or ranks then suits.

    Kept by the rule set's identity (the replay's rule sets are shared,
    :func:`hhtool.replay.facts.own_rules`), each entry holding its rule set so
    that no other takes its ``id``: an ``lru_cache`` hashed the whole rule set,
    every field, at each five-card showing hand (7,000 instructions).
    """
    key = (id(rules), suits)
    kept = _SHOWING_RULES.get(key)
    if kept is not None and kept[0] is rules:
        return kept[1]
    tie: TieBreak = "ranks_then_suits" if suits else "split"
    showing = replace(rules, tie_break=tie, sf_rule="standard")
    if len(_SHOWING_RULES) >= 256:
        _SHOWING_RULES.clear()
    _SHOWING_RULES[key] = (rules, showing)
    return showing


_SHOWING_RULES: dict[tuple[int, bool], tuple[RuleSet, RuleSet]] = {}


def showing_value(up: Sequence[Card], rules: RuleSet, low: int) -> HandValue:
    """The value of a player's face-up cards: ranks only, or ranks then suits."""
    return evaluate(up, _showing_rules(rules, rules.showing_tie == "suits"), low)


def _category(largest: int, second: int) -> int:
    """The category of up to four showing cards from the sizes of their largest and second rank groups."""
    if largest == 1:
        return 0  # high card
    if largest == 2:
        return 2 if second == 2 else 1  # two pair, one pair
    if largest == 3:
        return 3  # three of a kind
    return 7  # four of a kind


def _groups(up: Sequence[Card]) -> tuple[int, list[Card]]:
    """Category and cards in order of significance of fewer than five cards (groups only).

    Why not a dict of counts and ``sorted(key=...)``: every betting round of
    every hand asks this of every player, and with at most four cards
    counting each card's rank among the others and sorting plain ints is
    several times cheaper.  A card is ``rank << 2 | suit`` < 64, so
    ``count << 6 | card`` sorts by group size, then rank, then suit.
    Compiled, the cards are copied into a list once and read by index, and
    each key is inserted in place, largest first: iterating a ``Sequence``
    goes through Python's iterator protocol, and ``sort(reverse=True)``
    through a method call with a keyword, together 3,600 instructions a
    call against a few hundred.
    """
    cards: list[int] = list(up)
    n = len(cards)
    keyed: list[int] = []
    for i in range(n):
        c = cards[i]
        rank = c >> 2
        count = 0
        for j in range(n):
            if cards[j] >> 2 == rank:
                count += 1
        k = count << 6 | c
        at = len(keyed)
        keyed.append(k)
        while at > 0 and keyed[at - 1] < k:  # descending: what sort(reverse=True) gives plain ints
            keyed[at] = keyed[at - 1]
            at -= 1
        keyed[at] = k
    largest = keyed[0] >> 6
    second = keyed[largest] >> 6 if largest < n else 0
    return _category(largest, second), [Card(k & 63) for k in keyed]


def showing_description(up: Sequence[Card], rules: RuleSet, low: int) -> str:
    """The words for a showing hand ("a pair of Queens")."""
    if len(up) >= 5 or rules.wild is not None or not up:
        return showing_value(up, rules, low).description
    k = (tuple(up), low)
    text = _DESCRIPTION_CACHE.get(k)
    if text is None:
        if len(_DESCRIPTION_CACHE) > 200_000:
            _DESCRIPTION_CACHE.clear()
        category, order = _groups(up)
        text = _DESCRIPTION_CACHE[k] = describe(category, order, low)
    return text


_KEY_CACHE: dict[tuple[tuple[Card, ...], bool, int, int | None], int] = {}
_DESCRIPTION_CACHE: dict[tuple[tuple[Card, ...], int], str] = {}


def showing_key(up: Sequence[Card], rules: RuleSet, low: int, suits: bool) -> int:
    """:func:`showing_value`'s key, fast: the betting of every hand asks for it.

    With fewer than five cards only groups count, so the key is the group
    category and the ranks (then the suits) in order of significance, packed
    as :mod:`hhtool.game.evaluate` packs them, computed on the spot; five or more
    cards, or wild cards, take the full evaluator, whose results are kept
    (the same five-card showing hands recur).
    """
    if len(up) >= 5 or rules.wild is not None or not up:
        k = (tuple(up), suits, low, rules.wild)
        cached = _KEY_CACHE.get(k)
        if cached is None:
            if len(_KEY_CACHE) > 200_000:
                _KEY_CACHE.clear()
            cached = _KEY_CACHE[k] = evaluate(up, _showing_rules(rules, suits), low).key
        return cached
    return _short_key(up, suits)


def _short_key(up: Sequence[Card], suits: bool) -> int:
    """:func:`showing_key` of one to four cards: :func:`_groups`' order, in four locals.

    Each card becomes ``count << 6 | card`` (``-1`` where there is no card),
    put in descending order by a five-comparison sorting network, so that
    compiled nothing is boxed or allocated but the one copy of the cards:
    every betting round of every hand keys each player's showing cards.
    """
    cards: list[Card] = up if isinstance(up, list) else list(up)  # read, never changed: a list as it is
    n = len(cards)
    a = cards[0]
    b = cards[1] if n > 1 else -1
    c = cards[2] if n > 2 else -1
    d = cards[3] if n > 3 else -1
    ra, rb, rc, rd = a >> 2, b >> 2, c >> 2, d >> 2  # a missing card's -1 is no rank
    ka = (1 + (1 if n > 1 and rb == ra else 0) + (1 if n > 2 and rc == ra else 0) + (1 if n > 3 and rd == ra else 0)) << 6 | a
    kb = -1
    kc = -1
    kd = -1
    if n > 1:
        kb = (1 + (1 if ra == rb else 0) + (1 if n > 2 and rc == rb else 0) + (1 if n > 3 and rd == rb else 0)) << 6 | b
    if n > 2:
        kc = (1 + (1 if ra == rc else 0) + (1 if rb == rc else 0) + (1 if n > 3 and rd == rc else 0)) << 6 | c
    if n > 3:
        kd = (1 + (1 if ra == rd else 0) + (1 if rb == rd else 0) + (1 if rc == rd else 0)) << 6 | d
    if ka < kb:
        ka, kb = kb, ka
    if kc < kd:
        kc, kd = kd, kc
    if ka < kc:
        ka, kc = kc, ka
    if kb < kd:
        kb, kd = kd, kb
    if kb < kc:
        kb, kc = kc, kb
    largest = ka >> 6
    second = 0
    if largest < n:  # the size of the group after the largest (the keys at 1, 2 or 3)
        second = (kb if largest == 1 else kc if largest == 2 else kd) >> 6
    key = _category(largest, second)
    key = ((((key << 4 | _rank(ka)) << 4 | _rank(kb)) << 4 | _rank(kc)) << 4 | _rank(kd)) << 4
    if suits:
        key = ((((key << 2 | _suit(ka)) << 2 | _suit(kb)) << 2 | _suit(kc)) << 2 | _suit(kd)) << 2
    return key


def _rank(keyed: int) -> int:
    """The rank of a :func:`_short_key` slot, 0 for no card."""
    return (keyed & 63) >> 2 if keyed >= 0 else 0


def _suit(keyed: int) -> int:
    """The suit of a :func:`_short_key` slot, 0 for no card."""
    return keyed & 3 if keyed >= 0 else 0


def pair_showing(ups: Iterable[Sequence[Card]]) -> bool:
    """Whether any of the players' face-up cards (``ups``, those still in) show a pair: RULES.md §5's option to bet big on 3rd street.

    Each player's cards compared pairwise by rank (at most four of them),
    not a set of ranks built a player: the betting asks it at every 3rd street.
    """
    for up in ups:
        cards: list[Card] = up if isinstance(up, list) else list(up)  # read, never changed
        n = len(cards)
        for i in range(n):
            rank = cards[i] >> 2
            for j in range(i + 1, n):
                if cards[j] >> 2 == rank:
                    return True
    return False


def first_round_opener(doors: Sequence[Card | None]) -> Opener:
    """The highest door card by card order (rank, then suit) opens round 1.

    ``doors`` is in dealing order from the button's left; ``None`` marks a
    player who cannot act.
    """
    best = -1
    best_door = -1
    for i, d in enumerate(doors):  # the first of the highest, as max() keeps it: a loop, not max() with a key's closure
        if d is not None and d > best_door:
            best, best_door = i, d
    if best < 0:
        raise ValueError("no door card")
    return Opener(best, door=Card(best_door))


def later_round_opener(
    ups: Sequence[Sequence[Card] | None], rules: RuleSet, low: int, vela: Card | None = None
) -> Opener:
    """The best showing hand opens; ``ups`` in dealing order, ``None`` for players who cannot act.

    ``vela`` is added to every player's showing cards (pass it only where
    the profile counts it: classic's vela round).
    """
    suits = rules.showing_tie == "suits"
    shown = ups if vela is None else [None if u is None else [*u, vela] for u in ups]
    best = -1
    best_key = -1
    tied = False  # another player's showing hand equals the best one
    for i, u in enumerate(shown):
        if u is None:
            continue
        key = showing_key(u, rules, low, suits)
        if key > best_key:
            best, best_key, tied = i, key, False
        elif key == best_key:
            tied = True  # the player dealt first keeps it: position breaks the tie
    if best < 0:
        raise ValueError("nobody can act")
    best_cards = shown[best]
    assert best_cards is not None
    note = ""
    if tied:
        note = " (tied on ranks; the player dealt first opens)"
    elif suits:
        rank_key = showing_key(best_cards, rules, low, False)
        same = 0
        for u in shown:
            if u is not None and showing_key(u, rules, low, False) == rank_key:
                same += 1
        if same > 1:
            note = " (tied on ranks; suits decide)"
    return Opener(best, cards=tuple(best_cards), rules=rules, low=low, note=note)
