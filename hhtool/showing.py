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

from .cards import Card, card_symbol
from .evaluate import HandValue, evaluate
from .rules import RuleSet, TieBreak


@dataclass(frozen=True, slots=True)
class Opener:
    """The player who opens, as an index into the list given, and why."""

    index: int
    reason: str


def showing_value(up: Sequence[Card], rules: RuleSet, low: int) -> HandValue:
    """The value of a player's face-up cards: ranks only, or ranks then suits."""
    tie: TieBreak = "ranks_then_suits" if rules.showing_tie == "suits" else "split"
    return evaluate(up, replace(rules, tie_break=tie, sf_rule="standard"), low)


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
    values = {i: showing_value([*u, *extra], rules, low) for i, u in enumerate(ups) if u is not None}
    if not values:
        raise ValueError("nobody can act")
    # max() keeps the first of equal keys: the player dealt first wins position ties
    best = max(values, key=lambda i: values[i].key)
    v = values[best]
    tied = [i for i, w in values.items() if w.key == v.key and i != best]
    why = f"best showing hand, {v.description}"
    if tied:
        why += " (tied on ranks; the player dealt first opens)"
    elif rules.showing_tie == "suits":
        rank_only = {i: showing_value_ranks(ups[i] or [], extra, rules, low) for i in values}
        if sum(1 for k in rank_only.values() if k == rank_only[best]) > 1:
            why += " (tied on ranks; suits decide)"
    return Opener(best, why)


def showing_value_ranks(up: Sequence[Card], extra: Sequence[Card], rules: RuleSet, low: int) -> int:
    return evaluate([*up, *extra], replace(rules, tie_break="split", sf_rule="standard"), low).key
