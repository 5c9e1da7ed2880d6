"""Cards, suits, ranks and decks (RULES.md §1).

A card is a small integer, ``rank * 4 + suit``, with suits numbered so that
hearts is highest (spades 0, clubs 1, diamonds 2, hearts 3) and ranks from
2 to 14 (the ace).  That makes the integer order *the* card order of the
rules -- rank first, then suit: A♥ > A♦ > A♣ > A♠ > K♥ > … -- so every
comparison of single cards is a plain integer comparison, and the hot code
in :mod:`hhtool.game.evaluate` never builds objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, NewType

Card = NewType("Card", int)

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "scdh"  # index = suit strength: spades lowest, hearts highest
SUIT_SYMBOLS = "♠♣♦♥"
SUIT_NAMES = ("Spades", "Clubs", "Diamonds", "Hearts")
RANK_NAMES = {
    2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven",
    8: "Eight", 9: "Nine", 10: "Ten", 11: "Jack", 12: "Queen", 13: "King",
    14: "Ace",
}
RANK_PLURALS = {r: ("Sixes" if r == 6 else n + "s") for r, n in RANK_NAMES.items()}

ACE = 14


class CardError(ValueError):
    """A card string that names no card, or a card the deck does not hold."""

    def __init__(self, message: str, card: str) -> None:
        super().__init__(message)
        self.card = card


def rank_of(card: int) -> int:
    """The rank, 2..14."""
    return card >> 2


def suit_of(card: int) -> int:
    """The suit strength, 0 (spades) .. 3 (hearts)."""
    return card & 3


def make_card(rank: int, suit: int) -> Card:
    return Card(rank * 4 + suit)


def parse_rank(text: str) -> int:
    """``"A"`` -> 14; accepts ``10`` for ten as people type it."""
    t = text.strip().upper()
    if t == "10":
        t = "T"
    if len(t) != 1 or t not in RANK_CHARS:
        raise CardError(f"unknown rank {text!r}: expected one of {' '.join(RANK_CHARS)}", text)
    return RANK_CHARS.index(t) + 2


def parse_card(text: str) -> Card:
    """Parse ``"Ah"`` (rank then suit letter, as FORMAT.md writes cards)."""
    t = text.strip()
    if len(t) == 3 and t[:2] == "10":
        t = "T" + t[2]
    if len(t) != 2 or t[0].upper() not in RANK_CHARS or t[1].lower() not in SUIT_CHARS:
        raise CardError(
            f"unknown card {text!r}: expected a rank ({RANK_CHARS}) and a suit (h d c s), like 'Ah'",
            text,
        )
    return make_card(RANK_CHARS.index(t[0].upper()) + 2, SUIT_CHARS.index(t[1].lower()))


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse space-separated cards (``"Qc Qs 9c"``) or an iterable of card strings."""
    parts = text.split() if isinstance(text, str) else list(text)
    return [parse_card(p) for p in parts]


def _notation(card: int) -> str:
    return RANK_CHARS[rank_of(card) - 2] + SUIT_CHARS[suit_of(card)]


_CARD_STRS: Final = tuple(_notation(c) if c >= 8 else "" for c in range(60))
"""Every card's notation, made once: the import writes about 25 a hand."""


def card_str(card: int) -> str:
    """``"Ah"``: the hand-history notation."""
    if 8 <= card < 60:
        return _CARD_STRS[card]
    return _notation(card)


def card_symbol(card: int) -> str:
    """``"A♥"``: for explanations meant for people."""
    return RANK_CHARS[rank_of(card) - 2] + SUIT_SYMBOLS[suit_of(card)]


def cards_str(cards: Iterable[int]) -> str:
    return " ".join(card_str(c) for c in cards)


def lowest_rank(deck: str, players: int) -> int:
    """The deck's lowest rank: 7 for ``fixed32``; 11 - players for ``by_players``."""
    if deck == "fixed32":
        return 7
    if deck == "by_players":
        return 11 - players
    raise ValueError(f"unknown deck {deck!r}")


def deck_cards(low: int) -> list[Card]:
    """Every card from rank ``low`` up to the ace, in card order."""
    return [make_card(r, s) for r in range(low, ACE + 1) for s in range(4)]


def check_distinct(cards: Sequence[int]) -> None:
    """Raise :class:`CardError` naming the first card that appears twice."""
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            raise CardError(f"card {card_str(c)} appears twice", card_str(c))
        seen.add(c)
