"""Issue 41: a player is an account, a name on a site; ``hhtool alias`` groups the accounts a person owns.

A real database: FORMAT.md's example hand three times at Vela (euros: alice, bob, carol, dave) and twice at
Tavolo in play chips, where alice and carol play too, bob's seat is a hostile name and dave's ``dan@home`` (a name
with an ``@``).  Before, "alice" of both sites was one row whose euros and chips sat side by side; now each account
is its own row, keyed ``alice@Vela`` / ``alice@Tavolo`` (bob, on one site, keeps his bare name), and a person made
of accounts is one row whose figures are the sums of theirs, in the terminal, the API, the report and ``serve``.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from typer.testing import CliRunner

from hhtool.cli import app
from hhtool.stats.compute import Filters, compute, compute_on
from hhtool.stats.accounts import parse_key
from hhtool.stats.result import StatsResult
from hhtool.store.db import connect
from hhtool.store.importer import import_paths
from tests.sample_paths import SAMPLES
from tests.servegen import HOSTILE, Server

EXAMPLE = (SAMPLES / "000_format_example.txt").read_text(encoding="utf-8")
ALL = ["alice@Vela", "alice@Tavolo", "bob", "carol@Vela", "carol@Tavolo", "dave", "dan@home@Tavolo", HOSTILE[0]]


def _chips(text: str) -> str:
    """The hand in play chips: €0.50 is 50 chips."""
    return re.sub(r"€(\d+)\.(\d\d)", lambda m: str(int(m.group(1)) * 100 + int(m.group(2))), text)


def make_accounts_db(tmp: Path) -> Path:
    src = tmp / "hh"
    src.mkdir()
    vela = [EXAMPLE.replace("C-1001", f"V-{i}").replace("18:00:00", f"18:{i:02d}:00") for i in range(3)]
    tavolo = []
    for i in range(2):
        t = _chips(EXAMPLE).replace("Vela Hand #C-1001", f"Tavolo Hand #T-{i}").replace("18:00:00", f"20:{i:02d}:00")
        tavolo.append(t.replace("Table 'Vela 1'", "Table 'Tavolo 1'").replace("bob", HOSTILE[0]).replace("dave", "dan@home"))
    (src / "vela.txt").write_text("\n".join(vela), encoding="utf-8")
    (src / "tavolo.txt").write_text("\n".join(tavolo), encoding="utf-8")
    db = tmp / "accounts.duckdb"
    assert import_paths([str(src)], db, workers=0).ok
    return db


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_accounts_db(tmp_path_factory.mktemp("accounts"))


def run(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, list(args))
    return r.exit_code, r.output


def test_a_row_per_account_keyed_by_name_or_name_at_site(db: Path) -> None:
    result = compute(db)
    assert sorted(result.players()) == sorted(ALL)
    sites = dict(zip(result.table["player"].to_list(), result.table["site"].to_list()))
    assert sites["alice@Vela"] == "Vela" and sites["alice@Tavolo"] == "Tavolo" and sites["bob"] == "Vela" and sites[HOSTILE[0]] == "Tavolo"
    # each account's money is its own site's: alice's euros and chips are two rows, no longer one
    assert [c.code for c in result.money_of("alice@Vela")] == ["EUR"] and [c.code for c in result.money_of("alice@Tavolo")] == ["chips"]
    assert result.row("alice@Vela")["hands"] == 3 and result.row("alice@Tavolo")["hands"] == 2
    assert result.money_of("alice@Vela")[next(iter(result.money_of("alice@Vela")))]["net"] == -1530
    # the same rows from the seats as from player_totals
    con = connect(db, read_only=True)
    try:
        seats = compute_on(con, Filters(), from_seats=True)
    finally:
        con.close()
    assert seats.figures().equals(result.figures())
    # a key parts at its last "@": a name with an "@" is always qualified
    assert parse_key("dan@home@Tavolo") == ("dan@home", "Tavolo") and parse_key("bob") == ("bob", None)


def test_player_filter_by_name_by_account_and_name_with_at(db: Path) -> None:
    code, out = run("stats", "--db", str(db), "--player", "alice", "--format", "csv")
    assert code == 0 and [line.split(",")[0] for line in out.splitlines()[1:]] == ["alice@Tavolo", "alice@Vela"]
    code, out = run("stats", "--db", str(db), "--player", "alice@Tavolo", "--format", "json")
    (row,) = json.loads(out)["players"]
    assert code == 0 and row["player"] == "alice@Tavolo" and row["hands"] == 2 and [m["currency"] for m in row["money"]] == ["chips"]
    for asked in ("dan@home@Tavolo", "dan@home"):  # the key, or the name as it is written
        code, out = run("stats", "--db", str(db), "--player", asked, "--format", "json")
        assert code == 0 and [p["player"] for p in json.loads(out)["players"]] == ["dan@home@Tavolo"], asked
    code, out = run("stats", "--db", str(db), "--player", "alice@Tavlo")
    assert code == 2 and "no player 'alice@Tavlo'" in out and "alice@Tavolo" in out


def test_alias_refusals_add_list_remove(db: Path, tmp_path: Path) -> None:
    copy = Path(shutil.copyfile(db, tmp_path / "a.duckdb"))
    d = ("--db", str(copy))
    code, out = run("alias", "add", "me", "alice@Vela", "alice@Tavlo", *d)  # a typo: refused, the nearest named, nothing written
    assert code == 2 and "no account 'alice@Tavlo'" in out and "'alice@Tavolo'" in out
    code, out = run("alias", "add", "me", "alice", *d)
    assert code == 2 and "NAME@SITE" in out
    code, out = run("alias", "add", "alice", "alice@Vela", *d)  # alice@Tavolo is an alice too, and not among them
    assert code == 2 and "also the name of the account alice@Tavolo" in out
    code, out = run("alias", "add", "me@home", "alice@Vela", *d)
    assert code == 2 and "'@'" in out
    code, out = run("alias", "add", "", "alice@Vela", *d)
    assert code == 2
    code, out = run("alias", "list", *d, "--format", "json")
    assert code == 0 and json.loads(out) == []
    code, out = run("alias", "add", "me", "alice@Vela", "alice@Tavolo", *d)
    assert code == 0 and "2 accounts added" in out, out
    code, out = run("alias", "add", "other", "alice@Vela", *d)
    assert code == 2 and "already 'me'" in out
    code, out = run("alias", "list", *d, "--format", "csv")
    assert code == 0 and out.splitlines() == ["person,site,player,account", "me,Tavolo,alice,alice@Tavolo", "me,Vela,alice,alice@Vela"]
    code, out = run("alias", "list", *d)
    assert code == 0 and "alice@Tavolo" in out and "me" in out
    code, out = run("alias", "remove", "bob@Vela", *d)
    assert code == 2 and "no person's alias" in out
    code, out = run("alias", "remove", "alice@Tavolo", *d)
    assert code == 0 and "no longer me's" in out
    code, out = run("alias", "list", *d, "--format", "json")
    assert [a["account"] for a in json.loads(out)] == ["alice@Vela"]


def _sum_check(person: StatsResult, accounts: StatsResult, key: str, of: list[str]) -> None:
    """Every count of ``key``'s row is the sum of ``of``'s; money per currency too."""
    row = person.row(key)
    for column in person.table.columns:
        if column in ("player", "site") or column.endswith("_exact") or person.table.schema[column].is_float():
            continue
        assert row[column] == sum(accounts.row(a)[column] for a in of), column
    money: dict[str, dict[str, int]] = {}
    for a in of:
        for cur, figures in accounts.money_of(a).items():
            mine = money.setdefault(cur.code, dict.fromkeys(figures, 0))
            for k, v in figures.items():
                mine[k] += v
    assert {c.code: f for c, f in person.money_of(key).items()} == money


@pytest.fixture(scope="module")
def aliased(db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = Path(shutil.copyfile(db, tmp_path_factory.mktemp("aliased") / "me.duckdb"))
    assert run("alias", "add", "me", "alice@Vela", "alice@Tavolo", "--db", str(copy))[0] == 0
    assert run("alias", "add", HOSTILE[1], "carol@Tavolo", "--db", str(copy))[0] == 0  # a hostile person's name: inert
    return copy


def test_a_persons_figures_are_the_sums_of_their_accounts(aliased: Path) -> None:
    everyone = compute(aliased)
    # without --player a person's accounts are their row only
    assert "me" in everyone.players() and not {"alice@Vela", "alice@Tavolo", "carol@Tavolo"} & set(everyone.players())
    assert everyone.table.filter(everyone.table["player"] == "me")["site"].to_list() == [None]
    accounts = compute(aliased, Filters(players=("alice@Vela", "alice@Tavolo", "carol@Tavolo")))
    _sum_check(everyone, accounts, "me", ["alice@Vela", "alice@Tavolo"])
    _sum_check(everyone, accounts, HOSTILE[1], ["carol@Tavolo"])
    me = compute(aliased, Filters(players=("me",)))
    assert me.players() == ["me"] and me.row("me")["hands"] == 5
    assert me.figures().equals(everyone.figures().filter(everyone.figures()["player"] == "me"))
    # asked by NAME@SITE beside the person, the account is its own row too
    both = compute(aliased, Filters(players=("me", "alice@Vela")))
    assert sorted(both.players()) == ["alice@Vela", "me"]
    # the person's hands are the union of their accounts': the graph's and the sessions' (one per money)
    per_hand = me.per_hand
    assert per_hand.height == 5 and set(per_hand["player"].to_list()) == {"me"}
    from hhtool.stats.series import sessions

    got = sessions(per_hand)
    assert sorted(zip(got["currency"].to_list(), got["hands"].to_list())) == [("EUR", 3), ("chips", 2)]
    code, out = run("stats", "--db", str(aliased), "--player", HOSTILE[1], "--format", "json")
    assert code == 0 and json.loads(out)["players"][0]["player"] == HOSTILE[1]
    con = connect(aliased, read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM hands").fetchall()[0][0] == 5  # the hostile name was a parameter
    finally:
        con.close()


def test_the_report_shows_the_person(aliased: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    code, text = run("report", "--db", str(aliased), "--player", "me", "--out", str(out))
    assert code == 0, text
    body = out.read_text(encoding="utf-8")
    assert ">me<" in body and "alice@Vela" not in body


@pytest.fixture(scope="module")
def server(aliased: Path) -> Iterator[Server]:
    s = Server(aliased)
    yield s
    code, err = s.stop()
    assert code == 0, err


def test_serve_shows_accounts_and_the_person(server: Server, aliased: Path) -> None:
    status, _, body = server.get("/players")
    assert status == 200
    assert 'href="/players/me' in body and 'href="/players/dan%40home%40Tavolo' in body, body[:3000]
    assert HOSTILE[0] not in body and "&lt;script&gt;" in body  # escaped, never markup
    status, _, body = server.get("/players/me")
    assert status == 200 and ">me: 5 hands, in € and chips</h1>" in body
    status, _, body = server.get("/players/" + quote("alice@Tavolo", safe=""))
    assert status == 200 and "alice@Tavolo" in body and "no hand matches" not in body
    doc = server.json("/api/players/me/stats")
    assert doc["stats"]["hands"] == 5 and sorted(m["currency"] for m in doc["stats"]["money"]) == ["EUR", "chips"]
    doc = server.json("/api/hands?player=" + quote("alice@Tavolo", safe="") + "&limit=50")
    assert doc["total"] == 2 and {h["site"] for h in doc["hands"]} == {"Tavolo"}
    doc = server.json("/api/hands?player=me&limit=50")
    assert doc["total"] == 5
    # a bare name of two accounts: the grid of both
    status, _, body = server.get("/players/carol")
    assert status == 200 and "carol@Vela" in body
    # writing an alias while serve holds the database: the server writes it, the CLI prints what it prints on the file
    code, out = run("alias", "add", "you", "bob@Vela", "--db", str(aliased))
    assert (code, out) == (0, "you: 1 account added (bob@Vela)\n")
    assert 'href="/players/you"' in server.get("/players")[2]
    code, out = run("alias", "add", "you", "alice@Tavolo", "--db", str(aliased))  # already me's: refused in the library's words
    assert code == 2 and "alice@Tavolo" in out
    code, out = run("alias", "remove", "bob@Vela", "--db", str(aliased))
    assert (code, out) == (0, "bob@Vela: no longer you's\n")
    assert 'href="/players/you"' not in server.get("/players")[2]


def test_a_person_may_bear_the_name_of_all_their_accounts(db: Path, tmp_path: Path) -> None:
    """alice at Vela and at Tavolo made the person "alice": --player alice is the person, each account NAME@SITE beside it."""
    copy = Path(shutil.copyfile(db, tmp_path / "p.duckdb"))
    d = ("--db", str(copy))
    code, out = run("alias", "add", "alice", "alice@Vela", "alice@Tavolo", *d)
    assert code == 0, out
    code, out = run("stats", "--format", "json", *d)
    assert code == 0, out
    rows = {p["player"]: p for p in json.loads(out)["players"]}
    assert "alice" in rows and not {"alice@Vela", "alice@Tavolo"} & set(rows)  # the person's row alone
    code, out = run("stats", "--format", "json", "--player", "alice", "--player", "alice@Vela", "--player", "alice@Tavolo", *d)
    assert code == 0, out
    got = {p["player"]: p["hands"] for p in json.loads(out)["players"]}
    assert set(got) == {"alice", "alice@Vela", "alice@Tavolo"}  # never two rows under one key
    assert got["alice"] == got["alice@Vela"] + got["alice@Tavolo"]

