"""A model of each decision facing a bet: how likely an honest player goes on (calls or raises) with what it sees.

The strata (:func:`hhtool.collusion.spots.read_strata`) weigh a decision
by the player's rate in a coarse cell of its read; a finer cell makes
each rate noisier (docs/integrity.md, "Finer reads").  Here the
probability is smooth in the hand's strength instead: a logistic model,
fitted on the room's decisions facing a bet, aggregated by cell
(:func:`hhtool.collusion.spots.facing_cells`),

    logit P(go on) = b[spot] + c[street] x + a_player + d_player x

with x the strength of the decider's made hand as it reads it: its
exact quick read (category up to a full house and quads, and the exact
main rank: ``q = 16 category + rank``, :func:`hhtool.collusion.spots.quick_reads`)
turned into a percentile among the room's reads facing a bet on the same
street (the mid-rank of its level, from 0 the weakest to 1 the strongest,
less a half; a half where the read is not
known), the spot what else it sees (street, the bets and raises already
made on it, the players still in, its read's category, whether a better
category shows face up), a the player's own looseness and d its own
reaction to strength, drawn toward the room's (a ridge).  Nothing of it
is any simulator's formula: these are what any player's decision to call
depends on.

A pair's decisions against each other are left out of the player's own
terms (one Newton step of (a, d) without them), as the strata leave them
out of the rates: a dumper's calls into its partner do not make it look
loose.  The room's terms keep them (a few decisions among the room's
tens of thousands).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from hhtool.collusion.signals import NAMED_FROM, Decision, Pair, Row, named_hands, scored_rows

if TYPE_CHECKING:
    import polars as pl

F = npt.NDArray[np.float64]
I = npt.NDArray[np.int64]
Ints = Sequence[int] | npt.NDArray[np.int64]

RIDGE_SPOT: Final = 1.0
"""The spot terms b are drawn toward 0 by this many decisions' weight (a spot seldom reached takes the player's level)."""
RIDGE_SLOPE: Final = 0.1
"""The room's strength slopes c, barely drawn."""
RIDGE_PLAYER: Final = 0.01
"""The player's intercept a: free (it holds the room's level too)."""
RIDGE_PLAYER_SLOPE: Final = 5.0
"""The player's own strength slope d, drawn toward the room's (0): a player's reaction to strength is measured on its
decisions spread over strengths, fewer than its decisions."""
RIDGE_BETTOR: Final = 5.0
"""The bettor's term e (how lightly everyone goes on against its bets: a bluffer is called wider), drawn toward 0."""
JUNK: Final = 0.1
"""Where the logistic gives going on less than this, a player's calls beyond it measure its floor (:func:`pair_rates`)."""
FLOOR_WEIGHT: Final = 100.0
"""A player's floor is drawn toward the room's by this many such decisions."""
ROUNDS: Final = 30
"""At most this many damped Newton rounds, block by block (each block's terms are separate given the others) ..."""
TOLERANCE: Final = 1e-4
"""... until no term moves by more than this in a round."""
SHARE: Final = 0.1
"""The alternative the dumping test weighs each decision against: a tenth of the pair's decisions facing each other's bets
turned into the unusual outcome (a call with a hand the player folds, a fold with one it goes on with)."""
FLOOR: Final = 0.005
"""The unusual outcome's probability is taken no lower than this: the model's tails are no surer."""


@dataclass
class Cells:
    """Decisions facing a bet aggregated by (player, against, cell), as arrays: what :func:`fit` and :func:`pair_rates` read."""

    player: I  # the player's index (0 .. players - 1)
    against: I  # the bettor's index, -1 for nobody
    street: I  # 1 .. 5
    spot: I  # the spot's index
    x: F  # the read's strength, centred
    n: F  # decisions
    go: F  # of them calls and raises


def cells_of(player: Ints, against: Ints, sc: Ints, mq: Ints, pin: Ints, n: Ints, folds: Ints) -> Cells:
    """The arrays of :class:`Cells` from :func:`hhtool.collusion.spots.facing_cells`' columns (players as indices).

    ``sc``: the stratum's number (:func:`hhtool.collusion.spots.read_strata`):
    its bets, street, and read (0 unknown, else 1 + 6 category + 2 rank's
    class + a better category shown); ``mq`` the decider's exact made
    hand, 16 · category + main rank (0 unknown; :func:`hhtool.collusion.spots.facing_cells`).
    """
    sc_ = np.asarray(sc, dtype=np.int64)
    mq_ = np.asarray(mq, dtype=np.int64)
    n_ = np.asarray(n, dtype=np.float64)
    read = sc_ % 32
    bets = np.minimum((sc_ // 32) % 8, 3)
    street = (sc_ // 256) % 8
    known = (read > 0) & (mq_ > 0)
    cat = np.where(known, (read - 1) // 6, 4)
    shown = np.where(known, (read - 1) % 2, 0)
    pin_ = np.clip(np.asarray(pin, dtype=np.int64), 2, 4) - 2
    spot = (((street * 4 + bets) * 3 + pin_) * 2 + shown) * 5 + cat
    # the strength: the exact made hand's mid-rank among the room's reads facing a bet on the same street (its category
    # uncapped, then its main rank), a percentile: what the coarse stratum's category and rank class cannot tell apart
    order = np.where(known, mq_, -1)
    x = np.zeros(len(sc_), dtype=np.float64)
    for s in np.unique(street):
        on = (street == s) & known
        if not on.any():
            continue
        levels, inv = np.unique(order[on], return_inverse=True)
        w = np.bincount(inv, weights=n_[on], minlength=len(levels))
        below = np.cumsum(w) - w
        x[on] = ((below + w / 2.0) / w.sum())[inv] - 0.5
    return Cells(np.asarray(player, dtype=np.int64), np.asarray(against, dtype=np.int64), street, spot, x, n_,
                 n_ - np.asarray(folds, dtype=np.float64))


@dataclass
class Fit:
    """The fitted terms (:func:`fit`)."""

    b: F  # per spot
    c: F  # per street: the room's strength slope
    a: F  # per player
    d: F  # per player: its own strength slope
    e: F  # per bettor faced (the last: nobody)


def _logistic(z: F) -> F:
    out: F = 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))
    return out


def _bettor(c: Cells, players: int) -> I:
    """Each cell's bettor as an index of the bettors' terms (``players``: nobody)."""
    out: I = np.where(c.against >= 0, c.against, players)
    return out


def linear(f: Fit, c: Cells, a: F | None = None, d: F | None = None) -> F:
    """The model's log-odds of going on in each cell (the players' terms ``a``, ``d`` per cell where given)."""
    aa = f.a[c.player] if a is None else a
    dd = f.d[c.player] if d is None else d
    out: F = f.b[c.spot] + (f.c[c.street] + dd) * c.x + aa + f.e[_bettor(c, len(f.a))]
    return out


def fit(c: Cells, players: int) -> Fit:
    """The terms that make the room's decisions likeliest, ridges included: damped Newton rounds, block by block."""
    f = Fit(np.zeros(int(c.spot.max(initial=0)) + 1), np.zeros(8), np.zeros(players), np.zeros(players), np.zeros(players + 1))
    total = c.n.sum()
    if total > 0:  # the room's level in the players' terms from the start
        rate = (c.go.sum() + 0.5) / (total + 1.0)
        f.a[:] = math.log(rate / (1.0 - rate))
    ones = np.ones_like(c.x)
    blocks: tuple[tuple[F, I, F, float], ...] = (
        (f.a, c.player, ones, RIDGE_PLAYER), (f.b, c.spot, ones, RIDGE_SPOT),
        (f.c, c.street, c.x, RIDGE_SLOPE), (f.d, c.player, c.x, RIDGE_PLAYER_SLOPE), (f.e, _bettor(c, players), ones, RIDGE_BETTOR),
    )
    for _ in range(ROUNDS):
        moved = 0.0
        for theta, idx, cov, ridge in blocks:
            q = _logistic(linear(f, c))
            g = np.bincount(idx, weights=(c.go - c.n * q) * cov, minlength=len(theta)) - ridge * theta
            h = np.bincount(idx, weights=c.n * q * (1.0 - q) * cov * cov, minlength=len(theta)) + ridge
            step = np.clip(g / h, -2.0, 2.0)
            theta += step
            moved = max(moved, float(np.max(np.abs(step), initial=0.0)))
        if moved < TOLERANCE:
            break
    return f


def pair_rates(f: Fit, c: Cells) -> F:
    """Each cell's probability of going on, the player's terms (a, d) fitted without its decisions against that bettor.

    One Newton step from the whole fit: (a, d) less H⁻¹ g, g and H the
    gradient and curvature of the decisions against the bettor, H the
    player's curvature (ridges included) less theirs.  Cells against
    nobody keep the whole fit.
    """
    q = _logistic(linear(f, c))
    players = len(f.a)
    w = c.n * q * (1.0 - q)
    # the player's curvature in (a, d), ridges included
    h_aa = np.bincount(c.player, weights=w, minlength=players) + RIDGE_PLAYER
    h_ad = np.bincount(c.player, weights=w * c.x, minlength=players)
    h_dd = np.bincount(c.player, weights=w * c.x * c.x, minlength=players) + RIDGE_PLAYER_SLOPE
    vs = c.against >= 0
    key = np.where(vs, c.player * (players + 1) + c.against, -1)
    ks, inv = np.unique(key, return_inverse=True)
    r = c.go - c.n * q
    g_a = np.bincount(inv, weights=r, minlength=len(ks))
    g_d = np.bincount(inv, weights=r * c.x, minlength=len(ks))
    o_aa = np.bincount(inv, weights=w, minlength=len(ks))
    o_ad = np.bincount(inv, weights=w * c.x, minlength=len(ks))
    o_dd = np.bincount(inv, weights=w * c.x * c.x, minlength=len(ks))
    pk = np.where(ks >= 0, ks // (players + 1), 0)
    m_aa, m_ad, m_dd = h_aa[pk] - o_aa, h_ad[pk] - o_ad, h_dd[pk] - o_dd
    det = m_aa * m_dd - m_ad * m_ad
    det = np.where(det > 1e-12, det, np.inf)
    da = -(m_dd * g_a - m_ad * g_d) / det  # -(H_rest)^-1 g_vs
    dd = -(-m_ad * g_a + m_aa * g_d) / det
    da = np.where(ks >= 0, da, 0.0)
    dd = np.where(ks >= 0, dd, 0.0)
    lo = _logistic(linear(f, c, f.a[c.player] + da[inv], f.d[c.player] + dd[inv]))
    # each player's floor: how often it goes on where the logistic says it almost never does (a call with nothing, a
    # bluff-catch), its decisions against the bettor left out, drawn toward the room's
    junk = q < JUNK
    ex = np.where(junk, c.go - c.n * q, 0.0)
    room = np.where(junk, c.n * (1.0 - q), 0.0)
    e_all = np.bincount(c.player, weights=ex, minlength=players)
    r_all = np.bincount(c.player, weights=room, minlength=players)
    e_vs = np.bincount(inv, weights=ex, minlength=len(ks))
    r_vs = np.bincount(inv, weights=room, minlength=len(ks))
    e_vs = np.where(ks >= 0, e_vs, 0.0)
    r_vs = np.where(ks >= 0, r_vs, 0.0)
    level = max(0.0, float(ex.sum()) / max(float(room.sum()), 1.0))
    eps = np.clip((e_all[c.player] - e_vs[inv] + FLOOR_WEIGHT * level) / (r_all[c.player] - r_vs[inv] + FLOOR_WEIGHT), 0.0, 0.5)
    out: F = eps + (1.0 - eps) * lo
    return out


def dumping(cells: pl.DataFrame, pairs: Iterable[Pair], unit: str, words: str,
            decisions: Callable[[list[Pair]], Iterable[Decision]] | None = None) -> dict[Pair, Row]:
    """The ``dumping`` signal: each decision of a pair facing the other's bet against the model's probability of it.

    ``cells``: :func:`hhtool.collusion.spots.facing_cells`' frame.  q is
    the probability of the decision's unusual outcome (a fold where the
    model says the player mostly goes on, a call or raise where it mostly
    folds; at least :data:`FLOOR`), u 1 where it was the outcome.  The
    score is the log-likelihood ratio of "a share :data:`SHARE` of the
    pair's decisions turned unusual" against none, centred on its mean
    with nothing going on: S = sum (u log(1 + SHARE (1 - q) / q) + (1 - u)
    log(1 - SHARE) - mean), its variance and skew those of Bernoulli
    draws; z read with the skew and the pairs' spread as the strata's
    tests are (:func:`hhtool.collusion.signals.scored_rows`).  Against
    the strata's score, sum (u - q) / q, a rare decision weighs
    log(1 / q) rather than 1 / q: one unusual call of a player who seldom
    calls is evidence, not a lead.  ``decisions``: as
    :func:`~hhtool.collusion.signals.stratified`'s, each decision's stratum
    the cell ``sc/mq/pin`` (:func:`cell_key`).
    """
    signal = "dumping"
    pairs = list(pairs)
    if cells.height == 0:
        return scored_rows(signal, {}, pairs, unit, words)
    import polars as pl

    # the accounts as indices: every player and bettor named, in the order of (site, name)
    names = pl.concat([cells.select("site", pl.col("player").alias("name")), cells.select("site", pl.col("against").alias("name"))]) \
        .filter(pl.col("name") != "").unique().sort("site", "name").with_row_index("i")
    found = cells.select("site", "player", "against") \
        .join(names.rename({"name": "player", "i": "pi"}), on=["site", "player"], how="left", maintain_order="left") \
        .join(names.rename({"name": "against", "i": "ai"}), on=["site", "against"], how="left", maintain_order="left")
    pi = found["pi"].cast(pl.Int64).to_numpy()
    ai = found["ai"].cast(pl.Int64).fill_null(-1).to_numpy()
    ai = np.where(ai == pi, -1, ai)
    index = {(str(s), str(nm)): int(i) for i, s, nm in names.select("i", "site", "name").iter_rows()}
    c = cells_of(pi, ai, cells["sc"].to_numpy(), cells["mq"].to_numpy(), cells["pin"].to_numpy(), cells["n"].to_numpy(),
                 cells["folds"].to_numpy())
    f = fit(c, len(index))
    fold = 1.0 - pair_rates(f, c)
    tested = np.flatnonzero(c.against >= 0)
    n = c.n[tested]
    folds = n - c.go[tested]
    p_fold = fold[tested]
    q = np.maximum(FLOOR, np.minimum(p_fold, 1.0 - p_fold))
    unusual = np.where(p_fold < 0.5, folds, n - folds)
    # the log-likelihood ratio of a share SHARE of the decisions turned into the unusual outcome against none, less its mean
    # with nothing going on; its variance and third moment, each decision a Bernoulli of chance q
    w_u = np.log1p(SHARE * (1.0 - q) / q)
    w_s = math.log(1.0 - SHARE)
    gap = w_u - w_s
    mean = q * w_u + (1.0 - q) * w_s
    parts = np.stack([n, unusual * w_u + (n - unusual) * w_s - n * mean, n * q * (1.0 - q) * gap * gap, unusual, n * q,
                      n * q * (1.0 - q) * (1.0 - 2.0 * q) * gap**3])
    # per pair (either way): the sums of :func:`hhtool.collusion.signals.scored_rows`
    lo = np.minimum(c.player[tested], c.against[tested])
    hi = np.maximum(c.player[tested], c.against[tested])
    keys, inv = np.unique(lo * len(index) + hi, return_inverse=True)
    sums = np.stack([np.bincount(inv, weights=row, minlength=len(keys)) for row in parts])
    accounts = list(index)
    acc: dict[Pair, list[float]] = {}
    for j, k in enumerate(keys.tolist()):
        (s, a), (_, b) = accounts[k // len(index)], accounts[k % len(index)]
        acc[(s, a, b) if a < b else (s, b, a)] = sums[:, j].tolist()
    out = scored_rows(signal, acc, pairs, unit, words)
    leads = [p for p, r in out.items() if r.z is not None and r.z >= NAMED_FROM]
    if decisions is not None and leads:
        chosen = set(leads)
        rates: dict[tuple[str, str, str, str], float] = {}
        sc, mq, pin = cells["sc"].to_list(), cells["mq"].to_list(), cells["pin"].to_list()
        site, player, against = cells["site"].to_list(), cells["player"].to_list(), cells["against"].to_list()
        for j in tested.tolist():
            s, p, o = site[j], player[j], against[j]
            if ((s, p, o) if p < o else (s, o, p)) in chosen:
                rates[(s, p, o, cell_key(sc[j], mq[j], pin[j]))] = float(fold[j])
        for pair, hands in named_hands(decisions(leads), rates, "grain").items():
            if pair in out:
                out[pair].hands = hands
    return out


def cell_key(sc: int, mq: int, pin: int) -> str:
    """A cell of :func:`hhtool.collusion.spots.facing_cells` as one word (the stratum of a :data:`~hhtool.collusion.signals.Decision`)."""
    return f"{int(sc)}/{int(mq)}/{int(pin)}"
