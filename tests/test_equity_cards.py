"""The cards the equities price (``Replay.holdings``), held to a plain walk of the events on all-in hands of every kind.

The equities (:mod:`hhtool.replay.equities`) price from what the replay
read of the cards (:mod:`hhtool.replay.holdings`), not from a walk of their
own.  :class:`ReferenceWalk` is that walk, the reading the equities made
before (each deal line's cards, an exposed card filling the latest unseen
place, a shown card the first, the first fold, the streets' lines, the
round of the last money, who a line says is all-in), written the slow,
obvious way and sharing nothing with the replay.  On simulated no-limit
and pot-limit hands of every profile and exposure, in the audit view and a
player's own, with and without faults, every dealt-in player's cards,
rounds, up cards and fold, the streets, the round of the last money and
the all-in claims must be the same, so the equities and the import's
all-in adjusted net are what they were.
"""

from __future__ import annotations

from collections.abc import Iterator

from hhtool.game.cards import Card
from hhtool.game.rules import RuleSet, round_of_street
from hhtool.history.events import (
    ACTIONS,
    Bet,
    BringIn,
    Call,
    Complete,
    Deal,
    Expose,
    Fold,
    Hand,
    PostAnte,
    PostBlind,
    RaiseTo,
    Shows,
    Street,
    Vela,
)
from hhtool.history.reader import read_text
from hhtool.replay import Replay, replay
from hhtool.replay.equities import allin_evs
from hhtool.replay.result import has_all_in
from hhtool.simulate import simulate_text
from hhtool.simulate.config import make_config

CONFIGS = [
    (rules, options, structure, view, faults)
    for rules, options in (
        ("classic", None), ("stellapoker", None), ("italian", None), ("italian", "carte-coperte"),
        ("italian", "una-coperta"), ("italian", "vela-at-start,wild=7"),
    )
    for structure in ("no", "pot")
    for view in ("audit", "bob")
    for faults in (0.0, 0.3)
]


class RefHolding:
    """One player's cards as the lines show them: in deal order (None unseen), the round of each, the up cards, the fold."""

    def __init__(self) -> None:
        self.cards: list[Card | None] = []
        self.rounds: list[int] = []
        self.up: list[Card] = []
        self.folded = 0


class ReferenceWalk:
    """The events walked once, in order, for the cards alone (see the module's docstring)."""

    def __init__(self, hand: Hand, rules: RuleSet) -> None:
        self.held: dict[str, RefHolding] = {}
        self.streets: list[tuple[int, int]] = []
        self.last_money = 0
        self.all_in: set[str] = set()
        rnd = 0
        for e in hand.events:
            if isinstance(e, Street):
                rnd = round_of_street(e.name)
                self.streets.append((rnd, e.line))
            elif isinstance(e, Deal):
                self.deal(e, rnd, rules)
            elif isinstance(e, (Expose, Shows)):
                self.learn(e.player, e.cards, exposed=isinstance(e, Expose))
            elif isinstance(e, Vela):
                rnd = 5
            elif isinstance(e, (*ACTIONS, PostAnte, PostBlind)):
                self.last_money = rnd
                if isinstance(e, (PostAnte, PostBlind, BringIn, Complete, Bet, Call, RaiseTo)) and e.all_in:
                    self.all_in.add(e.player)
                if isinstance(e, Fold) and e.player in self.held and self.held[e.player].folded == 0:
                    self.held[e.player].folded = max(rnd, 1)

    def deal(self, e: Deal, rnd: int, rules: RuleSet) -> None:
        mine = self.held.setdefault(e.player, RefHolding())
        known = list(e.known or ())
        if rnd <= 1:  # the hole card and the door card; the door up unless every card is dealt down
            mine.cards = [known[0], known[1]] if len(known) >= 2 else [None, known[0]] if known else [None, None]
            mine.rounds = [1, 1]
            if rules.exposure != "carte_coperte" and mine.cards[1] is not None:
                mine.up = [mine.cards[1]]
            return
        if mine.cards and mine.cards[0] is None and known and len(known) > len(mine.up) and known[0] not in mine.up:
            mine.cards[0] = known[0]  # a hole card first seen repeated on a later street
        card = e.new[0] if e.new else None
        mine.cards.append(card)
        mine.rounds.append(rnd)
        face_up = rules.exposure == "standard" or (rules.exposure == "una_coperta" and rnd != 4)
        if card is not None and face_up:
            mine.up.append(card)

    def learn(self, player: str, cards: tuple[Card, ...], *, exposed: bool) -> None:
        mine = self.held.get(player)
        if mine is None:
            return
        for c in cards:
            if c not in mine.cards and None in mine.cards:
                unseen = [k for k, x in enumerate(mine.cards) if x is None]
                mine.cards[unseen[-1] if exposed else unseen[0]] = c
            if exposed and c not in mine.up:
                mine.up.append(c)


def _replays() -> Iterator[tuple[str, Replay]]:
    for k, (rules, options, structure, view, faults) in enumerate(CONFIGS):
        config = make_config(
            rules=rules, structure=structure, players=4 if k % 2 else 6, italian_options=options, seed=40 + k, view=view, faults=faults
        )
        text, _ = simulate_text(config, 40)
        for h in read_text(text):
            if isinstance(h, Hand):  # a faulty hand that does not parse has no replay to price
                yield f"{rules} {options} {structure} {view} {faults} {h.hand_id}", replay(h)


REPLAYS = list(_replays())


def test_the_corpus_has_all_in_pots_exposures_folds_and_own_views() -> None:
    priced = [r for _, r in REPLAYS if has_all_in(r) and allin_evs(r, samples=50)]
    assert len(priced) >= 100
    assert any(r.rules.exposure == "carte_coperte" for r in priced) and any(r.rules.exposure == "una_coperta" for r in priced)
    assert any(h.folded for _, r in REPLAYS for h in r.holdings.held.values())
    assert any(c is None for _, r in REPLAYS for h in r.holdings.held.values() for c in h.cards)  # own views: unseen cards


def _differences(r: Replay) -> list[str]:
    """What the replay's holdings say otherwise than the reference walk, for the players dealt in (the equities price no one else)."""
    ref = ReferenceWalk(r.hand, r.rules)
    got = r.holdings
    out = []
    if got.streets != tuple(ref.streets):
        out.append(f"streets {got.streets} != {ref.streets}")
    if got.last_money != ref.last_money:
        out.append(f"last money {got.last_money} != {ref.last_money}")
    for n in r.stacks:
        want, have = ref.held.get(n), got.held.get(n)
        if (have is None) != (want is None):
            out.append(f"{n}: holding {have} != {want}")
        elif have is not None and want is not None:
            if (have.cards, have.rounds, have.up, have.folded) != (tuple(want.cards), tuple(want.rounds), tuple(want.up), want.folded):
                out.append(f"{n}: {have} != {want.cards, want.rounds, want.up, want.folded}")
        if (n in got.all_in) != (n in ref.all_in):
            out.append(f"{n}: all-in {n in got.all_in} != {n in ref.all_in}")
    return out


def test_the_replays_cards_are_the_lines_cards() -> None:
    bad = {name: d for name, r in REPLAYS if (d := _differences(r))}
    assert not bad, list(bad.items())[:5]
