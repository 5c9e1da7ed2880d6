"""Every example the seed documents and FORMAT.md give, as a test.

Seeds: 000 (2008 article), 001/003 (StellaPoker house rules), 002 (an
online room's rules page), 004 (pagat.com, Italian home rules).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from hhtool.game.cards import parse_cards
from hhtool.game.evaluate import FLUSH, FULL_HOUSE, STRAIGHT, STRAIGHT_FLUSH, evaluate
from hhtool.game.rank import rank_hands
from hhtool.game.rules import CLASSIC, ITALIAN, STELLAPOKER, RuleSet


def shares(rules: RuleSet, *hands: str, vela: str | None = None, players: int | None = None) -> list[Fraction]:
    return [h.share for h in rank_hands(rules, list(hands), vela=vela, players=players).hands]


# FORMAT.md's audit example and seed 000's walk-through: queens and jacks twice,
# the vela king as kicker for both.
ALICE = "Qc Qs 9c Jc Jd"
BOB = "Js Jh 8d Qh Qd"


def test_000_two_pair_vela_kicker_best_suit_in_highest_pair_wins_classic() -> None:
    table = rank_hands(CLASSIC, [ALICE, BOB], vela="Ks")
    alice, bob = table.hands
    assert alice.value.description == bob.value.description == "two pair, Queens and Jacks"
    assert [alice.share, bob.share] == [0, 1]
    assert table.reason is not None and "Q♥ beats Q♣" in table.reason.text


def test_format_md_same_showdown_splits_under_stellapoker_split() -> None:
    # FORMAT.md: "Under split (stellapoker) the same showdown would split the pot".
    # stellapoker has no vela, so give the split rule the same six cards through a RuleSet change.
    from dataclasses import replace

    rules = replace(CLASSIC, tie_break="split")
    assert shares(rules, ALICE, BOB, vela="Ks") == [Fraction(1, 2), Fraction(1, 2)]


def test_italian_ranks_then_suits_decides_the_same_showdown() -> None:
    # Queens first: Qh (bob) beats Qc (alice), RULES.md §3 ranks_then_suits.
    assert shares(ITALIAN, ALICE, BOB, vela="Ks", players=4) == [0, 1]


def test_002_high_card_ah_qc_beats_ad_kc() -> None:
    assert shares(CLASSIC, "Ah Qc 9d 8s 7c", "Ad Kc 9s 8c 7d") == [1, 0]
    # Ranks first everywhere else: the king kicker wins under split and ranks_then_suits.
    assert shares(STELLAPOKER, "Ah Qc 9d 8s 7c", "Ad Kc 9s 8c 7d") == [0, 1]
    assert shares(ITALIAN, "Ah Qc 9d 8s 7c", "Ad Kc 9s 8c 7d", players=4) == [0, 1]


def test_002_equal_pairs_suit_of_highest_kicker_decides() -> None:
    assert shares(CLASSIC, "Kh Kd Ac 9s 8s", "Kc Ks Ah 9d 8d") == [0, 1]
    assert shares(STELLAPOKER, "Kh Kd Ac 9s 8s", "Kc Ks Ah 9d 8d") == [Fraction(1, 2)] * 2


def test_002_two_pair_vela_kicker_highest_suit_in_highest_pair() -> None:
    # Same as 000's example, other suits: the spade-heart queens beat the club-diamond queens.
    assert shares(CLASSIC, "Qs Qh Jc Jd 7c", "Qc Qd Js Jh 7d", vela="As") == [1, 0]


def test_002_straights_same_top_highest_suit_of_highest_card() -> None:
    assert shares(CLASSIC, "Ts Jd Qc Kd Ah", "Tc Jc Qd Kh Ad") == [1, 0]
    assert shares(STELLAPOKER, "Ts Jd Qc Kd Ah", "Tc Jc Qd Kh Ad") == [Fraction(1, 2)] * 2


def test_002_flush_highest_suit_wins() -> None:
    # card_order: suit alone, so a king-high heart flush beats an ace-high diamond flush.
    assert shares(CLASSIC, "Kh Jh 9h 8h 7h", "Ad Kd Qd Jd 9d") == [1, 0]
    # ranks first elsewhere
    assert shares(STELLAPOKER, "Kh Jh 9h 8h 7h", "Ad Kd Qd Jd 9d") == [0, 1]


def test_002_straight_flush_highest_card_then_suit() -> None:
    assert shares(CLASSIC, "Kd Qd Jd Td 9d", "Ks Qs Js Ts 9s", "Qh Jh Th 9h 8h") == [1, 0, 0]


def test_002_heads_up_lowest_straight_flush_beats_royal() -> None:
    table = rank_hands(CLASSIC, ["Ah Kh Qh Jh Th", "Ts 9s 8s 7s As"])
    assert [h.share for h in table.hands] == [0, 1]
    assert table.reason is not None and "heads up" in table.reason.text
    # three contenders: standard order, the royal wins
    assert shares(CLASSIC, "Ah Kh Qh Jh Th", "Ts 9s 8s 7s As", "Kd Qd Jd 9c 8c") == [1, 0, 0]
    # stellapoker: standard
    assert shares(STELLAPOKER, "Ah Kh Qh Jh Th", "Ts 9s 8s 7s As") == [1, 0]


def test_002_ace_plays_both_ends() -> None:
    low = evaluate(parse_cards("Ts 9d 8c 7h Ad"), CLASSIC, 7)
    high = evaluate(parse_cards("Ts Jd Qc Kh Ad"), CLASSIC, 7)
    assert low.category == high.category == STRAIGHT
    assert low.description == "a straight, Ace to Ten"
    assert high.description == "a straight, Ten to Ace"
    # the ace-low straight is the lowest straight, under every tie-break
    mid = evaluate(parse_cards("7s 8d 9c Th Jd"), CLASSIC, 7)
    assert low.key < mid.key < high.key


def test_no_wrap_around() -> None:
    v = evaluate(parse_cards("Kh As 7d 8c 9s"), CLASSIC, 7)
    assert v.category != STRAIGHT


def test_000_002_004_flush_beats_full_house() -> None:
    for rules, players in ((CLASSIC, 2), (STELLAPOKER, 2), (ITALIAN, 4)):
        assert shares(rules, "Ah Ad Ac Kh Kd", "9s Js Qs 8s 7s", players=players) == [0, 1]
    assert evaluate(parse_cards("9s Js Qs 8s 7s"), CLASSIC, 7).category == FLUSH
    assert evaluate(parse_cards("Ah Ad Ac Kh Kd"), CLASSIC, 7).category == FULL_HOUSE


def test_002_higher_groups_win() -> None:
    assert shares(CLASSIC, "9h 9d 9c Ah Kd", "Ts Td Tc 7h 8d") == [0, 1]
    assert shares(CLASSIC, "9h 9d 9c Ah Ad", "Ts Td Tc 7h 7d") == [0, 1]
    assert shares(CLASSIC, "9h 9d 9c 9s Ad", "Ts Td Tc Th 7d") == [0, 1]


def test_004_five_players_ace_six_straight() -> None:
    v = evaluate(parse_cards("Ah 6d 7c 8s 9h"), ITALIAN, ITALIAN.lowest_rank(5))
    assert v.category == STRAIGHT and v.description == "a straight, Ace to Nine"
    # with four players, there are no sixes; A-7-8-9-T is the low straight
    assert evaluate(parse_cards("Ah Td 7c 8s 9h"), ITALIAN, ITALIAN.lowest_rank(4)).category == STRAIGHT


def test_004_suits_break_ties_hearts_diamonds_clubs_spades() -> None:
    assert shares(ITALIAN, "Kh Qd 9c 8s 7c", "Kd Qs 9s 8c 7s", players=4) == [1, 0]
    assert shares(ITALIAN, "Ks Qh 9h 8h 7d", "Kc Qs 9s 8c 7s", players=4) == [0, 1]


def test_004_italian_straight_flush_cycle() -> None:
    minimum, maximum, medium = "As 7s 8s 9s Ts", "Ah Kh Qh Jh Th", "Kd Qd Jd Td 9d"
    assert shares(ITALIAN, minimum, maximum, players=4) == [1, 0]
    assert shares(ITALIAN, maximum, medium, players=4) == [1, 0]
    assert shares(ITALIAN, medium, minimum, players=4) == [1, 0]
    assert shares(ITALIAN, minimum, maximum, medium, players=4) == [Fraction(1, 3)] * 3
    # mediums compare by top card, then suits
    assert shares(ITALIAN, "Qs Js Ts 9s 8s", "Kd Qd Jd Td 9d", players=4) == [0, 1]
    assert shares(ITALIAN, "Kc Qc Jc Tc 9c", "Kd Qd Jd Td 9d", players=4) == [0, 1]


def test_004_pokerissimo_beats_straight_flush() -> None:
    wild = ITALIAN.with_options(wild=7)
    table = rank_hands(wild, ["Ah Ad Ac As 7d", "Kh Qh Jh Th 9h"], players=4)
    assert [h.value.category_name for h in table.hands] == ["pokerissimo", "straight_flush"]
    assert [h.share for h in table.hands] == [1, 0]
    assert table.hands[0].value.description == "pokerissimo, Aces"


def test_wild_card_makes_the_best_hand() -> None:
    wild = ITALIAN.with_options(wild=7)
    v = evaluate(parse_cards("Ah Kh Qh Jh 7c"), wild, 7)
    assert v.category == STRAIGHT_FLUSH and v.description == "a straight flush, Ten to Ace"
    assert parse_cards("7c")[0] in v.five


def test_001_royal_flush_is_the_ace_high_straight_flush() -> None:
    v = evaluate(parse_cards("Ah Kh Qh Jh Th"), STELLAPOKER, 7)
    assert v.category == STRAIGHT_FLUSH and v.max_sf


def test_001_stellapoker_ties_split() -> None:
    assert shares(STELLAPOKER, "Ah Kd Qc 9s 8s", "As Kc Qd 9h 8h") == [Fraction(1, 2)] * 2


@pytest.mark.parametrize(
    "cards, description",
    [
        ("Ah Kd 9c 8s 7h", "high card Ace"),
        ("Kh Kd 9c 8s 7h", "a pair of Kings"),
        ("Kh Kd Jc Js 7h", "two pair, Kings and Jacks"),
        ("9h 9d 9c As 7h", "three of a kind, Nines"),
        ("7h 8d 9c Ts Jh", "a straight, Seven to Jack"),
        ("Th Td Tc 8s 8h", "a full house, Tens full of Eights"),
        ("Ah Jh 9h 8h 7h", "a flush, Hearts"),
        ("Ah Ad Ac As 7h", "four of a kind, Aces"),
        ("Th Jh Qh Kh Ah", "a straight flush, Ten to Ace"),
    ],
)
def test_format_md_descriptions(cards: str, description: str) -> None:
    assert evaluate(parse_cards(cards), CLASSIC, 7).description == description
