"""The screen's SQL passes kept beside the database (``DB.integrity-passes.parquet``, docs/integrity.md "The cache").

A second screen of the same hands reads the passes' frames from the file and gives the same frames and the same
output; whatever the frames depend on -- a hand added, a hand imported again with another text, a hand audited again,
the filters of the hands -- makes the file's entry unread; a file that cannot be read or of another version is no
cache; a database opened read-only still gets its file; ``--no-cache`` neither reads nor writes it.

One small room (seed 74, 6 players, full view), simulated and imported once; each test works on a copy.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from hhtool.collusion import dossier, screen
from hhtool.collusion.passes import VERSION, passes_path
from hhtool.collusion.pricing import cache_path
from hhtool.collusion.screen import Screen
from hhtool.simulate import make_config, write_simulation
from hhtool.stats.filters import Filters
from hhtool.store.db import connect
from tests.inprocess import hhtool

HANDS = 500


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """(the room's histories, its database), made once for the module: tests copy the database before any write."""
    folder = tmp_path_factory.mktemp("passes")
    text = folder / "room.txt"
    write_simulation(make_config(rules="classic", seed=74, players=6), HANDS, text)
    db = folder / "room.duckdb"
    r = hhtool("import", str(text), "--db", str(db), "--workers", "1")
    assert r.returncode == 0, r.stderr
    yield text, db


@pytest.fixture
def db(built: tuple[Path, Path], tmp_path: Path) -> Path:
    out = tmp_path / "room.duckdb"
    shutil.copy(built[1], out)
    return out


def kept_file(db: Path) -> Path:
    path = passes_path(cache_path(db))
    assert path is not None and path.name == "room.duckdb.integrity-passes.parquet"
    return path


def same(x: Screen, y: Screen) -> None:
    assert x.pairs.equals(y.pairs) and x.signals.equals(y.signals)
    assert (x.not_computed, x.hands_read, x.keys) == (y.not_computed, y.hands_read, y.keys)


def test_a_second_screen_reads_the_passes_and_gives_the_same_output(db: Path) -> None:
    first = screen(db)
    assert first.passes > 0 and kept_file(db).is_file()
    second = screen(db)
    assert second.passes == 0  # no SQL pass ran: every frame came from the file
    assert first.priced > 0 and second.priced == 0 and second.cached == first.priced  # the priced rows too
    same(second, first)
    same(screen(db, cache=False), first)
    assert first.pairs.height > 10 and first.hands_read == HANDS
    # the command's output, byte for byte, with both files and with neither
    warm = hhtool("integrity", "--db", str(db), "--format", "csv")
    kept_file(db).unlink()
    cache_path(db).unlink()  # type: ignore[union-attr]
    cold = hhtool("integrity", "--db", str(db), "--format", "csv")
    assert cold.returncode in (0, 1) and warm.returncode == cold.returncode
    assert warm.stdout == cold.stdout and warm.stdout.count("\n") == first.pairs.height + 1


def test_a_hand_added_is_screened_again(db: Path, built: tuple[Path, Path], tmp_path: Path) -> None:
    first = screen(db)
    block = built[0].read_text(encoding="utf-8").split("\n\n")[0]
    extra = tmp_path / "extra.txt"  # the first hand again under a new id: one more hand of the same players
    extra.write_text(re.sub(r"Hand #[^:]+:", "Hand #9-9-9:", block, count=1) + "\n\n", encoding="utf-8")
    r = hhtool("import", str(extra), "--db", str(db), "--workers", "1")
    assert r.returncode == 0, r.stderr
    again = screen(db)
    assert again.passes > 0 and again.hands_read == first.hands_read + 1
    same(again, screen(db, cache=False))
    assert screen(db).passes == 0


def test_a_hand_imported_again_with_another_text_is_screened_again(db: Path, built: tuple[Path, Path], tmp_path: Path) -> None:
    screen(db)
    blocks = built[0].read_text(encoding="utf-8").split("\n\n")
    names = re.findall(r"^Seat \d: (.+) \(", blocks[0], flags=re.M)
    name = next(n for n in names if all(n not in m for m in names if m != n) and not re.search(r"\W", n))
    blocks[0] = re.sub(rf"\b{re.escape(name)}\b", "Zeno", blocks[0])
    changed = tmp_path / "changed.txt"
    changed.write_text("\n\n".join(blocks), encoding="utf-8")
    db.unlink()  # the database built again from the histories, one hand's text changed; the files beside it stay
    r = hhtool("import", str(changed), "--db", str(db), "--workers", "1")
    assert r.returncode == 0, r.stderr
    again = screen(db)
    assert again.passes > 0
    assert any(n == "Zeno" for _, n in again.keys)  # not the frames of the old text
    same(again, screen(db, cache=False))


def test_a_hand_audited_again_is_screened_again(db: Path) -> None:
    screen(db)
    con = connect(db)
    try:  # what `import --reaudit` writes of a hand replayed under a changed room file (docs/rooms.md)
        con.execute("UPDATE hands SET rules_digest = 'abcdef0123456789' WHERE hand_key = (SELECT min(hand_key) FROM hands)")
    finally:
        con.close()
    assert screen(db).passes > 0
    assert screen(db).passes == 0


def test_the_filters_of_the_hands_key_the_file_and_those_choosing_pairs_do_not(db: Path) -> None:
    whole = screen(db)
    con = connect(db, read_only=True)
    try:
        ids = [str(r[0]) for r in con.execute("SELECT hand_id FROM hands ORDER BY hand_key LIMIT 60").fetchall()]
    finally:
        con.close()
    for hand_id in ids:
        assert hhtool("tag", hand_id, "study", "--db", str(db)).returncode == 0
    part = screen(db, Filters(tags=("study",)))
    assert part.passes > 0 and part.hands_read == 60
    same(part, screen(db, Filters(tags=("study",)), cache=False))
    assert screen(db, Filters(tags=("study",))).passes == 0
    # another filter selecting the same hands: another key, the same frames
    assert screen(db, Filters(tags=("study",), verdicts=("ok", "disputed", "invalid", "error"))).passes > 0
    assert screen(db).passes == 0  # the file keeps both scopes
    # the pairs of one account, and a minimum of hands together: the room screened whole, from the file
    name = whole.pairs["a_name"][0]
    one = screen(db, Filters(players=(name,)))
    assert one.passes == 0 and 0 < one.pairs.height < whole.pairs.height
    assert one.pairs.equals(whole.pairs.filter((pl.col("a_name") == name) | (pl.col("b_name") == name)))
    together = sorted(whole.pairs["hands_together"].to_list())[whole.pairs.height // 2]
    few = screen(db, min_hands=together)
    assert few.passes == 0 and 0 < few.pairs.height < whole.pairs.height
    same(few, screen(db, min_hands=together, cache=False))


def test_a_file_that_cannot_be_read_or_of_another_version_is_no_cache(db: Path) -> None:
    first = screen(db)
    path = kept_file(db)
    foreign = pl.read_parquet(path).with_columns(pl.lit(VERSION + 1, dtype=pl.Int64).alias("version"))
    foreign.write_parquet(path)
    again = screen(db)
    assert again.passes > 0
    same(again, first)
    assert screen(db).passes == 0  # written again, of this version
    path.write_bytes(b"PAR1 not a parquet file")
    broken = screen(db)
    assert broken.passes > 0
    same(broken, first)
    assert screen(db).passes == 0


def test_a_read_only_database_gets_its_file_and_a_cursor_finds_it(db: Path) -> None:
    con = connect(db, read_only=True)  # as `hhtool serve` holds it: the page screens through a cursor of it
    try:
        cold = screen(con.cursor())
        assert cold.passes > 0 and kept_file(db).is_file()
        warm = screen(con.cursor())
        assert warm.passes == 0
        same(warm, cold)
    finally:
        con.close()
    assert screen(db).passes == 0


def test_no_cache_neither_reads_nor_writes_the_file(db: Path) -> None:
    bare = screen(db, cache=False)
    assert bare.passes > 0 and not kept_file(db).exists()
    r = hhtool("integrity", "--db", str(db), "--format", "csv", "--no-cache")
    assert r.returncode in (0, 1) and not kept_file(db).exists()
    screen(db)
    assert screen(db, cache=False).passes > 0


def test_a_folder_that_cannot_be_written_leaves_the_run_uncached(db: Path) -> None:
    kept_file(db).mkdir()  # the name taken by a folder: the file cannot be written there
    first = screen(db)
    second = screen(db)
    assert first.passes > 0 and second.passes > 0
    same(second, first)


def test_the_dossier_reads_the_file(db: Path) -> None:
    first = screen(db)
    a, b = first.pairs["a"][0], first.pairs["b"][0]
    d = dossier(db, a, b)
    assert d.screen.passes == 0 and d.hands.height == first.pairs["hands_together"][0]
