"""hypothesis properties of hand values and pots."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from hhtool.game.cards import Card, deck_cards
from hhtool.game.evaluate import evaluate
from hhtool.game.rules import CLASSIC, ITALIAN, STELLAPOKER, RuleSet
from hhtool.game.showdown import compare, divide, shares, winners

PROFILES = [CLASSIC, STELLAPOKER, ITALIAN, ITALIAN.with_options(wild=7)]
TOTAL_ORDERS = [replace(r, sf_rule="standard") for r in (CLASSIC, STELLAPOKER, ITALIAN)]


@st.composite
def deals(draw: st.DrawFn, rules_list: list[RuleSet], n_hands: tuple[int, int] = (2, 4), vela: bool = True) -> tuple[RuleSet, int, list[list[Card]]]:
    rules = draw(st.sampled_from(rules_list))
    players = draw(st.integers(max(rules.min_players, n_hands[0]), min(rules.max_players, 6)))
    low = rules.lowest_rank(players)
    n = draw(st.integers(n_hands[0], min(n_hands[1], players)))
    cards = draw(st.permutations(deck_cards(low)))
    extra = [cards[-1]] if vela and draw(st.booleans()) else []
    return rules, low, [[*cards[i * 5 : i * 5 + 5], *extra] for i in range(n)]


@given(deals(TOTAL_ORDERS, (3, 3)))
def test_total_order_laws(deal: tuple[RuleSet, int, list[list[Card]]]) -> None:
    """Under the standard straight-flush rule every tie-break is a total preorder."""
    rules, low, hands = deal
    a, b, c = (evaluate(h, rules, low) for h in hands)
    for x, y in ((a, b), (b, c), (a, c)):
        assert compare(x, y, "standard", 3) == -compare(y, x, "standard", 3)
        assert compare(x, x, "standard", 3) == 0
    if compare(a, b, "standard", 3) >= 0 and compare(b, c, "standard", 3) >= 0:
        assert compare(a, c, "standard", 3) >= 0


@given(deals(PROFILES, (2, 5)))
def test_shares_sum_to_one(deal: tuple[RuleSet, int, list[list[Card]]]) -> None:
    rules, low, hands = deal
    values = [evaluate(h, rules, low) for h in hands]
    s = shares(values, rules)
    assert sum(s) == 1
    assert all(x in (0, Fraction(1, len(winners(values, rules)))) for x in s)


@given(deals(TOTAL_ORDERS, (2, 5)))
def test_suits_decide_only_where_the_profile_says(deal: tuple[RuleSet, int, list[list[Card]]]) -> None:
    """Under card_order and ranks_then_suits two different players' hands never tie
    unless they play the same ranks; under split, the same ranks always tie."""
    rules, low, hands = deal
    values = [evaluate(h, rules, low) for h in hands]
    split_rules = replace(rules, tie_break="split")
    for (i, a), (j, b) in combinations(enumerate(values), 2):
        sa = evaluate(hands[i], split_rules, low)
        sb = evaluate(hands[j], split_rules, low)
        if rules.tie_break != "split" and a.key == b.key:
            assert sa.key == sb.key
        if sa.key != sb.key:
            # ranks that differ decide the same way under every tie-break, except
            # card_order, where single cards compare by card and flushes by suit
            if rules.tie_break == "ranks_then_suits":
                assert (a.key > b.key) == (sa.key > sb.key)


@given(st.permutations(deck_cards(7)), st.sampled_from(PROFILES))
def test_best_of_six_is_at_least_every_five(cards: list[Card], rules: RuleSet) -> None:
    six = cards[:6]
    best = evaluate(six, rules, 7)
    for five in combinations(six, 5):
        assert best.key >= evaluate(five, rules, 7).key


@given(st.integers(0, 10**9), st.lists(st.text(min_size=1), min_size=1, max_size=8, unique=True))
def test_divide_conserves_chips(amount: int, names: list[str]) -> None:
    parts = divide(amount, names)
    assert sum(parts.values()) == amount
    assert max(parts.values()) - min(parts.values()) <= 1
    # the odd units go to the first winners from the button's left
    assert list(parts.values()) == sorted(parts.values(), reverse=True)


