"""The all-in adjusted net of the import (``seats.allin_net``), recounted with the ``hhtool equity`` command (in the test's process), and its statistics."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import duckdb
import pytest

from hhtool.game.rules import ROUND_NAMES
from hhtool.replay.equities import ALLIN_EXACT_LIMIT, ALLIN_SAMPLES
from hhtool.store.importer import import_paths
from hhtool.store.schema import SEAT_MORE_FLAGS
from tests.inprocess import hhtool

STREETS = ROUND_NAMES


@pytest.fixture(scope="module")
def nl_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Simulated no-limit hands in the audit view, with rake, all-ins and side pots: classic and stellapoker."""
    d = tmp_path_factory.mktemp("allin")
    for rules in ("classic", "stellapoker"):
        r = hhtool("simulate", "--hands", "400", "--rules", rules, "--structure", "no", "--seed", "5", "--jobs", "1", "--out", str(d / f"{rules}.txt"))
        assert r.returncode == 0, r.stderr
    db = d / "h.duckdb"
    import_paths([d / "classic.txt", d / "stellapoker.txt"], db, workers=0)
    return db


def _rows(con: duckdb.DuckDBPyConnection, sql: str, *params: Any) -> list[dict[str, Any]]:
    cur = con.execute(sql, list(params))
    names = [c[0] for c in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def test_adjusted_net_is_the_net_without_an_all_in_and_sums_to_the_hands_net(nl_db: Path) -> None:
    con = duckdb.connect(str(nl_db), read_only=True)
    try:
        (plain,) = con.execute(
            "SELECT count(*) FROM seats s WHERE s.dealt_in AND NOT EXISTS "
            "(SELECT 1 FROM actions a WHERE a.hand_key = s.hand_key AND a.all_in) AND s.allin_net IS DISTINCT FROM s.net"
        ).fetchone() or (None,)
        assert plain == 0
        # every hand's adjusted nets add up to its nets: the EVs of a pot sum exactly to the pot
        (unbalanced,) = con.execute(
            "SELECT count(*) FROM (SELECT hand_key FROM seats GROUP BY hand_key HAVING sum(allin_net) != sum(net))"
        ).fetchone() or (None,)
        assert unbalanced == 0
        (changed,) = con.execute("SELECT count(DISTINCT hand_key) FROM seats WHERE allin_net != net").fetchone() or (0,)
        assert changed >= 5  # the corpus has all-ins to price
    finally:
        con.close()


def _largest_remainder(amount: int, equities: list[float]) -> list[int]:
    exact = [Fraction(e) * amount for e in equities]
    exact = [q * amount / sum(exact) for q in exact] if sum(exact) else exact
    base = [int(q) for q in exact]
    order = sorted(range(len(exact)), key=lambda i: (-(exact[i] - base[i]), i))
    for i in order[: amount - sum(base)]:
        base[i] += 1
    return base


def _recount(con: duckdb.DuckDBPyConnection, key: int) -> dict[str, int]:
    """Each seat's adjusted net from the stored cards, actions and pots, with ``hhtool equity`` run on each pot."""
    (profile, dealt) = con.execute("SELECT profile, dealt_in FROM hands WHERE hand_key = ?", [key]).fetchone() or ("", 0)
    seats = _rows(con, "SELECT player, net, outcome FROM seats WHERE hand_key = ? AND dealt_in", key)
    (ended,) = con.execute("SELECT street FROM actions WHERE hand_key = ? ORDER BY seq DESC LIMIT 1", [key]).fetchone() or ("",)
    upto = STREETS[: STREETS.index(ended) + 1]
    cards = _rows(con, "SELECT player, street, card, up FROM cards WHERE hand_key = ? AND player IS NOT NULL", key)
    folded = {s["player"] for s in seats if s["outcome"] == "folded"}
    held = {s["player"]: [c["card"] for c in cards if c["player"] == s["player"] and c["street"] in upto] for s in seats}
    dead_up = [c["card"] for c in cards if c["player"] in folded and c["up"]]
    adjusted = {s["player"]: int(s["net"]) for s in seats}
    for pot in _rows(con, "SELECT amount, rake, eligible, winners, shares FROM pots WHERE hand_key = ? ORDER BY pot", key):
        eligible = list(pot["eligible"])
        if len(eligible) < 2:
            continue
        others = [c for p, cs in held.items() if p not in folded and p not in eligible for c in cs]
        r = hhtool(
            "equity", "--rules", profile, "--players", str(dealt), "--samples", str(ALLIN_SAMPLES), "--exact-limit", str(ALLIN_EXACT_LIMIT), "--json",
            *(["--dead", " ".join(dead_up + others)] if dead_up or others else []), *(" ".join(held[p]) for p in eligible),
        )
        assert r.returncode == 0, r.stderr
        figures = [p["equity"] for p in json.loads(r.stdout)["players"]]
        ev = _largest_remainder(int(pot["amount"]) - int(pot["rake"]), figures)
        won = dict(zip(pot["winners"], pot["shares"]))
        for p, v in zip(eligible, ev):
            adjusted[p] += v - int(won.get(p, 0))
    return adjusted


def test_adjusted_net_equals_a_recount_by_hhtool_equity(nl_db: Path) -> None:
    con = duckdb.connect(str(nl_db), read_only=True)
    try:
        priced = [int(r[0]) for r in con.execute(
            "SELECT hand_key FROM seats GROUP BY hand_key HAVING bool_or(allin_net != net) ORDER BY hand_key"
        ).fetchall()]
        side = [int(r[0]) for r in con.execute(
            "SELECT hand_key FROM pots WHERE pot > 0 AND len(eligible) >= 2 AND list_contains(?::BIGINT[], hand_key) "
            "ORDER BY hand_key LIMIT 1", [priced]
        ).fetchall()]
        raked = [int(r[0]) for r in con.execute(
            "SELECT hand_key FROM hands WHERE rake > 0 AND list_contains(?::BIGINT[], hand_key) ORDER BY hand_key LIMIT 1", [priced]
        ).fetchall()]
        assert side, "a priced hand with a side pot of two contenders or more"
        assert raked, "a priced hand with rake"
        chosen = sorted({priced[0], priced[-1], *side, *raked})
        for key in chosen:
            stored = {r["player"]: int(r["allin_net"]) for r in _rows(con, "SELECT player, allin_net FROM seats WHERE hand_key = ? AND dealt_in", key)}
            assert stored == _recount(con, key), key
    finally:
        con.close()


def test_stats_luck_is_net_less_adjusted(nl_db: Path) -> None:
    r = hhtool("stats", "--db", str(nl_db), "--format", "json")
    assert r.returncode == 0, r.stderr
    con = duckdb.connect(str(nl_db), read_only=True)
    try:
        rows = con.execute(
            "SELECT s.player, h.site, h.currency, sum(s.net), sum(s.allin_net) FROM seats s JOIN hands h USING (hand_key) "
            "WHERE s.dealt_in GROUP BY ALL"
        ).fetchall()
        # a row is an account: NAME@SITE where the name is on two sites (docs/stats.md, "Players and accounts")
        sites: dict[str, set[str]] = {}
        for name, site, *_ in rows:
            sites.setdefault(name, set()).add(site)
        sums = {
            (name if len(sites[name]) == 1 and "@" not in name else f"{name}@{site}", cur): (int(net), int(adjusted))
            for name, site, cur, net, adjusted in rows
        }
    finally:
        con.close()
    lucky = 0
    for p in json.loads(r.stdout)["players"]:
        for m in p["money"]:
            sign = {"EUR": "€", "USD": "$"}[m["currency"]]
            net, adjusted = sums[(p["player"], sign)]
            assert (m["net"], m["allin_net"], m["luck"]) == (net, adjusted, net - adjusted)
            lucky += m["luck"] != 0
    assert lucky > 0


def _without_allin_net(tmp_path: Path) -> Path:
    """A database of this schema version as hhtool wrote it before ``seats.allin_net`` existed: without it, nor the
    columns added after it (the statistics' later flags), as such a file is."""
    old = tmp_path / "old.duckdb"
    import_paths([Path(__file__).resolve().parent.parent / "sample_histories" / "000_format_example.txt"], old, workers=0)
    con = duckdb.connect(str(old))
    for column in ("allin_net", *(c.name for c in SEAT_MORE_FLAGS)):
        con.execute(f"ALTER TABLE seats DROP COLUMN {column}")
    con.close()
    return old


def test_an_older_database_gains_the_column_and_counts_its_rows_at_their_net(tmp_path: Path, nl_db: Path) -> None:
    samples = Path(__file__).resolve().parent.parent / "sample_histories"
    old = _without_allin_net(tmp_path)
    import_paths([samples / "030_italian_no_limit_side_pots.txt"], old, workers=0)
    con = duckdb.connect(str(old), read_only=True)
    try:
        rows = con.execute("SELECT h.hand_id, s.allin_net IS NULL, s.allin_net = s.net FROM seats s JOIN hands h USING (hand_key)").fetchall()
    finally:
        con.close()
    assert {(hid, null) for hid, null, _ in rows} == {("C-1001", True), ("I-3001", False)}
    assert all(same for hid, _, same in rows if hid == "I-3001")  # betting went on after its all-ins: no pricing
    r = hhtool("stats", "--db", str(old), "--format", "json", "--player", "bob")
    assert r.returncode == 0, r.stderr
    (bob,) = json.loads(r.stdout)["players"]
    assert bob["money"][0]["allin_net"] == bob["money"][0]["net"] and bob["money"][0]["luck"] == 0


def test_an_older_database_read_before_any_import_gains_the_column(tmp_path: Path) -> None:
    """``stats`` (a read-only open) on a file of this schema version without ``allin_net``: the column added, then read."""
    old = _without_allin_net(tmp_path)
    r = hhtool("stats", "--db", str(old), "--format", "json", "--player", "bob")
    assert r.returncode == 0, r.stderr
    (bob,) = json.loads(r.stdout)["players"]
    assert bob["money"][0]["allin_net"] == bob["money"][0]["net"]
    con = duckdb.connect(str(old), read_only=True)
    try:
        nulls, seats = con.execute("SELECT count(*) FILTER (WHERE allin_net IS NULL), count(*) FROM seats").fetchone() or (0, 0)
    finally:
        con.close()
    assert seats > 0 and nulls == seats  # gained, NULL for the rows imported before it: counted at their net


def test_the_report_draws_the_all_in_adjusted_line_and_lists_luck(nl_db: Path, tmp_path: Path) -> None:
    from hhtool.api import write_report
    from hhtool.stats import Filters

    con = duckdb.connect(str(nl_db), read_only=True)
    try:
        (player,) = con.execute(
            "SELECT player FROM seats GROUP BY player ORDER BY sum(abs(net - allin_net)) DESC, player LIMIT 1"
        ).fetchone() or ("",)
    finally:
        con.close()
    out = write_report(nl_db, tmp_path / "r.html", Filters(players=(player,)))
    html = out.read_text(encoding="utf-8")
    for trace in ("all-in adjusted", "net", "showdown", "non-showdown"):  # the graph's lines, the new one beside the others
        assert re.search(r'"name":\s*"' + trace + '"', html), trace
    assert ">all-in adjusted</th>" in html and ">luck</th>" in html
