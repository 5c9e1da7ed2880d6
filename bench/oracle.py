"""Oracle bound for issue 42's criterion: how well could any detector rank the colluding pairs?  Never a test.

Run: ``python bench/oracle.py [--hands 20000] [--seeds 911,912] [--strengths 0.5] [--pool 30] [--players 6]
[--kinds soft-play,chip-dumping,card-sharing] [--reference DIR] [--mc 20000]``.

For each seed and strength the room of ``bench/integrity.py --part detection`` is simulated
(``hhtool simulate --hands N --pool 30 --players 6 --seed S --collude soft-play:X --collude
chip-dumping:X --collude card-sharing:X``) in this process, from the simulator's sources
(:class:`_Sources`: the compiled modules cannot be wrapped), with every bot decision recorded on
the way by a wrapper of ``Bots.act``.  The recording draws nothing from the hand's generator: the
text written is compared byte for byte, with both manifests, with the compiled ``hhtool simulate``'s
(``--reference DIR``: a folder holding ``room.txt`` files as ``bench/integrity.py`` caches them;
otherwise the bench runs ``hhtool simulate`` into a temporary folder).

The *oracle* knows the bots: for every pair {A, B} of the pool (435 of 30) and every kind, the
exact log-likelihood ratio of the pair's observed moves (fold, check, call, bet or raise, bring-in:
what a history shows) under "A and B collude in this kind at the room's strength" against
"honest", from the bots' true probabilities (:func:`decide_dist`, analytic from
:func:`~hhtool.simulate.bots.decide`; :func:`mc_check` holds it against a Monte Carlo of ``decide``
itself).  Only the decisions that would be the kind's spots with B as A's partner count, each spot
as :func:`~hhtool.simulate.collusion.colluding_move` defines it (called with the hypothetical
partner), the deviation made with probability sigma:

- soft play: a bet or raise into the partner becomes a call, check or bring-in;
- chip dumping: each direction (A dumps to B, B to A), the larger ratio; the receiver's spot (it
  calls a dumping bet it would fold to) depends on whether the dumper's bet was a deviation, which
  a history does not show: the two are priced jointly, the dumper's bet split into its dumping and
  honest shares (:meth:`Oracle.after`);
- card sharing: with a card to come, the informed read (:func:`~hhtool.simulate.collusion.shared_read`)
  with B as partner; the simulator's two choices share their draws and the informed one replaces
  the honest one with probability sigma, so the observed move's probability is
  ``(1 - sigma) P_honest + sigma P_informed``, whatever the joint of the two.

By Neyman-Pearson, and with one colluding pair of each kind among the pool's pairs a priori
alike, ranking by this ratio puts the true pair first more often than any other ranking: where the
oracle ranks a colluding pair below an innocent pair (innocent: not one of the three pairs; a
colluder with an honest player included), the room's moves favour that innocent pair, and no
screen could meet the criterion there but by luck.  The table gives, per room and kind, the oracle's
rank (1 + the innocent pairs above), the pair's log ratio, the best innocent pair's, the pair's
posterior under a uniform prior over the 435 pairs, the hands together (deviated) from the manifest,
and ``bench/integrity.py``'s screen rank when ``--screen FILE`` (its printed output) is given.
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import importlib.util
import json
import math
import random
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class _Sources(importlib.abc.MetaPathFinder):
    """Imports ``hhtool.simulate``'s modules from their ``.py`` sources even where mypyc compiled them.

    A compiled module calls its own functions and methods directly: a wrapper set on
    ``Bots.act`` or ``choices.decide`` would never be called.  The sources are the same code
    (``make test-pure`` runs the suite on them), and the written bytes are checked against the
    compiled ``hhtool simulate``'s.
    """

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("hhtool.simulate."):
            return None
        source = ROOT / (fullname.replace(".", "/") + ".py")
        return importlib.util.spec_from_file_location(fullname, source) if source.exists() else None


sys.meta_path.insert(0, _Sources())

from hhtool.game.evaluate import quick_category  # noqa: E402
from hhtool.game.operations import Player  # noqa: E402
from hhtool.history.events import Bet, BringIn, Call, Check, Complete, Fold, RaiseTo  # noqa: E402
from hhtool.simulate import choices, make_config, simulate_run  # noqa: E402
from hhtool.simulate.bots import Move, Situation, Style, STYLES, decide, quick_five  # noqa: E402
from hhtool.simulate.collusion import Partner, colluding_move, shared_read  # noqa: E402
from hhtool.simulate.config import Collusion  # noqa: E402
from hhtool.simulate.names import pool_names  # noqa: E402
from hhtool.textsafe import term  # noqa: E402

KINDS = ("soft-play", "chip-dumping", "card-sharing")
MOVES: tuple[Move, ...] = ("fold", "check", "call", "raise", "bring_in")
NOISE = 0.12  # decide's noise: U(-NOISE, NOISE) added to the strength
OBSERVED: dict[type[object], Move] = {
    Fold: "fold", Check: "check", Call: "call", Bet: "raise", RaiseTo: "raise", Complete: "raise", BringIn: "bring_in"
}
# the screen's ranks in docs/integrity.md ("How well it finds", "Detection and false leads"), seeds' order
DOC_SEEDS = (911, 912, 913, 961, 921, 922, 923)
DOC_RANKS: dict[float, dict[str, tuple[int, ...]]] = {
    0.5: {"soft-play": (7, 80, 2, 35, 8, 2, 1), "chip-dumping": (1, 32, 1, 78, 1, 1, 2), "card-sharing": (2, 1, 22, 1, 2, 3, 3)},
    0.3: {"soft-play": (1, 10, 2, 5, 29, 6, 1), "chip-dumping": (2, 50, 1, 48, 70, 1, 2), "card-sharing": (4, 1, 88, 2, 2, 2, 6)},
}
DOC_BEST_INNOCENT: dict[float, tuple[int, ...]] = {0.5: (3, 2, 3, 2, 3, 4, 4)}


# ------------------------------------------------------------ the bots' probabilities


def _below(s: float, t: float) -> float:
    """P(s + U(-NOISE, NOISE) < t)."""
    return min(1.0, max(0.0, (t - s + NOISE) / (2 * NOISE)))


def decide_dist(style: Style, s: float, sit: Situation) -> dict[Move, float]:
    """The probability of each move :func:`~hhtool.simulate.bots.decide` returns: its noise, its bluff and its raise coin.

    The noise is uniform, the bluff a coin of ``style.bluff`` drawn beside it; a bluff passes
    every threshold.
    """
    a, bluff = style.aggression, style.bluff
    if sit.must_bring_in:
        up = 1 - (1 - bluff) * _below(s, 0.55 - 0.2 * a) if sit.may_raise else 0.0
        return {"raise": up, "bring_in": 1 - up}
    if sit.owed <= 0:
        up = (1 - (1 - bluff) * _below(s, 0.62 - 0.35 * a)) * (0.35 + 0.6 * a) if sit.may_raise else 0.0
        return {"raise": up, ("check" if sit.may_check else "call"): 1 - up}
    price = sit.owed / max(sit.pot + sit.owed, 1)
    keep = 0.50 - 0.35 * style.looseness + 0.45 * price
    fold = (1 - bluff) * _below(s, keep)
    up = 0.0
    if sit.may_raise:
        up = (bluff + (1 - bluff) * (1 - _below(s, max(keep, 0.78 - 0.25 * a)))) * (0.25 + 0.6 * a)
    return {"fold": fold, "raise": up, "call": 1 - fold - up}


def observed(move: Move, sit: Situation, may_raise_now: bool) -> Move:
    """What ``Bots.act`` writes for ``move``: a bet it cannot make is a call, check or bring-in; a forced bring-in is one."""
    if move == "raise":
        if may_raise_now:
            return "raise"
        move = "call" if sit.owed > 0 else ("bring_in" if sit.must_bring_in else "check")
    if move == "bring_in" or sit.must_bring_in:
        return "bring_in"
    if move == "fold" and sit.owed > 0:
        return "fold"
    return "call" if sit.owed > 0 else "check"


def seen_dist(dist: dict[Move, float], sit: Situation, may_raise_now: bool) -> dict[Move, float]:
    """``dist`` (decide's moves) as the history shows them."""
    out: dict[Move, float] = defaultdict(float)
    for move, p in dist.items():
        out[observed(move, sit, may_raise_now)] += p
    return out


def colluded(
    dist: dict[Move, float], instead: dict[Move, Move], sigma: float, sit: Situation, may_raise_now: bool
) -> tuple[dict[Move, float], float]:
    """The history's moves when each move of ``instead`` is replaced with probability ``sigma``; and the share that is a raise so made."""
    out: dict[Move, float] = defaultdict(float)
    made = 0.0
    for move, p in dist.items():
        other = instead.get(move)
        if other is None or other == move:
            out[observed(move, sit, may_raise_now)] += p
            continue
        out[observed(move, sit, may_raise_now)] += (1 - sigma) * p
        out[observed(other, sit, may_raise_now)] += sigma * p
        made += sigma * p if other == "raise" else 0.0
    return out, made


def mc_check(samples: int, seed: int = 4242) -> tuple[float, float]:
    """:func:`decide_dist` against ``decide`` itself over random spots: the largest gap in any move's probability, and in σ.

    200 spots (every style, strengths across 0..1, each kind of situation), ``samples`` draws
    each; the gap in standard errors of the sample's binomial (its largest over ~600 cells).
    """
    rng = random.Random(seed)
    worst = worst_z = 0.0
    for k in range(200):
        style = STYLES[k % len(STYLES)]
        s = rng.uniform(-0.05, 1.05)
        kind = k % 5
        owed = rng.choice((0, 50, 100, 200)) if kind >= 2 else 0
        sit = Situation(
            owed=owed, pot=rng.choice((100, 300, 800)), behind=1000, may_check=owed == 0 and kind != 1,
            may_raise=kind != 4, must_bring_in=kind == 0, round_no=1,
        )
        exact = decide_dist(style, s, sit)
        draws = random.Random(rng.random())
        counts: dict[str, int] = defaultdict(int)
        for _ in range(samples):
            counts[decide(style, s, sit, draws)] += 1
        for move in MOVES:
            p = exact.get(move, 0.0)
            got = counts.get(move, 0) / samples
            gap = abs(got - p)
            worst = max(worst, gap)
            se = math.sqrt(max(p * (1 - p), 1e-12) / samples)
            worst_z = max(worst_z, gap / se if p > 0 else (math.inf if got > 0 else 0.0))
    return worst, worst_z


# ------------------------------------------------------------ the recording


@dataclass
class Spot:
    """One decision as the oracle needs it, taken before ``Bots.act`` changes the hand."""

    name: str
    sit: Situation
    may_raise_now: bool
    dist: dict[Move, float]  # decide's moves, honest
    soft: dict[str, dict[Move, Move]]  # partner -> the moves soft play replaces with that partner
    dumps: dict[str, dict[Move, Move]]  # receiver -> the moves the decider, dumping to it, replaces
    receives: tuple[str, dict[Move, Move]] | None  # (the dumper whose bet it faces, the moves it replaces if a dump)
    informed: dict[str, dict[Move, float]]  # partner -> decide's moves under the card-sharing read with that partner
    paired: bool  # the decider's own partner is dealt in (its play may deviate)


@dataclass
class Ratios:
    """One kind's log-likelihood ratios: finite sums and the decisions an honest bot could not have made (ratio +inf)."""

    log: dict[tuple[str, str], float] = field(default_factory=lambda: defaultdict(float))
    certain: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))

    def add(self, key: tuple[str, str], num: float, den: float) -> None:
        if den > 0:
            if num != den:
                self.log[key] += math.log(num / den)
        elif num > 0:
            self.certain[key] += 1

    def score(self, key: tuple[str, str]) -> tuple[int, float]:
        return self.certain.get(key, 0), self.log.get(key, 0.0)


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def legal(sit: Situation, may_raise_now: bool) -> tuple[Move, ...]:
    """The moves a history can show in this spot."""
    passive: tuple[Move, ...] = ("bring_in",) if sit.must_bring_in else (("fold", "call") if sit.owed > 0 else ("check",))
    return (*passive, "raise") if may_raise_now else passive


SMOOTH = 0.01
"""The robust oracle's share of a uniform choice among the legal moves, in every model, honest or colluding."""


@dataclass
class Book:
    """The ratios of one variant of the oracle: ``eps`` of every decision a uniform choice (0: the exact one)."""

    eps: float
    ratios: dict[str, Ratios] = field(default_factory=lambda: {kind: Ratios() for kind in KINDS})
    dumper: Ratios = field(default_factory=Ratios)  # chip dumping by direction: key (dumper, receiver)
    pending: dict[tuple[str, str], tuple[int, float, float]] = field(default_factory=dict)  # (dumper, receiver) -> (bet, dumping, honest)

    def chip(self) -> Ratios:
        """Chip dumping by pair: the larger of its two directions."""
        out = Ratios()
        for a, b in {*self.dumper.log, *self.dumper.certain}:
            key = _pair(a, b)
            best = max(self.dumper.score((a, b)), self.dumper.score((b, a)))
            out.certain[key], out.log[key] = best
        return out

    def kind(self, kind: str) -> Ratios:
        return self.chip() if kind == "chip-dumping" else self.ratios[kind]


class Oracle:
    """Every decision's likelihood ratios, per kind and pair, at the room's strengths (``sigma``: kind -> strength).

    Two books: the exact oracle, and a robust one (:data:`SMOOTH`) that grants every model a
    small share of any legal move, so that no single decision outside the bots' noise decides
    (the exact one takes a move an honest bot never makes as proof).
    """

    def __init__(self, sigma: dict[str, float], kinds: Sequence[str]) -> None:
        if any(not 0 < x < 1 for x in sigma.values()):
            raise SystemExit("the oracle prices strengths strictly between 0 and 1")
        self.sigma = sigma
        self.kinds = set(kinds)
        self.books = (Book(0.0), Book(SMOOTH))
        self.hand: object = None
        self.round = 0
        self.reads: dict[str, tuple[int, int, bool, int]] = {}  # the reads of the round, taken when the strength was
        self.bets = 0  # bets and raises so far in the hand: which one a player faces
        # the checks
        self.decisions = 0
        self.mismatch = 0  # an undeviated decision whose written move is not decide's, as act() converts it
        self.impossible = 0  # an undeviated decision the honest probabilities give no chance
        self.read_differs = 0  # the read kept here differs from the simulator's read_cache
        self.expected: dict[Move, float] = defaultdict(float)  # decisions of unpaired players: sum of P(move)
        self.counted: dict[Move, int] = defaultdict(int)
        self.variance: dict[Move, float] = defaultdict(float)
        self.bins: dict[tuple[str, Move, int], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])  # (spot, move, tenth of P) -> n, sum P, seen

    def worst_bin(self) -> tuple[float, str]:
        """The calibration's worst cell (spot, move, tenth of the predicted probability): its z and its name."""
        worst, name = 0.0, "-"
        for (spot, move, tenth), (n, p, seen) in self.bins.items():
            mean = p / n
            sd = math.sqrt(max(n * mean * (1 - mean), 1e-12))
            z = (seen - p) / sd
            if abs(z) > abs(worst) and n >= 20:
                worst, name = z, f"{spot} {move} P {tenth / 10:.1f}-{(tenth + 1) / 10:.1f} ({seen:.0f} of {n:.0f}, {p:.1f} expected)"
        return worst, name

    def before(self, bots: choices.Bots, p: Player) -> Spot:
        hand = bots.hand
        if hand is not self.hand:
            self.hand = hand
            self.bets = 0
            for book in self.books:
                book.pending.clear()
        if bots.round_no != self.round or not bots.strength_cache:
            self.round = bots.round_no
            self.reads.clear()
        name = p.name
        sit, _ = bots.situation(p)
        fresh = name not in bots.strength_cache
        s = bots.strength_of(name)
        if fresh or name not in self.reads:  # the strength is kept for the round: its read is the one of that moment
            self.reads[name] = self.read(bots, name)
        may_raise_now = sit.may_raise and bots.raise_target(p, 0.0) is not None
        style = hand.style[name]
        dist = decide_dist(style, s, sit)
        moves = [m for m, x in dist.items() if x > 0]
        others = [q.name for q in hand.players if q is not p]
        aggressor, opener, dump_bet = bots.aggressor, bots.opener, bots.dump_bet

        def instead(kind: str, a: str, b_: str, partner: str, dumped: bool) -> dict[Move, Move]:
            side = Partner(0, partner, Collusion(kind, a, b_, self.sigma[kind]))
            out: dict[Move, Move] = {}
            for m in moves:
                other = colluding_move(hand, p, side, m, s, sit, aggressor, opener, dumped, may_raise_now)
                if other is not None and other != m:
                    out[m] = other
            return out

        soft: dict[str, dict[Move, Move]] = {}
        dumps: dict[str, dict[Move, Move]] = {}
        receives: tuple[str, dict[Move, Move]] | None = None
        informed: dict[str, dict[Move, float]] = {}
        if "soft-play" in self.kinds:
            for o in others:
                if rep := instead("soft-play", name, o, o, dump_bet):
                    soft[o] = rep
        if "chip-dumping" in self.kinds:
            for o in others:
                if rep := instead("chip-dumping", name, o, o, False):
                    dumps[o] = rep
            waiting = self.books[0].pending.get((aggressor, name)) if aggressor is not None else None
            if aggressor is not None and waiting is not None and waiting[0] == self.bets:
                if rep := instead("chip-dumping", aggressor, name, aggressor, True):
                    receives = (aggressor, rep)
        if "card-sharing" in self.kinds and bots.round_no <= 4:
            read = self.reads[name]
            cached = bots.read_cache.get(name)
            if cached is not None and cached != read:
                self.read_differs += 1
            for o in others:
                sharp = shared_read(hand, name, o, *read)
                if sharp < s:
                    informed[o] = decide_dist(style, sharp, sit)
        paired = name in bots.partners
        return Spot(name, sit, may_raise_now, dist, soft, dumps, receives, informed, paired)

    @staticmethod
    def read(bots: choices.Bots, name: str) -> tuple[int, int, bool, int]:
        """The read behind ``Bots.strength_of`` (category, top rank, beaten by a board, cards): its own code, which keeps it only for pairs."""
        hand = bots.hand
        extra = [hand.vela] if hand.vela is not None and bots.round_no == 5 else []
        cards = [*hand.holes[name].cards, *extra]
        wild = hand.rules.wild
        category, top = quick_five(cards, wild, hand.low) if len(cards) >= 5 else quick_category(cards, wild)
        beaten = any(
            quick_category([*hand.holes[q.name].up, *extra], wild)[0] > category
            for q in hand.players
            if q.name != name and not q.folded
        )
        return category, top, beaten, len(cards)

    def after(self, spot: Spot, move: Move, honest_move: Move, deviated: bool) -> None:
        """The decision's ratios, its written ``move`` known; ``honest_move`` is decide's first answer (the checks)."""
        self.decisions += 1
        sit, now = spot.sit, spot.may_raise_now
        seen = seen_dist(spot.dist, sit, now)
        if not deviated:
            self.mismatch += observed(honest_move, sit, now) != move
            self.impossible += seen.get(move, 0.0) <= 0
        if not spot.paired:
            for m in MOVES:
                x = seen.get(m, 0.0)
                self.expected[m] += x
                self.variance[m] += x * (1 - x)
                self.counted[m] += m == move
                spot_kind = "bring-in" if sit.must_bring_in else ("facing" if sit.owed > 0 else "open")
                cell = self.bins[(spot_kind, m, min(int(x * 10), 9))]
                cell[0] += 1
                cell[1] += x
                cell[2] += m == move
        if move == "raise":
            self.bets += 1
        name = spot.name
        share = 1 / len(legal(sit, now))
        soft = {o: colluded(spot.dist, rep, self.sigma["soft-play"], sit, now)[0] for o, rep in spot.soft.items()}
        sigma = self.sigma.get("chip-dumping", 0.0)
        dumps = {o: colluded(spot.dist, rep, sigma, sit, now) for o, rep in spot.dumps.items()}
        received = colluded(spot.dist, spot.receives[1], sigma, sit, now)[0] if spot.receives is not None else None
        informed = {o: seen_dist(d, sit, now).get(move, 0.0) for o, d in spot.informed.items()}
        for book in self.books:
            keep = 1 - book.eps
            noise = book.eps * share

            def smooth(p: float) -> float:
                return keep * p + noise  # noqa: B023 (the book's, in this loop)

            ph = smooth(seen.get(move, 0.0))
            for o, pc in soft.items():
                book.ratios["soft-play"].add(_pair(name, o), smooth(pc.get(move, 0.0)), ph)
            for o, (pc, made) in dumps.items():
                num = smooth(pc.get(move, 0.0))
                book.dumper.add((name, o), num, ph)
                if move == "raise" and made > 0:
                    book.pending[(name, o)] = (self.bets, keep * made, num - keep * made)
            if spot.receives is not None and received is not None:
                dumper = spot.receives[0]
                _, dumped, honest = book.pending.pop((dumper, name))
                num = dumped * smooth(received.get(move, 0.0)) + honest * ph
                book.dumper.add((dumper, name), num, (dumped + honest) * ph)
            sigma = self.sigma.get("card-sharing", 0.0)
            for o, pi in informed.items():
                book.ratios["card-sharing"].add(_pair(name, o), (1 - sigma) * ph + sigma * smooth(pi), ph)


def recording(oracle: Oracle) -> Callable[[], None]:
    """Wrap ``Bots.act`` and ``choices.decide`` (the sources') so each decision reaches ``oracle``; returns the undo."""
    act = choices.Bots.act
    plain: Callable[[Style, float, Situation, random.Random], Move] = getattr(choices, "decide")
    answers: list[Move] = []

    def decide_noted(style: Style, s: float, sit: Situation, rng: random.Random) -> Move:
        move = plain(style, s, sit, rng)
        answers.append(move)
        return move

    def act_noted(self: choices.Bots, p: Player) -> None:
        spot = oracle.before(self, p)
        events, deviations = len(self.hand.events), len(self.deviations)
        answers.clear()
        act(self, p)
        oracle.after(spot, OBSERVED[type(self.hand.events[events])], answers[0], len(self.deviations) > deviations)

    setattr(choices, "decide", decide_noted)
    setattr(choices.Bots, "act", act_noted)

    def undo() -> None:
        setattr(choices, "decide", plain)
        setattr(choices.Bots, "act", act)

    return undo


# ------------------------------------------------------------ the rooms


def collude_args(strength: float) -> list[str]:
    return [f"{kind}:{strength:g}" for kind in KINDS]


def reference(hands: int, seed: int, strength: float, pool: int, players: int, folder: Path | None, tmp: Path) -> Path:
    """The compiled ``hhtool simulate``'s file of the room: ``bench/integrity.py``'s cached one when there, else written now."""
    name = f"p{pool}x{players}-{hands}-s{seed}-x{strength:g}"
    if folder is not None and (folder / name / ".simulated").exists():
        return folder / name / "room.txt"
    out = tmp / f"{name}.txt"
    cmd = [sys.executable, "-m", "hhtool.cli", "simulate", "--out", str(out), "--hands", str(hands), "--pool", str(pool),
           "--players", str(players), "--seed", str(seed), "--jobs", "1"]
    for c in collude_args(strength):
        cmd += ["--collude", c]
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
    return out


@dataclass
class Placed:
    """A colluding pair as the oracle ranks it."""

    kind: str
    a: str
    b: str
    rank: int  # 1 + the innocent pairs scored above it
    score: tuple[int, float]
    best: tuple[int, float]  # the best innocent pair's
    best_pair: tuple[str, str]
    posterior: float  # its ratio over the sum of every pair's: its chance of being the one, all pairs alike a priori
    together: int
    deviated: int
    above: list[str]  # other colluding pairs (of the other kinds) scored above it


def _fmt(score: tuple[int, float]) -> str:
    return f"+inf({score[0]})" if score[0] else f"{score[1]:.1f}"


def place(oracle: Oracle, book: Book, pairs: list[tuple[str, str, str]], names: Sequence[str], manifest: list[dict[str, object]]) -> list[Placed]:
    colluding = {_pair(a, b): kind for kind, a, b in pairs}
    together: dict[str, int] = defaultdict(int)
    deviated: dict[str, int] = defaultdict(int)
    number = {int(str(e["pair"])): str(e["kind"]) for e in manifest if e["entry"] == "pair"}
    for e in manifest:
        if e["entry"] == "hand":
            kind = number[int(str(e["pair"]))]
            together[kind] += 1
            deviated[kind] += bool(e["deviated"])
    everyone = [_pair(x, y) for i, x in enumerate(names) for y in names[i + 1:]]
    out: list[Placed] = []
    for kind, a, b in pairs:
        if kind not in oracle.kinds:
            continue
        ratios = book.kind(kind)
        mine = ratios.score(_pair(a, b))
        innocent = [(ratios.score(k), k) for k in everyone if k not in colluding]
        best, best_pair = max(innocent)
        rank = 1 + sum(score > mine for score, _ in innocent)
        scores = [ratios.score(k) for k in everyone]
        most = max(c for c, _ in scores)  # decisions only collusion explains: they outweigh every finite ratio
        posterior = 0.0
        if mine[0] == most:
            top = max(x for c, x in scores if c == most)
            posterior = math.exp(mine[1] - top) / sum(math.exp(x - top) for c, x in scores if c == most)
        above = [c for k, c in colluding.items() if c != kind and ratios.score(k) > mine]
        out.append(Placed(kind, a, b, rank, mine, best, best_pair, posterior, together[kind], deviated[kind], above))
    return out


def run_room(args: argparse.Namespace, seed: int, strength: float, tmp: Path) -> tuple[list[tuple[Placed, Placed]], Oracle, bool, float]:
    config = make_config(rules="classic", players=args.players, seed=seed, pool=args.pool, collude=collude_args(strength))
    oracle = Oracle({kind: strength for kind in KINDS}, args.kinds)
    undo = recording(oracle)
    start = time.process_time()
    try:
        run = simulate_run(config, args.hands)
    finally:
        undo()
    cpu = time.process_time() - start
    same = True
    if not args.no_compare:
        ref = reference(args.hands, seed, strength, args.pool, args.players, args.reference, tmp)
        same = ref.read_bytes() == run.text.encode("utf-8")
        lines = ref.with_name(ref.name + ".collusion.jsonl").read_text(encoding="utf-8").splitlines()
        same = same and [json.loads(x) for x in lines] == run.collusion
    pairs = [(c.kind, c.a, c.b) for c in config.collusion]
    names = pool_names(args.pool)
    exact, robust = (place(oracle, book, pairs, names, run.collusion) for book in oracle.books)
    return list(zip(exact, robust)), oracle, same, cpu


def screen_ranks(path: Path | None) -> dict[tuple[int, float], tuple[dict[str, int | None], int | None]]:
    """``bench/integrity.py --part detection``'s room lines: (seed, strength) -> (kind -> rank, best innocent rank)."""
    out: dict[tuple[int, float], tuple[dict[str, int | None], int | None]] = {}
    if path is None:
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\s*seed (\d+), strength ([\d.]+): (.*?); best innocent #(\w+)", line)
        if not m:
            continue
        ranks: dict[str, int | None] = {}
        for kind, rank in re.findall(r"([a-z-]+) #(\d+|-)", m.group(3)):
            ranks[kind] = int(rank) if rank != "-" else None
        best = int(m.group(4)) if m.group(4).isdigit() else None
        out[(int(m.group(1)), float(m.group(2)))] = (ranks, best)
    return out


def _screen(screens: dict[tuple[int, float], tuple[dict[str, int | None], int | None]], seed: int, strength: float, kind: str) -> str:
    """The screen's rank of the pair, ``*`` when above every innocent pair (from --screen, else the docs' table)."""
    if (seed, strength) in screens:
        ranks, best = screens[(seed, strength)]
        rank = ranks.get(kind)
    elif strength in DOC_RANKS and seed in DOC_SEEDS:
        at = DOC_SEEDS.index(seed)
        rank = DOC_RANKS[strength][kind][at]
        best = DOC_BEST_INNOCENT[strength][at] if strength in DOC_BEST_INNOCENT else None
    else:
        return "?"
    if rank is None:
        return "-"
    return f"{rank}{'' if best is None else ('*' if rank < best else ' ')}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--seeds", type=lambda t: [int(x) for x in t.split(",") if x], default=[911, 912, 913, 961, 921, 922, 923])
    ap.add_argument("--strengths", type=lambda t: [float(x) for x in t.split(",") if x], default=[0.5])
    ap.add_argument("--pool", type=int, default=30)
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--kinds", type=lambda t: [x for x in t.split(",") if x], default=list(KINDS))
    ap.add_argument("--reference", type=Path, default=ROOT / "bench" / ".cache" / "integrity" / "rooms",
                    help="bench/integrity.py's rooms: their room.txt is the compiled simulator's (else simulated now)")
    ap.add_argument("--no-compare", action="store_true", help="skip the byte comparison with the compiled simulator")
    ap.add_argument("--screen", type=Path, default=None, help="bench/integrity.py --part detection's output: the screen's ranks")
    ap.add_argument("--mc", type=int, default=20_000, help="draws of decide per spot in the Monte Carlo check (0: none)")
    args = ap.parse_args()
    bad = [k for k in args.kinds if k not in KINDS]
    if bad:
        raise SystemExit(f"--kinds: unknown {bad}")
    print(f"python bench/oracle.py {shlex.join(sys.argv[1:])}".rstrip())
    tree = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    print(f"  tree {tree or 'unknown'}; simulator from its sources: {choices.__file__}")
    if args.mc:
        gap, z = mc_check(args.mc)
        print(f"decide's probabilities against {args.mc:,} draws of decide at each of 200 spots: largest gap {gap:.4f} ({z:.1f} standard errors)")
    screens = screen_ranks(args.screen)
    rows: list[tuple[int, float, Placed, Placed]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for strength in args.strengths:
            for seed in args.seeds:
                placed, oracle, same, cpu = run_room(args, seed, strength, Path(tmp))
                zs = {m: (oracle.counted[m] - oracle.expected[m]) / math.sqrt(oracle.variance[m]) for m in MOVES if oracle.variance[m] > 0}
                print(
                    f"  seed {seed}, strength {strength:g}: {oracle.decisions:,} decisions, {cpu:.0f} s CPU; "
                    f"bytes and manifest as compiled simulate's: {'not compared' if args.no_compare else ('yes' if same else 'NO')}; "
                    f"written move not decide's {oracle.mismatch}, impossible {oracle.impossible}, read differs {oracle.read_differs}; "
                    f"unpaired players' moves against their probabilities (z): " + ", ".join(f"{m} {v:+.1f}" for m, v in zs.items())
                    + f"; worst of {len(oracle.bins)} cells (spot, move, tenth of P) z {oracle.worst_bin()[0]:+.1f}: {oracle.worst_bin()[1]}",
                    flush=True,
                )
                for p, r in placed:
                    rows.append((seed, strength, p, r))
                    print(
                        f"    {p.kind}: #{p.rank} log LR {_fmt(p.score)} (best innocent {_fmt(p.best)}: {term(p.best_pair[0])} & "
                        f"{term(p.best_pair[1])}), posterior {p.posterior:.2f}; robust #{r.rank} log LR {_fmt(r.score)} (best innocent "
                        f"{_fmt(r.best)}), posterior {r.posterior:.2f}; together {p.together} ({p.deviated}); "
                        f"screen {_screen(screens, seed, strength, p.kind)}"
                        + (f"; other colluding pairs above: {', '.join(p.above)}" if p.above else ""),
                        flush=True,
                    )
                if not same:
                    raise SystemExit("the recorded room differs from the compiled simulator's")
    print()
    print("| kind | strength | seed | together (deviated) | oracle rank | log LR (best innocent) | robust rank | log LR (best innocent) | screen rank |")
    print("|---|---:|---:|---|---:|---|---:|---|---:|")
    for kind in KINDS:
        for strength in args.strengths:
            for seed, x, p, r in rows:
                if p.kind == kind and x == strength:
                    print(f"| {kind.replace('-', ' ')} | {strength:g} | {seed} | {p.together} ({p.deviated}) | {p.rank} | "
                          f"{_fmt(p.score)} ({_fmt(p.best)}) | {r.rank} | {_fmt(r.score)} ({_fmt(r.best)}) | "
                          f"{_screen(screens, seed, strength, kind)} |")
    print()
    print("(rank: 1 + the innocent pairs scored above; +inf(k): k decisions an honest bot never makes; robust: every model "
          f"{SMOOTH:g} a uniform legal move; screen: bench/integrity.py's, * when above every innocent pair)")
    for kind in KINDS:
        for strength in args.strengths:
            mine = [(p, r) for _, x, p, r in rows if p.kind == kind and x == strength]
            if mine:
                print(f"  {kind} at {strength:g}: oracle first in {sum(p.rank == 1 for p, _ in mine)}/{len(mine)}, "
                      f"robust oracle first in {sum(r.rank == 1 for _, r in mine)}/{len(mine)}")


if __name__ == "__main__":
    main()
