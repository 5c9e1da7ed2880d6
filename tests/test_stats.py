"""Statistics on a tiny database whose every value is worked out by hand below."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hhtool.cli import app
from hhtool.stats import Filters, compute
from hhtool.stats.compute import sessions
from hhtool.store.importer import import_paths
from tests.storegen import TEMPLATE, hand

XSS = "<script>alert(1)</script>"


def build(tmp: Path, texts: list[str]) -> Path:
    src = tmp / "hh"
    src.mkdir()
    (src / "hands.txt").write_text("\n".join(texts), encoding="utf-8")
    db = tmp / "t.duckdb"
    summary = import_paths([str(src)], db, workers=0)
    assert summary.ok
    return db


@pytest.fixture(scope="module")
def example_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # FORMAT.md's example hand (sample_histories/000_format_example.txt), once.
    return build(tmp_path_factory.mktemp("stats"), [TEMPLATE])


def test_money(example_db: Path) -> None:
    r = compute(example_db)
    # alice: ante 10 + bring-in 20 + 30 + 50 + 100 + raise to 200 + 100 = 510, collects 0.
    # bob: ante 10 + 20 + 30 + 50 + 100 + 100 + 100 + 100 = 510, collects 1090 (pot 1140 - rake 50).
    (euro,) = r.currencies()
    assert euro.code == "EUR" and euro.sign == "€" and euro.decimals == 2

    def money(player: str) -> dict[str, int]:
        return r.money_of(player)[euro]

    assert money("alice")["net"] == -510
    assert money("bob")["net"] == 580
    assert money("carol")["net"] == -10
    assert money("dave")["net"] == -110
    # the whole rake (50) goes to bob, the only winner.
    assert money("bob")["rake"] == 50
    assert money("alice")["rake"] == 0
    # big bet 100: bob won 5.8 big bets in one hand -> 580 per 100; ante 10: 58 antes -> 5,800 per 100.
    assert r.row("bob")["bb100"] == pytest.approx(580.0)
    assert r.row("bob")["ante100"] == pytest.approx(5800.0)
    assert r.row("bob")["bbl100"] is None  # no blinds in a classic hand: "-"
    assert money("alice")["sd_net"] == -510 and money("alice")["nsd_net"] == 0
    assert money("dave")["nsd_net"] == -110 and money("dave")["sd_net"] == 0


def test_ratios(example_db: Path) -> None:
    r = compute(example_db)

    def q(player: str, key: str) -> tuple[float, int]:
        x = r.ratio(player, key)
        return (x.actions, x.opportunities)

    # VPIP: antes and the bring-in do not count; bob's call, dave's completion, alice's call do.
    assert [q(p, "vpip") for p in ("alice", "bob", "carol", "dave")] == [(1, 1), (1, 1), (0, 1), (1, 1)]
    # completion: an opportunity when acting with only the bring-in in (bob, carol, dave).
    assert q("alice", "complete") == (0, 0)
    assert r.ratio("alice", "complete").value is None
    assert [q(p, "complete") for p in ("bob", "carol", "dave")] == [(0, 1), (0, 1), (1, 1)]
    # 2nd-street raise: facing dave's completion (alice, bob), nobody raised.
    assert [q(p, "raise2") for p in ("alice", "bob", "carol", "dave")] == [(0, 1), (0, 1), (0, 0), (0, 0)]
    # saw streets, out of hands dealt in.
    assert [q("dave", f"saw_{s}") for s in ("3rd", "4th", "5th", "vela")] == [(1, 1), (1, 1), (0, 1), (0, 1)]
    assert [q("carol", f"saw_{s}") for s in ("3rd", "4th", "5th", "vela")] == [(0, 1)] * 4
    assert q("alice", "saw_vela") == (1, 1)
    # aggression: alice bet 4th, raised 5th; called 2nd, 3rd, vela.
    assert q("alice", "af") == (2, 3) and q("alice", "afq") == (2, 5)
    # bob bet 5th and vela; called twice on 2nd, and on 3rd, 4th, 5th.
    assert q("bob", "af") == (2, 5) and q("bob", "afq") == (2, 7)
    # dave completed and bet 3rd, no call (AF "-"), folded 4th.
    assert q("dave", "af") == (2, 0) and r.ratio("dave", "af").value is None
    assert q("dave", "afq") == (2, 3)
    # fold to a bet, per street faced: alice 2nd, 3rd, 5th, vela; bob 2nd, 3rd, 4th, 5th; dave 4th.
    assert q("alice", "fold_to_bet") == (0, 4)
    assert q("bob", "fold_to_bet") == (0, 4)
    assert q("dave", "fold_to_bet") == (1, 1)
    assert q("carol", "fold_to_bet") == (0, 0)  # folded facing only the bring-in
    # showdown
    assert [q(p, "wtsd") for p in ("alice", "bob", "dave")] == [(1, 1), (1, 1), (0, 1)]
    assert q("carol", "wtsd") == (0, 0)
    assert q("alice", "wsd") == (0, 1) and q("bob", "wsd") == (1, 1)
    assert q("bob", "wwsf") == (1, 1) and q("dave", "wwsf") == (0, 1)


def test_filters_and_sessions(tmp_path: Path) -> None:
    late = hand("K-2").replace("2026/11/29 18:00:00", "2026/11/29 19:00:00")
    later = hand("K-3").replace("2026/11/29 18:00:00", "2026/11/30 19:10:00")
    db = build(tmp_path, [hand("K-1"), late, later])
    assert compute(db).row("bob")["hands"] == 3
    assert compute(db, Filters(date_to=__import__("datetime").date(2026, 11, 29))).row("bob")["hands"] == 2
    assert compute(db, Filters(players=("carol",))).players() == ["carol"]
    assert compute(db, Filters(sites=("Nowhere",))).players() == []
    assert compute(db, Filters(structures=("pot",))).players() == []
    assert compute(db, Filters(min_hands=4)).players() == []
    s = sessions(compute(db, Filters(players=("bob",))).per_hand, 30)
    assert s["hands"].to_list() == [1, 1, 1]  # an hour apart, then a day
    s = sessions(compute(db, Filters(players=("bob",))).per_hand, 90)
    assert s["hands"].to_list() == [2, 1] and s["net"].to_list() == [1160, 580]


def test_cli_formats_and_untrusted_name(tmp_path: Path) -> None:
    db = build(tmp_path, [TEMPLATE.replace("carol", XSS)])
    runner = CliRunner()
    res = runner.invoke(app, ["stats", "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert f"\n{XSS[:20]}" in res.output  # the grid: plain text in a terminal, as written (cut to fit 80 columns)
    assert max(len(line) for line in res.output.splitlines()) <= 80
    res = runner.invoke(app, ["stats", "--db", str(db), "--format", "detail"])
    assert res.exit_code == 0, res.output
    assert f"== {XSS}" in res.output
    assert max(len(line) for line in res.output.splitlines()) <= 80
    assert "completed the bring-in" in res.output and "-  0/0" in res.output
    res = runner.invoke(app, ["stats", "--db", str(db), "--player", "bob", "--format", "json"])
    rows = json.loads(res.output)["players"]
    assert rows[0]["player"] == "bob" and rows[0]["money"][0]["net"] == 580 and rows[0]["complete_opportunities"] == 1
    assert rows[0]["raise2"] == 0.0
    res = runner.invoke(app, ["stats", "--db", str(db), "--player", "dave", "--format", "csv"])
    assert res.output.splitlines()[1].startswith("dave,1,")
    res = runner.invoke(app, ["stats", "--db", str(db), "--from", "yesterday"])
    assert res.exit_code == 2
    res = runner.invoke(app, ["stats", "--db", str(tmp_path / "none.duckdb")])
    assert res.exit_code == 2


STEAL = """Vela Hand #ST-1: Telesina classic Fixed Limit (€0.50/€1.00) - ante €0.10, bring-in €0.20 - 2026/11/29 18:00:00 UTC
Table 'Vela 1' 6-max Seat #4 is the button
Seat 1: alice (€20.00 in chips)
Seat 2: bob (€20.00 in chips)
Seat 3: carol (€20.00 in chips)
Seat 4: dave (€20.00 in chips)
alice: posts the ante €0.10
bob: posts the ante €0.10
carol: posts the ante €0.10
dave: posts the ante €0.10
*** 2nd STREET ***
Dealt to alice [Qc As]
Dealt to bob [Js 8h]
Dealt to carol [7c 9s]
Dealt to dave [Ts 7h]
alice: brings in for €0.20
bob: folds
carol: completes it to €0.50
dave: folds
alice: folds
Uncalled bet (€0.30) returned to carol
carol collected €0.80 from pot
*** SUMMARY ***
Total pot €0.80 | Rake €0
Seat 1: alice folded on 2nd Street
Seat 2: bob folded on 2nd Street
Seat 3: carol collected (€0.80)
Seat 4: dave (button) folded on 2nd Street
"""


def test_steal_and_bring_in_folding_to_it(tmp_path: Path) -> None:
    """Four players; alice brings in (position 0), bob (1) folds, carol (2 = n-2) completes:
    a steal from one of the last two with only the bring-in in.  dave (3) acts after a
    completion: no steal opportunity; bob (1) is not among the last two.  Everyone after
    carol folds, so alice faces the steal, and folds: 1 of 1.  In FORMAT.md's example bob
    calls the bring-in first, so nobody there has a steal opportunity."""
    db = build(tmp_path, [STEAL, TEMPLATE])
    r = compute(db)
    assert (r.ratio("carol", "steal").actions, r.ratio("carol", "steal").opportunities) == (1, 1)
    for p in ("alice", "bob", "dave"):
        assert r.ratio(p, "steal").opportunities == 0
        assert r.ratio(p, "steal").value is None
    assert (r.ratio("alice", "bi_fold_steal").actions, r.ratio("alice", "bi_fold_steal").opportunities) == (1, 1)
    assert r.ratio("carol", "bi_fold_steal").opportunities == 0


def test_stakes_and_day_start_filters(example_db: Path) -> None:
    """FORMAT.md's example is €0.50/€1.00, started 2026-11-29 18:00 UTC."""
    assert compute(example_db, Filters(stakes=(("0.50", "1.00"),))).row("bob")["hands"] == 1
    assert compute(example_db, Filters(stakes=(("1.00", "2.00"),))).players() == []
    day = __import__("datetime").date(2026, 11, 29)
    assert compute(example_db, Filters(date_from=day, day_start_hour=18)).row("bob")["hands"] == 1
    # with days starting at 19:00, an 18:00 hand belongs to the 28th
    assert compute(example_db, Filters(date_from=day, day_start_hour=19)).players() == []
    before = day - __import__("datetime").timedelta(days=1)
    assert compute(example_db, Filters(date_to=before, day_start_hour=19)).row("bob")["hands"] == 1
    assert compute(example_db, Filters(date_to=before, day_start_hour=18)).players() == []
    assert compute(example_db, Filters(date_from=day, date_to=day)).row("bob")["hands"] == 1
    assert compute(example_db, Filters(date_from=before, date_to=before)).players() == []


def test_ratios_are_exact_fractions_rounded_half_even_once(tmp_path: Path) -> None:
    """A figure is its exact fraction rounded half to even (docs/stats.md, "Figures"): the same hands, the same text."""
    from fractions import Fraction

    from hhtool.stats.compute import STATS
    from hhtool.stats.sql import rate_numerators
    from hhtool.stats.render import fmt_value, rounded
    from hhtool.store.query import export_parquet

    stat = {s.key: s for s in STATS}
    # 2.675 big bets/100 has no double: the nearest prints 2.67; the fraction rounds half to even, to 2.68
    row = {"bb_n_exact": "107/40", "bb_d": 100, "bb100": 2.675, "vpip_n": 3, "vpip_d": 16, "af_n": 1, "af_d": 8}
    assert f"{2.675:.2f}" == "2.67"
    assert fmt_value(stat["bb100"], row) == ("2.68", "over 100 hands")
    assert fmt_value(stat["vpip"], row) == ("18.8 %", "3/16") and fmt_value(stat["af"], row) == ("0.12", "1/8")
    assert rounded(Fraction(-123456789, 100000), 2, grouping=True) == "-1,234.57" and rounded(Fraction(-1, 1000), 2) == "0.00"
    # the win rates' numerators: each net over its unit, added as fractions, in any order the same
    # (a row an account since issue 41: player, site, big bet, big blind, ante, net; keyed by (site, player))
    rows = [("a", "S", 100, None, None, 7), ("a", "S", 300, None, 5, -2), ("a", "S", 7, 3, None, 1), ("b", "S", 0, 0, 0, 9)]
    exact = {"bb_n": Fraction(7, 100) + Fraction(-2, 300) + Fraction(1, 7), "bl_n": Fraction(1, 3), "an_n": Fraction(-2, 5)}
    assert rate_numerators(rows) == rate_numerators(rows[::-1]) == {("S", "a"): exact, ("S", "b"): dict.fromkeys(exact, Fraction(0))}
    # the same hands from a database and from its Parquet export: the same text, CSV and JSON
    db = build(tmp_path, [hand(f"Q-{i}") for i in range(7)])
    export_parquet(db, tmp_path / "pq")
    runner = CliRunner()
    for fmt in ("table", "csv", "json"):
        a = runner.invoke(app, ["stats", "--db", str(db), "--format", fmt])
        b = runner.invoke(app, ["stats", "--parquet", str(tmp_path / "pq"), "--format", fmt])
        assert a.exit_code == b.exit_code == 0 and a.output == b.output, (a.output, b.output)
    bob = json.loads(a.output)["players"][1]
    assert bob["player"] == "bob" and bob["bb100"] == 580.0 and bob["bb100_hands"] == 7
