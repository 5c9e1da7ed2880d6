"""``hhtool.store``: the import library on a real DuckDB file; assertions on the database left behind."""

from __future__ import annotations

import gzip
import shutil
import warnings
import zipfile
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hhtool.history.errors import ErrorRecord
from hhtool.history.events import Hand
from hhtool.history.reader import Cp1252Warning, read_file
from hhtool.store.db import DatabaseInUseError, connect, default_db_path
from hhtool.store.importer import ImportPathError, import_paths
from hhtool.store.sources import collect_units, cut_point, last_header, read_chunks
from hhtool.store.query import export_parquet, render, run_query
from hhtool.store.schema import TABLES
from hhtool.store.schemadoc import schema_markdown
from tests.sample_paths import BROKEN, GOOD, ROOT, SAMPLES
from tests.storegen import broken, hand, write_files


def _records() -> tuple[list[Hand], list[ErrorRecord]]:
    hands: list[Hand] = []
    errors: list[ErrorRecord] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Cp1252Warning)
        for path in GOOD + BROKEN:
            for r in read_file(path):
                if isinstance(r, Hand):
                    hands.append(r)
                elif isinstance(r, ErrorRecord):
                    errors.append(r)
    return hands, errors


def _one(con: duckdb.DuckDBPyConnection, sql: str) -> Any:
    row = con.execute(sql).fetchone()
    assert row is not None
    return row[0]


def test_schema_doc_is_generated() -> None:
    assert (ROOT / "docs" / "schema.md").read_text(encoding="utf-8") == schema_markdown()


def test_texts_are_stored_with_zstd_and_read_back_exactly(tmp_path: Path) -> None:
    """The hands' texts take zstd (schema.TEXT_COMPRESSION): cheaper to checkpoint and smaller than DuckDB's own choice."""
    db = tmp_path / "h.duckdb"
    import_paths([SAMPLES], db, workers=0)
    con = duckdb.connect(str(db), read_only=True)
    used = {r[0] for r in con.execute("SELECT DISTINCT compression FROM pragma_storage_info('hands') WHERE column_name = 'raw_text' AND segment_type = 'VARCHAR'").fetchall()}
    assert used == {"ZSTD"}, used
    texts = dict(con.execute("SELECT hand_id, raw_text FROM hands").fetchall())
    for h in read_file(GOOD[0]):
        if isinstance(h, Hand):
            assert texts[h.hand_id].startswith(f"{h.header.site} Hand #{h.hand_id}:") and texts[h.hand_id].endswith("\n")


def test_default_db_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HHTOOL_DB", str(tmp_path / "x.duckdb"))
    assert default_db_path() == tmp_path / "x.duckdb"
    monkeypatch.delenv("HHTOOL_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "hhtool" / "hhtool.duckdb"


def test_samples_import_every_hand_and_failure(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    s = import_paths([SAMPLES], db, workers=0)
    hands, errors = _records()
    distinct = {(h.header.site, h.hand_id) for h in hands}
    assert s.hands == len(hands) + len(errors)
    assert s.stored == len(distinct)
    assert s.stored + s.duplicates + s.conflicts == len(hands)
    assert s.failed == len(errors) and s.failed_new == len({e.raw for e in errors})
    assert not s.ok  # the broken samples fail

    con = duckdb.connect(str(db), read_only=True)
    assert _one(con, "SELECT count(*) FROM hands") == len(distinct)
    assert _one(con, "SELECT count(DISTINCT (site, hand_id)) FROM hands") == len(distinct)
    # every hand where the reader says it starts, with its text
    rows = {(r[0], r[1]): (r[2], r[3], r[4]) for r in con.execute("SELECT site, hand_id, file, first_line, raw_text FROM hands").fetchall()}
    for h in hands:
        file, line, raw = rows[(h.header.site, h.hand_id)]
        if file == str(Path(h.source).resolve()):
            assert line == h.first_line
            assert raw.startswith(f"{h.header.site} Hand #{h.hand_id}:")
    # failures: text and error kept, at the reader's line
    failed = {(r[0], r[1]): (r[2], r[3], r[4]) for r in con.execute("SELECT file, line, kind, message, raw_text FROM failed").fetchall()}
    for e in errors:
        kind, message, raw = failed[(str(Path(e.source).resolve()), e.line)]
        assert (kind, message, raw) == (e.kind, e.message, e.raw)
    # money adds up hand by hand for replayed ok hands: what was put in = collected + rake
    bad = con.execute(
        "SELECT h.hand_id FROM hands h JOIN seats s USING (hand_key) WHERE h.verdict = 'ok' "
        "GROUP BY h.hand_id, h.rake HAVING sum(s.invested) <> sum(s.collected) + h.rake"
    ).fetchall()
    assert bad == []
    assert _one(con, "SELECT sum(net) FROM seats JOIN hands USING (hand_key) WHERE verdict = 'ok'") == -_one(
        con, "SELECT sum(rake) FROM hands WHERE verdict = 'ok'"
    )
    # the example hand, row by row
    key = _one(con, "SELECT hand_key FROM hands WHERE hand_id = 'C-1001'")
    assert con.execute(f"SELECT player, invested, collected, net, went_to_showdown, won_at_showdown FROM seats WHERE hand_key = {key} ORDER BY seat").fetchall() == [
        ("alice", 510, 0, -510, True, False),
        ("bob", 510, 1090, 580, True, True),
        ("carol", 10, 0, -10, False, False),
        ("dave", 110, 0, -110, False, False),
    ]
    assert con.execute(f"SELECT street, kind, amount, to_amount FROM actions WHERE hand_key = {key} AND player = 'dave' ORDER BY seq").fetchall() == [
        ("2nd", "ante", 10, None), ("2nd", "complete", None, 50), ("3rd", "bet", 50, None), ("4th", "fold", None, None)
    ]
    assert con.execute(f"SELECT street, card, up FROM cards WHERE hand_key = {key} AND player = 'alice' ORDER BY street, card").fetchall() == [
        ("2nd", "Qc", False), ("2nd", "Qs", True), ("3rd", "9c", True), ("4th", "Jc", True), ("5th", "Jd", True)
    ]
    assert con.execute(f"SELECT card FROM cards WHERE hand_key = {key} AND player IS NULL").fetchall() == [("Ks",)]
    assert con.execute(f"SELECT amount, rake, winners, shares FROM pots WHERE hand_key = {key}").fetchall() == [(1140, 50, ["bob"], [1090])]
    assert _one(con, f"SELECT started_at FROM hands WHERE hand_key = {key}").isoformat().startswith("2026-11-29T")
    con.close()


def test_reimport_adds_nothing_and_skips_by_hash(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    import_paths([SAMPLES], db, workers=0)
    counts = {t.name: _count(db, t.name) for t in TABLES}
    again = import_paths([SAMPLES], db, workers=0)
    assert again.unchanged + len(again.not_histories) == again.files and again.imported == 0 and again.stored == 0
    # the same content under another name: skipped by its hash
    copy = tmp_path / "copy.txt"
    shutil.copy(GOOD[1], copy)
    assert import_paths([copy], db, workers=0).unchanged == 1
    # changed content (one more hand): the old hands are duplicates, the new one is stored
    copy.write_text(GOOD[1].read_text(encoding="utf-8") + "\n" + hand("NEW-1"), encoding="utf-8")
    s = import_paths([copy], db, workers=0)
    assert (s.stored, s.duplicates, s.conflicts) == (1, 3, 0)
    assert {t.name: _count(db, t.name) for t in TABLES if t.name not in ("files", "hands", "seats", "actions", "cards", "pots", "findings")} == {
        k: v for k, v in counts.items() if k not in ("files", "hands", "seats", "actions", "cards", "pots", "findings")
    }
    assert _count(db, "hands") == counts["hands"] + 1


def _count(db: Path, table: str) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return int(_one(con, f"SELECT count(*) FROM {table}"))
    finally:
        con.close()


def test_conflict_keeps_both_texts_once(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    (tmp_path / "a.txt").write_text(hand("Z-1"), encoding="utf-8")
    other = hand("Z-1").replace("18:00:00 UTC", "18:05:00 UTC")
    (tmp_path / "b.txt").write_text(other, encoding="utf-8")
    (tmp_path / "c.txt").write_text(other + "\n" + hand("Z-2"), encoding="utf-8")
    import_paths([tmp_path / "a.txt"], db, workers=0)
    s = import_paths([tmp_path / "b.txt"], db, workers=0)
    assert (s.stored, s.conflicts, s.conflicts_new) == (0, 1, 1) and not s.ok
    s = import_paths([tmp_path / "c.txt"], db, workers=0)
    assert (s.stored, s.conflicts, s.conflicts_new) == (1, 1, 0)
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT raw_text FROM hands WHERE hand_id = 'Z-1'").fetchall() == [(hand("Z-1"),)]
    assert con.execute("SELECT raw_text, file FROM conflicts").fetchall() == [(other, str((tmp_path / "b.txt").resolve()))]
    con.close()


def test_duplicates_and_conflicts_within_one_batch(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    other = hand("D-1").replace("18:00:00 UTC", "18:05:00 UTC")
    (tmp_path / "a.txt").write_text("\n".join([hand("D-1"), hand("D-1"), other, other, broken("D-2"), broken("D-2")]), encoding="utf-8")
    s = import_paths([tmp_path / "a.txt"], db, workers=0)
    assert (s.stored, s.duplicates, s.conflicts, s.conflicts_new, s.failed, s.failed_new) == (1, 1, 2, 1, 2, 1)
    assert (_count(db, "hands"), _count(db, "conflicts"), _count(db, "failed")) == (1, 1, 1)


def test_zip_gz_folder_glob(tmp_path: Path) -> None:
    src = tmp_path / "src"
    write_files(src, 3, 4, prefix="A")
    with zipfile.ZipFile(tmp_path / "z.zip", "w") as z:
        z.write(src / "hh_000.txt", "inner/hh_000.txt")
        z.writestr("inner/more.txt.gz", gzip.compress(hand("ZIPGZ-1").encode()))
    (tmp_path / "g.txt.gz").write_bytes(gzip.compress((src / "hh_001.txt").read_bytes()))
    units = collect_units([tmp_path / "z.zip", tmp_path / "g.txt.gz"])
    assert [u.path[len(str(tmp_path)) + 1 :] for u in units] == ["z.zip!inner/hh_000.txt", "z.zip!inner/more.txt.gz", "g.txt.gz"]
    # sizes known before reading (the progress bar, the choice of workers): the content's, but a .gz member's compressed size
    sizes = [len((src / "hh_000.txt").read_bytes()), len(gzip.compress(hand("ZIPGZ-1").encode())), len((src / "hh_001.txt").read_bytes())]
    assert [u.content_size() for u in units] == sizes
    db = tmp_path / "h.duckdb"
    s = import_paths([tmp_path / "z.zip", tmp_path / "g.txt.gz"], db, workers=0)
    assert (s.files, s.stored) == (3, 9)
    s = import_paths([str(src / "*.txt")], db, workers=0)  # a glob: hh_000 and hh_001 are known by hash
    assert (s.files, s.unchanged, s.stored) == (3, 2, 4)
    s = import_paths([tmp_path], db, workers=0)  # the folder, recursively, zip and gz included
    assert s.stored == 0 and s.imported == 0
    assert _count(db, "hands") == 13
    with pytest.raises(ImportPathError):
        import_paths([tmp_path / "nope.txt"], db, workers=0)
    with pytest.raises(ImportPathError):
        import_paths([str(tmp_path / "*.nothing")], db, workers=0)


def test_chunks_cut_between_hands() -> None:
    import io

    text = "\n".join(hand(f"C-{i}") for i in range(50)).encode()
    pieces = list(read_chunks(io.BytesIO(text), chunk_bytes=3000))
    assert len(pieces) > 5
    assert b"".join(p for p, _, _ in pieces) == text
    for piece, lines, unread in pieces:
        assert unread is None
        assert piece.startswith(b"Vela Hand #")
        assert lines == text[: text.index(piece)].count(b"\n")


def _cut_whole(buf: bytes) -> int:
    """:func:`cut_point` as defined, each search over the whole buffer."""
    a, b = buf.rfind(b"\n\n"), buf.rfind(b"\n\r\n")
    if a >= 0 or b >= 0:
        return max(a + 2 if a >= 0 else 0, b + 3 if b >= 0 else 0)
    return last_header(buf)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([b"\n", b"\r\n", b"\n\n", b"\r\n\r\n", b"\n\r\n", b"x" * 40, b"y" * 5000, b"\nV Hand #1: "]), max_size=60),
    st.integers(min_value=0, max_value=70_000),
)
def test_cut_point_looks_at_the_end_first_and_cuts_where_the_whole_search_does(parts: list[bytes], pad: int) -> None:
    """The last blank line looked for near the end first: the same cut as the searches over the whole chunk, whatever its line ends."""
    for buf in (b"".join(parts), b"".join(parts) + b"z" * pad, b"z" * pad + b"".join(parts)):
        assert cut_point(buf) == _cut_whole(buf)


def test_chunked_import_keeps_line_numbers(tmp_path: Path) -> None:
    """A file cut into many chunks (about 4,000 bytes each, two hands or so) keeps every hand's line numbers."""
    path = tmp_path / "a.txt"
    path.write_bytes("\r\n".join([hand(f"L-{i}") for i in range(30)] + [broken("L-30")]).replace("\n", "\r\n").encode("utf-8-sig"))
    db = tmp_path / "h.duckdb"
    calls: list[tuple[int, int, int]] = []
    s = import_paths([path], db, workers=0, chunk_bytes=4000, progress=lambda done, total, hands: calls.append((done, total, hands)))
    assert (s.stored, s.failed) == (30, 1)
    # the progress is called at the start and after each chunk: the file went in many
    with path.open("rb") as f:
        chunks = len(list(read_chunks(f, 4000)))
    assert chunks >= 10 and len(calls) == 1 + chunks and calls[-1][0] == path.stat().st_size
    expected = {r.hand_id: r.first_line for r in read_file(path) if isinstance(r, Hand)}
    con = duckdb.connect(str(db), read_only=True)
    assert dict(con.execute("SELECT hand_id, first_line FROM hands").fetchall()) == expected
    err = next(r for r in read_file(path) if isinstance(r, ErrorRecord))
    assert con.execute("SELECT line, first_line FROM failed").fetchall() == [(err.line, 31 * len(hand("x").splitlines()) - len(hand("x").splitlines()) + 31)]
    con.close()


def test_worker_processes_give_the_same_rows(tmp_path: Path) -> None:
    write_files(tmp_path / "in", 2, 30, broken_every=7)
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    sa = import_paths([tmp_path / "in"], a, workers=0)
    sb = import_paths([tmp_path / "in"], b, workers=2)
    assert (sa.stored, sa.failed) == (sb.stored, sb.failed) == (52, 8)
    for t in ("hands", "seats", "actions", "cards", "pots", "findings"):
        q = f"SELECT * EXCLUDE (hand_key) FROM {t} ORDER BY ALL" if t != "hands" else "SELECT * EXCLUDE (hand_key) FROM hands ORDER BY hand_id"
        ca, cb = duckdb.connect(str(a), read_only=True), duckdb.connect(str(b), read_only=True)
        assert ca.execute(q).fetchall() == cb.execute(q).fetchall() or t != "hands"
        assert len(ca.execute(q).fetchall()) == len(cb.execute(q).fetchall())
        ca.close()
        cb.close()


def test_second_writer_gets_in_use(tmp_path: Path) -> None:
    import subprocess
    import sys

    db = tmp_path / "h.duckdb"
    connect(db).close()
    code = f"import duckdb, time; c = duckdb.connect({str(db)!r}); print('held', flush=True); time.sleep(30)"
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(DatabaseInUseError, match="in use by another process"):
            connect(db)
        with pytest.raises(DatabaseInUseError):
            run_query(db, "SELECT 1")
    finally:
        holder.kill()
        holder.wait()


def test_query_render_and_export(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    import_paths(GOOD, db, workers=0)
    df = run_query(db, "SELECT hand_id, verdict FROM hands ORDER BY hand_id LIMIT 2")
    assert df.columns == ["hand_id", "verdict"] and df.height == 2
    assert render(df, "csv").splitlines()[0] == "hand_id,verdict"
    assert '"hand_id":"C-1001"' in render(df, "json")
    assert "| C-1001" in render(df, "table")
    assert render(run_query(db, "SELECT winners FROM pots LIMIT 1"), "csv").splitlines()[1].startswith('"[')
    counts = export_parquet(db, tmp_path / "pq")
    assert counts["hands"] == _count(db, "hands")
    assert sorted(p.name for p in (tmp_path / "pq" / "hands").iterdir()) == ["date=2026-11-29", "date=2026-11-30"]
    back = duckdb.execute(
        f"SELECT count(*), count(DISTINCT date) FROM read_parquet('{tmp_path}/pq/seats/*/*.parquet', hive_partitioning = true)"
    ).fetchone()
    assert back == (_count(db, "seats"), 2)
    joined = duckdb.execute(
        f"SELECT sum(s.net) FROM read_parquet('{tmp_path}/pq/seats/*/*.parquet', hive_partitioning = true) s "
        f"JOIN read_parquet('{tmp_path}/pq/hands/*/*.parquet', hive_partitioning = true) h USING (hand_key, date)"
    ).fetchone()
    con = duckdb.connect(str(db), read_only=True)
    assert joined == con.execute("SELECT sum(net) FROM seats").fetchone()
    con.close()


def test_folders_skip_files_without_hands_but_named_files_are_read(tmp_path: Path) -> None:
    src = tmp_path / "src"
    write_files(src, 2, 3, prefix="N")
    (src / "README.md").write_text("# my hands\nSeat 1: not a hand\n", encoding="utf-8")
    (src / "hh_000.txt.faults.jsonl").write_text('{"hand_id": "N-1", "fault": "x"}\n', encoding="utf-8")
    (src / "notes.txt").write_bytes(b"")
    db = tmp_path / "h.duckdb"
    s = import_paths([src], db, workers=0)
    assert sorted(Path(p).name for p in s.not_histories) == ["README.md", "hh_000.txt.faults.jsonl", "notes.txt"]
    assert (s.files, s.imported, s.stored, s.junk_lines) == (5, 2, 6, 0)
    assert "skipped, no hand in them: " in s.text() and "README.md" in s.text()
    assert _count(db, "files") == 2
    # a file named on the command line is read whatever it holds: its lines are reported as junk
    s = import_paths([src / "README.md"], db, workers=0)
    assert (s.not_histories, s.imported, s.junk_lines) == ([], 1, 2)


def test_a_database_of_another_schema_version_is_refused(tmp_path: Path) -> None:
    """Schema 1 had no statistics' flags on seats: reading it would give wrong figures, so it is refused with what to do."""
    from typer.testing import CliRunner

    from hhtool.cli import app
    from hhtool.store.db import SchemaVersionError
    from hhtool.store.schema import SCHEMA_VERSION

    db = tmp_path / "old.duckdb"
    connect(db).close()
    con = duckdb.connect(str(db))
    con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    con.close()
    for read_only in (True, False):
        with pytest.raises(SchemaVersionError, match=f"schema version 1, and this hhtool reads version {SCHEMA_VERSION}.*import the hand histories again"):
            connect(db, read_only=read_only)
    result = CliRunner().invoke(app, ["stats", "--db", str(db)])
    assert result.exit_code == 2 and "earlier hhtool" in result.output
    con = duckdb.connect(str(db))
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", [str(SCHEMA_VERSION + 1)])
    con.close()
    with pytest.raises(SchemaVersionError, match="newer hhtool"):
        connect(db, read_only=True)


def test_seat_statistics_columns_follow_the_flags() -> None:
    """:mod:`hhtool.store.flags` fills the ``SEAT_STATS`` columns in order: booleans first (packed as bits), then counts."""
    from hhtool.store.flags import N_FLAGS, NOT_DEALT_IN
    from hhtool.store.schema import SEAT_STATS

    assert len(NOT_DEALT_IN) == 1 + len(SEAT_STATS) - N_FLAGS  # the bits, then the counts
    assert [c.sql for c in SEAT_STATS] == ["BOOLEAN"] * N_FLAGS + ["INTEGER"] * (len(SEAT_STATS) - N_FLAGS)


def test_checkpoints_come_more_seldom_as_the_database_grows() -> None:
    """64 MB of log for a new database (a short tail), 256 MB from 256,000 hands (checkpoints cost more there)."""
    from hhtool.store.writer import checkpoint_threshold

    sizes = [checkpoint_threshold(n) for n in (0, 10_000, 100_000, 200_000, 262_144, 1_000_000, 10**8)]
    assert sizes == sorted(sizes)
    assert sizes[0] == sizes[1] == 64 << 20 and sizes[-1] == sizes[-2] == sizes[-3] == 256 << 20
    assert 64 << 20 < sizes[3] < 256 << 20


def _log_sizes(db: Path, writer: bool) -> list[int]:
    """The write-ahead log's size (MiB) after each of five commits of about 10 MiB, on a connection with or without the import's writer."""
    from hhtool.store.summary import ImportSummary
    from hhtool.store.writer import Writer

    con = connect(db)
    wal = Path(f"{db}.wal")
    sizes = []
    try:
        if writer:
            Writer(con, ImportSummary())
        con.execute("CREATE TABLE filler (a VARCHAR)")
        for k in range(5):  # under a row group a commit: logged, not written to the file directly
            con.execute(f"INSERT INTO filler SELECT repeat('x', 200) || range::VARCHAR FROM range({k * 50_000}, {(k + 1) * 50_000})")
            sizes.append(wal.stat().st_size >> 20 if wal.exists() else 0)
    finally:
        con.close()
    return sizes


def test_the_writer_checkpoints_after_more_log_than_duckdb_would(tmp_path: Path) -> None:
    """A new database: the writer's commits leave 50 MiB of log unchecked (its threshold, 64 MiB), where DuckDB alone checkpoints past 16 MiB."""
    plain = _log_sizes(tmp_path / "plain.duckdb", writer=False)
    assert any(b < a for a, b in zip(plain, plain[1:])), plain  # DuckDB's own threshold: the log was checkpointed
    tuned = _log_sizes(tmp_path / "tuned.duckdb", writer=True)
    assert tuned == sorted(tuned) and 40 <= tuned[-1] < 64, tuned
    with duckdb.connect(str(tmp_path / "tuned.duckdb"), read_only=True) as con:  # and nothing committed was lost
        assert con.execute("SELECT count(*) FROM filler").fetchone() == (250_000,)


def test_an_unreadable_file_is_reported_and_the_others_imported(tmp_path: Path) -> None:
    """A truncated .gz among good files: named in the summary (exit 1), every other file imported."""
    src = tmp_path / "in"
    good, _ = write_files(src, 3, 5, prefix="U")
    whole = gzip.compress((src / "hh_001.txt").read_bytes())
    (src / "hh_001.txt").unlink()
    (src / "hh_001.txt.gz").write_bytes(whole[: len(whole) // 2])
    db = tmp_path / "h.duckdb"
    s = import_paths([src], db, workers=0)
    assert len(s.unreadable) == 1 and "hh_001.txt.gz" in s.unreadable[0] and not s.ok
    assert "cannot read" in s.text() and s.stored == good - 5 and s.imported == 2
    assert _count(db, "hands") == good - 5 and _count(db, "files") == 2
    (src / "hh_001.txt.gz").write_bytes(whole)  # mended: a rerun adds it
    again = import_paths([src], db, workers=0)
    assert (again.unreadable, again.stored, again.unchanged) == ([], 5, 2)


def test_an_error_in_the_writer_thread_reaches_the_import(tmp_path: Path) -> None:
    """The writer's thread fails (a frame without the hands' columns): finish() raises it, nothing is committed."""
    import polars as pl

    from hhtool.store.summary import ImportSummary
    from hhtool.store.writer import Writer, WriterThread
    from hhtool.store.worker import ChunkResult

    con = connect(tmp_path / "h.duckdb")
    try:
        thread = WriterThread(Writer(con, ImportSummary(), batch_hands=1))
        thread.hand_over(ChunkResult(0, 0, {"hands": pl.DataFrame({"local": [0]})}, hands=1), None)
        with pytest.raises(pl.exceptions.ColumnNotFoundError):
            thread.finish()
        assert thread.done.is_set() and not thread.thread.is_alive()
        assert con.execute("SELECT count(*) FROM hands").fetchone() == (0,)
    finally:
        con.close()


def test_findings_keep_their_cause_and_an_older_findings_table_gains_the_column(tmp_path: Path) -> None:
    """One wrong bet: the bet's row is the cause (cause_seq NULL), the calls and the round's end point at its seq."""
    text = (SAMPLES / "000_format_example.txt").read_text(encoding="utf-8")
    f = tmp_path / "wrong_bet.txt"
    f.write_text(text.replace("dave: bets €0.50\nalice: calls €0.50", "dave: bets €0.70\nalice: calls €0.50"), encoding="utf-8")
    db = tmp_path / "h.duckdb"
    import_paths([f], db, workers=0)
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute("SELECT seq, code, cause_seq FROM findings ORDER BY seq").fetchall()
    con.close()
    assert rows[0][1:] == ("bet_size", None) and len(rows) > 2
    assert all(cause == 0 for _, _, cause in rows[1:])
    # a database written before the column: opened for writing, it gains it (NULL for its rows) and imports on
    old = tmp_path / "old.duckdb"
    import_paths([SAMPLES / "010_classic_own_view_three_hands.txt"], old, workers=0)
    con = duckdb.connect(str(old))
    con.execute("INSERT INTO findings VALUES (1, 0, 'description', 'warning', 1, 'before the column', NULL)")
    con.execute("ALTER TABLE findings DROP COLUMN cause_seq")
    con.close()
    import_paths([f], old, workers=0)
    con = duckdb.connect(str(old), read_only=True)
    assert con.execute("SELECT count(*) FROM findings WHERE cause_seq = 0").fetchone()[0] == len(rows) - 1  # type: ignore[index]
    assert con.execute("SELECT cause_seq FROM findings WHERE message = 'before the column'").fetchone() == (None,)
    con.close()
