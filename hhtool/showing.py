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

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from .cards import Card, card_symbol
from .evaluate import HandValue, describe, evaluate
from .rules import RuleSet, TieBreak


@dataclass(frozen=True, slots=True)
class Opener:
    """The player who opens, as an index into the list given, and why."""

    index: int
    reason: str


@lru_cache(maxsize=64)
def _showing_rules(rules: RuleSet, suits: bool) -> RuleSet:
    """The rules showing hands are compared under: ranks only, or ranks then suits."""
    tie: TieBreak = "ranks_then_suits" if suits else "split"
    return replace(rules, tie_break=tie, sf_rule="standard")


def showing_value(up: Sequence[Card], rules: RuleSet, low: int) -> HandValue:
    """The value of a player's face-up cards: ranks only, or ranks then suits."""
    return evaluate(up, _showing_rules(rules, rules.showing_tie == "suits"), low)


_GROUP_CATEGORY = {(1, 0): 0, (1, 1): 0, (2, 0): 1, (2, 1): 1, (2, 2): 2, (3, 0): 3, (3, 1): 3, (4, 0): 7}


def _groups(up: Sequence[Card]) -> tuple[int, list[Card]]:
    """Category and cards in order of significance of fewer than five cards (groups only)."""
    counts: dict[int, int] = {}
    for c in up:
        r = c >> 2
        counts[r] = counts.get(r, 0) + 1
    order = sorted(up, key=lambda c: (counts[c >> 2], c), reverse=True)
    sizes = sorted(counts.values(), reverse=True)
    return _GROUP_CATEGORY[(sizes[0], sizes[1] if len(sizes) > 1 else 0)], order


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
    """:func:`_showing_key`, remembered: two- and three-card showing hands recur all the time."""
    k = (tuple(up), suits, low, rules.wild)
    key = _KEY_CACHE.get(k)
    if key is None:
        if len(_KEY_CACHE) > 200_000:
            _KEY_CACHE.clear()
        key = _KEY_CACHE[k] = _showing_key(up, rules, low, suits)
    return key


def _showing_key(up: Sequence[Card], rules: RuleSet, low: int, suits: bool) -> int:
    """:func:`showing_value`'s key, fast: the betting of every hand asks for it.

    With fewer than five cards only groups count, so the key is the group
    category and the ranks (then the suits) in order of significance, packed
    as :mod:`hhtool.evaluate` packs them; five or more cards, or wild cards,
    take the full evaluator.
    """
    if len(up) >= 5 or rules.wild is not None or not up:
        return evaluate(up, _showing_rules(rules, suits), low).key
    key, order = _groups(up)
    for i in range(5):
        key = (key << 4) | (order[i] >> 2 if i < len(order) else 0)
    if suits:
        for i in range(5):
            key = (key << 2) | (order[i] & 3 if i < len(order) else 0)
    return key


def first_round_opener(doors: Sequence[Card | None]) -> Opener:
    """The highest door card by card order (rank, then suit) opens round 1.

    ``doors`` is in dealing order from the button's left; ``None`` marks a
    player who cannot act.
    """
    best = max((i for i, d in enumerate(doors) if d is not None), key=lambda i: doors[i] or 0)
    door = doors[best]
    assert door is not None
    return Opener(best, f"highest door card {card_symbol(door)} (card order: rank, then suit)")


def later_round_opener(
    ups: Sequence[Sequence[Card] | None], rules: RuleSet, low: int, vela: Card | None = None
) -> Opener:
    """The best showing hand opens; ``ups`` in dealing order, ``None`` for players who cannot act.

    ``vela`` is added to every player's showing cards (pass it only where
    the profile counts it: classic's vela round).
    """
    extra = [vela] if vela is not None else []
    suits = rules.showing_tie == "suits"
    shown = {i: [*u, *extra] for i, u in enumerate(ups) if u is not None}
    if not shown:
        raise ValueError("nobody can act")
    keys = {i: showing_key(cards, rules, low, suits) for i, cards in shown.items()}
    # max() keeps the first of equal keys: the player dealt first wins position ties
    best = max(keys, key=keys.__getitem__)
    why = f"best showing hand, {showing_description(shown[best], rules, low)}"
    if any(k == keys[best] and i != best for i, k in keys.items()):
        why += " (tied on ranks; the player dealt first opens)"
    elif suits:
        rank_only = {i: showing_key(cards, rules, low, False) for i, cards in shown.items()}
        if sum(1 for k in rank_only.values() if k == rank_only[best]) > 1:
            why += " (tied on ranks; suits decide)"
    return Opener(best, why)
