"""Issue 41: amounts and counts over a thousand are grouped everywhere a person reads them (``€1,187.15``,
``1,500 chips``, ``1,100`` hands), even where the history wrote them bare; machine outputs stay exact.

The histories here write every amount without a separator (``€1187.15``, ``1500``): a euro hand of the samples
with a stack of €1187.15, and 1,100 chips hands of two players (one session) whose names are the longest and most
hostile a page has to show, plus faulty hands in a file of a long name (the report's disputed hands);
:func:`make_wide_db` is also the database of ``tests/test_report_widths.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from hhtool.history.money import MoneyStyle, display_amount
from tests.sample_paths import SAMPLES
from tests.servegen import HOSTILE, Server, hhtool, shared_copy

LONG = (HOSTILE[0] + "W" * 60, HOSTILE[1] + "-" + "M" * 60)
"""Two players whose names are long, without a space to break at, and hostile (HTML, SQL)."""
LONG_FILE = "club_" + "notte_" * 14 + "hands_with_mistakes.txt"
"""A history file of a long name: the report's disputed hands name it."""
EURO_HAND = "C-1001"
"""The sample hand whose first seat is given a stack of €1187.15 (written so, ungrouped)."""


def _ungroup(text: str) -> str:
    """The history with every thousands separator removed: ``1,740`` -> ``1740``."""
    while True:
        bare = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
        if bare == text:
            return text
        text = bare


def _rename(text: str, names: tuple[str, ...]) -> str:
    seated = sorted(set(re.findall(r"^Seat \d+: (\S+) \(", text, re.M)))
    for old, new in zip(seated, names):
        text = re.sub(rf"(?<![\w<]){re.escape(old)}\b", new.replace("\\", "\\\\"), text)
    return text


def make_wide_db(tmp: Path) -> Path:
    """``tmp/wide.duckdb``: a copy of the run's one :func:`_import_wide_db` (tests/servegen.py's :func:`shared_copy`)."""
    return shared_copy("wide", _import_wide_db, tmp)


def _import_wide_db(tmp: Path) -> Path:
    """``tmp/wide.duckdb``: the euro sample hand with €1187.15, 1,100 chips hands of the long names (stacks of the first: 1500), faulty hands."""
    src = tmp / "histories"
    src.mkdir()
    sample = (SAMPLES / "000_format_example.txt").read_text(encoding="utf-8")
    euro, n = re.subn(r"^(Seat 1: alice \()€20\.00", r"\g<1>€1187.15", sample, count=1, flags=re.M)
    assert n == 1 and "€1187.15" in euro
    (src / "euro.txt").write_text(euro, encoding="utf-8")
    chips = tmp / "chips.txt"
    r = hhtool("simulate", "--hands", "1100", "--rules", "italian", "--players", "2", "--seed", "3", "--out", str(chips))
    assert r.returncode == 0, r.stderr
    text = _ungroup(_rename(chips.read_text(encoding="utf-8"), LONG))
    first = text.index("\n\n") if "\n\n" in text else len(text)
    head = re.sub(r"^(Seat \d+: .+ \()\d+( in chips\))", r"\g<1>1500\2", text[:first], flags=re.M)
    text = head + text[first:]
    assert re.search(r"\(1500 in chips\)", text) and not re.search(r"\d,\d{3}", text)
    (src / "chips.txt").write_text(text, encoding="utf-8")
    faulty = tmp / "faulty.txt"
    r = hhtool("simulate", "--hands", "80", "--rules", "classic", "--players", "4", "--seed", "11", "--faults", "0.3", "--out", str(faulty))
    assert r.returncode == 0, r.stderr
    (src / LONG_FILE).write_text(_rename(faulty.read_text(encoding="utf-8"), LONG), encoding="utf-8")
    db = tmp / "wide.duckdb"
    r = hhtool("import", str(src), "--db", str(db), "--workers", "0")
    assert r.returncode in (0, 1), r.stdout + r.stderr
    return db


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_wide_db(tmp_path_factory.mktemp("amounts"))


@pytest.fixture(scope="module")
def spare(db: Path) -> Path:
    """A copy of the database, made before the server holds it, for the commands that would be refused while it does."""
    import shutil

    return Path(shutil.copyfile(db, db.with_name("spare.duckdb")))


@pytest.fixture(scope="module")
def server(db: Path, spare: Path) -> Iterator[Server]:
    s = Server(db)
    yield s
    code, err = s.stop()
    assert code == 0, err


def _rows(body: str, table_id: str) -> list[list[str]]:
    """The text of each body cell of the table ``id="table_id"`` of a page (tags dropped, entities read)."""
    from html import unescape

    m = re.search(rf'<table id="{table_id}"[^>]*>(.*?)</table>', body, re.S)
    assert m is not None, table_id
    tbody = m.group(1).split("<tbody>", 1)[1]
    return [[unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", tbody, re.S)]


_BARE = re.compile(r"(?<![\d,.])\d{4,}")
"""A run of four digits or more that no separator groups: ``1187.15``, ``4031`` (never ``1,187.15``)."""


def _dateless(text: str) -> str:
    """The text without its dates and times (``2026-01-01 10:00:00+00:00``), whose digits are no amounts."""
    return re.sub(r"\d{4}-\d\d-\d\d([ T]\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d)?)?", "", text)


def test_the_hand_page_groups_amounts_the_history_wrote_bare(server: Server) -> None:
    status, _, body = server.get("/hands/Vela/C-1001")
    assert status == 200 and "€1187.15 in chips" in body  # the hand as written, in the replayer's text pane
    seats = {row[1]: row for row in _rows(body, "seats")}
    assert seats["alice"][2] == "€1,187.15", seats["alice"]
    assert seats["bob"][2:] == ["€20.00", "€10.90", "€10.90", ""]  # the last column: the note on the player (none)
    # the replayer's seats: the same text beside the exact amount
    assert '"stack":{"amount":118715,"currency":"EUR","text":"€1,187.15"}' in body
    status, _, body = server.get("/hands/Tavolo/3-0-1")
    assert status == 200
    stacks = [row[2] for row in _rows(body, "seats")]
    assert stacks == ["1,500 chips", "1,500 chips"], stacks
    # the machine's answer is unchanged: integer minor units, the hand's own text
    hand = server.json("/api/hands/Vela/C-1001")
    assert '"amount": 118715,' in json.dumps(hand["replay"]) and "Seat 1: alice (€1187.15 in chips)" in hand["raw_text"]


def test_the_player_page_sessions_group_counts_and_amounts(server: Server) -> None:
    # LONG[0] plays at Tavolo (the chips) and at Vela (the faulty hands): two accounts since issue 41, the chips' page
    # is the Tavolo account's (its bare name redirects to the grid of both)
    status, _, body = server.get("/players/" + quote(f"{LONG[0]}@Tavolo", safe=""))
    assert status == 200
    sessions = _rows(body, "sessions")
    chips = [row for row in sessions if row[4].endswith("chips")]
    assert len(chips) == 1 and chips[0][3] == "1,100", sessions  # 1,100 hands in one session (was "1100")
    net = int(chips[0][4].removesuffix(" chips").replace(",", ""))
    assert abs(net) >= 1000 and chips[0][4] == f"{net:,} chips"
    for row in sessions + _rows(body, "stats"):
        assert not _BARE.search(_dateless(" ".join(row))), row


def test_the_report_groups_every_figure_and_stats_machine_outputs_stay_exact(spare: Path, tmp_path: Path) -> None:
    db = spare
    out = tmp_path / "report.html"
    r = hhtool("report", "--db", str(db), "--out", str(out))
    assert r.returncode == 0, r.stderr
    from html import unescape

    text = out.read_text(encoding="utf-8")
    body = text.split('<section id="summary">', 1)[1].split('<section id="audit">', 1)[0]  # the disputed hands' ids and lines are no amounts
    cells = [unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", body, re.S)]
    assert len(cells) > 100
    bare = [c for c in cells if _BARE.search(_dateless(c))]
    assert not bare, bare[:10]
    sessions = body.split('<section id="sessions">', 1)[1]
    assert ">1,100</td>" in sessions
    # the terminal's statistics are grouped; its JSON and CSV keep bare exact integers (every hand counted: some are invalid).
    # LONG[0]'s two accounts (Tavolo's chips, Vela's faulty hands) are one person's: their figures added (issue 41)
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    accounts = [f"{LONG[0]}@{site}" for (site,) in con.execute(
        "SELECT DISTINCT h.site FROM seats s JOIN hands h USING (hand_key) WHERE s.player = ?", [LONG[0]]).fetchall()]
    con.close()
    assert len(accounts) == 2, accounts
    r = hhtool("alias", "add", "long", *accounts, "--db", str(db))
    assert r.returncode == 0, r.stderr
    r = hhtool("stats", "--db", str(db), "--player", "long", "--verdicts", "all")
    assert r.returncode == 0, r.stderr
    assert "1,176 hands" in r.stdout and not _BARE.search(r.stdout), r.stdout
    r = hhtool("stats", "--db", str(db), "--player", "long", "--verdicts", "all", "--format", "json")
    assert r.returncode == 0, r.stderr
    (player,) = json.loads(r.stdout)["players"]
    chips = next(m for m in player["money"] if m["currency"] == "chips")
    assert player["hands"] == 1176 and isinstance(chips["net"], int) and abs(chips["net"]) >= 1000
    r = hhtool("stats", "--db", str(db), "--player", "long", "--verdicts", "all", "--format", "csv")
    assert r.returncode == 0, r.stderr
    assert f",{chips['net']}," in r.stdout and ",1176," in r.stdout


def test_an_audit_sentence_groups_an_amount_the_hand_wrote_bare() -> None:
    """The audit's words and the replayer's are display_amount's: grouped whatever the hand wrote (issue 41)."""
    bare_euro = MoneyStyle("€", cents=True, decimals=True, grouping=False)
    assert display_amount(118715, bare_euro) == "€1,187.15"
    assert display_amount(150000, MoneyStyle("$", cents=True)) == "$1,500"
    assert display_amount(1500, MoneyStyle()) == "1,500 chips"
