"""Cards: notation, card order, decks (RULES.md §1)."""

from __future__ import annotations

import pytest

from hhtool.game.cards import CardError, card_str, deck_cards, lowest_rank, parse_card, parse_cards, parse_rank


def test_card_order_is_rank_then_suit() -> None:
    order = parse_cards("Ah Ad Ac As Kh Kd Kc Ks 7h 7s")
    assert order == sorted(order, reverse=True)
    assert parse_card("As") > parse_card("Kh")


def test_round_trip_of_every_card() -> None:
    for c in deck_cards(2):
        assert parse_card(card_str(c)) == c
    assert len(deck_cards(2)) == 52


@pytest.mark.parametrize(
    "players, low, size", [(2, 9, 24), (3, 8, 28), (4, 7, 32), (5, 6, 36), (6, 5, 40), (7, 4, 44), (8, 3, 48)]
)
def test_by_players_deck(players: int, low: int, size: int) -> None:
    assert lowest_rank("by_players", players) == low
    assert len(deck_cards(low)) == size


def test_fixed32() -> None:
    assert lowest_rank("fixed32", 6) == 7
    assert len(deck_cards(7)) == 32


@pytest.mark.parametrize("bad", ["", "A", "Ax", "1h", "AhK", "ZZ"])
def test_bad_cards_name_the_text(bad: str) -> None:
    with pytest.raises(CardError) as e:
        parse_card(bad)
    assert e.value.card == bad


def test_lenient_spellings() -> None:
    assert parse_card("ah") == parse_card("AH") == parse_card("Ah")
    assert parse_card("10h") == parse_card("Th")
    assert parse_rank("10") == 10 and parse_rank("a") == 14
