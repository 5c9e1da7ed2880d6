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
from pathlib import Path

import polars as pl
import pytest

from hhtool.history.events import Bet, BringIn, Call, Check, Complete, Deal, Fold, Hand, RaiseTo, Street
from hhtool.history.reader import read_file
from hhtool.integrity import UnknownPairError, dossier, screen
from hhtool.integrity import signals as sg
from hhtool.integrity.pricing import PriceCache, cache_path
from hhtool.integrity.score import lead
from hhtool.integrity.stats import chi2_upper, combined_p, p_of_z, poisson_upper
from hhtool.simulate import make_config, write_simulation
from hhtool.store.db import connect
from tests.inprocess import hhtool


def _room(folder: Path, name: str, hands: int, seed: int, collude: tuple[str, ...] = (), view: str = "audit", pool: int = 0) -> Path:
    out = folder / f"{name}.txt"
    write_simulation(make_config(rules="classic", seed=seed, collude=list(collude), view=view, pool=pool), hands, out)
    db = folder / f"{name}.duckdb"
    r = hhtool("import", str(out), "--db", str(db), "--workers", "1")
    assert r.returncode == 0, r.stderr
    return db


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _room(tmp_path_factory.mktemp("honest"), "honest", 1500, 71)


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
    assert r.z == pytest.approx(sg.two_sided_z(z), abs=1e-8)
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


def test_sql_counts_match_the_hands(honest: Path) -> None:
    """Hands together, money and heads-up decisions as the screen counts them, against a walk of the hands' events."""
    s = screen(honest, cache=False)
    together: Counter[tuple[str, str]] = Counter()
    heads_up: Counter[tuple[str, str]] = Counter()
    facing: Counter[tuple[str, str]] = Counter()

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
            if isinstance(e, (Fold, Call, RaiseTo, Complete)) and bettor is not None and bettor != e.player:
                facing[key(e.player, bettor)] += 1
            if isinstance(e, (Bet, RaiseTo, Check, Call, Complete)) and len(live) == 2 and not getattr(e, "all_in", False):
                x, y = sorted(live)
                heads_up[(x, y)] += 1
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


# ---------------------------------------------------------------------------
# the simulated rooms


@pytest.mark.parametrize(("kind", "seed"), [
    ("soft-play", 61),
    pytest.param("chip-dumping", 62, marks=pytest.mark.xfail(reason="open: on seed 62 the dumping pair is not first (issue 42 report)")),
    ("card-sharing", 63),
])
def test_each_kind_of_collusion_ranks_first(tmp_path: Path, kind: str, seed: int) -> None:
    db = _room(tmp_path, kind, 3000, seed, (f"{kind}:alice,bob:1",))
    s = screen(db, cache=False)
    top = s.pairs.row(0, named=True)
    assert (top["a"], top["b"]) == ("alice", "bob"), s.pairs.select("a", "b", "score", "lead").head(5)
    assert top["lead"] != "none"
    assert top["hand_ids"] and top["hands"].split(", ")[0] == top["hand_ids"][0]


@pytest.mark.xfail(reason="open: a 6-max room of few pairs (seed 72) still shows a strong lead (issue 42 report)")
def test_no_collusion_no_strong_lead(tmp_path: Path, honest: Path) -> None:
    for db in (honest, _room(tmp_path, "honest2", 1500, 72), _room(tmp_path, "pool", 2000, 73, pool=12)):
        s = screen(db, cache=False)
        assert "strong" not in s.pairs["lead"].to_list(), s.pairs.select("a", "b", "score", "lead").head(3)


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
    s = screen(honest, cache=False)
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
