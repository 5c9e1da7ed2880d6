"""Equity in a replayed hand: each contender's share at every street, and the all-in expected value.

Two questions about one hand, both answered by :func:`hhtool.game.equity.equity`
on the cards the history shows:

* :func:`street_equities` -- after each street's deal (2nd to 5th), each
  contender's equity in one pot contested by everyone still in, so a floor
  manager (and the hand replayer) sees when the hand was decided.
* :func:`allin_evs` -- for every pot in which a player is all-in and no more
  betting can happen, each contender's expected value of that pot at the
  moment betting ended: what the import stores as the all-in adjusted net
  (``seats.allin_net``, docs/stats.md).

**Cards known** means what the history shows: the viewer's own cards in a
player's own history, every hole card in a history the room writes for an
audit, and whatever is shown down (a hole card first seen at the showdown
was that player's from 2nd street on).  A street is given only when every
contender's cards dealt by then are known.  **Dead cards** are the cards
face up of the players who had folded before that moment: everyone at the
table saw them, and they cannot come.  A folded player's hole card is not
dead even when an audit history shows it: nobody at the table saw it, so
it is an unseen card like any other (docs/equity.md).

The cards are the replay's reading of the history's deal, exposure and
showdown lines (``Replay.holdings``, :mod:`hhtool.replay.holdings`): the
pricing walks no event of its own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from hhtool.game.cards import Card
from hhtool.game.equity import DEFAULT_SEED, EquityInputError, EquityResult, equity
from hhtool.game.rules import ROUND_NAMES, RuleSet
from hhtool.replay.result import PotResult, Replay, has_all_in

STREET_SAMPLES: Final = 10_000
"""Runouts drawn for a street too large to count (an early street with several players): a standard error of
about half a point of equity on an even pot, at a few hundredths of a second a street."""

ALLIN_EXACT_LIMIT: Final = 30_000
"""The import counts an all-in exactly up to this many runouts (heads up from 4th street, three-way from 5th:
a millisecond or two); beyond, it samples, so that the import keeps 80 % of its rate on all-in-heavy
no-limit play (docs/stats.md, "All-in adjusted winnings"; docs/performance.md)."""

ALLIN_SAMPLES: Final = 2_000
"""Runouts drawn for an all-in the import does not count (heads up from 2nd and 3rd street, three-way from
4th): a standard error of about 1.1 points of equity on an even pot, unbiased, so that it averages out over a
player's all-ins, at about 3 ms a hand."""


@dataclass(frozen=True, slots=True)
class ContenderEquity:
    """One contender's figures at one moment: ``cards`` their own cards dealt by then, in deal order."""

    player: str
    cards: tuple[Card, ...]
    equity: float  # the expected share of the pot
    win: float  # the probability of taking it alone
    tie: float  # of sharing it
    stderr: float | None  # of ``equity``, when sampled
    exact_equity: Fraction | None  # when exact


@dataclass(frozen=True, slots=True)
class StreetEquity:
    """Every contender's equity after one street's deal: one pot contested by all who are still in."""

    street: str  # "2nd", "3rd", "4th", "5th"
    line: int  # the street's line (``*** 3rd STREET ***``) in the history
    dead: tuple[Card, ...]  # folded players' up cards
    exact: bool  # every runout counted, else ``samples`` drawn
    runouts: int
    samples: int  # 0 when exact
    contenders: tuple[ContenderEquity, ...]  # in deal order (from the button's left)

    @property
    def decided(self) -> bool:
        """One contender wins whatever comes (equity 1)."""
        return any(c.win == 1.0 for c in self.contenders)


@dataclass(frozen=True, slots=True)
class PotEV:
    """One all-in pot priced: each contender's expected value of it, in minor units summing to ``amount``."""

    index: int  # in ``Replay.pots``
    name: str  # "main pot", "side pot-1", ...
    amount: int  # what its winners share: the pot less the rake the hand took from it
    street: str  # where betting ended: the cards known were those dealt by then
    exact: bool
    ev: dict[str, int]  # contender -> expected value, rounded (largest remainder, see :func:`shares`)
    equity: dict[str, float]


def _players(r: Replay) -> list[str]:
    """The players dealt in, in deal order (from the button's left)."""
    return list(r.stacks)


def _contenders(result: EquityResult, names: Sequence[str], cards: Sequence[tuple[Card, ...]]) -> tuple[ContenderEquity, ...]:
    return tuple(
        ContenderEquity(n, c, h.equity, h.win, h.tie, h.stderr, h.exact_equity)
        for n, c, h in zip(names, cards, result.hands)
    )


def street_equities(
    replay: Replay, rules: RuleSet | None = None, *, samples: int = STREET_SAMPLES, seed: int = DEFAULT_SEED
) -> list[StreetEquity]:
    """Each contender's equity after every street's deal where every contender's cards are known.

    ``replay`` is the hand's (:func:`hhtool.replay.replay`), whose reading of
    the cards (``Replay.holdings``: each player's, face up as its rules deal
    them) it prices; ``rules`` the comparison to price it under (default the
    replay's).  A street is
    skipped when fewer than two players are in, a contender's cards dealt
    by then are not all known, no card is left to come (5th street
    without a vela: the showdown decides), or the cards cannot be (a card twice, a card
    outside the deck: the replay's findings say so).  Exact or sampled as
    :func:`hhtool.game.equity.equity` decides, with ``samples`` and ``seed``.
    """
    rules = rules if rules is not None else replay.rules
    seen = replay.holdings
    players = _players(replay)
    out: list[StreetEquity] = []
    for rnd, line in seen.streets:
        if rnd > 4:
            continue
        names = [n for n in players if n in seen.held and seen.held[n].in_at(rnd)]
        cards = [seen.held[n].known_at(rnd) for n in names]
        if len(names) < 2 or any(c is None for c in cards):
            continue
        known = [c for c in cards if c is not None]
        dead = seen.dead(rnd, players)
        try:
            res = equity(rules, known, dead=dead, players=len(players), samples=samples, seed=seed)
        except EquityInputError:
            continue
        if res.runouts == 1:  # every card out (5th street without a vela): the showdown says the rest
            continue
        out.append(
            StreetEquity(ROUND_NAMES[rnd - 1], line, tuple(dead), res.exact, res.runouts, res.samples, _contenders(res, names, known))
        )
    return out


# ---------------------------------------------------------------------------
# All-in expected value


def shares(amount: int, weights: Sequence[Fraction]) -> list[int]:
    """``amount`` minor units split in proportion to ``weights`` (summing to 1), in whole units summing to ``amount``.

    Largest remainder: each gets the floor of its exact share, and the units
    left go one each to the largest fractional parts, ties to the first in
    order (the contenders are in deal order from the button's left, as the
    odd chip of a split pot goes, RULES.md §7).
    """
    den = math.lcm(*(w.denominator for w in weights))
    return _shares(amount, [w.numerator * (den // w.denominator) for w in weights], den)


def _shares(amount: int, parts: Sequence[int], whole: int) -> list[int]:
    """:func:`shares` of the weights ``parts[i] / whole``, in integers: the exact share ``amount * parts[i] / whole``
    has the floor ``amount * parts[i] // whole`` and the fractional part ``remainder / whole``, whose order is the
    remainders' (no :class:`~fractions.Fraction` a contender: the import prices every all-in pot this way)."""
    base = []
    rest = []
    for part in parts:
        q, r = divmod(amount * part, whole)
        base.append(q)
        rest.append(r)
    left = amount - sum(base)
    order = sorted(range(len(base)), key=lambda i: (-rest[i], i))
    for i in order[: max(0, left)]:
        base[i] += 1
    return base


def allin_evs(
    replay: Replay, *, samples: int = ALLIN_SAMPLES, seed: int = DEFAULT_SEED, exact_limit: int | None = ALLIN_EXACT_LIMIT
) -> list[PotEV]:
    """Every pot in which a player is all-in and no more betting can happen, priced at the moment betting ended.

    The moment is the end of the last betting round with a forced bet or an
    action; the cards known then are those dealt by that round, and what is
    still to come (each contender's cards up to five, the vela) is what the
    equity counts.  Each pot with two or more contenders whose cards are all
    known is priced among its own contenders: equity times the pot less the
    rake the hand took from it (:attr:`PotResult.rake`), with the folded
    players' up cards and, for a side pot, the other contenders' cards
    dead.  Nothing when betting ended with every card out (the showdown
    decides it), before any card was dealt, or the cards are impossible.
    """
    rules = replay.rules
    seen = replay.holdings
    rnd = seen.last_money
    players = _players(replay)
    if rnd < 1 or rnd >= 5 or (rnd == 4 and not rules.has_vela) or not seen.betting_over(players):
        return []
    folded_up = [c for n in players if n in seen.held and seen.held[n].folded for c in seen.held[n].up]
    in_hand = [n for n in players if n in seen.held and seen.held[n].folded == 0]
    known = {n: seen.held[n].known_at(rnd) for n in in_hand}
    out: list[PotEV] = []
    for i, pot in enumerate(replay.pots):
        names = [n for n in pot.eligible if n in known]
        cards = [known[n] for n in names]
        if len(names) < 2 or len(names) != len(pot.eligible):
            continue
        hands = [c for c in cards if c is not None]
        if len(hands) != len(names):
            continue
        others = [c for n in in_hand if n not in names for c in known[n] or ()]
        try:
            res = equity(
                rules, hands, dead=[*folded_up, *others], players=len(players), samples=samples, seed=seed, exact_limit=exact_limit
            )
        except EquityInputError:
            continue
        out.append(_priced(i, pot, ROUND_NAMES[rnd - 1], res, names))
    return out


def _priced(index: int, pot: PotResult, street: str, res: EquityResult, names: Sequence[str]) -> PotEV:
    amount = pot.amount - pot.rake
    weights = [h.exact_equity if h.exact_equity is not None else Fraction(h.equity) for h in res.hands]
    den = math.lcm(*(w.denominator for w in weights))
    parts = [w.numerator * (den // w.denominator) for w in weights]  # the weights over one denominator
    total = sum(parts)
    ev = _shares(amount, parts, total) if total else [0] * len(names)
    return PotEV(index, pot.name, amount, street, res.exact, dict(zip(names, ev)), {n: h.equity for n, h in zip(names, res.hands)})


def allin_adjustments(
    replay: Replay, *, samples: int = ALLIN_SAMPLES, seed: int = DEFAULT_SEED, exact_limit: int | None = ALLIN_EXACT_LIMIT
) -> dict[str, int]:
    """Per player, expected value less what the rules award in the all-in pots (:func:`allin_evs`): net + this is the all-in adjusted net.

    Empty for a hand without such an all-in: its adjusted net is its net.
    """
    out: dict[str, int] = {}
    for p in allin_evs(replay, samples=samples, seed=seed, exact_limit=exact_limit):
        won = replay.pots[p.index].winners
        for n, v in p.ev.items():
            out[n] = out.get(n, 0) + v - won.get(n, 0)
    return out


__all__ = [
    "ALLIN_SAMPLES", "STREET_SAMPLES", "ContenderEquity", "PotEV", "StreetEquity", "allin_adjustments", "allin_evs", "has_all_in",
    "shares", "street_equities",
]
