"""The integrity screen (docs/integrity.md): signals against hand counts, the ranking on simulated collusion, the cache,
hostile names, own views and the dossier.

Rooms are simulated (``hhtool simulate``'s colluding pairs are the ground truth) and imported into real DuckDB files;
the seeds here were not used to tune the screen (it was tuned on seeds 31 and 101-104).
"""

from __future__ import annotations

import json
import math
import shutil
from collections import Counter
from random import Random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from hhtool.history.events import Bet, BringIn, Call, Check, Complete, Deal, Fold, Hand, RaiseTo, Street
from hhtool.history.reader import read_file
from hhtool.collusion import UnknownPairError, dossier, screen
from hhtool.collusion.screen import Screen
from hhtool.collusion import signals as sg
from hhtool.collusion.pricing import PriceCache, cache_path
from hhtool.collusion.score import KINDS, combine, kind_p, lead, sum_tail
from hhtool.collusion.stats import chi2_upper, combined_p, p_of_z, poisson_upper, z_of_p
from hhtool.simulate import make_config, write_simulation
from hhtool.store.db import connect
from tests.inprocess import hhtool


def _room(
    folder: Path, name: str, hands: int, seed: int, collude: tuple[str, ...] = (), view: str = "audit", pool: int = 0, players: int = 6,
) -> Path:
    out = folder / f"{name}.txt"
    write_simulation(make_config(rules="classic", seed=seed, collude=list(collude), view=view, pool=pool, players=players), hands, out)
    db = folder / f"{name}.duckdb"
    r = hhtool("import", str(out), "--db", str(db), "--workers", "1")
    assert r.returncode == 0, r.stderr
    return db


_rooms: dict[tuple[object, ...], Path] = {}
_screens: dict[Path, Screen] = {}


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Path]]:
    """:func:`_room`, each room simulated and imported once for the module: the tests given one only read it (the screen
    opens it read-only; a test that writes copies it), so two tests of the same room (a kind's ranking and its hands, its
    dossier) read the same hands as each would have simulated."""
    folder = tmp_path_factory.mktemp("rooms")

    def made(name: str, hands: int, seed: int, collude: tuple[str, ...] = (), **kw: Any) -> Path:
        key = (hands, seed, collude, tuple(sorted(kw.items())))
        if key not in _rooms:
            _rooms[key] = _room(folder, f"{name}-{len(_rooms)}", hands, seed, collude, **kw)
        return _rooms[key]

    yield made
    _rooms.clear()
    _screens.clear()


def screened(db: Path) -> Screen:
    """``screen(db, cache=False)`` of a room of the module's, screened once: the screen is a function of the hands (no
    cache, no randomness), and the tests only read what it returns."""
    if db not in _screens:
        _screens[db] = screen(db, cache=False)
    return _screens[db]


@pytest.fixture(scope="module")
def honest(room: Callable[..., Path]) -> Path:
    return room("honest", 1500, 71)


# ---------------------------------------------------------------------------
# the formulas


def test_distributions() -> None:
    assert chi2_upper(3.841459, 1) == pytest.approx(0.05, abs=1e-6)
    assert chi2_upper(5.991465, 2) == pytest.approx(0.05, abs=1e-6)
    assert chi2_upper(11.0705, 5) == pytest.approx(0.05, abs=1e-5)
    assert poisson_upper(3, 1.0) == pytest.approx(1 - math.exp(-1) * (1 + 1 + 0.5))
    assert poisson_upper(0, 2.0) == 1.0
    assert 0 < poisson_upper(60, 2.0) < 1e-40  # far out: summed upward, not 1 - (almost 1)
    # one signal: the combined p is the normal tail of its z; none positive: 1
    assert combined_p([2.5]) == pytest.approx(p_of_z(2.5))
    assert combined_p([-1.0, -2.0]) == 1.0
    assert combined_p([2.0, 2.0]) < p_of_z(2.0)


def test_lead_corrects_for_the_pairs_screened() -> None:
    assert lead(1e-7, 435, 3) == "strong"
    assert lead(1e-5, 435, 3) == "moderate"  # 0.004 after 435 pairs
    assert lead(0.005, 435, 3) == "weak"
    assert lead(0.05, 435, 3) == "none"
    assert lead(1e-9, 435, 0) == "none"  # nothing scored


def test_co_presence_expectation() -> None:
    # two sites' worth of one: a, b, c with 100, 50, 10 hands; sum over hands of k(k-1) = 160 (80 two-handed hands)
    rows = sg.co_presence([(("S", "a", "b"), 50), (("S", "a", "c"), 10), (("S", "b", "c"), 0)],
                          {("S", "a"): 100, ("S", "b"): 50, ("S", "c"): 10}, {"S": 160.0})
    denom = 160**2 - (100**2 + 50**2 + 10**2)
    assert rows[("S", "a", "b")].baseline == pytest.approx(100 * 50 * 160 / denom)
    assert rows[("S", "a", "c")].baseline == pytest.approx(100 * 10 * 160 / denom)
    assert all(r.z is None for r in rows.values())  # too few pairs and hands to compare with: not scored
    assert "too few" in (rows[("S", "b", "c")].why_not or "")


def test_chip_flow_against_each_ones_results_elsewhere() -> None:
    pair = ("S", "a", "b")
    # 400 hands: 100 big bets from a to b, 300 exchanged; elsewhere a received -50 of 500 exchanged, b +100 of 400
    rows = sg.chip_flow({pair: (400, 100.0, 900.0, 300.0)}, {("S", "a"): (-150.0, 800.0), ("S", "b"): (200.0, 700.0)})
    r = rows[pair]
    s_a = (-150.0 + 100.0) / (800.0 - 300.0)
    s_b = (200.0 - 100.0) / (700.0 - 300.0)
    expect = 300.0 * (s_b - s_a) / 2
    assert r.value == pytest.approx(25.0)
    assert r.baseline == pytest.approx(100 * expect / 400)
    z = (100.0 - expect) / math.sqrt(900.0 - 100.0**2 / 400)
    # one pair: the spread between pairs cannot be measured, the floor (0.1 squared, above the pair's own v) widens it
    v = (900.0 - 100.0**2 / 400) / 400**2
    assert r.z == pytest.approx(sg.two_sided_z(z * math.sqrt(v / (v + 0.01))), abs=1e-8)
    few = sg.chip_flow({pair: (99, 10.0, 50.0, 20.0)}, {})[pair]
    assert few.z is None and "99 < 300" in (few.why_not or "")


def test_expected_rate_is_the_players_rate_times_the_opponents_factor() -> None:
    # the player: 30 marks of 100 decisions, 10 of 20 of them against this opponent; everyone: 200 of 1000;
    # everyone against the opponent: 60 of 200, with the player's 10 of 20
    rate = sg.expected_rate([100, 30], [200, 60], [1000, 200], 20, 10)
    mine = (30 - 10 + 0.5) / (100 - 20 + 1.0)
    all_rate = 200.5 / 1001.0
    theirs = (60 - 10 + 0.5 * all_rate) / (200 - 20 + 0.5)
    assert rate == pytest.approx(mine * theirs / all_rate)
    assert sg.expected_rate([100, 30], None, [1000, 200], 20, 10) == pytest.approx(mine)


def test_combine_reads_signals_by_kind() -> None:
    # one colluding signal at 5 outranks two honest styles' signals at 3 that no kind reads as evidence
    one = combine([5.0, 1.0, -0.5], ["dumping", "chip_flow", "soft_play"])
    styles = combine([3.0, 3.0, 0.2, 3.0, 3.0], ["hopeless_call", "co_presence", "calls_into", "aggression", "strong_fold"])
    assert one[0] > 3.5 > styles[0]
    # per kind: Stouffer, then the best kind corrected for the kinds scored (Sidak)
    kind, p = kind_p({"soft_play": 2.0, "passive_best": 2.0, "card_sharing": 0.0})
    assert kind == "soft play" and p == pytest.approx(1 - (1 - p_of_z(4.0 / math.sqrt(2))) ** 2)
    assert kind_p({"soft_play": 3.0, "passive_best": -12.0})[1] == pytest.approx(p_of_z(0.0))  # a z counts no lower than -3
    # a two-sided signal (chip flow) at its centre, z -2.2, takes nothing from the kind's other signal: it counts no lower
    # than 0, at half weight, and the sum is read by its own null (dumping 4.15 with flat money: p 1.1e-4, was Stouffer's 0.08)
    flat = kind_p({"dumping": 4.15, "chip_flow": -2.2})
    assert flat == kind_p({"dumping": 4.15, "chip_flow": 0.0}) and flat[0] == "chip dumping"
    assert p_of_z(4.15) < flat[1] < 2e-4
    assert kind_p({"dumping": 2.7, "chip_flow": 1.2})[1] < p_of_z(2.7)  # money moved the same way adds to it
    assert kind_p({"chip_flow": 3.0})[1] == pytest.approx(p_of_z(3.0))
    draw = Random(42)
    sums = [draw.gauss(0.0, 1.0) + 0.5 * max(0.0, draw.gauss(0.0, 1.0)) for _ in range(200_000)]
    for s in (0.5, 2.0, 3.0):  # calibrated: with nothing going on the sum's tail is sum_tail's
        assert sum(x >= s for x in sums) / len(sums) == pytest.approx(sum_tail(s, 1, 0.5), rel=0.06)
    # the raw shares the stratified tests replaced are words beside the lead, not its evidence
    assert kind_p({"aggression": 9.0, "calls_into": 9.0, "strong_fold": 9.0}) == (None, 1.0)
    assert kind_p({"co_presence": 9.0}) == (None, 1.0)
    assert combine([]) == (0.0, 1.0)
    assert combine([2.0, 2.0])[1] == combined_p([2.0, 2.0])  # unnamed z's: the chi-square mixture, as before
    assert set(KINDS) == {"soft play", "chip dumping", "card sharing"}


def _cells(pair_rate: float, n: int, others: int = 400, strata: tuple[tuple[str, float], ...] = (("F-3rd:1h", 0.8),)) -> list[sg.Cell]:
    """Counts of a room of 12 players whose marked share is each stratum's rate against everyone, and ``pair_rate``
    times it between a and b (``n`` decisions each way per stratum)."""
    cells: list[sg.Cell] = []
    players = ["a", "b"] + [f"p{i}" for i in range(10)]
    for st, rate in strata:
        for p in players:
            for o in players:
                if p == o:
                    continue
                k = n if {p, o} == {"a", "b"} else others // 11
                cells.append(("S", p, o, st, k, round(k * rate * (pair_rate if {p, o} == {"a", "b"} else 1.0))))
    return cells


def test_stratified_fewer_finds_the_pair_that_stops_betting_into_each_other() -> None:
    """A pair that bets a fifth as often against each other as in the same spots against others (soft play): only it is a lead."""
    strata = (("FH3rd0:1h", 0.8), ("-H4th0:0l", 0.1), ("FM2nd1:0m", 0.3))
    pairs = sorted({("S", min(p, o), max(p, o)) for _, p, o, *_ in _cells(1.0, 40, strata=strata)})
    rows = sg.stratified("soft_play", _cells(0.2, 40, strata=strata), pairs, lambda st: True, "fewer", "decisions", "{obs} {n} {expect}")
    lead_row = rows[("S", "a", "b")]
    assert lead_row.z is not None and lead_row.z > 5.0 and lead_row.sample == 240
    assert lead_row.value is not None and lead_row.baseline is not None and lead_row.value < lead_row.baseline
    assert max(r.z or 0.0 for p, r in rows.items() if p != ("S", "a", "b")) < 1.0
    # betting into each other as often as against others: no lead; more often: none either (one-sided)
    for rate in (1.0, 1.2):
        same = sg.stratified("soft_play", _cells(rate, 40, strata=strata), pairs, lambda st: True, "fewer", "d", "")
        assert (same[("S", "a", "b")].z or 0.0) < 1.0
    # too few decisions between them: not scored, and why
    few = sg.stratified("soft_play", _cells(0.2, 1, strata=strata[:1]), pairs, lambda st: True, "fewer", "decisions", "")
    assert few[("S", "a", "b")].z is None and "too few decisions" in (few[("S", "a", "b")].why_not or "")


def test_stratified_grain_finds_folds_where_the_player_calls_and_calls_where_it_folds() -> None:
    """Facing each other's bets the pair folds a strong hand (where everyone calls) and calls a weak one (where everyone
    folds): each the unusual outcome of its stratum, the two adding up (chip dumping), while the marked share over both
    strata, what the raw ``calls_into`` read, stays as it was."""
    strata = (("FH3rd1:2h", 0.05), ("FH3rd1:0l", 0.9))  # the fold rate: strong hands seldom fold, weak ones mostly
    pairs = sorted({("S", min(p, o), max(p, o)) for _, p, o, *_ in _cells(1.0, 40, strata=strata)})
    cells = [(s, p, o, st, n, k) for s, p, o, st, n, k in _cells(1.0, 40, strata=strata)]
    dump = []
    for s, p, o, st, n, k in cells:
        if {p, o} == {"a", "b"}:  # 8 strong hands folded more, 8 weak hands called more: the folds' total is unchanged
            k = k + 8 if st == "FH3rd1:2h" else k - 8
        dump.append((s, p, o, st, n, k))
    assert sum(c[5] for c in dump) == sum(c[5] for c in cells)
    rows = sg.stratified("dumping", dump, pairs, lambda st: True, "grain", "decisions", "")
    assert (rows[("S", "a", "b")].z or 0.0) > 4.0
    assert max(r.z or 0.0 for p, r in rows.items() if p != ("S", "a", "b")) < 1.0
    honest = sg.stratified("dumping", cells, pairs, lambda st: True, "grain", "decisions", "")
    assert abs(honest[("S", "a", "b")].z or 0.0) < 1.0


def test_stratified_names_the_hands_of_the_decisions_that_carry_the_lead() -> None:
    """Soft play names the pair's checks and calls against each other, the highest expected bet rate first; dumping the
    decisions whose outcome was the unusual one of the stratum, the rarest first; only the leads' decisions are asked for
    (issue 42: every output names the hands it rests on)."""
    strata = (("FH3rd0:1h", 0.8), ("-H4th0:0l", 0.1), ("FM2nd1:0m", 0.3))
    pairs = sorted({("S", min(p, o), max(p, o)) for _, p, o, *_ in _cells(1.0, 40, strata=strata)})
    asked: list[list[sg.Pair]] = []

    def soft(leads: list[sg.Pair]) -> list[sg.Decision]:
        asked.append(leads)
        return [("S", "a", "b", "-H4th0:0l", 1, False), ("S", "b", "a", "FH3rd0:1h", 2, False),
                ("S", "a", "b", "FH3rd0:1h", 3, True),  # a bet: not a missing one
                ("S", "a", "b", "FM2nd1:0m", 4, False), ("S", "b", "a", "-M5th0:0l", 5, False),  # a stratum not tested
                ("S", "a", "b", "FH3rd0:1h", 6, False), ("S", "a", "b", "-H4th0:0l", 6, False)]  # hand 6 once, by its strongest

    rows = sg.stratified("soft_play", _cells(0.2, 40, strata=strata), pairs, lambda st: st[0] == "F" or st[1] == "H", "fewer",
                         "decisions", "", soft)
    assert asked == [[("S", "a", "b")]]
    assert rows[("S", "a", "b")].hands == [2, 6, 4, 1]
    assert not any(r.hands for p, r in rows.items() if p != ("S", "a", "b"))

    grain = (("FH3rd1:2h", 0.05), ("FH3rd1:0l", 0.8))  # the fold rate: strong hands seldom fold, weak ones mostly
    dump = []
    for site, p, o, st, n, k in _cells(1.0, 40, strata=grain):
        if {p, o} == {"a", "b"}:
            k = k + 8 if st == "FH3rd1:2h" else k - 8
        dump.append((site, p, o, st, n, k))

    def facing(leads: list[sg.Pair]) -> list[sg.Decision]:
        return [("S", "a", "b", "FH3rd1:0l", 10, True), ("S", "a", "b", "FH3rd1:0l", 11, False),  # a fold (usual), a call
                ("S", "b", "a", "FH3rd1:2h", 12, True), ("S", "b", "a", "FH3rd1:2h", 13, False)]  # a fold, a call (usual)

    rows = sg.stratified("dumping", dump, pairs, lambda st: True, "grain", "decisions", "", facing)
    assert (rows[("S", "a", "b")].z or 0.0) >= sg.NAMED_FROM
    assert rows[("S", "a", "b")].hands == [12, 11]  # a fold where the rate is 5 %, then a call where it is 20 %


def test_skewed_z_reads_a_rare_weighted_sum_by_its_skew() -> None:
    assert sg.skewed_z(2.5, 0.0) == 2.5
    # a gamma of shape 4 (skew 1): its upper 0.1 % point (chi-square 8 at 26.12, halved) is 4.53 standard deviations out
    assert sg.skewed_z((26.1245 / 2 - 4) / 2, 1.0) == pytest.approx(3.09, abs=0.03)
    assert sg.skewed_z(-3.9, -1.0) == pytest.approx(-sg.skewed_z(3.9, 1.0))
    zs = [sg.skewed_z(z / 4, 0.7) for z in range(-12, 40)]
    assert zs == sorted(zs)  # monotone
    assert sg.skewed_z(-10.0, 1.0) == -sg.Z_CAP_SKEW


def test_additive_model_carries_a_players_style_into_strata_it_seldom_reached() -> None:
    # p0 bets twice the room's odds in the two common strata; in a stratum it reached once, its prior says the same
    cells: list[sg.Cell] = []
    for i in range(10):
        odds = 2.0 if i == 0 else 1.0
        for st, base in (("x", 0.3), ("y", 0.5)):
            r = base * odds / (1 - base + base * odds)
            cells.append(("S", f"p{i}", "", st, 200, round(200 * r)))
        cells.append(("S", f"p{i}", "", "z", 1 if i == 0 else 100, 0 if i == 0 else 20))
    prior = sg.additive(cells)
    assert prior[("S", "p0", "z")] > 0.3 > prior[("S", "p1", "z")] > 0.15


def _rows(diffs: list[float], n: int = 100, var: float = 25.0) -> tuple[dict[sg.Pair, sg.Row], dict[sg.Pair, tuple[float, float, int]]]:
    rows = {("S", f"a{i}", f"b{i}"): sg.Row("x", None, None, n, d / math.sqrt(var)) for i, d in enumerate(diffs)}
    moments = {("S", f"a{i}", f"b{i}"): (d, var, n) for i, d in enumerate(diffs)}
    return rows, moments


def test_a_two_sided_signal_at_its_centre_is_no_evidence_either_way() -> None:
    """A pair exactly at its baseline (aggression 0.628 against 0.629) showed z -12.00 on the dossier: the doubled chance
    is 1.  Its z is the floor the kinds' sums use, and a deviation either way keeps its doubled chance."""
    from hhtool.collusion.stats import Z_FLOOR

    assert sg.two_sided_z(0.0) == Z_FLOOR == -3.0
    assert sg.two_sided_z(3.0) == pytest.approx(sg.two_sided_z(-3.0)) == pytest.approx(z_of_p(2 * p_of_z(3.0)))
    assert 2.5 < sg.two_sided_z(3.0) < 3.0


def test_card_sharing_compares_the_partners_hidden_cards_with_others_in_the_same_stratum() -> None:
    """Passive play where the partner's hidden cards beat the decider, against the same player's where another's do.

    Two strata: the players fold half the time where an opponent's hidden cards beat them on 2nd street facing a bet,
    and check a fifth of the time on 3rd with none to face.  ``a`` folds 35 of 40 to ``b``'s hidden pairs in the first:
    a lead; ``c`` folds to ``d``'s as to everyone's: none.  The old outs test never saw these decisions.
    """
    st1 = ("2nd", True, 1, False, 0, False)
    st2 = ("3rd", False, 0, False, 1, True)
    counts: dict[tuple[str, str, str, sg.Stratum], tuple[int, int]] = {}
    players = ["a", "b", "c", "d"] + [f"x{i}" for i in range(20)]
    for p in players:
        counts[("S", p, "", st1)] = (200, 60)  # no hidden cards beat them: their style
        counts[("S", p, "", st2)] = (200, 20)
        for q in players:
            if q != p:
                counts[("S", p, q, st1)] = (20, 10)
                counts[("S", p, q, st2)] = (15, 3)
    counts[("S", "a", "b", st1)] = (40, 35)
    counts[("S", "a", "b", st2)] = (10, 2)
    counts[("S", "c", "d", st1)] = (40, 20)
    counts[("S", "c", "d", st2)] = (10, 2)
    pairs = [("S", p, q) for i, p in enumerate(players) for q in players[i + 1:]]
    # the passive decisions' hands, the most telling first: those on 3rd (each checks there about a fifth of the time when
    # others' hidden cards beat it; equal rates: the lower key first), then a's on 2nd (it folds half the time there);
    # each hand once, by its most telling decision
    hands: dict[tuple[str, str, str, sg.Stratum], list[int]] = {("S", "a", "b", st1): [3, 1, 2], ("S", "a", "b", st2): [7, 2], ("S", "b", "a", st2): [9]}
    rows = sg.hidden_beaten(counts, pairs, hands, "decisions", "{obs} of {n}, {expect:.0f}")
    ab, cd = rows[("S", "a", "b")], rows[("S", "c", "d")]
    assert ab.sample == 40 + 10 + 20 + 15 and ab.value == pytest.approx((35 + 2 + 10 + 3) / 85)
    assert ab.z is not None and ab.z > 3 and ab.hands == [2, 7, 9, 1, 3]
    assert cd.z is not None and abs(cd.z) < 1
    few = sg.hidden_beaten({("S", "a", "b", st1): (20, 19), ("S", "a", "", st1): (100, 50)}, [("S", "a", "b")], {}, "decisions", "")
    assert few[("S", "a", "b")].z is None and "too few" in (few[("S", "a", "b")].why_not or "")  # 20 < 30


def test_between_pairs_spread_is_robust_and_has_a_floor() -> None:
    # 200 pairs whose differences vary twice as much as sampling gives, and one far out (a collusion)
    import random

    rnd = random.Random(5)
    diffs = [rnd.gauss(0.0, 10.0) for _ in range(200)] + [60.0]
    rows, moments = _rows(diffs)
    tau2 = sg.between(rows, moments)
    v = 25.0 / 100**2
    assert 1.5 * v < tau2 < 5 * v  # about 3 v: the true spread, not set by the pair far out nor shrunk by leaving pairs out
    far = rows[("S", "a200", "b200")]
    assert far.z is not None and 5.0 < far.z < 12.0  # still far out
    # honest pairs whose spread is sampling alone: only the floor (a tenth of v)
    rows, moments = _rows([rnd.gauss(0.0, 5.0) for _ in range(200)])
    assert sg.between(rows, moments) == pytest.approx(0.1 * v, rel=0.5)
    # a room of few pairs: the spread cannot be measured, the floor is v itself (each z at most 1/sqrt 2 of its raw value)
    # and a true spread of 0.1 (a difference of 10 points in a share is one standard deviation)
    rows, moments = _rows([4.0, 0.0, -1.0], n=10, var=2.0)
    assert sg.between(rows, moments) == pytest.approx(0.02)
    assert rows[("S", "a0", "b0")].z == pytest.approx(4.0 / math.sqrt(2) / math.sqrt(2))
    rows, moments = _rows([20.0, 0.0, -5.0])
    assert sg.between(rows, moments) == pytest.approx(0.01)
    assert rows[("S", "a0", "b0")].z == pytest.approx(4.0 * math.sqrt(0.0025 / 0.0125))


def test_co_presence_and_chip_flow_name_their_hands() -> None:
    pair = ("S", "a", "b")
    rows = sg.chip_flow({pair: (400, 100.0, 900.0, 300.0)}, {("S", "a"): (-150.0, 800.0), ("S", "b"): (200.0, 700.0)},
                        flows={pair: [(1, 5.0), (2, -3.0), (3, 9.0), (4, 0.0)]})
    assert rows[pair].hands == [3, 1]  # the money went from a to b: its largest hands that way, largest first
    rows = sg.chip_flow({pair: (400, -100.0, 900.0, 300.0)}, {}, flows={pair: [(1, 5.0), (2, -3.0), (3, -9.0)]})
    assert rows[pair].hands == [3, 2]
    pairs = [(("S", f"p{i}", f"q{i}"), 100 + i) for i in range(12)]
    hands = {("S", f"p{i}"): 400 for i in range(12)} | {("S", f"q{i}"): 400 for i in range(12)}
    co = sg.co_presence(pairs, hands, {"S": 24 * 400 * 4.0}, together_hands={("S", "p0", "q0"): [7, 5, 6]})
    assert co[("S", "p0", "q0")].z is not None and co[("S", "p0", "q0")].hands == [5, 6, 7]


def test_sql_counts_match_the_hands(honest: Path) -> None:
    """Hands together, money and heads-up decisions as the screen counts them, against a walk of the hands' events."""
    s = screened(honest)
    together: Counter[tuple[str, str]] = Counter()
    heads_up: Counter[tuple[str, str]] = Counter()
    facing: Counter[tuple[str, str]] = Counter()
    dumping: Counter[tuple[str, str]] = Counter()  # facing the other's bet, not all-in
    soft: Counter[tuple[str, str]] = Counter()  # going on facing the other's bet, or heads up with no bet to face; not all-in

    def key(x: str, y: str) -> tuple[str, str]:
        return (x, y) if x < y else (y, x)

    for h in read_file(honest.with_suffix(".txt")):
        assert isinstance(h, Hand)
        dealt = sorted({e.player for e in h.events if isinstance(e, Deal) and e.new is None})
        for i, a in enumerate(dealt):
            for b in dealt[i + 1:]:
                together[key(a, b)] += 1
        live = set(dealt)
        bettor: str | None = None
        for e in h.events:
            if isinstance(e, Street):
                bettor = None
            all_in = bool(getattr(e, "all_in", False))
            faced = False
            if isinstance(e, (Fold, Call, RaiseTo, Complete)) and bettor is not None and bettor != e.player:
                faced = True
                facing[key(e.player, bettor)] += 1
                if not all_in:
                    dumping[key(e.player, bettor)] += 1
                    if not isinstance(e, Fold):
                        soft[key(e.player, bettor)] += 1
            if isinstance(e, (Bet, RaiseTo, Check, Call, Complete)) and len(live) == 2 and not all_in:
                x, y = sorted(live)
                heads_up[(x, y)] += 1
                if not faced:
                    soft[(x, y)] += 1
            if isinstance(e, (Bet, RaiseTo, Complete, BringIn)):
                bettor = e.player
            if isinstance(e, Fold):
                live.discard(e.player)
    got = {(r["a_name"], r["b_name"]): r["hands_together"] for r in s.pairs.to_dicts()}
    assert got == dict(together)
    sig = {(r["a"], r["b"], r["signal"]): r["sample"] for r in s.signals.to_dicts()}
    for (a, b), n in heads_up.items():
        assert sig[(a, b, "aggression")] == n
    for (a, b), n in facing.items():
        assert sig[(a, b, "calls_into")] == n
    for (a, b), n in dumping.items():
        assert sig[(a, b, "dumping")] == n
    for (a, b), n in soft.items():
        assert sig[(a, b, "soft_play")] == n


# ---------------------------------------------------------------------------
# the simulated rooms


@pytest.mark.parametrize(("kind", "seed"), [
    ("soft-play", 61),
    ("chip-dumping", 62),
    # (card sharing here was first only once the bring-in counted as a decision: its opener's bring-in where it would
    # complete is a bet not made, as a check is)
    ("card-sharing", 63),
])
def test_each_kind_of_collusion_ranks_first(room: Callable[..., Path], kind: str, seed: int) -> None:
    db = room(kind, 3000, seed, (f"{kind}:alice,bob:1",))
    s = screened(db)
    top = s.pairs.row(0, named=True)
    assert (top["a"], top["b"]) == ("alice", "bob"), s.pairs.select("a", "b", "score", "lead").head(5)
    assert top["lead"] != "none"
    assert top["hand_ids"] and top["hands"].split(", ")[0] == top["hand_ids"][0]


def test_no_collusion_no_strong_lead(room: Callable[..., Path], honest: Path) -> None:
    # small 6-max rooms without --pool (seed 72: 30-60 pairs), a pool, and an own view of 4 players (seed 4, round 1's
    # strong lead on alice & dave): the spread's floor keeps their noise from a strong lead, and from a moderate one
    # (the stratified signals' rare decisions, weighted by their rarity, are read with their skew)
    own = room("own4", 400, 4, view="alice", players=4)
    for db in (honest, room("honest2", 1500, 72), room("pool", 2000, 73, pool=12), own):
        s = screened(db)
        assert not {"strong", "moderate"} & set(s.pairs["lead"].to_list()), s.pairs.select("a", "b", "score", "lead").head(3)


def test_two_screens_agree_to_the_last_digit_whatever_the_threads(room: Callable[..., Path]) -> None:
    """The same hands screened again, by DuckDB on one thread or on four, give the same figures exactly: a room comparing
    two runs' CSVs sees no difference that is not in its hands.  The flows are summed as integers (spots.FLOW_GRID):
    summed as doubles, in whatever order DuckDB's threads met them, nearly every run of this room differed in the last
    digits of some pair's flow."""
    import duckdb
    from polars.testing import assert_frame_equal

    from hhtool.collusion import spots
    from hhtool.stats.filters import Filters

    db = room("pool", 2000, 73, pool=12)
    sums = []
    for threads in (1, 4, 4, 4, 4, 4):
        con = duckdb.connect(str(db), read_only=True, config={"threads": threads})
        try:
            spots.scoped_hands(con, Filters())
            ph = spots.pair_hands(con)
            sums.append((ph, spots.player_flows(ph)))
        finally:
            con.close()
    for ph, pf in sums[1:]:
        assert_frame_equal(ph, sums[0][0], check_exact=True)
        assert_frame_equal(pf, sums[0][1], check_exact=True)
    screens = []
    for threads in (1, 4):
        con = duckdb.connect(str(db), read_only=True, config={"threads": threads})
        try:
            screens.append(screen(con, cache=False))
        finally:
            con.close()
    assert_frame_equal(screens[1].pairs, screens[0].pairs, check_exact=True)
    assert_frame_equal(screens[1].signals, screens[0].signals, check_exact=True)


def test_every_lead_names_its_hands(room: Callable[..., Path], honest: Path) -> None:
    """A lead of several weaker signals, none of which names a hand, still names the hands it rests on: the pair's
    hands together with the most money between the two (docs/integrity.md)."""
    rooms = (honest, room("dump", 1500, 64, ("chip-dumping:alice,bob:0.3",)))
    leads = 0
    for db in rooms:
        s = screened(db)
        for row in s.pairs.filter(pl.col("lead") != "none").iter_rows(named=True):
            leads += 1
            assert row["hand_ids"], row
            assert row["hands"] == ", ".join(row["hand_ids"])
    assert leads


def test_soft_play_names_the_hands_of_its_missing_bets(room: Callable[..., Path]) -> None:
    """A soft-play lead names its own decisions' hands (issue 42), not the hands of another signal or of the most money:
    each holds a check or call of one of the pair against the other where a bet or raise was possible (as the signal
    counts them), and they are its most telling: the strata where the decider, against everyone else, bets most."""
    db = room("soft-play", 3000, 61, ("soft-play:alice,bob:1",))  # test_each_kind_of_collusion_ranks_first's room
    s = screened(db)
    top = s.pairs.row(0, named=True)
    assert (top["a"], top["b"]) == ("alice", "bob") and "soft play" in top["signals"]
    named = top["hand_ids"]
    assert len(named) == 8 and top["hands"] == ", ".join(named)
    hands = {h.hand_id: h for h in read_file(db.with_suffix(".txt")) if isinstance(h, Hand)}
    pair = {"alice", "bob"}
    for hand_id in named:  # a walk of the hand's events, as test_sql_counts_match_the_hands counts soft play
        h = hands[hand_id]
        live = {e.player for e in h.events if isinstance(e, Deal) and e.new is None}
        bettor: str | None = None
        missing = False
        for e in h.events:
            if isinstance(e, Street):
                bettor = None
            if isinstance(e, (Check, Call)) and e.player in pair and not getattr(e, "all_in", False):
                faced = isinstance(e, Call) and bettor is not None and bettor != e.player
                missing |= (faced and bettor in pair) or (not faced and live == pair)
            if isinstance(e, (Bet, RaiseTo, Complete, BringIn)):
                bettor = e.player
            if isinstance(e, Fold):
                live.discard(e.player)
        assert missing, hand_id
    # strongest first: each named hand's decision is in a stratum where its decider bets, against everyone else, among
    # the most of the pair's checks and calls against each other (raw rates; the screen's are drawn toward a model)
    from hhtool.collusion import spots
    from tests.strata import strata_tables

    with strata_tables(db) as con:
        rate: dict[tuple[str, str], list[int]] = {}
        for _, p, o, st, n, folds, aggr in spots.strata(con).iter_rows():
            if {p, o} != pair:
                t = rate.setdefault((p, st), [0, 0])
                t[0] += n - folds
                t[1] += aggr
        best: dict[str, float] = {}
        for hand_id, p, st in con.execute(
            "SELECT h.hand_id, i.player, i.stratum FROM istr i JOIN hands h USING (hand_key) "
            "WHERE list_sort([i.player, i.against]) = ['alice', 'bob'] AND i.kind IN ('check', 'call') "
            "AND (i.facing OR substr(i.stratum, 2, 1) = 'H')"
        ).fetchall():
            n, k = rate.get((p, st), [0, 0])
            best[hand_id] = max(best.get(hand_id, 0.0), (k + 0.5) / (n + 1.0))
    assert set(named) <= set(best)
    assert len(best) > 10 * len(named)
    assert min(best[h] for h in named) >= sorted(best.values(), reverse=True)[2 * len(named) - 1]


def test_tag_screens_only_the_tagged_hands(honest: Path, tmp_path: Path) -> None:
    """``--tag`` filters the hands screened, as it does for ``stats`` and ``report`` (issue 43: wherever hands are filtered)."""
    db = tmp_path / "tagged.duckdb"
    shutil.copy(honest, db)
    con = connect(db, read_only=True)
    try:
        ids = [str(r[0]) for r in con.execute("SELECT hand_id FROM hands ORDER BY hand_key LIMIT 40").fetchall()]
    finally:
        con.close()
    for hand_id in ids:
        r = hhtool("tag", hand_id, "study", "--db", str(db))
        assert r.returncode == 0, r.stderr
    r = hhtool("integrity", "--db", str(db), "--tag", "study", "--format", "json", "--no-cache")
    assert r.returncode in (0, 1), r.stderr
    assert json.loads(r.stdout)["hands_read"] == 40


# ---------------------------------------------------------------------------
# the cache, the outputs


def test_cache_same_results_and_a_changed_hand_is_priced_again(honest: Path, tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    shutil.copy(honest, db)
    first = screen(db)
    cached = screen(db)
    bare = screen(db, cache=False)
    assert first.priced > 0 and cached.priced == 0 and cached.cached > 0
    assert cached.pairs.equals(first.pairs) and bare.pairs.equals(first.pairs)
    assert cached.signals.equals(first.signals)
    entries = PriceCache(cache_path(db)).values
    site, hand_id, th = next(iter(entries))[:3]
    con = connect(db)
    try:  # the same hand id with another text: another hash
        con.execute("UPDATE hands SET text_hash = text_hash + 1 WHERE site = ? AND hand_id = ?", [site, hand_id])
    finally:
        con.close()
    again = screen(db)
    assert again.priced > 0  # that hand's decisions were priced again, not read stale
    assert any(k[1] == hand_id and k[2] == th + 1 for k in PriceCache(cache_path(db)).values)


HOSTILE = '=HYPERLINK("http://x")\x1b[2J\u202e'


def test_hostile_names_are_inert(honest: Path, tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    shutil.copy(honest, db)
    con = connect(db)
    try:
        for table in ("seats", "actions", "cards"):
            con.execute(f"UPDATE {table} SET player = ? WHERE player = 'alice'", [HOSTILE])
    finally:
        con.close()
    table = hhtool("integrity", "--db", str(db), "--top", "0").stdout
    csv = hhtool("integrity", "--db", str(db), "--format", "csv", "--no-cache").stdout
    js = hhtool("integrity", "--db", str(db), "--format", "json", "--no-cache").stdout
    for out in (table, csv, js):
        assert "\x1b" not in out and "\u202e" not in out
    assert max(len(line) for line in table.splitlines()) <= 80
    cells = [line.split(",")[1:3] for line in csv.splitlines()[1:]]
    assert any(c.startswith("'=HYPERLINK") or c.startswith('"\'=HYPERLINK') for row in cells for c in row)
    assert not any(c.startswith("=") or c.startswith('"=') for row in cells for c in row)
    assert any(p["a_name"] == HOSTILE or p["b_name"] == HOSTILE for p in json.loads(js)["pairs"])
    d = hhtool("integrity", "--db", str(db), "--pair", HOSTILE, "bob")
    assert d.returncode in (0, 1) and "\x1b" not in d.stdout


def test_own_view_says_what_is_not_computed(tmp_path: Path) -> None:
    db = _room(tmp_path, "own", 800, 74, view="alice")
    s = screen(db, cache=False)
    assert {sig for sig, _ in s.not_computed} == set(sg.PRICED)
    assert all("own-view" in why for _, why in s.not_computed)
    scored = s.signals.filter(pl.col("scored"))["signal"].unique().to_list()
    assert not set(scored) & set(sg.PRICED) and "aggression" in scored
    out = hhtool("integrity", "--db", str(db))
    assert "not computed: card sharing: own-view histories" in out.stdout.replace("\n", " ").replace("  ", " ")


def test_dossier_names_every_hand_together(honest: Path) -> None:
    s = screened(honest)
    top = s.pairs.row(0, named=True)
    d = dossier(honest, top["a"], top["b"], cache=False)
    assert d.hands.height == top["hands_together"]
    assert set(d.decisions["hand_id"].to_list()) <= set(d.hands["hand_id"].to_list())
    assert d.decisions.filter(pl.col("equity").is_not_null()).height > 0
    assert set(d.baseline["against"].to_list()) == {"partner", "everyone else"}
    out = hhtool("integrity", "--db", str(honest), "--pair", top["a"], top["b"], "--no-cache")
    assert out.returncode in (0, 1)
    for hand_id in d.hands["hand_id"].to_list():
        assert hand_id in out.stdout
    assert max(len(line) for line in out.stdout.splitlines()) <= 80
    with pytest.raises(UnknownPairError):
        dossier(honest, top["a"], "nobody", cache=False)
    assert hhtool("integrity", "--db", str(honest), "--pair", top["a"], "nobody").returncode == 2


def test_dossier_marks_the_decisions_card_sharing_counts(room: Callable[..., Path]) -> None:
    """The dossier marks, decision by decision in Python, exactly the passive decisions the SQL test counts against the partner."""
    db = room("card-sharing", 3000, 63, ("card-sharing:alice,bob:1",))  # test_each_kind_of_collusion_ranks_first's room
    s = screened(db)
    row = s.signals.filter((pl.col("a") == "alice") & (pl.col("b") == "bob") & (pl.col("signal") == "card_sharing")).row(0, named=True)
    passive = round(row["value"] * row["sample"])
    assert passive >= 100
    d = dossier(db, "alice", "bob", cache=False, screen=s)
    marked = d.decisions.filter(pl.col("signal") == "card_sharing")
    assert marked.height == passive
    assert set(marked["action"].to_list()) <= {"fold", "check", "bring_in"}
    assert set(marked["street"].to_list()) <= {"2nd", "3rd", "4th", "5th"}
    words = d.hands.filter(pl.col("signals").str.contains("face-down cards beat"))
    assert set(words["hand_id"].to_list()) == set(marked["hand_id"].to_list())
