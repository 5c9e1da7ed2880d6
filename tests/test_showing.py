"""Who opens each betting round: FORMAT.md's example hand, and the tie rules."""

from __future__ import annotations

from hhtool.game.cards import Card, parse_card, parse_cards
from hhtool.game.rules import CLASSIC, ITALIAN, STELLAPOKER
from hhtool.game.showing import first_round_opener, later_round_opener


def test_format_md_example_openers() -> None:
    """alice, bob, carol, dave in dealing order (button on seat 4)."""
    doors = [parse_card("Qs"), parse_card("Jh"), parse_card("9s"), parse_card("Th")]
    assert first_round_opener(doors).index == 0  # alice's Q♠ is the highest door
    third = [parse_cards("Qs 9c"), parse_cards("Jh 8d"), None, parse_cards("Th 7d")]
    assert later_round_opener(third, CLASSIC, 7).index == 0  # carol folded
    fourth = [parse_cards("Qs 9c Jc"), parse_cards("Jh 8d Qh"), None, parse_cards("Th 7d 8s")]
    assert later_round_opener(fourth, CLASSIC, 7).index == 0  # Q-J-9 beats Q-J-8
    fifth = [parse_cards("Qs 9c Jc Jd"), parse_cards("Jh 8d Qh Qd"), None, None]
    assert later_round_opener(fifth, CLASSIC, 7).index == 1  # bob's queens
    vela = later_round_opener(fifth, CLASSIC, 7, vela=parse_card("Ks"))
    assert vela.index == 1 and "Queens" in vela.reason


def test_door_card_ties_by_suit() -> None:
    doors = [parse_card("As"), parse_card("Ad"), None, parse_card("Ah")]
    assert first_round_opener(doors).index == 3


def test_position_breaks_showing_ties_in_classic_and_stellapoker() -> None:
    ups = [parse_cards("Ks 9s"), parse_cards("Kh 9h")]
    for rules in (CLASSIC, STELLAPOKER):
        op = later_round_opener(ups, rules, 7)
        assert op.index == 0 and "dealt first" in op.reason


def test_suits_break_showing_ties_in_italian() -> None:
    ups = [parse_cards("Ks 9s"), parse_cards("Kh 9h")]
    assert later_round_opener(ups, ITALIAN, 7).index == 1


def test_partial_straights_and_flushes_do_not_count() -> None:
    ups = [parse_cards("Th Jh Qh Kh"), parse_cards("7s 7d 8c 9c")]
    assert later_round_opener(ups, CLASSIC, 7).index == 1


def test_no_pair_highest_card_opens() -> None:
    ups = [parse_cards("Kd 8c"), parse_cards("As 7c")]
    assert later_round_opener(ups, ITALIAN, 7).index == 1


def test_five_showing_cards_use_every_category() -> None:
    # classic's vela round: four up cards and the vela make a flush, which beats trips
    ups = [parse_cards("8h 9h Jh Kh"), parse_cards("Qs Qd Qc 7s")]
    assert later_round_opener(ups, CLASSIC, 7, vela=parse_card("7h")).index == 0


def test_fast_showing_key_agrees_with_the_evaluator() -> None:
    import random

    from hhtool.game.cards import deck_cards
    from hhtool.game.showing import showing_key, showing_value

    rng = random.Random(4)
    for rules in (CLASSIC, ITALIAN):
        for n in (1, 2, 3, 4):
            for _ in range(400):
                a, b = rng.sample(deck_cards(7), n), rng.sample(deck_cards(7), n)
                suits = rules.showing_tie == "suits"
                fast = showing_key(a, rules, 7, suits), showing_key(b, rules, 7, suits)
                full = showing_value(a, rules, 7).key, showing_value(b, rules, 7).key
                assert (fast[0] > fast[1]) == (full[0] > full[1]) and (fast[0] == fast[1]) == (full[0] == full[1])


def test_the_short_showing_key_is_the_groups_packed() -> None:
    """``_short_key`` (one to four cards in locals) packs what :func:`_groups` orders: every up to three cards of the
    52-card deck in every order, and random fours with many repeated ranks (and repeated cards: wild stand-ins)."""
    import random
    from itertools import permutations

    from hhtool.game.showing import _groups, _short_key

    def packed(up: list[int], suits: bool) -> int:
        key, order = _groups([Card(c) for c in up])
        for i in range(5):
            key = (key << 4) | (order[i] >> 2 if i < len(order) else 0)
        if suits:
            for i in range(5):
                key = (key << 2) | (order[i] & 3 if i < len(order) else 0)
        return key

    deck = list(range(8, 60))
    ups: list[list[int]] = [list(p) for n in (1, 2) for p in permutations(deck, n)]
    rng = random.Random(44)
    for _ in range(20_000):
        n = rng.randint(3, 4)
        up = rng.sample(deck, n) if rng.random() < 0.8 else [rng.choice(deck) for _ in range(n)]
        rank = rng.randrange(2, 15)
        ups.append([(rank << 2 | rng.randrange(4)) if rng.random() < 0.5 else c for c in up])
    for up in ups:
        for suits in (False, True):
            assert _short_key([Card(c) for c in up], suits) == packed(up, suits), up
