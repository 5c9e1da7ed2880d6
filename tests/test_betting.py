"""The betting state machine alone: sizes, caps, the option, all-ins (RULES.md §5)."""

from __future__ import annotations

import random

import pytest

from hhtool.game.betting import Betting
from hhtool.game.operations import IllegalAction, Player, deal_order
from hhtool.game.cards import parse_card, parse_cards
from hhtool.game.rules import CLASSIC, ITALIAN, STELLAPOKER, RuleSet, Structure


def table(rules: RuleSet = ITALIAN, structure: Structure = "fixed", stacks: tuple[int, ...] = (1000, 1000, 1000), ante: int = 0) -> Betting:
    players = [Player(n, i + 1, s, s - ante, total=ante) for i, (n, s) in enumerate(zip("abcdef", stacks))]
    return Betting(rules, structure, small_bet=50, big_bet=100, bring_in_amount=20, big_blind=50, players=players)


def code(fn: object, *args: object, **kw: object) -> str:
    with pytest.raises(IllegalAction) as e:
        fn(*args, **kw)  # type: ignore[operator]
    return e.value.code


def test_fixed_limit_small_then_big_and_the_cap() -> None:
    b = table()
    b.start_round(1, "a")
    assert code(b.verify_bet_to, "a", 100, as_raise=False) == "bet_size"
    b.verify_bet_to("a", 50, as_raise=False)
    b.bet_to("a", 50)
    b.bet_to("b", 100)
    b.bet_to("c", 150)
    b.bet_to("a", 200)  # one bet and three raises: capped
    assert b.capped()
    assert code(b.verify_bet_to, "b", 250, as_raise=True) == "raise_over_cap"
    b.call("b", 150)
    b.call("c", 50)
    assert b.round_over
    b.start_round(3, "a")
    assert code(b.verify_bet_to, "a", 50, as_raise=False) == "bet_size"
    b.verify_bet_to("a", 100, as_raise=False)


def test_cap_heads_up_lifts_the_cap_when_set() -> None:
    from dataclasses import replace

    b = table(replace(ITALIAN, cap_heads_up=True), stacks=(1000, 1000))
    b.start_round(1, "a")
    for who, to in (("a", 50), ("b", 100), ("a", 150), ("b", 200)):
        b.bet_to(who, to)
    b.verify_bet_to("a", 250, as_raise=True)


def test_pair_showing_option_allows_a_big_bet_in_round_two() -> None:
    b = table()
    b.start_round(2, "a", big_option=True)
    b.verify_bet_to("a", 100, as_raise=False)
    b.bet_to("a", 100)
    assert code(b.verify_bet_to, "b", 150, as_raise=True) == "raise_size"  # later raises are big
    b.verify_bet_to("b", 200, as_raise=True)
    b2 = table()
    b2.start_round(2, "a", big_option=False)
    assert code(b2.verify_bet_to, "a", 100, as_raise=False) == "bet_size"


def test_pot_limit_maximum_and_no_limit_minimum() -> None:
    b = table(structure="pot", ante=10)  # pot 30
    b.start_round(2, "a")
    assert code(b.verify_bet_to, "a", 31, as_raise=False) == "bet_size"
    b.bet_to("a", 30)  # pot 60
    # raise to at most: 30 (the bet) + 60 (pot) + 30 (the call) = 120
    b.verify_bet_to("b", 120, as_raise=True)
    assert code(b.verify_bet_to, "b", 121, as_raise=True) == "raise_size"
    n = table(structure="no")
    n.start_round(2, "a")
    assert code(n.verify_bet_to, "a", 49, as_raise=False) == "bet_size"
    n.bet_to("a", 80)
    assert code(n.verify_bet_to, "b", 150, as_raise=True) == "raise_size"  # at least 80 more
    n.verify_bet_to("b", 160, as_raise=True)


def test_short_all_in_does_not_reopen_the_betting() -> None:
    b = table(structure="no", stacks=(1000, 130, 1000))
    b.start_round(2, "a")
    b.bet_to("a", 100)
    b.bet_to("b", 130)  # all-in, 30 more: short of a full raise
    assert b.player("b").all_in
    b.call("c", 130)
    # a already acted: may call the 30 but not raise
    assert code(b.verify_bet_to, "a", 300, as_raise=True) == "raise_not_reopened"
    b.verify_call("a", 30)


def test_bring_in_completion_and_no_option_for_the_bring_in() -> None:
    b = table(CLASSIC)
    b.start_round(1, "b")
    assert code(b.verify_check, "b") == "bring_in_unexpected"
    b.verify_bring_in("b", 20)
    b.bring_in("b", 20)
    b.call("c", 20)
    b.call("a", 20)
    assert b.round_over  # the bring-in has no option to raise
    b = table(CLASSIC)
    b.start_round(1, "b")
    b.bring_in("b", 20)
    assert code(b.verify_bet_to, "c", 60, as_raise=False) == "complete_amount"
    b.bet_to("c", 50)  # the completion is the round's bet
    assert b.bets == 1 and not b.round_over
    b.call("a", 50)
    b.call("b", 30)
    assert b.round_over


def test_stellapoker_big_blind_counts_as_the_bet_and_has_its_option() -> None:
    players = [Player(n, i + 1, 1000, 1000) for i, n in enumerate("abc")]
    b = Betting(STELLAPOKER, "fixed", 50, 100, None, 50, players)
    players[0].this_round = players[0].total = 25
    players[0].behind = 975
    players[1].this_round = players[1].total = 50
    players[1].behind = 950
    b.start_round(1, "c")
    assert b.bets == 1 and b.current == 50
    b.call("c", 50)
    b.call("a", 25)
    assert b.next_player == "b"  # posting is not acting: the big blind may still raise
    b.verify_bet_to("b", 100, as_raise=True)


def test_turn_order_and_fold() -> None:
    b = table()
    b.start_round(2, "b")
    assert code(b.verify_check, "a") == "wrong_opener"
    b.check("b")
    assert code(b.verify_check, "a") == "out_of_turn"
    b.fold("c")
    assert code(b.verify_check, "c") == "action_after_fold"


def test_deal_order_from_the_buttons_left() -> None:
    assert deal_order([(1, "a"), (3, "c"), (5, "e")], 3) == [(5, "e"), (1, "a"), (3, "c")]
    assert deal_order([(1, "a"), (3, "c")], 6) == [(1, "a"), (3, "c")]


def _allowed(verify: object, *args: object, **kw: object) -> bool:
    try:
        verify(*args, **kw)  # type: ignore[operator]
    except IllegalAction:
        return False
    return True


@pytest.mark.parametrize("rules", [CLASSIC, STELLAPOKER, ITALIAN], ids=lambda r: r.name)
@pytest.mark.parametrize("structure", ["fixed", "pot", "no"])
def test_each_answer_is_its_verify(rules: RuleSet, structure: Structure) -> None:
    """``can_x`` says yes exactly when ``verify_x`` raises nothing, for every player and size, round after round."""
    rng = random.Random(f"{rules.name}:{structure}")
    for _ in range(4):
        b = table(rules, structure, stacks=tuple(rng.choice((60, 150, 400, 1000)) for _ in range(4)))
        names = [p.name for p in b.players] + ["nobody"]
        for rnd in range(1, 5):
            if len(b.in_hand) < 2:
                break
            b.start_round(rnd, rng.choice([p.name for p in b.in_hand]))
            for _ in range(40):
                for name in names:
                    assert b.can_check(name) == _allowed(b.verify_check, name)
                    assert b.can_fold(name) == _allowed(b.verify_fold, name)
                    assert b.can_bet(name) == _allowed(b.verify_bet, name)
                    for amount in (20, b.current, b.current - 10, 1000):
                        assert b.can_call(name, amount) == _allowed(b.verify_call, name, amount)
                        assert b.can_bring_in(name, amount) == _allowed(b.verify_bring_in, name, amount)
                    for to in (b.current + 1, b.current + 50, b.current + 100, b.current + 150, 2 * b.current + 50, 1000):
                        for as_raise in (False, True):
                            assert b.can_bet_to(name, to, as_raise=as_raise) == _allowed(b.verify_bet_to, name, to, as_raise=as_raise)
                who = b.next_player
                if who is None:
                    break
                p = b.player(who)
                owed = b.current - p.this_round
                sizes = [to for to in range(b.current + 1, p.this_round + p.behind + 1, 10) if b.can_bet_to(who, to)]
                if b.can_bring_in(who, 20) and rng.random() < 0.7:
                    b.bring_in(who, 20)
                elif sizes and rng.random() < 0.4:
                    b.bet_to(who, rng.choice(sizes))
                elif owed > 0 and rng.random() < 0.3:
                    b.fold(who)
                elif owed > 0:
                    b.call(who, min(owed, p.behind))
                elif b.can_check(who):
                    b.check(who)
                else:
                    b.fold(who)
            due = b.uncalled()
            if due is not None:
                b.return_uncalled(*due)


def test_the_machine_opens_each_round_with_the_rules_opener_and_the_double_bet() -> None:
    """``open_round``: the highest door card, else the first who can act; later the best showing hand, a pair showing opens the double bet."""
    b = table(ITALIAN)
    ups = [parse_cards("9c"), parse_cards("Ah"), parse_cards("Kd")]
    assert b.open_round(1, ups) and b.opener == "b" and not b.big_option
    assert "highest door card" in getattr(b.opener_reason, "reason", "")
    assert b.open_round(1, [[], [], []]) and b.opener == "a" and b.opener_reason == "no door card is known"
    ups = [parse_cards("9c 9d"), parse_cards("Ah Kh"), parse_cards("Kd Qs")]
    assert b.open_round(2, ups) and b.opener == "a" and b.big_option  # a pair of nines shows
    assert b.open_round(3, ups) and not b.big_option  # the double bet is 3rd street's alone
    b.player("a").folded = True
    assert b.open_round(2, ups) and b.opener == "b" and not b.big_option  # a folded pair does not count
    b.player("b").all_in = True
    b.player("c").all_in = True
    assert not b.open_round(3, ups) and b.round_no == 2 and b.opener == "b"  # nobody who can act: no round, nothing changed
    classic = table(CLASSIC)
    pairs = [parse_cards("9c 9d Ts Jc"), parse_cards("Ah Kh Qd Jd"), parse_cards("Kd Qs 8c 7c")]
    vela = parse_card("Ac")
    assert classic.open_round(4, pairs, vela) and classic.opener == "a"  # the vela counts in the vela round only
    assert classic.open_round(5, pairs, vela) and classic.opener == "b"


@pytest.mark.parametrize("structure", ["fixed", "pot", "no"])
def test_the_sizes_are_the_ones_verify_allows(structure: Structure) -> None:
    """``min_bet_to`` and ``max_bet_to`` are allowed, one chip beyond either is not (all-in aside), and neither passes the stack."""
    b = table(ITALIAN, structure, stacks=(1000, 1000, 1000), ante=100)
    b.start_round(2, "a", big_option=True)
    for who in ("a", "b", "c"):
        least, most = b.min_bet_to(who), b.max_bet_to(who)
        assert b.can_bet_to(who, least) and b.can_bet_to(who, most) and least <= most
        assert not b.can_bet_to(who, least - 1) and (structure == "no" or not b.can_bet_to(who, most + 1))
        p = b.player(who)
        assert most <= p.this_round + p.behind
        b.bet_to(who, least)
    assert b.is_raise()
    short = table(ITALIAN, structure, stacks=(1000, 30, 1000))
    short.start_round(3, "a")
    short.bet_to("a", short.min_bet_to("a"))
    assert short.min_bet_to("b") == short.max_bet_to("b") == 30  # all-in for less


def test_a_completion_is_no_raise_and_a_bet_line_facing_a_bet_reads_as_one() -> None:
    b = table(CLASSIC, "pot")
    b.start_round(1, "b")
    b.bring_in("b", 20)
    assert not b.is_raise() and b.min_bet_to("c") == 50  # completing to the small bet is the round's bet
    b.verify_bet_to("c", 50)
    b.bet_to("c", 50)
    assert b.is_raise()
    b.verify_bet_to("a", 100)  # the machine's reading: a raise
    assert code(b.verify_bet_to, "a", 100, as_raise=False) == "bet_facing_bet"  # the history's words: a bet


def test_an_action_out_of_turn_moves_the_turn_and_an_unfinished_round_ends() -> None:
    b = table()
    b.start_round(2, "a")
    assert code(b.verify_check, "c") == "wrong_opener"
    b.follow_out_of_turn("c")
    b.check("c")
    assert b.next_player == "a"  # the betting goes on from c, as the history has it
    b.end_round()
    assert b.round_over
    b.follow_out_of_turn("b")
    assert b.round_over  # nothing moves once the round is over


@pytest.mark.parametrize(
    ("rules", "order", "muck"),
    [
        (CLASSIC, ["b", "c", "a"], {"c": True, "a": True}),  # the bettor first, then clockwise; a beaten hand may muck
        (STELLAPOKER, ["b", "c", "a"], {"c": True, "a": True}),
        (ITALIAN, ["a", "b", "c"], {"b": False, "c": False}),  # everyone left shows, from the button's left
    ],
    ids=["classic", "stellapoker", "italian"],
)
def test_show_order_and_who_may_muck(rules: RuleSet, order: list[str], muck: dict[str, bool]) -> None:
    b = table(rules)
    b.start_round(4, "a")
    b.check("a")
    b.bet_to("b", 100)
    b.call("c", 100)
    b.call("a", 100)
    assert b.show_order() == order and not b.may_muck(order[0])
    assert {n: b.may_muck(n) for n in order[1:]} == muck
    assert rules.all_show == (rules is ITALIAN) and rules.shows_clockwise == (rules is not STELLAPOKER)
