"""Issue 42: the integrity screen lists the pairs of the accounts with a tag (``--player-tag``, ``?player_tag=``).

A room's staff tags the accounts it watches (``hhtool tag --player NAME@SITE watch``); the screen then lists the pairs
holding one of them, every pair of the room being screened as before (the ranks stay the room's), in the core, the
CLI (every format) and the ``/integrity`` page; with ``--player`` too, an account that is both.  Real database, real
``hhtool tag``, real ``hhtool serve``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hhtool.stats.filters import Filters
from hhtool.store.db import connect
from tests.servegen import Server, hhtool


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """600 hands of a pool of 10 at 6-max, two accounts tagged ``watch`` (one also ``fish``), the full screen read."""
    from hhtool.collusion import screen

    tmp = tmp_path_factory.mktemp("integrity-tags")
    src = tmp / "histories"
    src.mkdir()
    r = hhtool("simulate", "--hands", "600", "--pool", "10", "--seed", "31", "--jobs", "1", "--out", str(src / "room.txt"))
    assert r.returncode == 0, r.stderr
    db = tmp / "room.duckdb"
    r = hhtool("import", str(src), "--db", str(db), "--workers", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    full = screen(db, cache=False).pairs
    assert full.height > 20
    first = full.row(0, named=True)
    # two accounts of different pairs: the top pair's first account, and an account the last pair holds but it does not
    last = full.row(full.height - 1, named=True)
    other = next(n for n in (last["a_name"], last["b_name"]) if n not in (first["a_name"], first["b_name"]))
    watched = [(first["site"], first["a_name"]), (last["site"], other)]
    for site, name in watched:
        r = hhtool("tag", "--db", str(db), "--player", f"{name}@{site}", "watch")
        assert r.returncode == 0, r.stdout + r.stderr
    r = hhtool("tag", "--db", str(db), "--player", f"{other}@{last['site']}", "fish")
    assert r.returncode == 0, r.stdout + r.stderr
    return {"db": db, "full": full, "watched": watched, "fish": (last["site"], other)}


def _holding(full: Any, accounts: list[tuple[str, str]]) -> list[tuple[int, str, str]]:
    return [(int(r["rank"]), str(r["a"]), str(r["b"])) for r in full.iter_rows(named=True)
            if any(r["site"] == s and n in (r["a_name"], r["b_name"]) for s, n in accounts)]


def test_the_core_lists_the_pairs_of_the_tagged_accounts_with_the_rooms_ranks(room: dict[str, Any]) -> None:
    from hhtool.collusion import screen

    s = screen(room["db"], Filters(player_tags=("watch",)), cache=False)
    got = [(int(r["rank"]), str(r["a"]), str(r["b"])) for r in s.pairs.iter_rows(named=True)]
    want = _holding(room["full"], room["watched"])
    assert got == want and 0 < len(got) < room["full"].height
    # the signals are those of the pairs listed, and the hands screened are the room's
    assert set(zip(s.signals["a"], s.signals["b"])) == {(a, b) for _, a, b in want}
    assert s.hands_read == screen(room["db"], cache=False).hands_read
    # any of several tags; a tag nobody has: no pair
    both = screen(room["db"], Filters(player_tags=("fish", "watch")), cache=False)
    assert both.pairs.height == len(want)
    assert screen(room["db"], Filters(player_tags=("nobody",)), cache=False).pairs.height == 0


def test_with_player_too_an_account_that_is_both(room: dict[str, Any]) -> None:
    from hhtool.collusion import screen

    (site0, tagged), (site1, fish) = room["watched"]
    s = screen(room["db"], Filters(players=(fish,), player_tags=("fish",)), cache=False)
    assert [(int(r["rank"]), str(r["a"]), str(r["b"])) for r in s.pairs.iter_rows(named=True)] == _holding(room["full"], [(site1, fish)])
    # the top pair's account is watched but not a fish: nothing
    assert screen(room["db"], Filters(players=(tagged,), player_tags=("fish",)), cache=False).pairs.height == 0


def test_the_cli_in_every_format(room: dict[str, Any]) -> None:
    want = _holding(room["full"], room["watched"])
    r = hhtool("integrity", "--db", str(room["db"]), "--player-tag", "watch", "--format", "csv", "--no-cache")
    assert r.returncode in (0, 1), r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [(int(x["rank"]), x["a"], x["b"]) for x in rows] == want
    r = hhtool("integrity", "--db", str(room["db"]), "--player-tag", "watch", "--format", "json", "--no-cache")
    pairs = json.loads(r.stdout)["pairs"]
    assert [(p["rank"], p["a"], p["b"]) for p in pairs] == want
    r = hhtool("integrity", "--db", str(room["db"]), "--player-tag", "watch", "--top", "0", "--no-cache")
    assert r.returncode in (0, 1) and sum(1 for line in r.stdout.splitlines() if line.lstrip()[:1].isdigit()) >= len(want)
    # the heading says these are the pairs asked for, among every pair screened
    head = " ".join(r.stdout.split("\n\n")[0].split())
    assert f"{len(want)} pairs holding the accounts asked for, of {room['full'].height} dealt in together" in head


@pytest.fixture(scope="module")
def server(room: dict[str, Any]) -> Iterator[Server]:
    s = Server(room["db"])
    yield s
    code, err = s.stop()
    assert code == 0 and "Traceback" not in err, err


def test_the_page_lists_the_pairs_of_the_tagged_accounts(server: Server, room: dict[str, Any]) -> None:
    import re

    from tests.test_integrity_pages import _rows, _shown

    status, _, page = server.get("/integrity?player_tag=watch")
    assert status == 200
    want = _holding(room["full"], room["watched"])
    rows = _rows(page)
    assert [(int(r["rank"]), r["a"], r["b"]) for r in rows] == [(k, _shown(a), _shown(b)) for k, a, b in want]
    assert re.search(r'name="player_tag" value="watch"', page)
    summary = re.search(r'<p id="summary">(.*?)</p>', page, re.S)
    assert summary and f"{len(want)} pairs holding the accounts asked for, of {room['full'].height} pairs screened" in summary.group(1)
    assert _rows(server.get("/integrity?player_tag=nobody")[2]) == []
    status, _, page = server.get("/integrity?player_tag=" + "x" * 200)
    assert status == 400
