"""``hhtool.game.equity`` against a plain brute force over every runout, and its sampling against the exact answer."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from fractions import Fraction
from itertools import combinations

import pytest

from hhtool.game.cards import Card, deck_cards, make_card, parse_cards
from hhtool.game.equity import EquityInputError, EquityResult, equity
from hhtool.game.evaluate import evaluate
from hhtool.game.rules import CLASSIC, ITALIAN, STELLAPOKER, RuleSet
from hhtool.game.showdown import shares

Hand = Sequence[Card | None]


def _runouts(unseen: list[Card], need: list[int]) -> Iterator[list[tuple[Card, ...]]]:
    """Every way to give each player their cards to come: a list of disjoint sets, one per player."""
    if not need:
        yield []
        return
    for mine in combinations(unseen, need[0]):
        rest = [c for c in unseen if c not in mine]
        for others in _runouts(rest, need[1:]):
            yield [mine, *others]


def brute(
    rules: RuleSet, hands: Sequence[Hand], vela: Card | None = None, dead: Sequence[Card] = (), players: int | None = None
) -> tuple[int, list[Fraction], list[int], list[int]]:
    """Runouts, equities, wins alone and splits: every runout through evaluate() and the showdown's shares()."""
    n_players = players or max(len(hands), rules.min_players)
    low = rules.lowest_rank(n_players)
    known = [[c for c in h if c is not None] for h in hands]
    seen = {c for k in known for c in k} | set(dead) | ({vela} if vela is not None else set())
    unseen = [c for c in deck_cards(low) if c not in seen]
    velas: list[Card | None] = list(unseen) if rules.has_vela and vela is None else [vela]
    n = len(hands)
    total = 0
    eq = [Fraction(0)] * n
    win = [0] * n
    tie = [0] * n
    for v in velas:
        pool = [c for c in unseen if c != v]
        for draw in _runouts(pool, [5 - len(k) for k in known]):
            extra = [v] if v is not None else []
            values = [evaluate([*k, *d, *extra], rules, low) for k, d in zip(known, draw)]
            split = shares(values, rules)
            total += 1
            for i, s in enumerate(split):
                eq[i] += s
                if s == 1:
                    win[i] += 1
                elif s:
                    tie[i] += 1
    return total, [e / total for e in eq], win, tie


def _check(result: EquityResult, expected: tuple[int, list[Fraction], list[int], list[int]]) -> None:
    total, eq, win, tie = expected
    assert result.exact and result.runouts == total
    assert [h.exact_equity for h in result.hands] == eq
    assert [round(h.win * total) for h in result.hands] == win
    assert [round(h.tie * total) for h in result.hands] == tie
    assert sum(eq) == 1


def _random_case(rng: random.Random, sizes: Sequence[int] = (3, 4, 4, 5, 5)) -> tuple[RuleSet, list[Hand], Card | None, list[Card], int]:
    """A random small deal of any profile, street, deck size and variant, with dead cards.

    Half the deals take their cards from two suits, so that flushes and
    straight flushes (and the profiles' straight-flush rules) come up.
    """
    while True:
        profile = rng.choice([CLASSIC, STELLAPOKER, ITALIAN, ITALIAN])
        n = rng.choice([2, 2, 2, 3, 3, 4])
        players = n
        if profile is ITALIAN:
            players = rng.randint(max(n, 2), 8)
            if rng.random() < 0.5:
                profile = profile.with_options(vela="at_start")
            if rng.random() < 0.3:
                profile = profile.with_options(wild=rng.randint(profile.lowest_rank(players), 14))
        deck = deck_cards(profile.lowest_rank(players))
        if rng.random() < 0.5:
            suits = rng.sample(range(4), 2)
            deck = [c for c in deck if c & 3 in suits] + rng.sample([c for c in deck if c & 3 not in suits], 4)
        rng.shuffle(deck)
        hands: list[Hand] = []
        for _ in range(n):
            k = rng.choice(sizes)
            h: list[Card | None] = [deck.pop() for _ in range(k)]
            if rng.random() < 0.15:
                h[0] = None  # a hole card nobody has seen
            hands.append(h)
        vela = deck.pop() if profile.has_vela and rng.random() < 0.4 else None
        need = [5 - sum(c is not None for c in h) for h in hands]
        draw_vela = profile.has_vela and vela is None
        seen = {c for h in hands for c in h if c is not None} | {vela}
        rest = [c for c in deck if c not in seen]  # the suit-biased cards first in line
        from hhtool.game.equity import _runouts as count

        fits = [u for u in range(sum(need) + draw_vela, len(rest) + 1) if count(u, need, draw_vela) <= 1500]
        if not fits:
            continue
        live = set(rest[len(rest) - rng.choice(fits) :])  # still unseen; every other card is dead
        low = profile.lowest_rank(players)
        dead = [c for c in deck_cards(low) if c not in seen and c not in live]
        rng.shuffle(dead)
        return profile, hands, vela, dead, players


@pytest.mark.parametrize("seed", range(40))
def test_exact_equals_brute_force_on_random_deals(seed: int) -> None:
    rules, hands, vela, dead, players = _random_case(random.Random(seed))
    result = equity(rules, hands, vela=vela, dead=dead, players=players)
    _check(result, brute(rules, hands, vela, dead, players))


@pytest.mark.parametrize("seed", range(12))
def test_exact_equals_brute_force_from_second_street(seed: int) -> None:
    # 2nd street (two cards each, or three with a ?? for the hole) and a mix of streets, dead cards keeping it small
    rules, hands, vela, dead, players = _random_case(random.Random(1000 + seed), sizes=(2, 2, 3))
    result = equity(rules, hands, vela=vela, dead=dead, players=players)
    _check(result, brute(rules, hands, vela, dead, players))


def test_sampled_when_nearly_every_unseen_card_is_to_come() -> None:
    # four players on 3rd street and nine unseen cards, all to come: independent draws are almost never
    # disjoint, so the sampling evaluates its draws instead of looking them up (and stays quick)
    hands = [_cards(h) for h in ("Qc Qs 9c", "Js Jh 8d", "Ts Th 7d", "Ac Kd 9h")]
    keep = "Ad Kh Ks 8c 8h 7c 7h 9s Jc"
    dead = _dead_but(CLASSIC, 4, keep, ["Qc Qs 9c", "Js Jh 8d", "Ts Th 7d", "Ac Kd 9h"])
    exact = equity(CLASSIC, hands, dead=dead, players=4)
    assert exact.exact and exact.runouts == 9 * 28 * 15 * 6
    _check(exact, brute(CLASSIC, hands, None, dead, 4))
    sampled = equity(CLASSIC, hands, dead=dead, players=4, exact_limit=0, samples=4000, seed=3)
    for e, got in zip(exact.hands, sampled.hands):
        assert got.stderr is not None and abs(got.equity - e.equity) <= 4 * got.stderr


def _cards(text: str) -> list[Card | None]:
    return [None if t == "??" else parse_cards(t)[0] for t in text.split()]


def _dead_but(rules: RuleSet, players: int, keep: str, hands: Sequence[str]) -> list[Card]:
    """Every card of the deck dead except ``keep`` and the hands' own: a small, chosen runout space."""
    low = rules.lowest_rank(players)
    live = set(parse_cards(keep)) | {c for h in hands for c in _cards(h) if c is not None}
    return [c for c in deck_cards(low) if c not in live]


@pytest.mark.parametrize(
    "rules, hands, keep",
    [
        # heads up, classic: the ace-low straight flush beats the ace-high one (RULES.md §3)
        (CLASSIC, ["7s 8s 9s Ts", "Jh Qh Kh Ah"], "As Js Th 9h 7h 8d Kd"),
        # three-way, classic: the same two straight flushes compare in the standard order
        (CLASSIC, ["7s 8s 9s Ts", "Jh Qh Kh Ah", "7d 7c Qd Qc"], "As Js Th 9h 8d Kd"),
        # stellapoker: standard order, suits never decide
        (STELLAPOKER, ["7s 8s 9s Ts", "Jh Qh Kh Ah"], "As Js Th 9h 8d Kd"),
    ],
)
def test_straight_flush_rules_against_brute_force(rules: RuleSet, hands: list[str], keep: str) -> None:
    dead = _dead_but(rules, len(hands), keep, hands)
    parsed = [_cards(h) for h in hands]
    expected = brute(rules, parsed, None, dead)
    _check(equity(rules, parsed, dead=dead), expected)
    # the special rule must actually have decided some runouts
    assert 0 < expected[1][0] < 1


def test_italian_cycle_and_two_straight_flushes_against_brute_force() -> None:
    # italian, 4 players: 7-A deck; minimum (A-7-8-9-T), medium and maximum straight flushes
    rules = ITALIAN.with_options(vela="at_start")
    hands = ["7s 8s 9s Ts", "Jh Qh Kh Ah", "8d 9d Td Jd"]
    dead = _dead_but(rules, 4, "As Js Th 7d Qd 9h Kc", hands)
    parsed = [_cards(h) for h in hands]
    _check(equity(rules, parsed, dead=dead, players=4), brute(rules, parsed, None, dead, 4))
    # sampled, the showdown settles the same runouts
    sampled = equity(rules, parsed, dead=dead, players=4, exact_limit=0, samples=4000)
    exact = brute(rules, parsed, None, dead, 4)[1]
    for h, e in zip(sampled.hands, exact):
        assert h.stderr is not None
        assert abs(h.equity - float(e)) <= 4 * h.stderr + 1e-12


def test_wild_cards_against_brute_force() -> None:
    rules = ITALIAN.with_options(wild=7)
    hands = ["Ah Ad 9c", "Kc Ks 7h Qd"]
    dead = _dead_but(rules, 4, "7d 7c Ac Kh Qs 9s Td Jh", hands)
    parsed = [_cards(h) for h in hands]
    _check(equity(rules, parsed, dead=dead, players=4), brute(rules, parsed, None, dead, 4))


def test_three_way_from_fourth_street_against_brute_force_with_dead_cards() -> None:
    hands = ["Qc Qs 9c 7h", "Ah Kd Jh 8d", "Tc Ts 9d 7s"]
    dead = parse_cards("Kh Ks 8c 8s Jc Td Ad Ac Qh Qd")
    parsed = [_cards(h) for h in hands]
    _check(equity(CLASSIC, parsed, dead=dead), brute(CLASSIC, parsed, None, dead))


def _swap(c: Card) -> Card:
    """Hearts and diamonds exchanged."""
    return Card(c ^ 1) if c & 3 >= 2 else c


@pytest.mark.parametrize("seed", range(6))
def test_symmetric_deals_get_equal_equity(seed: int) -> None:
    # exchanging hearts and diamonds maps one hand onto the other and the deck (and dead
    # cards) onto itself; where suits never decide (stellapoker) the two are worth the same
    rng = random.Random(seed)
    while True:
        deck = deck_cards(7)
        a = rng.sample([c for c in deck if c & 3 >= 2], 3)
        b = [_swap(c) for c in a]
        dead = rng.sample([c for c in deck if c & 3 < 2], rng.randint(0, 3))
        dead += [c for c in rng.sample(deck, 2) if c & 3 >= 2]
        dead += [_swap(c) for c in dead if c & 3 >= 2]
        if len(set(a) | set(b)) == 6 and not (set(dead) & (set(a) | set(b))) and len(set(dead)) == len(dead):
            break
    r = equity(STELLAPOKER, [b, a] if seed % 2 else [a, b], dead=dead)
    assert r.exact and r.hands[0].exact_equity == r.hands[1].exact_equity == Fraction(1, 2)
    assert r.hands[0].win == r.hands[1].win


def test_three_suits_three_players_a_third_each() -> None:
    r = equity(STELLAPOKER, [_cards("Ah Kh Qh Jh"), _cards("Ad Kd Qd Jd"), _cards("Ac Kc Qc Jc")])
    assert [h.exact_equity for h in r.hands] == [Fraction(1, 3)] * 3


def test_a_decided_hand_gets_one_and_zero() -> None:
    # every card known: one runout
    r = equity(CLASSIC, [_cards("Qc Qs 9c Jc Jd"), _cards("Js Jh 8d Qh Qd")], vela=make_card(13, 0))
    assert r.exact and r.runouts == 1
    assert [h.exact_equity for h in r.hands] == [Fraction(0), Fraction(1)]
    # drawing dead: off-suit low cards cannot beat four aces with two cards to come
    r = equity(STELLAPOKER, [_cards("Ah Ad Ac As Kh"), _cards("7s 8d 9c")])
    assert r.runouts > 1
    assert [h.exact_equity for h in r.hands] == [Fraction(1), Fraction(0)]
    assert r.hands[0].win == 1.0 and r.hands[1].win == 0.0


def test_single_hand_and_split_counts() -> None:
    r = equity(CLASSIC, [_cards("Ah Kd")])
    assert r.hands[0].exact_equity == 1
    # stellapoker, the same ranks in two suits and nothing to come: a split, tie 1
    r = equity(STELLAPOKER, [_cards("Ah Kd Qc 9s 8s"), _cards("As Kc Qd 9h 8h")])
    assert [(h.exact_equity, h.win, h.tie) for h in r.hands] == [(Fraction(1, 2), 0.0, 1.0)] * 2


@pytest.mark.parametrize(
    "rules, hands, kwargs, samples",
    [
        (CLASSIC, ["Qc Qs 9c", "Ah Kd Jh"], {}, 20_000),  # looked up in the key tables
        (CLASSIC, ["Qc Qs 9c 7h", "Ah Kd Jh 8d", "Tc Ts 9d 7s"], {}, 20_000),
        (STELLAPOKER, ["Qc Qs 9c", "?? Kd Jh"], {}, 300),  # tables larger than the samples: evaluated
        (ITALIAN, ["Qc Qs 9c", "Ah Kd Jh"], {"players": 6, "vela": make_card(12, 3)}, 200),
    ],
)
def test_sampled_within_four_standard_errors_of_exact(
    rules: RuleSet, hands: list[str], kwargs: dict[str, object], samples: int
) -> None:
    parsed = [_cards(h) for h in hands]
    if "vela" in kwargs:
        rules = rules.with_options(vela="at_start")
    exact = equity(rules, parsed, **kwargs)  # type: ignore[arg-type]
    sampled = equity(rules, parsed, exact_limit=0, samples=samples, seed=7, **kwargs)  # type: ignore[arg-type]
    assert exact.exact and not sampled.exact and sampled.samples == samples
    for e, s in zip(exact.hands, sampled.hands):
        assert s.stderr is not None and s.stderr > 0
        assert abs(s.equity - e.equity) <= 4 * s.stderr
    assert abs(sum(h.equity for h in sampled.hands) - 1) < 1e-9
    again = equity(rules, parsed, exact_limit=0, samples=samples, seed=7, **kwargs)  # type: ignore[arg-type]
    assert again.hands == sampled.hands  # the same seed, the same figures
    other = equity(rules, parsed, exact_limit=0, samples=samples, seed=8, **kwargs)  # type: ignore[arg-type]
    assert other.hands != sampled.hands


def test_more_runouts_than_the_limit_are_sampled() -> None:
    r = equity(CLASSIC, [_cards("Qc Qs"), _cards("Ah Kd"), _cards("Th Td")], samples=5000)
    assert not r.exact and r.samples == 5000 and r.runouts > 10**10
    assert r.stderr is not None and 0 < r.stderr < 0.02


def test_limit_covers_heads_up_from_third_and_three_way_from_fourth() -> None:
    # the largest such deals: the italian deck for eight players, its vela still down
    rules = ITALIAN.with_options(vela="at_start")
    from hhtool.game.equity import EXACT_LIMIT, MULTIWAY_EXACT_LIMIT, _runouts as count

    deck = 4 * (14 - rules.lowest_rank(8) + 1)
    assert count(deck - 6, [2, 2], True) <= EXACT_LIMIT
    assert count(deck - 12, [1, 1, 1], True) <= MULTIWAY_EXACT_LIMIT
    assert count(32 - 6, [2, 2], True) <= EXACT_LIMIT  # classic


@pytest.mark.parametrize(
    "hands, kwargs, needle",
    [
        (["Qc Qs 9c", "Qc Ah"], {}, "Qc appears twice"),
        (["Qc Qs 9c 8c 7c Ah"], {}, "Ah is one too many"),
        (["Qc Qs 6c"], {}, "6c is not in the classic deck"),
        (["Qc Qs"], {"dead": ["Qs"]}, "Qs appears twice"),
        ([], {}, "no hands"),
        ([""], {}, "hand 1 has no cards"),
    ],
)
def test_bad_input_names_the_card(hands: list[str], kwargs: dict[str, object], needle: str) -> None:
    from hhtool.game.equity import equity_from_text

    with pytest.raises(EquityInputError, match=needle):
        equity_from_text(CLASSIC, hands, **kwargs)  # type: ignore[arg-type]


def test_vela_only_where_the_profile_has_one() -> None:
    from hhtool.game.equity import equity_from_text

    with pytest.raises(EquityInputError, match="stellapoker profile has no vela"):
        equity_from_text(STELLAPOKER, ["Qc Qs 9c"], vela="Ks")
    with pytest.raises(EquityInputError, match="no vela"):
        equity(STELLAPOKER, [_cards("Qc Qs 9c")], vela=make_card(13, 0))
    # italian: a vela given, or ?? for one still down, plays its at_start vela
    r = equity_from_text(ITALIAN, ["Qc Qs 9c Jd", "Ah Kd Jh Th"], vela="??", players=4)
    assert r.rules.has_vela and r.runouts == 24 * 23 * 22
    r = equity_from_text(ITALIAN, ["Qc Qs 9c Jd", "Ah Kd Jh Th"], vela="Qh", players=4)
    assert r.vela == make_card(12, 3) and r.runouts == 23 * 22


def test_not_enough_cards() -> None:
    dead = [c for c in deck_cards(7) if c not in parse_cards("Qc Qs Ah Kd 7s 8s")]
    with pytest.raises(EquityInputError, match="still to come"):
        equity(STELLAPOKER, [_cards("Qc Qs"), _cards("Ah Kd")], dead=dead)


def test_many_questions_at_once_get_what_each_gets_alone() -> None:
    # equities() keys the questions of one shape together: each question's figures (exact counts, sampled draws
    # from its own seed, the showdown's straight-flush duels, an error) must be those it gets asked alone, whatever
    # else is asked with it and in whatever order
    from hhtool.game.equity import Question, equities

    rng = random.Random(77)
    questions: list[Question] = []
    for _ in range(30):
        rules, hands, vela, dead, players = _random_case(rng)
        deck = deck_cards(rules.lowest_rank(players))
        for _ in range(3):  # the same shape with other cards (the deck mapped onto itself at random): keyed together
            to = dict(zip(deck, rng.sample(deck, len(deck))))
            h = [[None if c is None else to[c] for c in x] for x in hands]
            v = None if vela is None else to[vela]
            d = [to[c] for c in dead]
            questions.append(Question(rules, h, v, d, players))
            questions.append(Question(rules, h, v, d, players, samples=300, seed=rng.randint(0, 2), exact_limit=0))
    for n, size in [(2, 3), (2, 3), (2, 3), (3, 4), (3, 4), (4, 3), (4, 3)]:  # full decks: each drawn hand keyed
        for rules in (CLASSIC, ITALIAN.with_options(wild=9)):
            deck = deck_cards(rules.lowest_rank(6))
            rng.shuffle(deck)
            hands = [deck[i * size : (i + 1) * size] for i in range(n)]
            questions.append(Question(rules, hands, players=6, samples=250, exact_limit=0))
    for hands_text in (["7s 8s 9s Ts", "Jh Qh Kh Ah"], ["8d 9d Td Jd", "Tc Qc Kc Ac"]):  # duels of straight flushes
        questions.append(Question(CLASSIC, [_cards(h) for h in hands_text], samples=500, exact_limit=0))
    for sf_rules, sf_hands, keep in [
        (CLASSIC, ["7s 8s 9s Ts", "Jh Qh Kh Ah"], "As Js Th 9h 7h 8d Kd"),
        (CLASSIC, ["7s 8s 9s Ts", "Jh Qh Kh Ah", "7d 7c Qd Qc"], "As Js Th 9h 8d Kd"),
    ]:
        parsed = [_cards(h) for h in sf_hands]
        dead = _dead_but(sf_rules, len(sf_hands), keep, sf_hands)
        questions += [Question(sf_rules, parsed, dead=dead), Question(sf_rules, parsed, dead=dead, samples=500, exact_limit=0)]
    # straight-flush duels among runouts each drawn hand keyed (more unseen cards than a lookup takes, few samples), the
    # same deal twice with the players in another order: keyed together, each duel goes to the showdown with its own
    # question's cards
    duel = [_cards(h) for h in ("7s 8s 9s Ts", "Jh Qh Kh Ah")]
    dead = _dead_but(CLASSIC, 2, "As Js Th 9h 7h 8d Kd Qd Qc 7c 7d Ad Ac", ["7s 8s 9s Ts", "Jh Qh Kh Ah"])
    questions += [Question(CLASSIC, h, dead=dead, samples=100, exact_limit=0) for h in (duel, duel[::-1])]
    questions.insert(7, Question(CLASSIC, [_cards("Ah Ah"), _cards("Kd Kc")]))  # a card twice: an error in its place
    questions.insert(11, Question(CLASSIC, [_cards("Ah Kh")], samples=0))
    rng.shuffle(questions)

    def alone(q: Question) -> EquityResult | str:
        try:
            return equity(q.rules, q.hands, vela=q.vela, dead=q.dead, players=q.players, samples=q.samples, seed=q.seed,
                          exact_limit=q.exact_limit)
        except EquityInputError as e:
            return str(e)

    together = equities(questions)
    assert len(together) == len(questions)
    assert sum(isinstance(r, EquityInputError) for r in together) == 2
    assert any(isinstance(r, EquityResult) and not r.exact for r in together)
    for q, r in zip(questions, together):
        assert (str(r) if isinstance(r, EquityInputError) else r) == alone(q)
