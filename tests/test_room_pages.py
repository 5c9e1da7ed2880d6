"""The room on the pages people read: a hand's page and the audit page of ``hhtool serve``, and the HTML report.

Real parts: hands imported with a room folder into a DuckDB file, the real
server process, the report written to disk.  The pages replay a stored hand
under the room it was imported under, rebuilt from the database's ``rooms``
row, so they say what the import said even after the room file changes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hhtool.game.room import load_rooms
from hhtool.stats.report import write_report
from hhtool.store.importer import import_paths
from tests.servegen import Server

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = (ROOT / "sample_histories" / "000_format_example.txt").read_text(encoding="utf-8").split("\n\n")[0].strip() + "\n"
ROOM = '[room]\nname = "Circolo <Vela>"\nsites = ["Vela"]\nbase = "classic"\n\n[rake]\npercent = 5\ncap = "0.50"\ncurrencies = ["EUR", "USD"]\n'


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("room_pages")
    rooms = tmp / "rooms"
    rooms.mkdir()
    (rooms / "vela.toml").write_text(ROOM, encoding="utf-8")
    hands = tmp / "hands.txt"
    raised = EXAMPLE.replace("Rake €0.50", "Rake €1.00")  # the Rake line raised; bob's €10.90 is the room's
    over = EXAMPLE.replace("#C-1001", "#C-1002").replace("Rake €0.50", "Rake €1.00").replace("€10.90", "€10.40")  # the room overcharged
    other = EXAMPLE.replace("Vela Hand #C-1001", "Altrove Hand #A-1")  # a site no room governs
    hands.write_text("\n".join([raised, over, other]), encoding="utf-8")
    path = tmp / "hands.duckdb"
    summary = import_paths([hands], path, workers=0, rooms=load_rooms(rooms, required=True))
    assert summary.stored == 3
    (rooms / "vela.toml").write_text(ROOM.replace('cap = "0.50"', 'cap = "2.00"'), encoding="utf-8")  # changed since: the pages keep the old
    return path


def test_a_hand_page_names_the_room_and_rules_its_rake(db: Path) -> None:
    server = Server(db)
    try:
        status, _, page = server.get("/hands/Vela/C-1002")
        assert status == 200
        assert "rules: Circolo &lt;Vela&gt;&#39;s rules (" in page and "vela.toml), base classic" in page
        assert "The room took €1.00 in rake, €0.50 more than its rules allow" in page and "short by €0.50" in page
        assert "rake_over" in page and "over the cap of €0.50" in page  # the cap the hand was imported under, not today's €2.00
        status, _, page = server.get("/hands/Altrove/A-1")
        assert "rules: the classic profile of RULES.md" in page
        status, _, audit = server.get("/audit")
        assert status == 200 and audit.count('<td class="name">Circolo &lt;Vela&gt;</td>') == 2 and "<Vela>" not in audit
        doc = server.json("/api/hands/Vela/C-1001")
        assert doc["hand"]["room"] == "Circolo <Vela>" and doc["audit"]["room"]["name"] == "Circolo <Vela>"
        assert doc["audit"]["rake"] == {"stated": 100, "due": 50, "words": doc["audit"]["rake"]["words"], "collected": 1090, "total": 1140, "collections_match": "room"}
    finally:
        code, err = server.stop()
        assert code == 0, err


def test_the_report_names_the_rooms_it_covers(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    write_report(db, out)
    html = out.read_text(encoding="utf-8")
    assert "rules: Circolo &lt;Vela&gt;&#x27;s (" in html or "rules: Circolo &lt;Vela&gt;&#39;s (" in html
    assert "for 2 hands; the profiles of RULES.md for 1 hand" in html
    assert "<Vela>" not in html
