"""Pots: winners under the straight-flush rules, splits, alternatives, the odd chip."""

from __future__ import annotations

from fractions import Fraction

from hhtool.game.cards import parse_cards
from hhtool.game.evaluate import evaluate
from hhtool.game.rules import CLASSIC, ITALIAN, STELLAPOKER
from hhtool.game.showdown import compare, divide, explain, shares, winners

MIN, MAX = "As 7s 8s 9s Ts", "Ah Kh Qh Jh Th"
MED_K, MED_Q = "Kd Qd Jd Td 9d", "Qc Jc Tc 9c 8c"


def v(cards: str, rules=ITALIAN, low: int = 7):  # type: ignore[no-untyped-def]
    return evaluate(parse_cards(cards), rules, low)


def test_italian_cycle_is_not_transitive() -> None:
    a, b, c = v(MIN), v(MAX), v(MED_K)
    assert compare(a, b, "italian_cycle", 3) == 1
    assert compare(b, c, "italian_cycle", 3) == 1
    assert compare(c, a, "italian_cycle", 3) == 1


def test_cycle_with_two_mediums_splits_between_the_top_cycle() -> None:
    # min > max > both mediums > min, and the king medium > the queen medium:
    # every hand is in the cycle (the queen medium still beats the minimum).
    hands = [v(MIN), v(MAX), v(MED_K), v(MED_Q)]
    assert winners(hands, ITALIAN) == [0, 1, 2, 3]


def test_cycle_ignores_hands_below_straight_flush() -> None:
    hands = [v(MIN), v(MAX), v(MED_K), v("Ac Ad As Ks Kc")]
    assert winners(hands, ITALIAN) == [0, 1, 2]
    assert shares(hands, ITALIAN) == [Fraction(1, 3)] * 3 + [0]


def test_max_and_medium_only_max_wins() -> None:
    assert winners([v(MED_K), v(MAX), v(MED_Q)], ITALIAN) == [1]


def test_heads_up_rule_only_heads_up() -> None:
    lo, hi = v(MIN, CLASSIC), v(MAX, CLASSIC)
    assert compare(lo, hi, "heads_up_low_beats_royal", 2) == 1
    assert compare(lo, hi, "heads_up_low_beats_royal", 3) == -1
    assert compare(lo, v(MED_K, CLASSIC), "heads_up_low_beats_royal", 2) == -1
    assert "heads up" in explain(lo, hi, CLASSIC, 2).text


def test_player_with_two_straight_flushes_plays_the_one_that_does_best() -> None:
    """RULES.md §3: six hearts 9-T-J-Q-K-A hold the maximum and a medium straight flush."""
    both = v("9h Th Jh Qh Kh Ah", ITALIAN)
    assert both.max_sf and len(both.alternatives) == 1
    # against a medium, the maximum wins
    assert winners([both, v("Qc Jc Tc 9c 8c Ah".replace(" Ah", ""), ITALIAN)], ITALIAN) == [0]
    # against the minimum, the maximum would lose: the K-high medium beats the minimum
    assert winners([both, v(MIN)], ITALIAN) == [0]
    # the ace-low and 7-J straight flushes in one suit: against the maximum, play the minimum
    low_two = v("As 7s 8s 9s Ts Js", ITALIAN)
    assert winners([low_two, v(MAX)], ITALIAN) == [0]


def test_split_and_odd_chips_from_the_button() -> None:
    assert divide(101, ["carol", "alice"]) == {"carol": 51, "alice": 50}
    assert divide(100, ["a", "b", "c"]) == {"a": 34, "b": 33, "c": 33}
    assert sum(divide(7, ["x", "y", "z", "w"]).values()) == 7


def test_stellapoker_splits_same_ranks() -> None:
    a, b = v("Ah Kd Qc 9s 8s", STELLAPOKER), v("As Kc Qd 9h 8h", STELLAPOKER)
    assert winners([a, b], STELLAPOKER) == [0, 1]
    assert "split" in explain(a, b, STELLAPOKER, 2).text
