"""The signals of one pair against its baseline, for every pair at once: each a value, a baseline, a sample and a z.

Definitions (formula, baseline, minimum sample) are docs/integrity.md's,
section by section; the ids are :data:`SIGNALS`.  Every z is one-sided,
larger meaning more like the lead it names (chip flow: either way, its
direction in words), and is scored only at or above the signal's minimum
sample (:data:`MIN_SAMPLE`).  Counts of rare decisions are judged by the
Poisson tail (:func:`hhtool.collusion.stats.poisson_upper`), rates of
common ones by the binomial's normal approximation.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

from hhtool.collusion.stats import Z_FLOOR, poisson_upper, z_of_p

SIGNALS: Final = (
    "co_presence", "chip_flow", "soft_play", "dumping", "aggression", "calls_into", "strong_fold", "passive_best", "hopeless_call",
    "card_sharing",
)
"""Every signal, in the order the outputs list them."""
PRICED: Final = ("strong_fold", "passive_best", "hopeless_call", "card_sharing")
"""The signals that need the hole cards of both players (a room's full view)."""

MIN_SAMPLE: Final = {
    "co_presence": 50,  # hands together expected from the traffic
    "chip_flow": 300,  # hands together
    "soft_play": 10,  # decisions where a bet or raise into the partner was possible
    "dumping": 20,  # decisions facing the partner's bet
    "aggression": 30,  # heads-up decisions against each other
    "calls_into": 30,  # decisions facing the partner's bet
    "strong_fold": 10,  # folds facing the partner's bet
    "passive_best": 10,  # heads-up decisions against the partner holding the best hand
    "hopeless_call": 10,  # decisions putting money in against the partner
    "card_sharing": 30,  # decisions with a card to come that the partner's face-down cards beat (its up cards do not)
}
"""The sample under which a signal is not scored (its unit is the signal's ``sample``)."""

STRONG: Final = 0.6
"""A fold is *strong* at this equity or more against the players still in."""
BEST: Final = 0.6
"""Heads up, the best hand: this equity or more."""
HOPELESS: Final = 0.15
"""Money put in at this equity or less: hopeless."""

Pair = tuple[str, str, str]
"""(site, a, b), a < b: one pair of accounts."""


@dataclass
class Row:
    """One signal of one pair."""

    signal: str
    value: float | None
    baseline: float | None
    sample: int
    z: float | None
    why_not: str | None = None
    words: str = ""
    hands: list[int] = field(default_factory=list)  # hand keys the signal rests on, strongest first
    tau2: float = 0.0  # the spread of the pairs' true differences this row's z was widened by (:func:`between`)


def _not(signal: str, value: float | None, baseline: float | None, sample: int, unit: str) -> Row:
    need = MIN_SAMPLE[signal]
    return Row(signal, value, baseline, sample, None, f"too few {unit} ({sample:,} < {need:,})")


def co_presence(
    pairs: Iterable[tuple[Pair, int]], hands: dict[tuple[str, str], int], beside: dict[str, float],
    together_hands: dict[Pair, list[int]] | None = None,
) -> dict[Pair, Row]:
    """Hands together against what the table traffic gives: E = n_a n_b * sum_h k(k-1) / (S^2 - sum n^2) per site.

    ``hands``: each account's hands dealt in; ``beside``: per site the sum
    over hands of k(k-1), k the players dealt in; S the sum of every
    account's hands.  ``together_hands``: per pair the keys of its hands
    together, which a lead of co-presence rests on (every output names
    its hands).  The z is robust, over the pairs of the data: the
    log of (together + 1/2) / (E + 1/2) less its median, over 1.4826 times
    its median absolute deviation, so that the clustering of hands (a
    stay at a table lasts many hands) widens the baseline instead of
    making every pair a lead.
    """
    total: dict[str, float] = defaultdict(float)
    squares: dict[str, float] = defaultdict(float)
    for (site, _), n in hands.items():
        total[site] += n
        squares[site] += float(n) * n
    raw: dict[Pair, tuple[int, float]] = {}
    for pair, together in pairs:
        site, a, b = pair
        denom = total[site] ** 2 - squares[site]
        e = hands.get((site, a), 0) * hands.get((site, b), 0) * beside.get(site, 0.0) / denom if denom > 0 else 0.0
        raw[pair] = (together, e)
    logs = sorted(math.log((t + 0.5) / (e + 0.5)) for t, e in raw.values() if e >= MIN_SAMPLE["co_presence"])
    med = _median(logs)
    mad = max(MIN_SPREAD, 1.4826 * _median([abs(x - med) for x in logs])) if logs else 0.0
    out: dict[Pair, Row] = {}
    for pair, (t, e) in raw.items():
        if e < MIN_SAMPLE["co_presence"] or len(logs) < 10 or mad <= 0:
            out[pair] = Row("co_presence", float(t), e, int(round(e)), None, f"too few hands expected together ({e:,.0f} < {MIN_SAMPLE['co_presence']})"
                            if e < MIN_SAMPLE["co_presence"] else "too few pairs to compare with (a robust baseline needs 10)")
            continue
        z = min(CO_PRESENCE_CAP, (math.log((t + 0.5) / (e + 0.5)) - med) / mad)
        out[pair] = Row("co_presence", float(t), e, int(round(e)), z,
                        words=f"together {t:,} hands where the traffic gives {e:,.0f} ({t / e:.1f} times)" if e else "",
                        hands=sorted((together_hands or {}).get(pair, [])))
    return out


CO_PRESENCE_CAP: Final = 3.0
"""Co-presence's z is never above this: hands at a table come in stays of many hands, so a pair whose stays overlapped
once is far above the traffic's expectation; sitting together is a reason to read the other signals, alone at most
a weak lead."""
MIN_SPREAD: Final = 0.2
"""Co-presence's spread of log ratios is never taken below this (a pair 22 % above its expectation is one standard
deviation): with few pairs, or tables whose players stay, the measured spread can be near 0."""


def _median(xs: list[float]) -> float:
    if not xs:
        return 0.0
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def chip_flow(
    pairs: dict[Pair, tuple[int, float, float, float]], recv: dict[tuple[str, str], tuple[float, float]],
    flows: dict[Pair, list[tuple[int, float]]] | None = None,
) -> dict[Pair, Row]:
    """Money from a to b in the hands together against their results with everyone else, in big bets.

    Per hand, the money each loser lost went to the winners in proportion
    to what each won; flow(a->b) is what went from a to b less what came
    back.  Each player's share of the money exchanged with everyone else,
    s_x = what x received over what x exchanged (the sum of |flow|), without
    the partner's hands; with no collusion the money from a to b is about
    V (s_b - s_a) / 2, V what the two exchanged (two who seldom meet in a
    pot exchange little, whatever their results elsewhere).  z = (F - V (s_b
    - s_a) / 2) / sqrt(sum f^2 - F^2 / n): either way (the words say who to
    whom).  ``pairs``: (n, F, sum f^2, V); ``recv``: per account (received,
    exchanged); ``flows``: per pair (hand key, flow a->b) of its hands, the
    lead's hands being those of the largest flow its way, largest first.
    """
    out: dict[Pair, Row] = {}
    moments: dict[Pair, tuple[float, float, int]] = {}
    for pair, (n, flow, flow2, vol) in pairs.items():
        site, a, b = pair
        ra, va = recv.get((site, a), (0.0, 0.0))
        rb, vb = recv.get((site, b), (0.0, 0.0))
        sa = (ra + flow) / (va - vol) if va > vol else 0.0  # a received -flow from b: without it
        sb = (rb - flow) / (vb - vol) if vb > vol else 0.0
        expect = vol * (sb - sa) / 2
        per100 = 100.0 * flow / n if n else 0.0
        base100 = 100.0 * expect / n if n else 0.0
        if n < MIN_SAMPLE["chip_flow"]:
            out[pair] = _not("chip_flow", per100, base100, n, "hands together")
            continue
        var = max(flow2 - flow * flow / n, 1e-9)
        z = (flow - expect) / math.sqrt(var)
        moments[pair] = (flow - expect, var, n)
        giver, taker = (a, b) if z > 0 else (b, a)
        way = 1.0 if z > 0 else -1.0
        largest = sorted(((k, f) for k, f in (flows or {}).get(pair, []) if f * way > 0), key=lambda kf: (-kf[1] * way, kf[0]))
        out[pair] = Row("chip_flow", per100, base100, n, z,
                        words=f"money went from {giver} to {taker}: {abs(per100 - base100):.1f} big bets a 100 hands beyond "
                              "their results with everyone else", hands=[k for k, _ in largest[:FLOW_HANDS]])
    between(out, moments)
    for r in out.values():
        if r.z is not None:
            r.z = two_sided_z(r.z)
    return out


FLOW_HANDS: Final = 50
"""A chip-flow lead names at most this many hands: those where the most money went the lead's way."""


def two_sided_z(z: float) -> float:
    """The one-sided z of a deviation either way: the normal z whose tail is twice ``|z|``'s, no lower than :data:`Z_FLOOR`."""
    from hhtool.collusion.stats import p_of_z

    return max(Z_FLOOR, z_of_p(min(1.0, 2.0 * p_of_z(abs(z)))))


def rate_z(obs: float, expect: float, var: float) -> float:
    """(obs - expect) / sd with a continuity correction of a half, toward zero."""
    if var <= 0:
        return 0.0
    d = obs - expect
    d = max(0.0, abs(d) - 0.5) * (1 if d >= 0 else -1)
    return d / math.sqrt(var)


def count_z(obs: int, expect: float) -> float:
    """The z of a count of rare events at least ``obs`` with mean ``expect``: Poisson's tail, turned into a normal z."""
    if obs <= expect:
        return min(0.0, (obs - expect) / math.sqrt(expect)) if expect > 0 else 0.0
    return z_of_p(poisson_upper(obs, expect))


@dataclass
class Tally:
    """Counts of one kind of decision: against each opponent (``vs``), and in all, per player and stratum (street)."""

    # (site, player, opponent, stratum) -> [decisions, marked]
    vs: dict[tuple[str, str, str, str], list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    hands: dict[tuple[str, str, str], list[int]] = field(default_factory=lambda: defaultdict(list))

    def add(self, site: str, player: str, opponent: str, stratum: str, marked: bool, hand: int | None = None) -> None:
        c = self.vs[(site, player, opponent, stratum)]
        c[0] += 1
        c[1] += int(marked)
        if marked and hand is not None:
            self.hands[(site, player, opponent)].append(hand)

    def totals(self) -> dict[tuple[str, str, str], list[int]]:
        """(site, player, stratum) -> [decisions, marked] against everyone."""
        out: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
        for (site, p, _, st), (n, m) in self.vs.items():
            t = out[(site, p, st)]
            t[0] += n
            t[1] += m
        return out

    def faced(self) -> tuple[dict[tuple[str, str, str], list[int]], dict[tuple[str, str], list[int]]]:
        """(site, opponent, stratum) -> [decisions, marked] of everyone against that opponent; and (site, stratum) -> all."""
        by_opp: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
        every: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
        for (site, _, o, st), (n, m) in self.vs.items():
            t = by_opp[(site, o, st)]
            t[0] += n
            t[1] += m
            e = every[(site, st)]
            e[0] += n
            e[1] += m
        return by_opp, every

    def by_pair(self) -> dict[Pair, list[tuple[str, str, str, int, int]]]:
        """Per pair: (decider, partner, stratum, decisions, marked) of each of its two players against the other."""
        out: dict[Pair, list[tuple[str, str, str, int, int]]] = defaultdict(list)
        for (site, p, o, st), (n, m) in self.vs.items():
            a, b = (p, o) if p < o else (o, p)
            out[(site, a, b)].append((p, o, st, n, m))
        return out


def expected_rate(mine: list[int], theirs: list[int] | None, every: list[int], k: int, m: int) -> float:
    """The share of marks a player's decisions against an opponent would have with nothing between them.

    The player's share against everyone else (``mine`` less the ``k``
    decisions and ``m`` marks against this opponent), times, ``theirs``
    given, the opponent's factor: the share everyone else's decisions
    against the opponent have, over everyone's (a bluffer is folded to
    with better hands, a caller is bet into more).  Half a mark either
    way keeps a share off exactly 0 or 1 from few decisions.
    """
    rate = (mine[1] - m + 0.5) / (mine[0] - k + 1.0)
    if theirs is None:
        return rate
    all_rate = (every[1] + 0.5) / (every[0] + 1.0)
    opp_rate = (theirs[1] - m + 0.5 * all_rate) / (theirs[0] - k + 0.5)
    factor = opp_rate / all_rate if all_rate > 0 else 1.0
    return min(0.999, max(0.001, rate * factor))


def between(rows: dict[Pair, Row], moments: dict[Pair, tuple[float, float, int]]) -> float:
    """Widen each pair's z by the spread of the pairs' true differences from their baselines (a random effect); return it.

    The baseline cannot hold everything: two styles meeting play each other
    in their own way, and with many hands together that difference alone
    would make a large z.  Each pair's difference per decision d = (obs -
    E) / n has its sampling variance v = var / n^2; the spread of the true
    differences tau^2 is the smallest with which the pairs' standardised
    differences (d - m) / sqrt(v + tau^2) have a robust spread (1.4826 times
    their median absolute deviation, m the weighted median) of at most 1: a
    robust Paule and Mandel estimate, which the few pairs of a collusion do
    not set and which, unlike an estimate over the pairs less those farthest
    out, does not shrink with the pairs left out.  It is never below
    :data:`TAU_FLOOR` times the pairs' median v (with fewer than
    :data:`MIN_PAIRS` pairs, the spread cannot be measured and the floor is
    :data:`TAU_FLOOR_FEW` times it, and at least :data:`TAU_FEW` squared): a
    room of few pairs gives no strong lead from its noise, nor from two
    styles meeting where each player's baseline is its play against two or
    three others.  Each z is then multiplied by sqrt(v / (v +
    tau^2)): a pair stands out by a difference larger than styles give, not
    by its sample alone.
    """
    ds = {p: (diff / n, var / (n * n)) for p, (diff, var, n) in moments.items() if n > 0 and var > 0}
    for row in rows.values():
        if row.z is not None:  # DuckDB's parallel sums may differ in the last bits from run to run: not the ranking
            row.z = round(row.z, 9)
    if not ds:
        return 0.0
    items = list(ds.values())
    med_v = _median([v for _, v in items])
    floor = TAU_FLOOR * med_v if len(items) >= MIN_PAIRS else max(TAU_FLOOR_FEW * med_v, TAU_FEW**2)
    tau2 = floor
    if len(items) >= MIN_PAIRS:
        def spread(t2: float) -> float:
            m = _weighted_median([(d, 1.0 / (v + t2)) for d, v in items])
            return 1.4826 * _median([abs(d - m) / math.sqrt(v + t2) for d, v in items])

        if spread(floor) > 1.0:
            lo, hi = floor, max(floor, 1e-12)
            while spread(hi) > 1.0 and hi < 1e12:
                hi *= 4.0
            for _ in range(60):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if spread(mid) > 1.0 else (lo, mid)
            tau2 = hi
    for row in rows.values():
        row.tau2 = tau2
    for p, (d, v) in ds.items():
        r = rows.get(p)
        if r is not None and r.z is not None:
            r.z = round(r.z * math.sqrt(v / (v + tau2)), 9)
    return tau2


MIN_PAIRS: Final = 20
"""Under this many pairs scored, the spread of the pairs' true differences is not measured: :data:`TAU_FLOOR_FEW` stands."""
TAU_FLOOR: Final = 0.1
"""The spread of the pairs' true differences is at least this share of the pairs' median sampling variance."""
TAU_FLOOR_FEW: Final = 1.0
"""In a room of few pairs, the spread taken: as large as the median sampling variance (a z at most 1/sqrt 2 of its raw value)."""
TAU_FEW: Final = 0.1
"""In a room of few pairs, the spread of the pairs' true differences is at least this (10 points of a share, a tenth of a big
bet a hand): on 435 pairs it measures 0.01-0.05, but there each player's baseline is its play against 29 others, not 3."""


def _weighted_median(xs: list[tuple[float, float]]) -> float:
    s = sorted(xs)
    half = sum(w for _, w in s) / 2
    acc = 0.0
    for x, w in s:
        acc += w
        if acc >= half:
            return x
    return s[-1][0] if s else 0.0


def deflate(rows: dict[Pair, Row]) -> float:
    """Widen a signal's z's where they vary more across the pairs than their model says (never narrow them).

    With nothing going on most pairs' z's are about standard normal; a
    spread wider than that (1.4826 times their median absolute deviation,
    over the pairs scored) means the baseline misses something every pair
    shares -- the styles' interplay, big pots -- and every z is divided by it.
    """
    zs = [r.z for r in rows.values() if r.z is not None]
    if len(zs) < 20:
        return 1.0
    med = _median(zs)
    spread = max(1.0, 1.4826 * _median([abs(z - med) for z in zs]))
    for r in rows.values():
        if r.z is not None:
            r.z = r.z / spread
    return spread


def against_baseline(
    signal: str, tally: Tally, pairs: Iterable[Pair], unit: str, rare: bool, words: str, *, two_sided: bool = False,
    two_way: bool = True,
) -> dict[Pair, Row]:
    """A marked share against the partner, against the same players' share against everyone else in the same stratum.

    Expected marks E = sum over the two players and strata of n_vs_partner
    * (marks - marks_vs_partner) / (n - n_vs_partner); z from the Poisson
    tail (``rare``) or the binomial's normal approximation.  ``words``: a
    format with {obs}, {n}, {expect}.
    """
    totals = tally.totals()
    by_opp, every = tally.faced()
    mine = tally.by_pair()
    out: dict[Pair, Row] = {}
    moments: dict[Pair, tuple[float, float, int]] = {}
    for pair in pairs:
        site = pair[0]
        n = obs = 0
        expect = var = 0.0
        for p, o, st, k, m in mine.get(pair, ()):
            rate = expected_rate(totals[(site, p, st)], by_opp[(site, o, st)] if two_way else None, every[(site, st)], k, m)
            n += k
            obs += m
            expect += k * rate
            var += k * rate * (1 - rate)
        value = obs / n if n else None
        base = expect / n if n else None
        if n < MIN_SAMPLE[signal]:
            out[pair] = _not(signal, value, base, n, unit)
            continue
        z = count_z(obs, expect) if rare else rate_z(obs, expect, var)
        text = words.format(obs=obs, n=n, expect=expect)
        if two_sided and z < 0:  # either way is a lead (softer, or harder: a dumper betting into the receiver)
            text = (f"heads up against each other they bet or raised {n - obs:,} of {n:,} times, where their play against "
                    f"others in the same spots gives {n - expect:,.0f}")
        hands: list[int] = []
        for p, o in ((pair[1], pair[2]), (pair[2], pair[1])):
            hands += tally.hands.get((site, p, o), [])
        out[pair] = Row(signal, value, base, n, z, words=text, hands=sorted(set(hands)))
        moments[pair] = (obs - expect, var if not rare else max(expect, 0.5), n)
    between(out, moments)
    if two_sided:  # its chance doubled
        for r in out.values():
            if r.z is not None:
                r.z = two_sided_z(r.z)
    return out


Stratum = tuple[object, ...]
"""What a decider sees at a decision (:func:`hhtool.collusion.spots.hidden_beaten`): street, facing a bet, bets made, heads-up,
its category, a high main rank."""

SHRINK: Final = 10.0
"""A player's rate in a stratum is drawn toward its expected rate there by this many decisions' weight."""
STYLE_PRIOR: Final = 5.0
"""A player's style (its log-odds shift from the room's rates) is drawn toward 0 by this much of its binomial variance."""


def hidden_beaten(
    counts: dict[tuple[str, str, str, Stratum], tuple[int, int]], pairs: Iterable[Pair],
    hands: dict[tuple[str, str, str, Stratum], list[int]], unit: str, words: str,
) -> dict[Pair, Row]:
    """Card sharing: passive play where the partner's hidden cards beat the decider, against its play where another's do.

    An honest decision cannot depend on cards the decider cannot see.
    ``counts``: per (site, player, beater, stratum) the decisions and the
    passive ones, ``beater`` "" for the decisions no opponent's hidden
    cards beat.  For each of a pair's decisions beaten by the partner's
    hidden cards the expected passive rate is the player's own in the same
    stratum where someone else's hidden cards beat it (the partner's
    decisions left out), drawn toward a target by :data:`SHRINK`
    decisions: the room's rate in that stratum (beaten by hidden cards),
    moved by the player's style, its log-odds shift from the room in the
    decisions no hidden cards beat (the one Newton step from 0, (O - E) /
    (V + :data:`STYLE_PRIOR`)).  Against others' hidden cards, not against
    all play: a strong-looking board hides strong cards more often, and
    the opponents who hold them bet more; both are in the baseline.
    z = (obs - E) / sqrt(sum p (1 - p)) with a continuity correction,
    widened by the pairs' spread (:func:`between`).  ``hands``: per
    (site, player, beater, stratum) the hands of its passive decisions,
    named the most telling first: the lowest expected passive rate (the
    fold or check the player seldom makes there), ties to the lower key,
    each hand once.  ``words``: a format with {obs}, {n}, {expect}.
    """
    mine: dict[tuple[str, str, Stratum], list[int]] = defaultdict(lambda: [0, 0])  # beaten by someone's hidden cards
    room: dict[tuple[str, Stratum], list[int]] = defaultdict(lambda: [0, 0])
    room_free: dict[tuple[str, Stratum], list[int]] = defaultdict(lambda: [0, 0])
    free: dict[tuple[str, str], list[tuple[Stratum, int, int]]] = defaultdict(list)
    by_pair: dict[Pair, list[tuple[str, Stratum, int, int]]] = defaultdict(list)
    for (site, p, beater, st), (n, k) in counts.items():
        if beater:
            for t in (mine[(site, p, st)], room[(site, st)]):
                t[0] += n
                t[1] += k
            a, b = (p, beater) if p < beater else (beater, p)
            by_pair[(site, a, b)].append((p, st, n, k))
        else:
            t = room_free[(site, st)]
            t[0] += n
            t[1] += k
            free[(site, p)].append((st, n, k))
    style: dict[tuple[str, str], float] = {}
    for key, rows in free.items():
        o = e = v = 0.0
        for st, n, k in rows:
            r = _rate(room_free[(key[0], st)])
            o += k
            e += n * r
            v += n * r * (1 - r)
        style[key] = (o - e) / (v + STYLE_PRIOR)
    out: dict[Pair, Row] = {}
    moments: dict[Pair, tuple[float, float, int]] = {}
    for pair in pairs:
        site = pair[0]
        n_all = obs = 0
        expect = var = 0.0
        telling: list[tuple[float, int]] = []
        for p, st, n, k in by_pair.get(pair, ()):
            big_n, big_k = mine[(site, p, st)]
            target = 1.0 / (1.0 + math.exp(-(_logit(_rate(room[(site, st)])) + style.get((site, p), 0.0))))
            rate = min(0.999, max(0.001, (big_k - k + SHRINK * target) / (big_n - n + SHRINK)))
            other = pair[2] if p == pair[1] else pair[1]
            telling += [(rate, h) for h in hands.get((site, p, other, st), ())]
            n_all += n
            obs += k
            expect += n * rate
            var += n * rate * (1 - rate)
        value = obs / n_all if n_all else None
        base = expect / n_all if n_all else None
        if n_all < MIN_SAMPLE["card_sharing"]:
            out[pair] = _not("card_sharing", value, base, n_all, unit)
            continue
        z = rate_z(obs, expect, var)
        named = list(dict.fromkeys(h for _, h in sorted(telling)))
        out[pair] = Row("card_sharing", value, base, n_all, z, words=words.format(obs=obs, n=n_all, expect=expect), hands=named)
        moments[pair] = (obs - expect, var, n_all)
    between(out, moments)
    return out


Cell = tuple[str, str, str, str, int, int]
"""(site, player, against, stratum, decisions, marked): counts of one player's decisions in one stratum against one player."""


def additive(cells: Iterable[Cell], rounds: int = 15) -> dict[tuple[str, str, str], float]:
    """Each (site, player, stratum)'s mark rate by an additive logit, logit p = a_player + b_stratum, fitted on every decision.

    The prior a player's own rate in a stratum is drawn toward: a player
    who bets more than the room everywhere bets more in a stratum it seldom
    reached too (the room's rate there alone would not say so).  A few
    damped Newton rounds, players then strata, over the counts.
    """
    tot: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for site, p, _, st, n, k in cells:
        t = tot[(site, p, st)]
        t[0] += n
        t[1] += k
    a: dict[tuple[str, str], float] = defaultdict(float)
    b: dict[tuple[str, str], float] = {}
    room: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for (site, _, st), (n, k) in tot.items():
        r = room[(site, st)]
        r[0] += n
        r[1] += k
    for key, (n, k) in room.items():
        b[key] = math.log((k + 0.5) / (n - k + 0.5))
    for _ in range(rounds):
        for side in (0, 1):
            g: dict[tuple[str, str], float] = defaultdict(float)
            h: dict[tuple[str, str], float] = defaultdict(float)
            for (site, p, st), (n, k) in tot.items():
                q = _logistic(a[(site, p)] + b[(site, st)])
                key = (site, p) if side == 0 else (site, st)
                g[key] += k - n * q
                h[key] += n * q * (1 - q)
            target = a if side == 0 else b
            for key, gk in g.items():  # damped: a stratum of one decision, all marked, does not run off
                target[key] += max(-2.0, min(2.0, gk / (h[key] + 1.0)))
    return {(site, p, st): _logistic(a[(site, p)] + b[(site, st)]) for (site, p, st) in tot}


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))


Decision = tuple[str, str, str, str, int, bool]
"""(site, player, against, stratum, hand key, marked): one decision of a :data:`Cell`, for the hands a lead names."""
NAMED_FROM: Final = 2.0
"""A lead names the hands of its signals whose z is at least this (:func:`hhtool.collusion.screen.screen`)."""


def stratified(
    signal: str, cells: Iterable[Cell], pairs: Iterable[Pair], spot: Callable[[str], bool], mode: str, unit: str, words: str,
    decisions: Callable[[list[Pair]], Iterable[Decision]] | None = None,
) -> dict[Pair, Row]:
    """A pair's decisions against each other, each against the same player's rate in the same stratum against everyone else.

    Each decision's expected rate p: the player's marks in the stratum
    less those against the partner, drawn toward the additive model's
    rate (:func:`additive`) by :data:`PRIOR_WEIGHT` decisions.  The
    decisions tested are those whose stratum ``spot`` accepts.  ``mode``:

    - ``"fewer"``: the colluding play turns a share of the marked
      decisions into unmarked ones (soft play: a bet or raise into the
      partner becomes a check or call): the score test of that share,
      S = sum w (p - o), w = 1 / (1 - p), var = sum w^2 p (1 - p), p at
      most :data:`FEWER_CAP` (a stratum where the player always bets would
      weigh one check as a lead);
    - ``"grain"``: the colluding play turns the stratum's usual outcome
      into the unusual one (chip dumping, facing the partner's bet: a fold
      with a hand the player calls with, a call with one it folds): q the
      unusual outcome's rate (p or 1 - p, at least :data:`GRAIN_FLOOR`),
      S = sum (u - q) / q, var = sum (1 - q) / q, u 1 for the unusual one.

    z = S / sqrt(var), one-sided, read with the skew of S (:func:`skewed_z`:
    a few unusual decisions of weight 30 are not the normal tail), then
    widened by the pairs' spread (:func:`between`).  The value is the pair's marked share (``fewer``)
    or unusual share (``grain``), the baseline its expectation.

    ``decisions``: given the pairs whose z is at least :data:`NAMED_FROM`
    (those a lead names), their decisions against each other, one each
    (the few a lead rests on, not the room's); each such row's ``hands``
    are then the hands of the decisions that carry the lead, strongest
    first (:func:`_named`).
    """
    cells = list(cells)
    prior = additive(cells)
    tot: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for site, p, _, st, n, k in cells:
        t = tot[(site, p, st)]
        t[0] += n
        t[1] += k
    acc: dict[Pair, list[float]] = defaultdict(lambda: [0.0] * 6)  # n, score, var, observed, expected, third moment
    rates: dict[tuple[str, str, str, str], float] = {}  # each cell tested: its expected rate, for the hands named
    for site, p, o, st, n, k in cells:
        if not o or o == p or not spot(st):
            continue
        t = tot[(site, p, st)]
        rate = (t[1] - k + PRIOR_WEIGHT * prior[(site, p, st)]) / (t[0] - n + PRIOR_WEIGHT)
        rates[(site, p, o, st)] = rate
        a = acc[(site, p, o) if p < o else (site, o, p)]
        a[0] += n
        if mode == "fewer":
            rate = min(FEWER_CAP, max(1e-6, rate))
            w = 1.0 / (1.0 - rate)
            a[1] += w * (n * rate - k)
            a[2] += w * w * n * rate * (1.0 - rate)
            a[3] += k
            a[4] += n * rate
            a[5] += w**3 * n * rate * (1.0 - rate) * (2.0 * rate - 1.0)  # the passive one's rate is 1 - p
        else:
            q = max(GRAIN_FLOOR, min(rate, 1.0 - rate))
            unusual = k if rate < 0.5 else n - k
            a[1] += (unusual - n * q) / q
            a[2] += n * (1.0 - q) / q
            a[3] += unusual
            a[4] += n * q
            a[5] += n * (1.0 - q) * (1.0 - 2.0 * q) / (q * q)
    out: dict[Pair, Row] = {}
    moments: dict[Pair, tuple[float, float, int]] = {}
    for pair in pairs:
        n_, score, var, obs, expect, third = acc.get(pair, [0.0] * 6)
        n = int(n_)
        value = obs / n if n else None
        base = expect / n if n else None
        if n < MIN_SAMPLE[signal] or var <= 0:
            out[pair] = _not(signal, value, base, n, unit)
            continue
        z = skewed_z(score / math.sqrt(var), third / var**1.5)
        out[pair] = Row(signal, value, base, n, z, words=words.format(obs=obs, n=n, expect=expect))
        moments[pair] = (score, var, n)
    between(out, moments)
    leads = [p for p, r in out.items() if r.z is not None and r.z >= NAMED_FROM]
    if decisions is not None and leads:
        for pair, hands in _named(decisions(leads), rates, mode).items():
            if pair in out:
                out[pair].hands = hands
    return out


def _named(decisions: Iterable[Decision], rates: dict[tuple[str, str, str, str], float], mode: str) -> dict[Pair, list[int]]:
    """Per pair, the hands of the decisions that carry a :func:`stratified` lead, strongest first, each hand once.

    ``fewer``: the unmarked decisions (a check or call where a bet or raise
    was possible), the highest expected rate first: the most telling
    missing bets.  ``grain``: the decisions whose outcome was the unusual
    one of the stratum (the marked one where the rate is under a half),
    the rarest first (lowest q).  A decision of a cell the test left out
    (``rates`` has no rate for it) names nothing; ties go to the lower
    hand key.
    """
    ranked: dict[Pair, list[tuple[float, int]]] = defaultdict(list)
    for site, p, o, st, hand, marked in decisions:
        rate = rates.get((site, p, o, st))
        if rate is None:
            continue
        if mode == "fewer":
            if marked:
                continue
            strength = rate
        else:
            if marked != (rate < 0.5):
                continue
            strength = -min(rate, 1.0 - rate)
        ranked[(site, p, o) if p < o else (site, o, p)].append((-strength, int(hand)))
    out: dict[Pair, list[int]] = {}
    for pair, xs in ranked.items():
        hands: list[int] = []
        seen: set[int] = set()
        for _, h in sorted(xs):
            if h not in seen:
                seen.add(h)
                hands.append(h)
        out[pair] = hands
    return out


def _rate(c: list[int]) -> float:
    """A share from [decisions, marked], half a mark either way (never exactly 0 or 1)."""
    return (c[1] + 0.5) / (c[0] + 1.0)


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


PRIOR_WEIGHT: Final = 30.0
"""A player's rate in a stratum is drawn toward the additive model's by this many decisions (:func:`stratified`)."""
FEWER_CAP: Final = 0.85
"""In the ``fewer`` test an expected rate is taken no higher than this: a check where the player bets 99 times in 100
weighs as one where it bets 85 in 100, so that a few such strata, their rate itself uncertain, make no lead."""
GRAIN_FLOOR: Final = 0.03
"""In the ``grain`` test the unusual outcome's rate is taken no lower than this (a weight of at most 33 a decision)."""


def skewed_z(z: float, gamma: float) -> float:
    """The normal z of a standardised sum ``z`` whose skewness is ``gamma``: Wilson and Hilferty's cube root of a gamma.

    A sum of rare decisions weighted by their rarity is skewed to the
    right: its tail beyond 3 comes far more often than the normal's.  Read
    as a gamma of the same mean, variance and skew (shape k = 4 /
    gamma^2), its tail's z is ((x / k)^(1/3) - 1 + 1 / 9k) / sqrt(1 / 9k),
    x = k + z sqrt(k); a skew to the left is the mirror.  Monotone in z;
    the normal z when the skew is nil.
    """
    if abs(gamma) < 1e-6:
        return z
    if gamma < 0:
        return -skewed_z(-z, -gamma)
    k = 4.0 / (gamma * gamma)
    x = k + z * math.sqrt(k)
    if x <= 0:
        return -Z_CAP_SKEW
    c = 1.0 / (9.0 * k)
    root: float = math.pow(x / k, 1.0 / 3.0)
    return max(-Z_CAP_SKEW, min(Z_CAP_SKEW, (root - 1.0 + c) / math.sqrt(c)))


Z_CAP_SKEW: Final = 12.0
"""As :data:`hhtool.collusion.stats.Z_CAP`: beyond this many standard deviations a z says nothing more."""
