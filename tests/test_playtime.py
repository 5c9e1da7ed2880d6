"""Time played (docs/stats.md, "Time played"): sessions, hours, winnings per hour, on hands whose times are set by hand.

FORMAT.md's example hand, copied at chosen times: bob nets +580 minor units
a hand (5.8 big bets of 100), dave -110, in € and in $.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from hhtool.cli import app
from hhtool.simulate import make_config, simulate_text
from hhtool.stats import Filters, compute, sessions
from hhtool.stats.playtime import HAND_SECONDS, load_play_time
from hhtool.store.db import connect
from hhtool.store.importer import import_paths
from tests.storegen import hand

MINUTE = 60_000_000


def at(hand_id: str, when: str, *, dollars: bool = False, invalid: bool = False, without: str = "") -> str:
    """The example hand at ``when`` (``2026/11/29 18:10:00``), in $ if asked, made invalid (a 3rd-street bet over the
    limit) if asked, with ``without`` replaced by erin."""
    text = hand(hand_id).replace("2026/11/29 18:00:00", when)
    if invalid:
        text = text.replace("dave: bets €0.50", "dave: bets €0.70")
    if dollars:
        text = text.replace("€", "$")
    if without:
        text = text.replace(without, "erin")
    return text


@pytest.fixture(scope="module")
def timed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("playtime")
    (tmp / "hh").mkdir()
    texts = [
        at("T-1", "2026/11/29 18:00:00"),
        at("T-2", "2026/11/29 18:10:00"),
        at("T-3", "2026/11/29 18:20:00"),  # session 1: 18:00 to 18:20, 20 minutes + 1 for its last hand
        at("T-4", "2026/11/29 18:51:00"),  # 31 minutes later: session 2, one hand, 1 minute
        at("T-5", "2026/11/29 19:30:00", invalid=True),  # a third € session, of an invalid hand: left out by default
        at("T-6", "2026/11/30 09:00:00", dollars=True, without="dave"),  # a $ session of one hand, the next day, without dave
    ]
    (tmp / "hh" / "hands.txt").write_text("\n".join(texts), encoding="utf-8")
    db = tmp / "t.duckdb"
    assert import_paths([str(tmp / "hh")], db, workers=0).ok
    return db


def test_exact_figures_per_player_and_currency(timed: Path) -> None:
    r = compute(timed, play_time=True)
    bob = r.row("bob")
    # € 21 + 1 minutes, $ 1 minute: 23 minutes in 3 sessions
    assert bob["sessions"] == 3 and bob["sessions_EUR"] == 2 and bob["sessions_USD"] == 1
    assert bob["hours_played"] == round(23 / 60, 4) == 0.3833
    assert bob["hours_at_EUR_tables"] == round(22 / 60, 4) and bob["hours_at_USD_tables"] == round(1 / 60, 4)
    assert bob["avg_session_hours"] == round(23 / 180, 4)
    # € 4 x 580 = 2,320 cents over 22 minutes; $ 580 cents over 1 minute; 5 x 5.8 = 29 big bets over 23 minutes
    assert bob["net_per_hour_EUR_cents"] == 6327  # 6,327.27 cents an hour: whole cents, as every money column
    assert bob["net_per_hour_USD_cents"] == 34800
    assert bob["bb_per_hour"] == round(29 * 60 / 23, 4) == 75.6522
    # dave played no $ hand, erin no € hand: no session there, no rate ("-"), never 0
    dave, erin = r.row("dave"), r.row("erin")
    assert dave["sessions_USD"] == 0 and dave["hours_at_USD_tables"] is None and dave["net_per_hour_USD_cents"] is None
    assert dave["net_per_hour_EUR_cents"] == round(4 * -110 * 60 / 22, 4)
    assert erin["sessions"] == 1 and erin["sessions_EUR"] == 0 and erin["net_per_hour_EUR_cents"] is None
    assert r.play_of("bob") is not None and r.play_of("erin") is not None
    played = {c.code: v for c, v in (r.play_of("bob") or {}).items()}
    assert played == {"EUR": (2, 22 * MINUTE), "USD": (1, 1 * MINUTE)} and HAND_SECONDS == 60
    # the frame of the Python API has them, with their types
    figures = compute(timed, play_time=True).figures()
    assert figures.schema["sessions"] == pl.Int64 and figures.schema["net_per_hour_EUR_cents"] == pl.Int64
    # without play_time, none of it (the default grid's cost)
    assert "sessions" not in compute(timed).row("bob")


def test_filters_apply(timed: Path) -> None:
    every = compute(timed, Filters(verdicts=("ok", "disputed", "invalid", "error")), play_time=True).row("bob")
    assert every["sessions_EUR"] == 3 and every["hours_at_EUR_tables"] == round(23 / 60, 4)  # the invalid hand's session counts
    day = compute(timed, Filters(date_to=dt.date(2026, 11, 29)), play_time=True)
    assert day.row("bob")["sessions"] == 2 and "sessions_USD" not in day.row("bob") and "erin" not in day.players()
    one = compute(timed, Filters(players=("dave",)), play_time=True)
    assert one.players() == ["dave"] and one.row("dave")["sessions"] == 2
    assert compute(timed, play_time=True, gap_minutes=40).row("bob")["sessions_EUR"] == 1  # 18:00 to 18:51 in one
    assert compute(timed, play_time=True, gap_minutes=40).row("bob")["hours_at_EUR_tables"] == round(52 / 60, 4)


def test_detail_csv_json_and_grid(timed: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["stats", "--db", str(timed), "--format", "detail"])
    assert res.exit_code == 0, res.output
    assert max(len(line) for line in res.output.splitlines()) <= 80
    block = [" ".join(line.split()) for line in res.output.split("== bob")[1].split("\n\n")[0].splitlines()]
    at_ = block.index("sessions 3")
    assert block[at_ - 1].startswith("antes/100") and block[at_ + 5] == "big bets per hour 75.65 over 23 min"  # after the win rates
    assert block[at_:at_ + 5] == [
        "sessions 3", "time played 23 min", "average session 8 min",  # 7.67 minutes
        "net won per hour €63.27 over 22 min", "$348.00 over 1 min",
    ]
    dave = res.output.split("== dave")[1].split("\n\n")[0]
    assert "-€12.00  over 22 min" in dave and "$" not in dave  # -440 cents in 22 minutes

    res = runner.invoke(app, ["stats", "--db", str(timed), "--format", "csv"])
    rows = {r["player"]: r for r in pl.read_csv(res.output.encode()).to_dicts()}
    assert rows["bob"]["net_per_hour_EUR_cents"] == 6327 and rows["dave"]["net_per_hour_USD_cents"] is None
    assert rows["bob"]["hours_played"] == 0.3833 and rows["bob"]["sessions"] == 3

    res = runner.invoke(app, ["stats", "--db", str(timed), "--format", "json"])
    players = {p["player"]: p for p in json.loads(res.output)["players"]}
    bob = players["bob"]
    assert bob["sessions"] == 3 and bob["hours_played"] == 0.3833 and bob["bb_per_hour"] == 75.6522
    money = {m["currency"]: m for m in bob["money"]}
    assert money["EUR"]["sessions"] == 2 and money["EUR"]["net_per_hour"] == 6327 and money["USD"]["net_per_hour"] == 34800
    assert not any(k.startswith(("sessions_", "net_per_hour_")) for k in bob)  # per money only in the money objects

    res = runner.invoke(app, ["stats", "--db", str(timed), "--currency", "EUR", "--rate", "USD=0.5", "--format", "json"])
    bob = {p["player"]: p for p in json.loads(res.output)["players"]}["bob"]
    assert bob["converted"]["net_per_hour"] == round((2320 + 290) * 60 / 23) == 6809  # € and $ at 0.5, over both's 23 minutes, whole cents

    res = runner.invoke(app, ["stats", "--db", str(timed), "--columns", "hands,sessions,hours_played,net_per_hour,bb_per_hour",
                              "--sort", "net_per_hour_USD"], env={"COLUMNS": "100"})
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].split() == ["player", "hands", "sess", "hours", "net/h", "€", "net/h", "$", "bb/h"]
    assert [line.split() for line in lines[1:6]] == [
        ["bob", "5", "3", "0.38", "€63.27", "$348.00", "75.65"],
        ["carol", "5", "3", "0.38", "-€1.09", "-$6.00", "-1.30"],
        ["erin", "1", "1", "0.02", "-$66.00", "-66.00"],  # no € session: an empty cell
        ["alice", "5", "3", "0.38", "-€55.64", "-$306.00", "-66.52"],  # -510 x 4 in 22 minutes, -510 in 1
        ["dave", "4", "2", "0.37", "-€12.00", "-12.00"],  # no $ session: last by the dollars
    ]
    res = runner.invoke(app, ["stats", "--db", str(timed)])
    assert "sess" not in res.output.splitlines()[0]  # the default grid has no time played


def test_the_same_sessions_as_the_walk(tmp_path: Path) -> None:
    """The window query's sessions and lengths are those of the sessions' table (the report's, the player's page's)."""
    (tmp_path / "hh").mkdir()
    for n, (rules, seed) in enumerate((("classic", 3), ("stellapoker", 4))):
        text, _ = simulate_text(make_config(rules=rules, structure="fixed", players=6, seed=seed, faults=0.2), 150)
        (tmp_path / "hh" / f"{n}.txt").write_text(text, encoding="utf-8")
    db = tmp_path / "s.duckdb"
    import_paths([str(tmp_path / "hh")], db, workers=0)
    for f in (Filters(), Filters(verdicts=("ok",)), Filters(max_seats=(6,))):
        for gap in (5, 30):
            r = compute(db, f, play_time=True, gap_minutes=gap)
            walked = sessions(r.per_hand, gap).with_columns(
                us=(pl.col("end") - pl.col("start")).dt.total_microseconds().fill_null(0) + HAND_SECONDS * 1_000_000)
            want = walked.group_by("player", "currency").agg(n=pl.len().cast(pl.Int64), us=pl.col("us").sum().cast(pl.Int64))
            con = connect(db, read_only=True)
            try:
                for from_seats in (False, True):
                    got = load_play_time(con, f, r.accounts, gap, from_seats=from_seats)
                    got = got.select("player", "currency", n=pl.col("sessions"), us=pl.col("played_us"))
                    assert got.sort("player", "currency").equals(want.sort("player", "currency")), (f, gap, from_seats)
            finally:
                con.close()


def test_the_players_page_and_reading_while_serving(timed: Path, tmp_path: Path) -> None:
    """``serve``'s player page shows the block above the sessions; ``stats`` run while it holds the file prints the same."""
    import re

    from tests.servegen import Server, hhtool

    local = {fmt: hhtool("stats", "--db", str(timed), "--format", fmt) for fmt in ("csv", "detail")}
    s = Server(timed)
    try:
        status, _, body = s.get("/players/bob")
        assert status == 200
        table = body.split('<table id="playtime">')[1].split("</table>")[0]
        cells = [re.sub(r"<[^>]+>", "", row).strip() for row in table.split("<tr>")[1:]]
        assert [re.findall(r"<td[^>]*>([^<]*)</td>", "<tr>" + row) for row in table.split("<tr>")[1:]] == [
            ["sessions", "3", ""], ["time played", "23 min", ""], ["average session", "8 min", ""],
            ["net won per hour", "€63.27", "over 22 min"], ["", "$348.00", "over 1 min"], ["big bets per hour", "75.65", "over 23 min"],
        ], cells
        assert body.index('id="playtime"') < body.index('id="sessions"')
        for fmt, want in local.items():  # the file is the server's: stats asks it, and prints the same
            got = hhtool("stats", "--db", str(timed), "--format", fmt)
            assert got.returncode == 0 and got.stdout == want.stdout, got.stderr
    finally:
        code, err = s.stop()
        assert code == 0, err
