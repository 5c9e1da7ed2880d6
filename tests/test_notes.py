"""Notes and tags (issue 43): kept through a re-import, a re-audit and an export; ``--tag`` filters the figures and the report;
a hostile note is text on a terminal, in CSV and in the report.

Every test runs the real import into a real DuckDB file and the real CLI.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from hhtool.cli import app
from hhtool.game.room import load_rooms
from hhtool.stats import Filters, compute
from hhtool.stats.notes import MAX_NOTE
from hhtool.store.importer import import_paths
from hhtool.store.parquet import ParquetDataset

runner = CliRunner()

ROOM = """\
[room]
name = "Circolo Vela"
sites = ["Vela"]
base = "classic"

[rake]
percent = {percent}
step = "0.05"
cap = "1.25"
from_street = "3rd"
"""
HOSTILE = "<img src=x onerror=alert(1)>\x1b]0;owned\x07 =HYPERLINK(\"http://evil\")\nsecond line"


@pytest.fixture(scope="module")
def histories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from hhtool.simulate import write_simulation
    from hhtool.simulate.config import make_config

    root = tmp_path_factory.mktemp("notes-in")
    write_simulation(make_config(rules="classic", seed=21, site="Vela"), 80, root / "vela.txt")
    write_simulation(make_config(rules="classic", seed=22, site="Tavolo"), 30, root / "tavolo.txt")
    return root


def _rooms(folder: Path, percent: int) -> Any:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vela.toml").write_text(ROOM.format(percent=percent), encoding="utf-8")
    return load_rooms(folder, required=True)


def _cli(*args: str) -> Any:
    return runner.invoke(app, list(args))


def _rows(db: Path | str, sql: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return [tuple(r) for r in con.execute(sql).fetchall()]


def _hands(db: Path, site: str, n: int) -> list[str]:
    return [str(r[0]) for r in _rows(db, f"SELECT hand_id FROM hands WHERE site = '{site}' ORDER BY started_at, hand_key LIMIT {n}")]


def _notes_state(db: Path | str) -> list[list[tuple[Any, ...]]]:
    return [
        _rows(db, "SELECT site, hand_id, note FROM hand_notes ORDER BY ALL"),
        _rows(db, "SELECT site, hand_id, tag FROM hand_tags ORDER BY ALL"),
        _rows(db, "SELECT site, player, note FROM player_notes ORDER BY ALL"),
        _rows(db, "SELECT site, player, tag FROM player_tags ORDER BY ALL"),
    ]


@pytest.fixture()
def tagged(histories: Path, tmp_path: Path) -> tuple[Path, list[str], list[str]]:
    """A database of the histories under a room, three Vela hands tagged study (two with notes), one bluff, a player's note,
    two accounts tagged fish (one of them reg too)."""
    db = tmp_path / "notes.duckdb"
    import_paths([histories], db, workers=0, rooms=_rooms(tmp_path / "rooms", 5))
    vela, tavolo = _hands(db, "Vela", 3), _hands(db, "Tavolo", 2)
    for hand in vela:
        r = _cli("tag", hand, "Study", "--db", str(db))
        assert r.exit_code == 0, r.output
    for hand in (vela[0], tavolo[0]):
        assert _cli("tag", hand, "bluff", "--db", str(db)).exit_code == 0
    assert _cli("note", vela[0], "called too light", "--db", str(db)).exit_code == 0
    assert _cli("note", vela[1], HOSTILE, "--db", str(db)).exit_code == 0
    player = _rows(db, "SELECT s.player FROM seats s JOIN hands h USING (hand_key) WHERE h.site = 'Vela' ORDER BY 1 LIMIT 1")[0][0]
    r = _cli("note", "--player", f"{player}@Vela", "bluffs the vela", "--db", str(db))
    assert r.exit_code == 0, r.output
    other = _rows(db, "SELECT s.player FROM seats s JOIN hands h USING (hand_key) WHERE h.site = 'Tavolo' ORDER BY 1 LIMIT 1")[0][0]
    r = _cli("tag", "--player", f"{player}@Vela", "Fish", "reg", "--db", str(db))
    assert r.exit_code == 0 and r.output == f"{player}@Vela: tagged fish reg\ntags: fish reg\n", r.output
    assert _cli("tag", "--player", f"{other}@Tavolo", "fish", "--db", str(db)).exit_code == 0
    return db, vela, tavolo


def test_notes_and_tags_survive_a_reimport_a_reaudit_and_an_export(tagged: tuple[Path, list[str], list[str]], histories: Path, tmp_path: Path) -> None:
    db, vela, _ = tagged
    before = _notes_state(db)
    assert len(before[0]) == 2 and len(before[1]) == 5 and len(before[2]) == 1 and len(before[3]) == 3
    # the same files again: every hand a duplicate, nothing of the notes touched
    again = import_paths([histories], db, workers=0, rooms=_rooms(tmp_path / "rooms", 5))
    assert again.stored == 0
    assert _notes_state(db) == before
    # the room changed: --reaudit replaces every Vela hand's replayed rows (seats, actions, ... by hand_key)
    summary = import_paths([], db, workers=0, rooms=_rooms(tmp_path / "rooms", 10), reaudit=True)
    assert summary.reaudited == len(_hands(db, "Vela", 10_000))
    assert _notes_state(db) == before
    r = _cli("note", vela[1], "--db", str(db), "--raw")
    assert r.exit_code == 0 and HOSTILE.split("\n")[0] in r.output
    # exported, and read back from the Parquet files as from the database
    out = tmp_path / "exported"
    r = _cli("export", "--parquet", str(out), "--db", str(db))
    assert r.exit_code == 0, r.output
    assert "hand_notes 2" in r.output and "hand_tags 5" in r.output and "player_notes 1" in r.output and "player_tags 3" in r.output
    con = ParquetDataset(out).connect()
    try:
        got = [
            [tuple(x) for x in con.execute(sql).fetchall()]
            for sql in ("SELECT site, hand_id, note FROM hand_notes ORDER BY ALL", "SELECT site, hand_id, tag FROM hand_tags ORDER BY ALL",
                        "SELECT site, player, note FROM player_notes ORDER BY ALL", "SELECT site, player, tag FROM player_tags ORDER BY ALL")
        ]
    finally:
        con.close()
    assert got == before
    # the tag filter reads the export as it reads the database
    a = _cli("stats", "--db", str(db), "--tag", "study", "--format", "csv")
    b = _cli("stats", "--parquet", str(out), "--tag", "study", "--format", "csv")
    assert a.exit_code == 0 and a.output == b.output and a.output.count("\n") > 1
    a = _cli("stats", "--db", str(db), "--player-tag", "fish", "--format", "csv")
    b = _cli("stats", "--parquet", str(out), "--player-tag", "fish", "--format", "csv")
    assert a.exit_code == 0 and a.output == b.output and a.output.count("\n") == 3  # the heading and the two fish


def test_tag_filters_the_figures_to_the_tagged_hands_any_of_several(tagged: tuple[Path, list[str], list[str]]) -> None:
    db, vela, tavolo = tagged
    study = compute(db, Filters(tags=("study",)))
    players = dict(zip(study.table["player"].to_list(), study.table["hands"].to_list()))
    expected = dict(_rows(db, f"""
        SELECT s.player, count(*) FROM seats s JOIN hands h USING (hand_key)
        WHERE s.dealt_in AND h.site = 'Vela' AND h.hand_id IN ({', '.join(f"'{h}'" for h in vela)}) GROUP BY 1"""))
    assert {k.split("@")[0]: v for k, v in players.items()} == expected
    # the same figures from the seats and from the stored totals' path (the tag forces the seats): every verdict counted
    both = compute(db, Filters(tags=("study", "bluff"), verdicts=("ok", "disputed", "invalid", "error")))
    hands = _rows(db, f"""SELECT count(DISTINCT hand_key) FROM hands WHERE (site = 'Vela' AND hand_id IN ({', '.join(f"'{h}'" for h in vela)}))
                         OR (site = 'Tavolo' AND hand_id = '{tavolo[0]}')""")[0][0]
    assert hands == 4
    # a player's hands sum to the hands times the players dealt in: each tagged hand counted once, any of the two tags
    dealt = _rows(db, f"""SELECT count(*) FROM seats s JOIN hands h USING (hand_key) WHERE s.dealt_in AND
                         ((h.site = 'Vela' AND h.hand_id IN ({', '.join(f"'{h}'" for h in vela)})) OR (h.site = 'Tavolo' AND h.hand_id = '{tavolo[0]}'))""")[0][0]
    assert sum(both.table["hands"].to_list()) == dealt
    r = _cli("stats", "--db", str(db), "--tag", "nothing-tagged", "--format", "csv")
    assert r.exit_code == 0 and r.output.strip().count("\n") == 0  # the heading alone: no hand has that tag
    r = _cli("stats", "--db", str(db), "--tag", "not a tag!")
    assert r.exit_code == 2 and "--tag" in r.output


def test_report_tag_writes_the_study_list_in_order_with_the_notes_inert(tagged: tuple[Path, list[str], list[str]], tmp_path: Path) -> None:
    db, vela, _ = tagged
    out = tmp_path / "study.html"
    r = _cli("report", "--db", str(db), "--tag", "study", "--out", str(out))
    assert r.exit_code == 0, r.output
    page = out.read_text(encoding="utf-8")
    study = page.split('<section id="study">', 1)[1].split("</section>", 1)[0]
    order = [study.index(f"Vela hand {h}</strong>") for h in vela]
    assert order == sorted(order)  # in the order played
    assert "called too light" in study
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in study
    assert "\x1b" not in page and "\\x1b]0;owned\\x07" in study
    assert study.count('<details class="replay">') == 3 and "hands tagged study" in page
    r = _cli("report", "--db", str(db), "--out", str(tmp_path / "all.html"))
    assert r.exit_code == 0 and '<section id="study">' not in (tmp_path / "all.html").read_text(encoding="utf-8")


def test_a_hostile_note_is_inert_on_the_terminal_and_in_csv(tagged: tuple[Path, list[str], list[str]]) -> None:
    db, vela, _ = tagged
    r = _cli("note", vela[1], "--db", str(db))
    assert r.exit_code == 0
    assert "\x1b" not in r.output and "\x07" not in r.output and "\\x1b]0;owned\\x07" in r.output
    assert r.output.splitlines()[-1] == "second line"  # a note's lines are the terminal's lines, each made safe
    r = _cli("note", "--format", "csv", "--db", str(db))
    assert r.exit_code == 0 and "\x1b" not in r.output
    (row,) = [line for line in r.output.splitlines() if "onerror" in line]
    assert ",'<img" not in row and "\\x1b" in row  # control characters escaped
    r = _cli("note", "--format", "csv", "--db", str(db), "--raw")
    assert "\x1b" in r.output  # --raw: the bytes as written
    # a note starting like a formula is prefixed for a spreadsheet
    assert _cli("note", vela[2], "=1+1", "--db", str(db)).exit_code == 0
    r = _cli("note", "--format", "csv", "--db", str(db))
    assert f"hand,Vela,{vela[2]},,study,'=1+1" in r.output


def test_what_cannot_be_written_is_refused_and_nothing_written(tagged: tuple[Path, list[str], list[str]]) -> None:
    db, vela, _ = tagged
    before = _notes_state(db)
    r = _cli("note", vela[2], "x" * (MAX_NOTE + 1), "--db", str(db))
    assert r.exit_code == 2 and "10,000" in r.output
    r = _cli("note", "NO-SUCH-HAND", "text", "--db", str(db))
    assert r.exit_code == 2 and "no hand 'NO-SUCH-HAND'" in r.output
    r = _cli("note", "--player", "nobody@Vela", "text", "--db", str(db))
    assert r.exit_code == 2 and "no account" in r.output
    r = _cli("tag", vela[2], "two words", "--db", str(db))
    assert r.exit_code == 2 and "a tag is" in r.output
    assert _notes_state(db) == before
    # exactly 10,000 characters is a note; --append adds a line; --clear removes it; tag --remove takes one off
    assert _cli("note", vela[2], "y" * MAX_NOTE, "--db", str(db)).exit_code == 0
    assert _cli("note", vela[2], "--clear", "--db", str(db)).exit_code == 0
    assert _cli("note", vela[2], "one", "--db", str(db)).exit_code == 0
    assert _cli("note", vela[2], "--append", "two", "--db", str(db)).exit_code == 0
    assert _rows(db, f"SELECT note FROM hand_notes WHERE hand_id = '{vela[2]}'") == [("one\ntwo",)]
    r = _cli("tag", vela[0], "--remove", "bluff", "--db", str(db))
    assert r.exit_code == 0 and "removed bluff" in r.output
    r = _cli("tags", "--db", str(db), "--format", "csv")
    assert r.output == "tag,hands,players\nstudy,3,0\nbluff,1,0\nfish,0,2\nreg,0,1\n"
    # a player's tags: --remove one, a tag not a word refused, an account not in the database refused
    (fish,) = [a for a in _rows(db, "SELECT player || '@' || site FROM player_tags WHERE tag = 'reg'")]
    r = _cli("tag", "--player", fish[0], "--remove", "reg", "--db", str(db))
    assert r.exit_code == 0 and r.output == f"{fish[0]}: removed reg\ntags: fish\n"
    assert _cli("tag", "--player", fish[0], "not a tag!", "--db", str(db)).exit_code == 2
    r = _cli("tag", "--player", "nobody@Vela", "fish", "--db", str(db))
    assert r.exit_code == 2 and "no account" in r.output
    assert _cli("tag", "--player", fish[0], "--site", "Vela", "x", "--db", str(db)).exit_code == 2
    assert _rows(db, "SELECT tag, count(*) FROM player_tags GROUP BY tag") == [("fish", 2)]


def test_player_tag_limits_the_grid_to_the_tagged_accounts(tagged: tuple[Path, list[str], list[str]]) -> None:
    db, _, _ = tagged
    fish = {f"{p}@{s}" for s, p in _rows(db, "SELECT site, player FROM player_tags WHERE tag = 'fish'")}
    every = compute(db, Filters())
    got = compute(db, Filters(player_tags=("fish",)))
    rows = dict(zip(got.table["player"].to_list(), got.table["hands"].to_list()))
    whole = dict(zip(every.table["player"].to_list(), every.table["hands"].to_list()))
    # each tagged account a row, with its every hand; the others none (a bare name is its account when on one site)
    assert len(rows) == 2 and all(whole[k] == v for k, v in rows.items())
    assert {k if "@" in k else next(f for f in fish if f.split("@")[0] == k) for k in rows} == fish
    assert compute(db, Filters(player_tags=("reg",))).table.height == 1
    assert compute(db, Filters(player_tags=("nobody-has-it",))).table.height == 0
    # the same rows from the seats (a hand tag forces them) and from the stored totals
    seats = compute(db, Filters(player_tags=("fish",), tags=("study", "bluff")))
    assert set(seats.table["player"].to_list()) <= set(rows)
    r = _cli("stats", "--db", str(db), "--player-tag", "two words")
    assert r.exit_code == 2 and "--player-tag" in r.output
