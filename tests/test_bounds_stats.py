"""Statistics and the report never fail on what a database holds, however large its amounts.

Issue 20: after importing three hands in which a player collects €46
quadrillion, ``stats`` and ``report`` failed for the whole database
(DuckDB's INT128 -> INT64 cast of a sum; the rake shares' BIGINT product
overflowed too).  Such hands are refused at import now (an amount is at most
10**12 minor units), but a database written by an earlier version may hold
any BIGINT: here the values are put back as that version stored them, and
``hhtool stats`` and ``hhtool report`` must work, with the sums exact (in the
test's process; the usage error on a stakes filter of thousands of digits
through the console script).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from hhtool.history.currency import Currency, format_money

from hhtool.stats import Filters, compute
from hhtool.stats.compute import sessions
from hhtool.store.importer import import_paths
from tests.inprocess import hhtool
from tests.storegen import hand

HHTOOL = str(Path(sys.executable).with_name("hhtool"))
NEAR = 2**63 - 1000  # a BIGINT an earlier version could store: three of them overflow a BIGINT sum


def _quadrillions(hand_id: str) -> str:
    """FORMAT.md's example where bob collects €46 quadrillion (it would audit disputed)."""
    text = hand(hand_id)
    assert "bob collected €10.90 from pot" in text and "won (€10.90)" in text
    return text.replace("bob collected €10.90 from pot", "bob collected €46,000,000,000,000,000.00 from pot").replace(
        "won (€10.90)", "won (€46,000,000,000,000,000.00)"
    )


@pytest.fixture(scope="module")
def huge_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("huge")
    src = tmp / "hh"
    src.mkdir()
    texts = [hand(f"N-{k}") for k in range(5)] + [_quadrillions(f"Q-{k}") for k in range(3)]
    (src / "hands.txt").write_text("\n".join(texts), encoding="utf-8")
    db = tmp / "h.duckdb"
    summary = import_paths([str(src)], db, workers=0)
    assert (summary.stored, summary.failed) == (5, 3)  # the quadrillions are out of range now
    con = duckdb.connect(str(db))
    try:
        assert con.execute("SELECT count(*) FROM failed WHERE kind = 'range'").fetchone() == (3,)
        # as an earlier version stored them: bob collects (and nets) almost 2**63 in three hands
        con.execute(f"UPDATE seats SET collected = {NEAR}, due = {NEAR}, net = {NEAR} WHERE player = 'bob' AND hand_key <= 3")
        con.execute(f"UPDATE pots SET rake = {NEAR}, shares = [{NEAR}] WHERE hand_key <= 3")
        con.execute(f"UPDATE hands SET total_pot = {NEAR}, rake = {NEAR} WHERE hand_key <= 3")
        con.execute("DROP TABLE IF EXISTS derived")  # and as that version had them: without the tables derived from the seats
    finally:
        con.close()
    return db


EURO = Currency("EUR", "€", 2)
BOB_NET = 3 * NEAR + 2 * 580  # three huge hands, two ordinary ones (bob nets 580 in the example)


def test_the_sums_are_exact(huge_db: Path) -> None:
    r = compute(huge_db)
    (euro,) = r.currencies()
    bob = r.money_of("bob")[euro]
    assert bob["net"] == BOB_NET and isinstance(bob["net"], int)
    assert bob["sd_net"] == BOB_NET and bob["nsd_net"] == 0
    assert bob["rake"] == 3 * NEAR + 2 * 50  # exact: integer shares of each pot's rake
    assert r.money_of("alice")[euro]["net"] == -510 * 5
    per_hand = r.per_hand
    s = sessions(per_hand)
    assert s.filter(s["player"] == "bob")["net"].to_list() == [BOB_NET]
    assert compute(huge_db, Filters(players=("bob",))).money_of("bob")[euro]["net"] == BOB_NET


def test_the_totals_built_from_such_seats_are_exact(huge_db: Path, tmp_path: Path) -> None:
    """Opened by the server (derived), the database gains its players' totals from those seats (hhtool.store.totals): the same exact sums."""
    import shutil

    from hhtool.store.db import connect
    from hhtool.store.totals import PLAYER_TOTALS, current

    db = tmp_path / "copy.duckdb"
    shutil.copy(huge_db, db)
    connect(db, derived=True).close()
    con = connect(db, read_only=True)
    try:
        assert current(con, PLAYER_TOTALS)
    finally:
        con.close()
    bob = compute(db).money_of("bob")[EURO]
    assert (bob["net"], bob["rake"]) == (BOB_NET, 3 * NEAR + 2 * 50)
    assert compute(db, Filters(players=("bob",))).money_of("bob")[EURO]["net"] == BOB_NET


def _run(*args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    """``hhtool *args`` in this process (:mod:`tests.inprocess`), or as the console script if ``process``."""
    if process:
        return subprocess.run([HHTOOL, *args], capture_output=True, text=True, timeout=300)
    return hhtool(*args)


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_stats_command(huge_db: Path, fmt: str) -> None:
    r = _run("stats", "--db", str(huge_db), "--format", fmt)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    if fmt == "json":
        rows = {row["player"]: row for row in json.loads(r.stdout)["players"]}
        assert rows["bob"]["money"][0]["net"] == BOB_NET
    elif fmt == "csv":
        assert f"bob,5,5,{BOB_NET}," in r.stdout  # player, hands, hands_EUR, net_EUR_cents
    else:
        assert format_money(BOB_NET, EURO) in r.stdout


def test_report_command(huge_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    r = _run("report", "--db", str(huge_db), "--out", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    page = out.read_text(encoding="utf-8")
    assert format_money(BOB_NET - 510 * 5 - 10 * 5 - 110 * 5, EURO) in page  # net won, all players: exact
    assert format_money(BOB_NET, EURO) in page  # bob's results, session and showdown rows



def test_a_stakes_filter_of_thousands_of_digits_is_a_usage_error(huge_db: Path) -> None:
    # the console script: Python's limit on digits converted (sys.set_int_max_str_digits) is the process's own
    r = _run("stats", "--db", str(huge_db), "--stakes", "1" + "0" * 4400 + "/1", process=True)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and "--stakes" in r.stderr
    at_the_bound = _run("stats", "--db", str(huge_db), "--stakes", "10000000000.00/0.50")
    assert at_the_bound.returncode == 0 and "no hands match" in at_the_bound.stdout
