"""Each player's share of the pot while cards are still to come: ``hhtool equity``'s figures, the audit's and the import's.

A player's **equity** is the expected share of the pot: over every way the
cards still to come can fall (each player's own cards up to five, and the
vela where the profile has one and it is not up), the average of 1 for a
win, 1/k for a k-way split and 0 for a loss, by exactly the comparison the
showdown uses (:func:`hhtool.game.showdown.winners`: the profile's tie-break,
its straight-flush rule, the deck by players, wild cards).  ``win`` is the
probability of taking the pot alone, ``tie`` of sharing it.  Every card not
seen -- not in a hand, not the vela, not among the ``dead`` cards (folded
players' up cards) -- is equally likely to come, as it is for anyone at the
table who has not seen more.

**Exact** when the runouts number at most ``exact_limit`` (:data:`EXACT_LIMIT`
heads up, :data:`MULTIWAY_EXACT_LIMIT` with more players) and the key tables
below hold at most :data:`TABLE_LIMIT` completions: every runout is counted once, so the figures are fractions
(:attr:`PlayerEquity.exact_equity`).  Otherwise **sampled**: ``samples``
runouts drawn uniformly with numpy's generator seeded by ``seed`` (the same
seed gives the same figures), with the standard error of each equity.

How the exact count stays fast (docs/equity.md): a runout is a vela and,
for each player, the set of their cards to come, pairwise disjoint.  For a
given vela a player's hand depends only on their own set, so each player's
possible completions are ranked once per vela -- a few thousand keys with
:func:`hhtool.game.keys.keys` instead of one per runout and player -- and a
runout is a tuple of indices into those tables.  Which tuples are disjoint
does not depend on the vela (the completions are indexed by position in the
cards left beside the vela), so that work is done once.  Heads up, the
counting is a comparison of two key tables, masked by disjointness, over
all velas at once; with more players the disjoint tuples are listed.
The one place a key comparison is not the showdown's is two straight
flushes under the profiles' special straight-flush rules (RULES.md §3): such
runouts go through :func:`hhtool.game.evaluate.evaluate` and
:func:`hhtool.game.showdown.winners` one by one.  Everything is checked against a
brute force over every runout in ``tests/test_equity.py``.

The figures only: ``hhtool equity``'s table and JSON are
:mod:`hhtool.game.equity_render`'s; the audit words its own
(:mod:`hhtool.replay.audit`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache, reduce
from itertools import combinations
from typing import TYPE_CHECKING

from hhtool.game.keys import category_shift, keys as batch_keys
from hhtool.game.cards import Card, card_str, deck_cards
from hhtool.game.evaluate import STRAIGHT_FLUSH, evaluate
from hhtool.game.rank import OWN_CARDS, UNSEEN, RankInputError, check_cards, parse_labelled, table_players, vela_rules
from hhtool.game.rules import RuleSet, RulesError
from hhtool.game.showdown import winners

if TYPE_CHECKING:
    import numpy as np

EXACT_LIMIT = 30_000_000
"""Heads up, enumerate every runout up to this many (every all-in from 3rd street: at most 25.5 million)."""
MULTIWAY_EXACT_LIMIT = 10_000_000
"""With three or more players, up to this many (every three-way all-in from 4th street: at most 1.4 million)."""
TABLE_LIMIT = 2_000_000
"""And only when the players' completions to key number at most this many (a second or so of keys; only
deals with many ``??`` cards come near it: heads up from 2nd street, 163,800)."""
DEFAULT_SAMPLES = 100_000
"""Runouts drawn when there are too many to count (a standard error of about 0.16 points on an even pot)."""
DEFAULT_SEED = 0
"""The seed when none is given: the same question always gets the same figures."""

MIN_ACCEPT = 0.05
"""Sampling looks runouts up in the key tables only when at least this share of independent draws is disjoint."""

_CELLS = 1 << 22  # elements of one numpy block: bounds the memory of the counting


class EquityInputError(RankInputError):
    """Bad input to ``equity``: the message names the offending hand and card."""


@dataclass(frozen=True, slots=True)
class PlayerEquity:
    """One player's figures; ``cards`` as given, ``None`` for a card nobody has seen."""

    index: int  # position in the input, from 0
    cards: tuple[Card | None, ...]
    equity: float
    win: float
    tie: float
    stderr: float | None  # of ``equity``, when sampled
    exact_equity: Fraction | None  # when exact


@dataclass(frozen=True, slots=True)
class EquityResult:
    """Every player's equity, in input order, and how it was found."""

    rules: RuleSet
    vela: Card | None
    dead: tuple[Card, ...]
    players: int  # dealt in: sizes the by_players deck
    exact: bool
    runouts: int  # every possible runout (all of them counted when exact)
    samples: int  # runouts drawn when sampled, else 0
    seed: int | None  # when sampled
    hands: tuple[PlayerEquity, ...]

    def best_first(self) -> list[PlayerEquity]:
        return sorted(self.hands, key=lambda h: (-h.equity, h.index))

    @property
    def stderr(self) -> float | None:
        """The largest standard error of the players' equities, when sampled."""
        errs = [h.stderr for h in self.hands if h.stderr is not None]
        return max(errs) if errs else None


# ---------------------------------------------------------------------------
# The deal: what is known, what is to come


@dataclass(frozen=True, slots=True)
class _Deal:
    """A checked question: what each player holds, what is unseen, and how many runouts there are."""

    rules: RuleSet
    low: int
    known: tuple[tuple[Card, ...], ...]  # each player's seen cards
    need: tuple[int, ...]  # each player's cards to come (their ?? included)
    vela: Card | None
    draw_vela: bool
    unseen: tuple[Card, ...]  # in card order
    runouts: int


def _runouts(unseen: int, need: Sequence[int], draw_vela: bool) -> int:
    """u * C(u - 1, k1) * C(u - 1 - k1, k2) * ...: the vela (if drawn), then each player's set of cards to come."""
    total = unseen if draw_vela else 1
    left = unseen - (1 if draw_vela else 0)
    for k in need:
        total *= math.comb(left, k)
        left -= k
    return total


def _deal(
    rules: RuleSet,
    hands: Sequence[Sequence[Card | None]],
    vela: Card | None,
    dead: Sequence[Card],
    players: int | None,
) -> tuple[_Deal, int]:
    """Check the input (every error names the hand and card) and lay out the deal; also the players dealt in."""
    if not hands:
        raise EquityInputError("no hands: give each player's cards, e.g. \"Qc Qs 9c\"")
    for i, h in enumerate(hands):
        if len(h) > OWN_CARDS:
            shown = " ".join(UNSEEN if c is None else card_str(c) for c in h)
            extra = h[OWN_CARDS]
            raise EquityInputError(
                f"hand {i + 1} has {len(h)} cards ({shown}); a player holds at most {OWN_CARDS}: "
                f"{UNSEEN if extra is None else card_str(extra)} is one too many"
            )
        if not h:
            raise EquityInputError(f"hand {i + 1} has no cards: give the cards seen, {UNSEEN} for one nobody has seen")
    if vela is not None and not rules.has_vela:
        raise EquityInputError(f"vela {card_str(vela)}: the {rules.name} profile has no vela")
    try:
        n_players = table_players(rules, len(hands), players)
        cards = [c for h in hands for c in h if c is not None]
        if vela is not None:
            cards.append(vela)
        cards += dead
        low = rules.lowest_rank(n_players)
        seen = set(cards)
        if len(seen) < len(cards) or (cards and min(cards) >> 2 < low):  # the error names the card and where it is
            labelled = [(f"hand {i + 1}", c) for i, h in enumerate(hands) for c in h if c is not None]
            if vela is not None:
                labelled.append(("the vela", vela))
            labelled += [("the dead cards", c) for c in dead]
            check_cards(rules, n_players, labelled)
    except RankInputError as e:
        raise EquityInputError(str(e)) from None
    unseen = tuple(c for c in deck_cards(low) if c not in seen)
    known = tuple(tuple(c for c in h if c is not None) for h in hands)
    need = tuple(OWN_CARDS - len(k) for k in known)
    draw_vela = rules.has_vela and vela is None
    to_come = sum(need) + (1 if draw_vela else 0)
    if to_come > len(unseen):
        raise EquityInputError(
            f"{to_come} cards are still to come but only {len(unseen)} {'is' if len(unseen) == 1 else 'are'} unseen in the "
            f"{rules.name} deck for {n_players} players: fewer hands or dead cards"
        )
    return _Deal(rules, low, known, need, vela, draw_vela, unseen, _runouts(len(unseen), need, draw_vela)), n_players


# ---------------------------------------------------------------------------
# Counting


class _Tally:
    """Per player: runouts won alone, shared, and the share summed in units of 1/lcm(1..n)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.unit = _unit(n)
        self.count = 0
        self.win = [0] * n
        self.tie = [0] * n
        self.units = [0] * n
        self.squares = [0] * n  # of the units: the sampled variance

    def add_best(self, best: np.ndarray) -> None:
        """Add runouts given as a (T, n) boolean array: True where the player shares the pot."""
        import numpy as np

        ways = best[:, 0].astype(np.intp)  # column by column: a sum along rows of two to eight is slow in numpy
        for i in range(1, self.n):
            ways += best[:, i]
        self.count += best.shape[0]
        for i in range(self.n):
            by_ways = np.bincount(ways[best[:, i]], minlength=self.n + 1).tolist()
            self.win[i] += by_ways[1]
            self.tie[i] += sum(by_ways[2:])
            for k, runouts in enumerate(by_ways[1:], start=1):
                u = self.unit // k
                self.units[i] += runouts * u
                self.squares[i] += runouts * u * u

    def add_winners(self, win: Sequence[int], sign: int = 1) -> None:
        """Add one runout whose pot the players ``win`` share (``sign`` -1 takes one back)."""
        self.count += sign
        u = self.unit // len(win)
        for i in win:
            if len(win) == 1:
                self.win[i] += sign
            else:
                self.tie[i] += sign
            self.units[i] += sign * u
            self.squares[i] += sign * u * u


@lru_cache(maxsize=16)
def _unit(n: int) -> int:
    """lcm(1..n): a k-way split's share of a pot is a whole number of these units for every k up to n."""
    return reduce(math.lcm, range(1, n + 1), 1)


def _showdown(deal: _Deal, hands: Sequence[Iterable[int]]) -> list[int]:
    """The showdown's own answer for one runout (the straight-flush rules that keys cannot express)."""
    rules, low = deal.rules, deal.low
    return winners([evaluate([Card(int(c)) for c in h], rules, low) for h in hands], rules)


def _key_winners(keys: Sequence[int]) -> list[int]:
    """Who shares the pot by key order alone (what the table comparison counted)."""
    top = max(keys)
    return [i for i, k in enumerate(keys) if k == top]


@lru_cache(maxsize=64)
def _completions(left: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every set of ``k`` positions among ``left`` cards, in lexicographic order, and each set's bit mask.

    The same few shapes come back hand after hand of an import (``left`` and ``k`` only): built once a
    process, read-only.
    """
    import numpy as np

    every = list(combinations(range(left), k))
    pos = np.array(every, dtype=np.intp).reshape(len(every), k)
    mask = np.left_shift(np.int64(1), pos.astype(np.int64)).sum(axis=1, dtype=np.int64)
    pos.flags.writeable = False
    mask.flags.writeable = False
    return pos, mask


class _Tables:
    """Per player, every completion for every vela: its key, and the cards it uses.

    ``keys[i]`` is (V, C_i): vela ``v``, completion ``c`` (the ``c``-th set
    of positions among the cards left beside the vela, in lexicographic
    order).  ``masks[i][c]`` has bit ``p`` for each position ``p`` it uses:
    two completions can be dealt together when their masks share no bit,
    whatever the vela.  A hand's cards are rebuilt on demand
    (:meth:`hand`): only duels of straight flushes need them.
    """

    def __init__(self, deal: _Deal) -> None:
        import numpy as np

        unseen = np.array(deal.unseen, dtype=np.int64)
        if deal.draw_vela:
            self.velas = len(unseen)
            others = np.arange(self.velas - 1)
            self.pools = unseen[others[None, :] + (others[None, :] >= np.arange(self.velas)[:, None])]  # row v: all but v
            self.vela_col: np.ndarray | None = unseen.reshape(self.velas, 1)
        else:
            self.velas = 1
            self.pools = unseen.reshape(1, -1)
            self.vela_col = None if deal.vela is None else np.array([[deal.vela]], dtype=np.int64)
        left = self.pools.shape[1]
        self.known = [np.array(k, dtype=np.int64) for k in deal.known]
        self.positions: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.keys: list[np.ndarray] = []
        for i, k in enumerate(deal.need):
            pos, mask = _completions(left, k)
            self.positions.append(pos)
            self.masks.append(mask)
            keys = np.empty((self.velas, len(pos)), dtype=np.int64)
            step = max(1, _CELLS // (4 * len(pos)))  # bounds the memory of the hands being keyed
            for v0 in range(0, self.velas, step):
                hands = self._hands(i, slice(v0, v0 + step))
                keys[v0 : v0 + step] = batch_keys(hands.reshape(-1, hands.shape[2]), deal.rules, deal.low).reshape(
                    hands.shape[0], hands.shape[1]
                )
            self.keys.append(keys)

    def _hands(self, i: int, velas: slice) -> np.ndarray:
        """(V', C_i, hand length): player ``i``'s hand for every completion and each vela of the slice."""
        import numpy as np

        pools = self.pools[velas]
        pos = self.positions[i]
        shape = (pools.shape[0], len(pos))
        parts = [np.broadcast_to(self.known[i], (*shape, len(self.known[i]))), pools[:, pos]]
        if self.vela_col is not None:
            parts.append(np.broadcast_to(self.vela_col[velas][:, None, :], (*shape, 1)))
        return np.concatenate(parts, axis=2)

    def hand(self, i: int, v: int, c: int) -> list[int]:
        """Player ``i``'s cards with vela ``v`` and completion ``c``."""
        vela = [] if self.vela_col is None else [int(self.vela_col[v, 0])]
        return [*self.known[i].tolist(), *self.pools[v, self.positions[i][c]].tolist(), *vela]


def _table_size(deal: _Deal) -> int:
    """How many completions :class:`_Tables` would key."""
    left = len(deal.unseen) - (1 if deal.draw_vela else 0)
    return (len(deal.unseen) if deal.draw_vela else 1) * sum(math.comb(left, k) for k in deal.need)


def _special_sf(deal: _Deal) -> int | None:
    """The key of the straight-flush category when the profile's straight-flush rule is not key order."""
    if deal.rules.sf_rule == "standard":
        return None
    return STRAIGHT_FLUSH << category_shift(deal.rules.tie_break)


def _duel_tally(total: int, a_wins: int, ties: int) -> _Tally:
    """Two players' tally from the runouts counted: the first wins ``a_wins`` alone, they share ``ties``."""
    tally = _Tally(2)
    tally.count = total
    tally.win = [a_wins, total - a_wins - ties]
    tally.tie = [ties, ties]
    tally.units = [2 * a_wins + ties, 2 * (total - a_wins - ties) + ties]
    tally.squares = [4 * a_wins + ties, 4 * (total - a_wins - ties) + ties]
    return tally


def _exact_heads_up(deal: _Deal, t: _Tables) -> _Tally:
    """Two players: compare the key tables over every disjoint pair of completions, all velas at once."""
    import numpy as np

    ka, kb = t.keys
    disjoint = (t.masks[0][:, None] & t.masks[1][None, :]) == 0
    pairs = int(np.count_nonzero(disjoint))
    a_wins = ties = 0
    step = max(1, _CELLS // disjoint.size)
    for v0 in range(0, t.velas, step):
        a = ka[v0 : v0 + step, :, None]
        b = kb[v0 : v0 + step, None, :]
        a_wins += int(np.count_nonzero((a > b) & disjoint))
        ties += int(np.count_nonzero((a == b) & disjoint))
    tally = _duel_tally(pairs * t.velas, a_wins, ties)
    sf = _special_sf(deal)
    if sf is not None:
        sfa, sfb = ka >= sf, kb >= sf  # a straight flush, or pokerissimo above it (sorted out by the showdown)
        for v in np.flatnonzero(sfa.any(axis=1) & sfb.any(axis=1)).tolist():
            ia, ib = np.flatnonzero(sfa[v]), np.flatnonzero(sfb[v])
            for i, j in zip(*np.nonzero(disjoint[np.ix_(ia, ib)])):
                x, y = int(ia[i]), int(ib[j])
                tally.add_winners(_key_winners([int(ka[v, x]), int(kb[v, y])]), -1)
                tally.add_winners(_showdown(deal, [t.hand(0, v, x), t.hand(1, v, y)]))
    return tally


_Cards = Callable[[int], Sequence[Iterable[int]]]
"""A runout's hands by its row: for the few the showdown must settle one by one."""


def _best(deal: _Deal, keys: np.ndarray, cards: _Cards) -> np.ndarray:
    """(T, n) keys -> True where the player shares the pot: the best key, or the showdown's answer in a duel
    of straight flushes under a special straight-flush rule."""
    import numpy as np

    top = keys[:, 0].copy()  # the best key of each runout, column by column (a max along rows of two is slow)
    for i in range(1, keys.shape[1]):
        np.maximum(top, keys[:, i], out=top)
    best: np.ndarray = keys == top[:, None]
    sf = _special_sf(deal)
    if sf is not None:
        for r in np.flatnonzero(np.count_nonzero(keys >= sf, axis=1) >= 2).tolist():
            best[r] = False
            best[r, _showdown(deal, cards(r))] = True
    return best


def _disjoint_tuples(masks: Sequence[np.ndarray], per_vela: int) -> Iterator[list[np.ndarray]]:
    """Index arrays, one per player, of every choice of pairwise disjoint completions, in blocks."""
    import numpy as np

    first = masks[0]
    step = max(1, (_CELLS // 4) * len(first) // max(per_vela, 1))
    for start in range(0, len(first), step):
        idx = [np.arange(start, min(start + step, len(first)))]
        used = first[idx[0]]
        for m in masks[1:]:
            p, q = np.nonzero((used[:, None] & m[None, :]) == 0)
            idx = [a[p] for a in idx] + [q]
            used = used[p] | m[q]
        yield idx


def _exact_multiway(deal: _Deal, t: _Tables) -> _Tally:
    import numpy as np

    n = len(deal.known)
    tally = _Tally(n)
    per_vela = deal.runouts // t.velas
    for idx in _disjoint_tuples(t.masks, per_vela):
        rows = len(idx[0])
        step = max(1, _CELLS // (rows * n))
        for v0 in range(0, t.velas, step):
            k = np.stack([kt[v0 : v0 + step][:, ix] for kt, ix in zip(t.keys, idx)], axis=2).reshape(-1, n)

            def cards(r: int, v0: int = v0, idx: list[np.ndarray] = idx) -> list[list[int]]:
                return [t.hand(i, v0 + r // rows, int(ix[r % rows])) for i, ix in enumerate(idx)]

            tally.add_best(_best(deal, k, cards))
    return tally


def _accept(deal: _Deal) -> float:
    """The share of independent draws (a vela and a completion per player) that are disjoint."""
    left = len(deal.unseen) - (1 if deal.draw_vela else 0)
    velas = len(deal.unseen) if deal.draw_vela else 1
    return deal.runouts / (velas * math.prod(math.comb(left, k) for k in deal.need))


def _samples_looked_up(deal: _Deal, samples: int) -> bool:
    """Whether a sampled question looks its runouts up in the key tables: when those are smaller than the samples and
    most independent draws are disjoint (with nearly every unseen card to come, six players on 3rd street, nearly all
    would be thrown away: seconds of draws); else each drawn hand is keyed (:func:`_drawn`)."""
    small = _table_size(deal) <= min(samples * len(deal.known), TABLE_LIMIT)
    return small and _accept(deal) >= MIN_ACCEPT


def _sampled(deal: _Deal, samples: int, seed: int) -> _Tally:
    """``samples`` runouts drawn uniformly, looked up in the key tables (the draws of the other kind are
    :func:`_drawn`'s, many questions at once)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    tally = _Tally(len(deal.known))
    accept = _accept(deal)
    tables = _Tables(deal)
    for s in _blocks(len(deal.unseen), samples):
        keys, cards = _looked_up(tables, rng, s, accept)
        tally.add_best(_best(deal, keys, cards))
    return tally


def _blocks(unseen: int, samples: int) -> list[int]:
    """The sizes of the blocks ``samples`` runouts are drawn in (bounding the memory of one block)."""
    block = max(1, _CELLS // (4 * max(unseen, 1)))  # nothing unseen: a runout asked to be sampled has one way to fall
    return [min(block, samples - start) for start in range(0, samples, block)]


def _looked_up(t: _Tables, rng: np.random.Generator, s: int, accept: float) -> tuple[np.ndarray, _Cards]:
    """``s`` runouts from the key tables: a vela and a completion per player drawn independently, kept if disjoint.

    Every tuple of completions is equally likely before the test, so the
    disjoint ones kept are uniform over the runouts.
    """
    import numpy as np

    velas: list[np.ndarray] = []
    picks: list[list[np.ndarray]] = [[] for _ in t.masks]
    have = 0
    while have < s:
        m = int((s - have) / accept * 1.1) + 64
        v = rng.integers(0, t.velas, size=m)
        idx = [rng.integers(0, len(mask), size=m) for mask in t.masks]
        used = np.zeros(m, dtype=np.int64)
        ok = np.ones(m, dtype=bool)
        for mask, ix in zip(t.masks, idx):
            bits = mask[ix]
            ok &= (used & bits) == 0
            used |= bits
        keep = np.flatnonzero(ok)[: s - have]
        velas.append(v[keep])
        for p, ix in zip(picks, idx):
            p.append(ix[keep])
        have += len(keep)
    v = np.concatenate(velas)
    chosen = [np.concatenate(p) for p in picks]
    keys = np.stack([kt[v, ix] for kt, ix in zip(t.keys, chosen)], axis=1)
    return keys, lambda r: [t.hand(i, int(v[r]), int(ix[r])) for i, ix in enumerate(chosen)]


KEPT_DRAWS = 1 << 16
"""The draws of a shape are kept for the next question of the same shape up to this many positions (a screen's
400 runouts of nine cards: 3,600); the hundred thousand runouts of ``hhtool equity`` are drawn again each time."""


def _draw_positions(unseen: int, draws: int, samples: int, seed: int) -> tuple[np.ndarray, ...]:
    """The positions among ``unseen`` cards (in card order) of each sampled runout's ``draws`` cards, a block at a time.

    Each row is a partial Fisher-Yates shuffle of the positions, one swap
    per card to come: the vela first if drawn, then each player's cards.
    The generator is seeded afresh for every question, so every question
    with as many cards unseen and to come draws the same positions: the
    small ones are made once a process (:data:`KEPT_DRAWS`), read-only.
    """
    if samples * draws <= KEPT_DRAWS:
        return _kept_positions(unseen, draws, samples, seed)
    return _positions(unseen, draws, samples, seed)


@lru_cache(maxsize=256)
def _kept_positions(unseen: int, draws: int, samples: int, seed: int) -> tuple[np.ndarray, ...]:
    return _positions(unseen, draws, samples, seed)


def _positions(unseen: int, draws: int, samples: int, seed: int) -> tuple[np.ndarray, ...]:
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for s in _blocks(unseen, samples):
        perm = np.tile(np.arange(unseen, dtype=np.int8), s)
        base = np.arange(s) * unseen
        for d in range(draws):
            j = base + rng.integers(d, unseen, size=s)
            at = base + d
            here = perm[at]  # a copy: fancy indexing
            perm[at] = perm[j]
            perm[j] = here
        block = np.ascontiguousarray(perm.reshape(s, unseen)[:, :draws]).astype(np.intp)
        block.flags.writeable = False
        out.append(block)
    return tuple(out)


def _drawn(deals: Sequence[_Deal], samples: int, seed: int) -> list[_Tally]:
    """Sampled runouts of questions of one shape (rules, deck, cards unseen, each player's cards to come, the vela
    drawn or not), each hand keyed (:func:`hhtool.game.keys.keys`), the questions' hands keyed together.

    Each question's runouts are those it would draw alone (:func:`_draw_positions`), so its figures are the same
    whichever questions it is asked with.
    """
    import numpy as np

    first = deals[0]
    rules, low, n = first.rules, first.low, len(first.known)
    draws = sum(first.need) + (1 if first.draw_vela else 0)
    tallies = [_Tally(n) for _ in deals]
    blocks = _draw_positions(len(first.unseen), draws, samples, seed)
    hand_len = OWN_CARDS + (0 if not first.draw_vela and first.vela is None else 1)
    group = max(1, _CELLS // (4 * len(blocks[0]) * hand_len))  # questions keyed at once: bounds the memory
    for g0 in range(0, len(deals), group):
        part = deals[g0 : g0 + group]
        unseen = np.array([d.unseen for d in part], dtype=np.int64)
        for positions in blocks:
            drawn = unseen[:, positions]  # (questions, runouts, cards drawn)
            b, s = drawn.shape[0], drawn.shape[1]
            vela: list[np.ndarray] = []
            col = 0
            if first.draw_vela:
                vela, col = [drawn[:, :, :1]], 1
            elif first.vela is not None:
                vela = [np.broadcast_to(np.array([d.vela for d in part], dtype=np.int64)[:, None, None], (b, s, 1))]
            hands = []
            for i, k in enumerate(first.need):
                own = np.array([d.known[i] for d in part], dtype=np.int64).reshape(b, 1, -1)
                hands.append(np.concatenate([np.broadcast_to(own, (b, s, own.shape[2])), drawn[:, :, col : col + k], *vela], axis=2))
                col += k
            keys = np.stack([batch_keys(h.reshape(b * s, -1), rules, low).reshape(b, s) for h in hands], axis=2)
            for q, deal in enumerate(part):

                def cards(r: int, q: int = q) -> list[np.ndarray]:
                    return [h[q, r] for h in hands]

                tallies[g0 + q].add_best(_best(deal, keys[q], cards))
    return tallies


def _duels(deals: Sequence[_Deal]) -> list[_Tally]:
    """Every runout of two-player questions of one shape (as :func:`_drawn`'s), the key tables of all of them made at
    once: :func:`_exact_heads_up`'s count, question by question where a duel of straight flushes needs the showdown or
    one question's tables are large."""
    import numpy as np

    first = deals[0]
    rules, low = first.rules, first.low
    u = len(first.unseen)
    left = u - (1 if first.draw_vela else 0)
    (pos_a, mask_a), (pos_b, mask_b) = (_completions(left, k) for k in first.need)
    velas = u if first.draw_vela else 1
    cells = velas * len(pos_a) * len(pos_b)
    if cells * 4 > _CELLS:
        return [_exact_heads_up(d, _Tables(d)) for d in deals]
    if first.draw_vela:
        others = np.arange(u - 1)
        pool_at = others[None, :] + (others[None, :] >= np.arange(u)[:, None])  # row v: every position but v
    else:
        pool_at = np.arange(u)[None, :]
    disjoint = (mask_a[:, None] & mask_b[None, :]) == 0
    pairs = int(np.count_nonzero(disjoint))
    sf = _special_sf(first)
    out: list[_Tally] = []
    group = max(1, _CELLS // cells)
    for g0 in range(0, len(deals), group):
        part = deals[g0 : g0 + group]
        b = len(part)
        unseen = np.array([d.unseen for d in part], dtype=np.int64)
        pools = unseen[:, pool_at]  # (questions, velas, cards left)
        if first.draw_vela:
            vela: list[np.ndarray] = [unseen.reshape(b, u, 1, 1)]
        elif first.vela is not None:
            vela = [np.array([d.vela for d in part], dtype=np.int64).reshape(b, 1, 1, 1)]
        else:
            vela = []
        tables = []
        for i, pos in enumerate((pos_a, pos_b)):
            shape = (b, velas, len(pos))
            own = np.array([d.known[i] for d in part], dtype=np.int64).reshape(b, 1, 1, -1)
            parts = [np.broadcast_to(own, (*shape, own.shape[3])), pools[:, :, pos]]
            parts += [np.broadcast_to(v, (*shape, 1)) for v in vela]
            hands = np.concatenate(parts, axis=3)
            tables.append(batch_keys(hands.reshape(-1, hands.shape[3]), rules, low).reshape(shape))
        ka, kb = tables[0][:, :, :, None], tables[1][:, :, None, :]
        a_wins = np.count_nonzero((ka > kb) & disjoint, axis=(1, 2, 3)).tolist()
        ties = np.count_nonzero((ka == kb) & disjoint, axis=(1, 2, 3)).tolist()
        duel: list[bool] = [False] * b
        if sf is not None:  # both with a straight flush (or above) at some vela: the showdown's rule decides there
            both: np.ndarray = np.any(tables[0] >= sf, axis=2) & np.any(tables[1] >= sf, axis=2)
            duel = [bool(x) for x in np.any(both, axis=1)]
        for q, deal in enumerate(part):
            out.append(_exact_heads_up(deal, _Tables(deal)) if duel[q] else _duel_tally(pairs * velas, a_wins[q], ties[q]))
    return out


# ---------------------------------------------------------------------------
# The entry points


@dataclass(frozen=True, slots=True)
class Question:
    """One :func:`equity` question, as :func:`equities` takes many: the arguments of :func:`equity`."""

    rules: RuleSet
    hands: Sequence[Sequence[Card | None]]
    vela: Card | None = None
    dead: Sequence[Card] = ()
    players: int | None = None
    samples: int = DEFAULT_SAMPLES
    seed: int = DEFAULT_SEED
    exact_limit: int | None = None


def equity(
    rules: RuleSet,
    hands: Sequence[Sequence[Card | None]],
    *,
    vela: Card | None = None,
    dead: Sequence[Card] = (),
    players: int | None = None,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    exact_limit: int | None = None,
) -> EquityResult:
    """Each player's equity, win and tie probability in one pot contested by all of ``hands``.

    ``hands`` holds each player's own cards seen so far (at most five;
    ``None`` for a card of theirs nobody has seen); ``vela`` the vela if up
    (only where ``rules`` has one: pass ``rules.with_options(vela="at_start")``
    for the italian vela); ``dead`` cards seen and out of play; ``players``
    the players dealt in (the ``by_players`` deck; default the number of
    hands).  A side pot is priced by calling this with its own contenders
    and the other players' seen cards as ``dead``: their cards to come are
    unseen cards like any other.  Exact up to ``exact_limit`` runouts
    (default :data:`EXACT_LIMIT` heads up, :data:`MULTIWAY_EXACT_LIMIT` with
    more), else ``samples`` drawn with ``seed``.  Raises :class:`EquityInputError`.
    """
    (res,) = equities([Question(rules, hands, vela, dead, players, samples, seed, exact_limit)])
    if isinstance(res, EquityInputError):
        raise res
    return res


def equities(questions: Sequence[Question]) -> list[EquityResult | EquityInputError]:
    """:func:`equity` of each question, in order (the error in place of a question's result where it is bad input).

    Each question's figures are the ones it gets alone: the exact counts are
    counts, and a sampled question draws its own runouts from its own seed.
    The questions of one shape (rules, deck, cards unseen, each player's
    cards to come, the vela drawn or not) have their hands keyed together,
    numpy's work on one array instead of a few hundred small ones: what a
    screen pricing a hundred thousand decisions, two or three milliseconds
    of numpy calls each alone, spends its time on.
    """
    out: list[EquityResult | EquityInputError | None] = [None] * len(questions)
    asked: list[tuple[int, _Deal, int, bool]] = []  # (index, deal, players dealt in, exact)
    duels: dict[tuple[object, ...], list[int]] = {}
    drawn: dict[tuple[object, ...], tuple[int, int, list[int]]] = {}  # shape -> (samples, seed, questions)
    tallies: dict[int, _Tally] = {}
    for i, q in enumerate(questions):
        try:
            deal, n_players = _deal(q.rules, q.hands, q.vela, q.dead, q.players)
            if q.samples < 1:
                raise EquityInputError(f"samples must be at least 1, not {q.samples}")
            if q.seed < 0:
                raise EquityInputError(f"the seed must be a whole number from 0 up, not {q.seed}")
        except EquityInputError as e:
            out[i] = e
            continue
        n = len(deal.known)
        limit = q.exact_limit if q.exact_limit is not None else EXACT_LIMIT if n <= 2 else MULTIWAY_EXACT_LIMIT
        exact = deal.runouts <= limit and _table_size(deal) <= TABLE_LIMIT
        asked.append((i, deal, n_players, exact))
        shape = (deal.rules, deal.low, len(deal.unseen), deal.need, deal.draw_vela, deal.vela is None)
        if n == 1:  # alone in the pot: no need to look
            t = tallies[i] = _Tally(1)
            t.count, t.win, t.units, t.squares = 1, [1], [1], [1]
        elif exact and n == 2:
            duels.setdefault(shape, []).append(len(asked) - 1)
        elif exact:
            tallies[i] = _exact_multiway(deal, _Tables(deal))
        elif _samples_looked_up(deal, q.samples):
            tallies[i] = _sampled(deal, q.samples, q.seed)
        else:
            drawn.setdefault((*shape, q.samples, q.seed), (q.samples, q.seed, []))[2].append(len(asked) - 1)
    for at in duels.values():
        for a, t in zip(at, _duels([asked[a][1] for a in at])):
            tallies[asked[a][0]] = t
    for samples, seed, at in drawn.values():
        for a, t in zip(at, _drawn([asked[a][1] for a in at], samples, seed)):
            tallies[asked[a][0]] = t
    for i, deal, n_players, exact in asked:
        out[i] = _result(questions[i], deal, n_players, exact, tallies[i])
    return [r for r in out if r is not None]


def _result(q: Question, deal: _Deal, n_players: int, exact: bool, tally: _Tally) -> EquityResult:
    """The figures of one question from its tally."""
    if exact and len(deal.known) > 1 and tally.count != deal.runouts:
        raise AssertionError(f"counted {tally.count} runouts of {deal.runouts}")
    count, unit = tally.count, tally.unit
    out: list[PlayerEquity] = []
    for i, h in enumerate(q.hands):
        eq = Fraction(tally.units[i], unit * count)
        stderr: float | None = None
        if not exact:
            mean_sq = tally.squares[i] / (unit * unit * count)
            var = max(0.0, mean_sq - float(eq) ** 2) * count / max(count - 1, 1)
            stderr = math.sqrt(var / count)
        out.append(
            PlayerEquity(
                index=i,
                cards=tuple(h),
                equity=float(eq),
                win=tally.win[i] / count,
                tie=tally.tie[i] / count,
                stderr=stderr,
                exact_equity=eq if exact else None,
            )
        )
    return EquityResult(
        rules=q.rules,
        vela=q.vela,
        dead=tuple(q.dead),
        players=n_players,
        exact=exact,
        runouts=deal.runouts,
        samples=0 if exact else q.samples,
        seed=None if exact else q.seed,
        hands=tuple(out),
    )


def _split(values: Sequence[str]) -> list[str]:
    """Cards given one per value, or several in one, separated by spaces or commas."""
    return [p for v in values for p in v.replace(",", " ").split()]


def equity_from_text(
    rules: RuleSet,
    hands: Sequence[str | Sequence[str]],
    *,
    vela: str | None = None,
    dead: Sequence[str] = (),
    players: int | None = None,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    exact_limit: int | None = None,
) -> EquityResult:
    """:func:`equity` on card strings as people type them (``"Qc Qs 9c"``, ``??`` for a card nobody saw).

    ``vela`` ``??`` means the vela is still down: the italian profile then
    plays its ``at_start`` vela, drawn like the other cards to come.
    """
    try:
        vela_card: Card | None = None
        if vela is not None:
            rules = vela_rules(rules, vela)
            if vela.strip() != UNSEEN:
                vela_card = parse_labelled([vela], "the vela")[0]
        parsed = [
            parse_labelled(h.split() if isinstance(h, str) else list(h), f"hand {i + 1}", unseen=True)
            for i, h in enumerate(hands)
        ]
        dead_cards = [c for c in parse_labelled(_split(dead), "the dead cards") if c is not None]
    except (RankInputError, RulesError) as e:
        raise EquityInputError(str(e)) from None
    return equity(
        rules, parsed, vela=vela_card, dead=dead_cards, players=players, samples=samples, seed=seed, exact_limit=exact_limit
    )
